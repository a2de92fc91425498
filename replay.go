package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
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
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n  kgwatch replay FILE [flags]\n\nPlays a recording made with --record in the same TUI, with no cluster:\nspace pauses, ←/→ jump to the previous/next event, +/- change the speed\n(1×, 2×, 4×, 10×, 60×), home/end go to the start/end.\n\nFlags:\n%s", fs.FlagUsages())
	}
	fs.BoolVar(&f.events, "events", false, "print the recorded timeline as JSON lines, as --events printed it live")
	fs.BoolVar(&f.once, "once", false, "print the snapshot as it stood at --at (default: the end), as --once prints")
	fs.StringVar(&f.at, "at", "", "with --once: when, from the recording's start (1m30s), or a clock time (03:12:40, RFC 3339)")
	fs.StringVarP(&f.output, "output", "o", "table", "output of --once: table or json")
	fs.Float64Var(&f.speed, "speed", 1, fmt.Sprintf("speed to play at (%g to %g; + and - step through 1, 2, 4, 10, 60)", float64(minSpeed), float64(maxSpeed)))
	fs.StringVar(&f.from, "from", "", "where to start playing: from the recording's start (2m), or a clock time")
	fs.StringVarP(&f.group, "group", "g", "", "the group, in a recording of the overview")
	if err := fs.Parse(longFlags(fs, args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	switch {
	case fs.NArg() == 0:
		return usageError{"replay needs the recording: kgwatch replay FILE"}
	case fs.NArg() > 1:
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(1))}
	case f.output != "table" && f.output != "json":
		return usageError{fmt.Sprintf("unknown output format %q: use table or json", f.output)}
	case f.events && f.once:
		return usageError{"--once and --events do not go together"}
	case f.at != "" && !f.once:
		return usageError{"--at goes with --once (to start playing there: --from)"}
	case f.from != "" && (f.once || f.events):
		return usageError{"--from is where the TUI starts playing: with --once, use --at"}
	case fs.Changed("speed") && (f.once || f.events):
		return usageError{"--speed is the TUI's: --once and --events print at once"}
	case fs.Changed("output") && !f.once:
		return usageError{"--output goes with --once"}
	case math.IsNaN(f.speed) || f.speed < minSpeed || f.speed > maxSpeed:
		return usageError{fmt.Sprintf("--speed must be from %g to %g, got %g", float64(minSpeed), float64(maxSpeed), f.speed)}
	}
	path := fs.Arg(0)
	sum, err := scanRecording(path)
	if err != nil {
		return err
	}
	h := sum.Header
	group := h.Group
	if f.group != "" {
		if !h.Overview && f.group != h.Group {
			return usageError{fmt.Sprintf("%s records %s, not %s", path, model.Printable(h.Group), model.Printable(f.group))}
		}
		group = f.group
	}
	if (f.events || f.once) && group == "" {
		return usageError{fmt.Sprintf("%s is a recording of the overview: --events and --once need --group, one of: %s", path, groupList(sum.Groups))}
	}
	note := endNote(path, sum)
	switch {
	case f.events:
		err = replayEvents(path, group, stdout)
	case f.once:
		var at time.Time
		if at, err = recordingTime(f.at, "--at", sum); err == nil {
			err = replayOnce(path, group, at, f.output, stdout)
		}
	default:
		err = replayTUI(ctx, path, sum, f)
	}
	if note != "" && (err == nil || f.events || f.once) {
		fmt.Fprintln(stderr, note)
	}
	return err
}

// scanRecording reads path through: its header, span and end.
func scanRecording(path string) (record.Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return record.Summary{}, err
	}
	defer f.Close()
	sum, err := record.Scan(f)
	if err != nil {
		return sum, recordingError(path, err)
	}
	return sum, nil
}

// recordingError words what NewReader and Scan refuse, naming the file.
func recordingError(path string, err error) error {
	var nf *record.NewerFormatError
	switch {
	case errors.As(err, &nf):
		return fmt.Errorf("%s was %w", path, err)
	case errors.Is(err, record.ErrNotRecording):
		return fmt.Errorf("%s is not a kgwatch recording", path)
	}
	return fmt.Errorf("read %s: %w", path, err)
}

