package kafka

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kgwatch/kgwatch/model"
)

// SecurityFlags.Apply: SASL settings given wrong are usage errors naming
// the flag; a mechanism with its password fills the config.
func TestSecurityFlagsApply(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "pass")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		s    SecurityFlags
		want string
	}{
		{SecurityFlags{SASLUser: "u"}, "--sasl-user and --sasl-password-file need --sasl-mechanism"},
		{SecurityFlags{SASLMechanism: "PLAIN", SASLUser: "u", SASLPasswordFile: empty}, "--sasl-password-file " + empty + " is empty"},
		{SecurityFlags{SASLMechanism: "GSSAPI", SASLUser: "u"}, "SASL"},
	} {
		var cfg Config
		err := tt.s.Apply(&cfg)
		var ue model.UsageError
		if !errors.As(err, &ue) || !strings.Contains(ue.Msg, tt.want) || cfg.SASL != nil {
			t.Errorf("%+v: %v, want a usage error with %q", tt.s, err, tt.want)
		}
	}
	t.Setenv("KGWATCH_SASL_PASSWORD", "secret")
	var cfg Config
	if err := (&SecurityFlags{SASLMechanism: "PLAIN", SASLUser: "u"}).Apply(&cfg); err != nil || cfg.SASL == nil {
		t.Errorf("PLAIN with a password: %v, mechanism %v", err, cfg.SASL)
	}
}
