package kafka

import (
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
func (s *SecurityFlags) Apply(cfg *Config) error {
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
		b, err := ReadSmallFile("--sasl-password-file", s.SASLPasswordFile, MaxPasswordFile)
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