// endNote is the line on stderr for a recording that does not end
// cleanly; "" for one that does.
func endNote(path string, sum record.Summary) string {
	upTo := func(t time.Time) string {
		if t.IsZero() {
			return "it holds no record"
		}
		return "replayed up to " + t.Format("15:04:05") + " (" + playTime(t.Sub(sum.Header.Started)) + " in)"
	}
	var d *record.DamagedError
	switch {
	case sum.End == nil:
		return ""
	case errors.Is(sum.End, record.ErrUnfinished):
		return fmt.Sprintf("kgwatch: %s ends without its end mark (kgwatch was killed?): %s", path, upTo(sum.Last))
	case errors.As(sum.End, &d) && d.Truncated:
		return fmt.Sprintf("kgwatch: %s: the last record is cut short (a crash or a full disk?) and is ignored: %s", path, upTo(sum.Last))
	default:
		return fmt.Sprintf("kgwatch: %s is damaged after its record at %s (%s): the rest is ignored", path, sum.Last.Format("15:04:05"), oneLine(sum.End.Error()))
	}
}

// playTime is an offset into a recording as the flags take it: "1m30s".
func playTime(d time.Duration) string { return model.Setting(d.Round(100 * time.Millisecond)) }

func groupList(gs []string) string {
	if len(gs) == 0 {
		return "none was opened"
	}
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = model.Printable(g)
	}
	return strings.Join(out, ", ")
}

// recordingTime reads --at or --from: an offset from the recording's
// start (1m30s), an RFC 3339 time, or a clock time (15:04:05, 15:04) on
// the recording's day, local time, the first after its start.
func recordingTime(s, flag string, sum record.Summary) (time.Time, error) {
	start := sum.Header.Started
	end := sum.Last
	if end.Before(start) {
		end = start
	}
	if s == "" {
		return end, nil
	}
	var t time.Time
	if d, err := time.ParseDuration(s); err == nil {
		t = start.Add(d)
	} else if at, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = at
	} else if c, ok := clockTime(s); ok {
		st := start.Local()
		t = time.Date(st.Year(), st.Month(), st.Day(), c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), time.Local)
		if t.Before(st.Truncate(time.Second)) {
			t = t.AddDate(0, 0, 1)
		}
	} else {
		return t, usageError{fmt.Sprintf("%s %q: want an offset from the start (1m30s), a clock time (03:12:40) or an RFC 3339 time", flag, s)}
	}
	if t.Before(start) {
		return t, usageError{fmt.Sprintf("%s %s is before the recording: it runs from %s for %s", flag, s,
			start.Local().Format("2006-01-02 15:04:05"), playTime(end.Sub(start)))}
	}
	// Past the end is the end: a recording still being written ends at
	// its last poll so far.
	return t, nil
}

func clockTime(s string) (time.Time, bool) {
	for _, layout := range []string{"15:04:05.999999999", "15:04:05", "15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// readRecording opens path for its records.
func readRecording(path string) (*record.Reader, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r, err := record.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, recordingError(path, err)
	}
	return r, f, nil
}

// play feeds group's records to a pipeline as the recorded watch did,
// calling fn with each record and the events it gave, until fn returns
// false or the records end (a recording that ends badly ends here too:
// the note says so).
func play(path, group string, fn func(rec *record.Record, evs []model.Event) (bool, error)) error {
	r, f, err := readRecording(path)
	if err != nil {
		return err
	}
	defer f.Close()
	pipe := model.NewPipeline(record.PipelineOptions(r.Header(), group))
	for {
		rec, err := r.Next()
		if err != nil {
			return nil
		}
		switch rec.Kind {
		case record.KindSnapshot, record.KindFailed, record.KindEvent:
		default:
			continue
		}
		if rec.Group != group {
			continue
		}
		more, err := fn(&rec, record.Feed(pipe, &rec))
		if err != nil || !more {
			return err
		}
	}
}

// replayEvents is `replay FILE --events`: the timeline as the live
// --events printed it.
func replayEvents(path, group string, stdout io.Writer) error {
	out := bufio.NewWriter(stdout)
	err := play(path, group, func(_ *record.Record, evs []model.Event) (bool, error) {
		for _, e := range evs {
			b, err := model.MarshalEventJSON(e)
			if err != nil {
				return false, fmt.Errorf("encode %s event: %w", e.Type, err)
			}
			out.Write(b)
			if err := out.WriteByte('\n'); err != nil {
				return false, fmt.Errorf("write event: %w", err)
			}
		}
		return true, nil
	})
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write event: %w", ferr)
	}
	return err
}

