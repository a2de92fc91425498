package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui/headless"
)

// newFlagSet returns a flag set whose own output (pflag's deprecation
// notes) goes to stderr; each command's Usage writes its help to stdout.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	return fs
}

// parse parses args with single-dash long flags (`-group x`) accepted as
// people type them, and turns pflag's errors into usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(longFlags(fs, args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return model.UsageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
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

// longFlags rewrites `-name` and `-name=v` to `--name` when name is a long
// flag of fs, so that `kgwatch -group x` means what its user meant rather
// than `-g roup`.
func longFlags(fs *pflag.FlagSet, args []string) []string {
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

// check checks the watch's flags, parsed into fs, and returns the
// brokers. Every mistake is a model.UsageError.
func (f *watchFlags) check(fs *pflag.FlagSet) ([]string, error) {
	var err error
	if f.format, err = headless.LookupFormat(f.output); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		name           string
		v, least, most time.Duration
	}{
		// A poll is a few requests per broker: faster than 100ms would
		// load a production cluster for nothing a person can read.
		{"interval", f.interval, model.MinInterval, model.MaxInterval},
		{"timeout", f.timeout, model.MinTimeout, model.MaxTimeout},
		{"stall-after", f.stallAfter, model.MinStallAfter, model.MaxStallAfter},
	} {
		if err := model.CheckRange(d.name, d.v, d.least, d.most); err != nil {
			return nil, err
		}
	}
	if f.maxLagAge != 0 && (f.maxLagAge < model.MinMaxLagAge || f.maxLagAge > model.MaxMaxLagAge) {
		return nil, model.Usagef("--max-lag-age must be 0 (no limit) or from %s to %s, got %s",
			model.Setting(model.MinMaxLagAge), model.Setting(model.MaxMaxLagAge), f.maxLagAge)
	}
	if err := checkMaxRebalances(f.maxRebalances); err != nil {
		return nil, err
	}
	if fs.Changed("fail-on") {
		if err := f.checkFailOn(); err != nil {
			return nil, err
		}
	}
	switch {
	case f.group == "" && fs.Changed("group"):
		return nil, model.UsageError{Msg: "--group is empty"}
	case f.group == "" && f.events:
		return nil, model.UsageError{Msg: "--events needs --group: the timeline is one group's"}
	case strings.HasPrefix(f.group, "-"):
		return nil, model.Usagef("--group needs a value, got the flag %q", f.group)
	case strings.HasPrefix(f.brokers, "-"):
		return nil, model.Usagef("--brokers needs a value, got the flag %q", f.brokers)
	case f.once && f.events:
		return nil, model.UsageError{Msg: "--once and --events do not go together"}
	case f.once && f.record != "":
		return nil, model.UsageError{Msg: "--once and --record do not go together: record a watch (the TUI or --events)"}
	}
	brokersFrom := "--brokers"
	if !fs.Changed("brokers") && os.Getenv("KAFKA_BROKERS") != "" {
		brokersFrom = "$KAFKA_BROKERS"
	}
	return kafka.ParseBrokers(f.brokers, brokersFrom)
}

// checkMaxRebalances checks --max-rebalances (the watch's and the demo's).
func checkMaxRebalances(n int) error {
	if n < 0 || n > model.MaxMaxRebalances {
		return model.Usagef("--max-rebalances must be 0 (no limit) or from 1 to %d, got %d", model.MaxMaxRebalances, n)
	}
	return nil
}
