// Package cli is what kgwatch's commands (watch, demo, replay) share of
// the command line: a flag set whose help is the output, single-dash long
// flags taken as people type them, and pflag's errors as usage errors.
package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/model"
)

// Command is a command's flags.
type Command struct {
	Flags *pflag.FlagSet
	// helpErr is the failure of writing the help (a closed stdout).
	helpErr error
}

// New returns the flags of the command name. Help asked for (-h, --help)
// is the output: help, a format whose one %s is the flags' usage, goes to
// stdout (exit 0, so `kgwatch --help | less` pages it); pflag's own
// output (its deprecation notes) goes to stderr.
func New(name, help string, stdout, stderr io.Writer) *Command {
	c := &Command{Flags: pflag.NewFlagSet(name, pflag.ContinueOnError)}
	c.Flags.SetOutput(stderr)
	c.Flags.SortFlags = false
	c.Flags.Usage = func() {
		_, c.helpErr = fmt.Fprintf(stdout, help, c.Flags.FlagUsages())
	}
	return c
}

// Parse parses args, with single-dash long flags (`-group x`) accepted.
// Its errors are model.UsageErrors, but for help asked for
// (pflag.ErrHelp, or the error writing it). With withArgs, arguments
// are the command's (Flags.Args); without, one is a mistake.
func (c *Command) Parse(args []string, withArgs bool) error {
	fs := c.Flags
	if err := fs.Parse(LongFlags(fs, args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return cmp.Or(c.helpErr, err)
		}
		return model.UsageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 && !withArgs {
		// `kgwatch -g -b host:9092` leaves host:9092 over: say what was
		// forgotten, not what was left.
		var forgot error
		fs.Visit(func(f *pflag.Flag) {
			if v := f.Value.String(); forgot == nil && f.Value.Type() == "string" && strings.HasPrefix(v, "-") {
				forgot = model.Usagef("--%s needs a value, got the flag %q", f.Name, v)
			}
		})
		if forgot != nil {
			return forgot
		}
		return model.Usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// LongFlags rewrites `-name` and `-name=v` to `--name` when name is a long
// flag of fs, so that `kgwatch -group x` means what its user meant rather
// than `-g roup`.
func LongFlags(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && fs.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}
