package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/headless"
	"github.com/kgwatch/kgwatch/ui/replayer"
)

// replayFlags are the flags of `kgwatch replay FILE`.
type replayFlags struct {
	events bool
	once   bool
	at     string
	output string
	speed  float64
	from   string
	group  string
}

// Speeds `--speed` takes: slower than a tenth shows nothing move, faster
// than 600× skips an hour in six seconds.
const (
	minSpeed = 0.1
	maxSpeed = 600
)

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f replayFlags
	fs := newFlagSet("kgwatch replay", stderr)
	var helpErr error // as runWatch's
	fs.Usage = func() {
		_, helpErr = fmt.Fprintf(stdout, "Usage:\n  kgwatch replay FILE [flags]\n\nPlays a recording made with --record in the same TUI, with no cluster:\nspace pauses, ←/→ jump to the previous/next event, +/- change the speed\n(1×, 2×, 4×, 10×, 60×), home/end go to the start/end.\n\nFlags:\n%s", fs.FlagUsages())
	}
	fs.BoolVar(&f.events, "events", false, "print the recorded timeline as JSON lines, as --events printed it live")
	fs.BoolVar(&f.once, "once", false, "print the snapshot as it stood at --at (default: the end), as --once prints")
	fs.StringVar(&f.at, "at", "", "with --once: when, from the recording's start (1m30s), or a clock time (03:12:40, RFC 3339)")
	fs.StringVarP(&f.output, "output", "o", "table", "output of --once: "+headless.FormatNames())
	fs.Float64Var(&f.speed, "speed", 1, fmt.Sprintf("speed to play at (%g to %g; + and - step through 1, 2, 4, 10, 60)", float64(minSpeed), float64(maxSpeed)))
	fs.StringVar(&f.from, "from", "", "where to start playing: from the recording's start (2m), or a clock time")
	fs.StringVarP(&f.group, "group", "g", "", "the group, in a recording of the overview")
	if err := fs.Parse(longFlags(fs, args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return cmp.Or(helpErr, err)
		}
		return model.UsageError{Msg: err.Error()}
	}
	format, err := headless.LookupFormat(f.output)
	switch {
	case fs.NArg() == 0:
		return model.UsageError{Msg: "replay needs the recording: kgwatch replay FILE"}
	case fs.NArg() > 1:
		return model.Usagef("unexpected argument %q", fs.Arg(1))
	case err != nil:
		return err
	case f.events && f.once:
		return model.UsageError{Msg: "--once and --events do not go together"}
	case f.at != "" && !f.once:
		return model.UsageError{Msg: "--at goes with --once (to start playing there: --from)"}
	case f.from != "" && (f.once || f.events):
		return model.UsageError{Msg: "--from is where the TUI starts playing: with --once, use --at"}
	case fs.Changed("speed") && (f.once || f.events):
		return model.UsageError{Msg: "--speed is the TUI's: --once and --events print at once"}
	case fs.Changed("output") && !f.once:
		return model.UsageError{Msg: "--output goes with --once"}
	case math.IsNaN(f.speed) || f.speed < minSpeed || f.speed > maxSpeed:
		return model.Usagef("--speed must be from %g to %g, got %g", float64(minSpeed), float64(maxSpeed), f.speed)
	}
	path := fs.Arg(0)
	if f.events {
		return replayer.Events(path, f.group, stdout, stderr)
	}
	// --once and the TUI read the file twice: its span first (--at, the
	// position), then its records.
	rec, err := replayer.Scan(path, f.group)
	if err != nil {
		return err
	}
	if f.once {
		return rec.Once(f.at, format, stdout, stderr)
	}
	rp, opts, err := rec.Player(f.from, f.speed)
	if err != nil {
		return err
	}
	if err := runApp(ctx, opts, func(opts ui.Options) *ui.App { return ui.NewReplay(rp, opts) }); err != nil {
		return err
	}
	return rec.Ended(stderr)
}
