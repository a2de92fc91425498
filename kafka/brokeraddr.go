package kafka

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
)

// DefaultPort is the port of a broker address given without one.
const DefaultPort = 9092

// ParseBroker reads one bootstrap broker address and returns it as
// host:port, an IPv6 address in brackets once: "kafka1" is kafka1:9092,
// "[::1]" is [::1]:9092, and a bare IPv6 address such as "::1" or
// "2001:db8::1" is that address on port 9092 — unless its last group could
// also be a port ("fe80::1:9092"), which is refused as ambiguous. The
// error names the address, not the flag.
//
// kafka-go's own rule (net.SplitHostPort, else JoinHostPort(s, "9092"))
// makes "[::1]" into "[[::1]]:9092", so addresses are canonical before
// they reach it.
func ParseBroker(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("empty broker address")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '/' || r == ',' {
			return "", fmt.Errorf("broker address %q: want host:port", s)
		}
	}
	host, port := s, ""
	switch colons := strings.Count(s, ":"); {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", fmt.Errorf("broker address %q: no closing ]", s)
		}
		host = s[1:end]
		switch rest := s[end+1:]; {
		case rest == "":
		case rest[0] == ':' && !strings.ContainsAny(rest[1:], "[]"):
			port = rest[1:]
			if port == "" {
				return "", fmt.Errorf("broker address %q: no port after the colon", s)
			}
		default:
			return "", fmt.Errorf("broker address %q: want [IPv6]:port", s)
		}
	case colons == 1:
		host, port, _ = strings.Cut(s, ":")
		if port == "" {
			return "", fmt.Errorf("broker address %q: no port after the colon", s)
		}
	case colons > 1:
		// Unbracketed: only an IPv6 address, on the default port.
		if _, err := netip.ParseAddr(s); err != nil {
			return "", fmt.Errorf("broker address %q: put an IPv6 address in brackets, as [::1]:9092", s)
		}
		i := strings.LastIndexByte(s, ':')
		if _, err := netip.ParseAddr(s[:i]); err == nil && validPort(s[i+1:]) {
			return "", fmt.Errorf("broker address %q is ambiguous: write [%s]:%s for port %s, or [%s] for port %d",
				s, s[:i], s[i+1:], s[i+1:], s, DefaultPort)
		}
	}
	if host == "" {
		return "", fmt.Errorf("broker address %q: no host", s)
	}
	if strings.ContainsAny(host, "[]") {
		return "", fmt.Errorf("broker address %q: want host:port or [IPv6]:port", s)
	}
	if port == "" {
		port = strconv.Itoa(DefaultPort)
	} else if !validPort(port) {
		return "", fmt.Errorf("broker address %q: port %q is not a number from 1 to 65535", s, port)
	}
	n, _ := strconv.Atoi(port)
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// validPort reports whether s is a decimal port number, 1 to 65535.
func validPort(s string) bool {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" || len(s) > 5 {
		return false
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 65535
}

// canonicalBrokers returns the bootstrap list parsed, duplicates dropped,
// in the order given; the first unreadable address is an error.
func canonicalBrokers(list []string) ([]string, error) {
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for _, b := range list {
		a, err := ParseBroker(b)
		if err != nil {
			return nil, err
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}
