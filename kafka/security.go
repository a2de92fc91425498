package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// TLSOptions are the command line's TLS settings.
type TLSOptions struct {
	Enabled            bool
	CAFile             string
	CertFile           string
	KeyFile            string
	InsecureSkipVerify bool
}

// TLSConfig builds a client TLS configuration, or nil when TLS is off. Any
// of the file options turns TLS on.
func TLSConfig(o TLSOptions) (*tls.Config, error) {
	if !o.Enabled && o.CAFile == "" && o.CertFile == "" && o.KeyFile == "" && !o.InsecureSkipVerify {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.InsecureSkipVerify} //nolint:gosec // the user asked for it
	if o.CAFile != "" {
		pem, err := ReadSmallFile("--tls-ca", o.CAFile, MaxPEMFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("read --tls-ca %s: no PEM certificates in it", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if o.CertFile != "" {
		certPEM, err := ReadSmallFile("--tls-cert", o.CertFile, MaxPEMFile)
		if err != nil {
			return nil, err
		}
		keyPEM, err := ReadSmallFile("--tls-key", o.KeyFile, MaxPEMFile)
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// The most ReadSmallFile reads of a certificate, key or CA file (a CA
// bundle of every public root is about 200 KiB), and of a password file.
const (
	MaxPEMFile      = 1 << 20
	MaxPasswordFile = 64 << 10
)

// ReadSmallFile reads the file a flag names, at most limit bytes: a
// regular file, or a pipe (`--sasl-password-file <(pass kafka)`). Anything
// else (/dev/zero, /dev/urandom, a terminal) is refused, and a file past
// limit is an error naming the flag and the limit, not a read until memory
// runs out.
func ReadSmallFile(flag, path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", flag, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", flag, err)
	}
	if m := fi.Mode(); !m.IsRegular() && m&os.ModeNamedPipe == 0 {
		return nil, fmt.Errorf("read %s %s: not a regular file or a pipe", flag, path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", flag, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s %s: larger than %s, the most kgwatch reads", flag, path, kib(limit))
	}
	return b, nil
}

// kib writes a size limit: "64 KiB", "1 MiB".
func kib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// SASLMechanism builds a SASL mechanism by name (PLAIN, SCRAM-SHA-256,
// SCRAM-SHA-512), or nil when name is empty. An empty user or password is
// an error, not an attempt. The password never appears in the errors.
func SASLMechanism(name, user, password string) (sasl.Mechanism, error) {
	if name == "" {
		return nil, nil
	}
	mech := strings.ToUpper(name)
	if mech != "PLAIN" && mech != "SCRAM-SHA-256" && mech != "SCRAM-SHA-512" {
		return nil, fmt.Errorf("unknown SASL mechanism %q: use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", name)
	}
	if user == "" {
		return nil, fmt.Errorf("SASL %s needs --sasl-user", name)
	}
	if password == "" {
		return nil, fmt.Errorf("SASL %s needs a password: set $KGWATCH_SASL_PASSWORD or --sasl-password-file", name)
	}
	if mech == "PLAIN" {
		return plain.Mechanism{Username: user, Password: password}, nil
	}
	algo := scram.SHA256
	if mech == "SCRAM-SHA-512" {
		algo = scram.SHA512
	}
	m, err := scram.Mechanism(algo, user, password)
	if err != nil {
		return nil, fmt.Errorf("SASL %s: %w", name, err)
	}
	return m, nil
}
