package kafka

import (
	"strings"
	"testing"
)

func TestParseBroker(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "kafka1", want: "kafka1:9092"},
		{in: " kafka1:19092 ", want: "kafka1:19092"},
		{in: "127.0.0.1", want: "127.0.0.1:9092"},
		{in: "127.0.0.1:9093", want: "127.0.0.1:9093"},
		{in: "[::1]", want: "[::1]:9092"},
		{in: "[::1]:19092", want: "[::1]:19092"},
		{in: "::1", want: "[::1]:9092"},
		{in: "2001:db8::1", want: "[2001:db8::1]:9092"},
		{in: "fe80::1%eth0", want: "[fe80::1%eth0]:9092"},
		{in: "[fe80::1%eth0]:9093", want: "[fe80::1%eth0]:9093"},
		{in: "::ffff:10.0.0.1", want: "[::ffff:10.0.0.1]:9092"},
		{in: "kafka:09092", want: "kafka:9092"},
		{in: "fe80::1:9092", err: "ambiguous: write [fe80::1]:9092 for port 9092, or [fe80::1:9092] for port 9092"},
		{in: "::1:80", err: "ambiguous"},
		{in: "[[::1]]:9092", err: "want [IPv6]:port"},
		{in: "[::1", err: "no closing ]"},
		{in: "[::1]x", err: "want [IPv6]:port"},
		{in: "[::1]:", err: "no port"},
		{in: "[]:9092", err: "no host"},
		{in: ":9092", err: "no host"},
		{in: "kafka:", err: "no port"},
		{in: "kafka:http", err: `port "http" is not a number`},
		{in: "kafka:0", err: "port \"0\""},
		{in: "kafka:65536", err: "port \"65536\""},
		{in: "kafka:-1", err: "not a number"},
		{in: "a:b:c", err: "put an IPv6 address in brackets"},
		{in: "kafka 1:9092", err: "want host:port"},
		{in: "kafka\x1b[2J:9092", err: "want host:port"},
		{in: "", err: "empty"},
	} {
		got, err := ParseBroker(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseBroker(%q) = %q, %v; want %q", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseBroker(%q) = %q, %v; want an error saying %q", c.in, got, err, c.err)
		}
	}
}

// A canonical address parses to itself.
func FuzzParseBroker(f *testing.F) {
	for _, s := range []string{"kafka1", "[::1]", "::1", "h:9092", "fe80::1%eth0", "[::1]:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseBroker(s)
		if err != nil {
			return
		}
		if again, err := ParseBroker(a); err != nil || again != a {
			t.Errorf("ParseBroker(%q) = %q, which parses to %q, %v", s, a, again, err)
		}
		if strings.Contains(a, "[[") {
			t.Errorf("ParseBroker(%q) = %q: brackets twice", s, a)
		}
	})
}
