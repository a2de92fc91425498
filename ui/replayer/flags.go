package replayer

import (
	"fmt"
	"math"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui/headless"
)

// Flags are the flags of `kgwatch replay FILE`.
type Flags struct {
	Events bool
	Once   bool
	At     string
	Output string
	Speed  float64
	From   string
	Group  string
}

// Speeds `--speed` takes: slower than a tenth shows nothing move, faster
// than 600× skips an hour in six seconds.
const (
	minSpeed = 0.1
	maxSpeed = 600
)

// Register adds the flags to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.Events, "events", false, "print the recorded timeline as JSON lines, as --events printed it live")
	fs.BoolVar(&f.Once, "once", false, "print the snapshot as it stood at --at (default: the end), as --once prints")
	fs.StringVar(&f.At, "at", "", "with --once: when, from the recording's start (1m30s), or a clock time (03:12:40, RFC 3339)")
	fs.StringVarP(&f.Output, "output", "o", "table", "output of --once: "+headless.FormatNames())
	fs.Float64Var(&f.Speed, "speed", 1, fmt.Sprintf("speed to play at (%g to %g; + and - step through 1, 2, 4, 10, 60)", float64(minSpeed), float64(maxSpeed)))
	fs.StringVar(&f.From, "from", "", "where to start playing: from the recording's start (2m), or a clock time")
	fs.StringVarP(&f.Group, "group", "g", "", "the group, in a recording of the overview")
}

// Check checks the flags and the argument parsed into fs, and returns
// the recording's path and --once's format. Every mistake is a
// model.UsageError.
func (f *Flags) Check(fs *pflag.FlagSet) (path string, format headless.Format, err error) {
	format, err = headless.LookupFormat(f.Output)
	switch {
	case fs.NArg() == 0:
		err = model.UsageError{Msg: "replay needs the recording: kgwatch replay FILE"}
	case fs.NArg() > 1:
		err = model.Usagef("unexpected argument %q", fs.Arg(1))
	case err != nil:
	case f.Events && f.Once:
		err = model.UsageError{Msg: "--once and --events do not go together"}
	case f.At != "" && !f.Once:
		err = model.UsageError{Msg: "--at goes with --once (to start playing there: --from)"}
	case f.From != "" && (f.Once || f.Events):
		err = model.UsageError{Msg: "--from is where the TUI starts playing: with --once, use --at"}
	case fs.Changed("speed") && (f.Once || f.Events):
		err = model.UsageError{Msg: "--speed is the TUI's: --once and --events print at once"}
	case fs.Changed("output") && !f.Once:
		err = model.UsageError{Msg: "--output goes with --once"}
	case kafka.CheckGroupName(f.Group) != nil:
		err = model.UsageError{Msg: "--group: " + kafka.CheckGroupName(f.Group).Error()}
	case math.IsNaN(f.Speed) || f.Speed < minSpeed || f.Speed > maxSpeed:
		err = model.Usagef("--speed must be from %g to %g, got %g", float64(minSpeed), float64(maxSpeed), f.Speed)
	}
	return fs.Arg(0), format, err
}