// replayOnce is `replay FILE --once --at T`: the last snapshot polled by
// T, annotated by the pipeline fed up to then, as --once prints it.
func replayOnce(path, group string, at time.Time, output string, stdout io.Writer) error {
	var last *model.Snapshot
	err := play(path, group, func(rec *record.Record, _ []model.Event) (bool, error) {
		if rec.At.After(at) {
			return false, nil
		}
		if rec.Kind == record.KindSnapshot {
			s := rec.Snapshot
			last = &s
		}
		return true, nil
	})
	switch {
	case err != nil:
		return err
	case last == nil:
		return fmt.Errorf("no poll of %s was recorded by %s", model.Printable(group), at.Local().Format("15:04:05"))
	case !last.Group.Exists():
		return fmt.Errorf("Consumer group '%s' does not exist.", group)
	}
	return printSnapshot(*last, output, stdout)
}

// replayTUI plays the recording in the TUI.
func replayTUI(ctx context.Context, path string, sum record.Summary, f replayFlags) error {
	rp, opts, err := replayOf(path, sum, f)
	if err != nil {
		return err
	}
	return runApp(ctx, opts, func(opts ui.Options) *ui.App { return ui.NewReplay(rp, opts) })
}

// replayOf is what the TUI plays: the recording at path, and the options
// the recorded watch ran with.
func replayOf(path string, sum record.Summary, f replayFlags) (ui.Replay, ui.Options, error) {
	h := sum.Header
	from := h.Started
	if f.from != "" {
		var err error
		if from, err = recordingTime(f.from, "--from", sum); err != nil {
			return ui.Replay{}, ui.Options{}, err
		}
	}
	rp := ui.Replay{
		Group: h.Group, Overview: h.Overview, Groups: sum.Groups,
		Start: h.Started, End: sum.Last,
		Open: func() (ui.ReplayReader, error) {
			r, file, err := readRecording(path)
			if err != nil {
				return nil, err
			}
			return fileReader{r, file}, nil
		},
		Speed: f.speed, From: from,
		EndNote: shortEndNote(sum),
	}
	if f.group != "" {
		// One group of an overview recording: its page alone.
		rp.Group, rp.Overview = f.group, false
	}
	if len(h.Demo) > 0 {
		rp.Demo = true
		if err := json.Unmarshal(h.Demo, &rp.DemoSettings); err != nil {
			return rp, ui.Options{}, fmt.Errorf("%s: the demo's settings: %w", path, err)
		}
	}
	opts := ui.Options{Brokers: h.Brokers, Interval: h.Interval, Timeout: h.Timeout, StallAfter: h.StallAfter, TimelineSize: h.TimelineSize}
	return rp, opts, nil
}

// shortEndNote is the replay bar's words for a recording that does not
// end cleanly.
func shortEndNote(sum record.Summary) string {
	var d *record.DamagedError
	switch {
	case sum.End == nil:
		return ""
	case errors.Is(sum.End, record.ErrUnfinished):
		return "no end mark: kgwatch was killed?"
	case errors.As(sum.End, &d) && d.Truncated:
		return "its last record was cut short"
	}
	return "damaged: the rest is not shown"
}

// fileReader is a recording's reader and the file it reads.
type fileReader struct {
	*record.Reader
	f *os.File
}

func (r fileReader) Close() error { return r.f.Close() }
