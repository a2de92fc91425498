package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/model"
)

func TestSingleDashLongFlags(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	group := fs.StringP("group", "g", "", "")
	brokers := fs.StringP("brokers", "b", "", "")
	out := fs.StringP("output", "o", "", "")
	once := fs.Bool("once", false, "")
	if err := fs.Parse(LongFlags(fs, []string{"-group", "order-workers", "-brokers=h:9092", "-o", "json", "-once"})); err != nil {
		t.Fatal(err)
	}
	if *group != "order-workers" || *brokers != "h:9092" || *out != "json" || !*once {
		t.Errorf("group=%q brokers=%q output=%q once=%v", *group, *brokers, *out, *once)
	}
	if got := LongFlags(fs, []string{"--", "-group"}); got[1] != "-group" {
		t.Errorf("rewrote past --: %v", got)
	}
}

// Parse: help goes to stdout as ErrHelp; a mistake is a usage error; an
// argument is one unless the command takes them.
func TestParse(t *testing.T) {
	var stdout bytes.Buffer
	c := New("t", "Usage: t\n%s", &stdout, &bytes.Buffer{})
	c.Flags.StringP("group", "g", "", "the group")
	if err := c.Parse([]string{"-h"}, false); !errors.Is(err, pflag.ErrHelp) || !strings.HasPrefix(stdout.String(), "Usage: t\n") || !strings.Contains(stdout.String(), "--group") {
		t.Errorf("-h: %v, %q", err, stdout.String())
	}
	var ue model.UsageError
	if err := c.Parse([]string{"-g", "-b", "k:9092"}, false); !errors.As(err, &ue) {
		t.Errorf("a forgotten value: %v", err)
	}
	if err := c.Parse([]string{"file"}, true); err != nil || c.Flags.Arg(0) != "file" {
		t.Errorf("an argument taken: %v", err)
	}
}
