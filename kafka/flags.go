package kafka

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/model"
)

// SecurityFlags are the TLS and SASL flags, shared by the watch and the
// demo.
type SecurityFlags struct {
	TLS              TLSOptions
	SASLMechanism    string
	SASLUser         string
	SASLPasswordFile string
}

// Register adds the flags to fs.
func (s *SecurityFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&s.TLS.Enabled, "tls", false, "connect with TLS")
	fs.StringVar(&s.TLS.CAFile, "tls-ca", "", "PEM file of CA certificates to trust (implies --tls)")
	fs.StringVar(&s.TLS.CertFile, "tls-cert", "", "PEM client certificate (implies --tls)")
	fs.StringVar(&s.TLS.KeyFile, "tls-key", "", "PEM client key (implies --tls)")
	fs.BoolVar(&s.TLS.InsecureSkipVerify, "tls-insecure-skip-verify", false, "do not verify the brokers' certificates")
	fs.StringVar(&s.SASLMechanism, "sasl-mechanism", "", "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fs.StringVar(&s.SASLUser, "sasl-user", "", "SASL user; the password comes from $KGWATCH_SASL_PASSWORD or --sasl-password-file")
	fs.StringVar(&s.SASLPasswordFile, "sasl-password-file", "", "file holding the SASL password")
}

// Apply fills cfg's TLS and SASL settings. Bad settings are
// model.UsageErrors; the password is never echoed.
func (s *SecurityFlags) Apply(cfg *Config) error { return s.ApplyContext(context.Background(), cfg) }

// ApplyContext is Apply, given up when ctx ends: a --sasl-password-file
// that is a pipe with no writer yet (a FIFO) blocks its open and read,
// and SIGINT or SIGTERM must still end kgwatch then. The error is then
// ctx's.
func (s *SecurityFlags) ApplyContext(ctx context.Context, cfg *Config) error {
	t, err := TLSConfig(s.TLS)
	if err != nil {
		return model.UsageError{Msg: err.Error()}
	}
	cfg.TLS = t
	if s.SASLMechanism == "" {
		if s.SASLUser != "" || s.SASLPasswordFile != "" {
			return model.UsageError{Msg: "--sasl-user and --sasl-password-file need --sasl-mechanism"}
		}
		return nil
	}
	pass := os.Getenv("KGWATCH_SASL_PASSWORD")
	if s.SASLPasswordFile != "" {
		b, err := readSmallFileContext(ctx, "--sasl-password-file", s.SASLPasswordFile, MaxPasswordFile)
		if err != nil && ctx.Err() != nil {
			return err // not the flag's fault: the watch was ended
		}
		if err != nil {
			return model.UsageError{Msg: err.Error()}
		}
		pass = strings.TrimRight(string(b), "\r\n")
		if pass == "" {
			return model.Usagef("--sasl-password-file %s is empty", s.SASLPasswordFile)
		}
	}
	m, err := SASLMechanism(s.SASLMechanism, s.SASLUser, pass)
	if err != nil {
		return model.UsageError{Msg: err.Error()}
	}
	cfg.SASL = m
	return nil
}

// readSmallFileContext is ReadSmallFile, given up when ctx ends: the
// read runs on a goroutine of its own, which a FIFO with no writer keeps
// blocked in open(2) until a writer comes or the process exits; nothing
// waits for it after ctx ends.
func readSmallFileContext(ctx context.Context, flag, path string, limit int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1) // the reader never waits for a receiver
	go func() {
		b, err := ReadSmallFile(flag, path, limit)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("read %s %s: %w", flag, path, context.Cause(ctx))
	}
}
