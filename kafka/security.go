package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
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
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read --tls-ca: %w", err)
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
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
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
