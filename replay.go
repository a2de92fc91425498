package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka/demo"
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
	var helpErr error // as runWatch's
	fs.Usage = func() {
		_, helpErr = fmt.Fprintf(stdout, "Usage:\n  kgwatch replay FILE [flags]\n\nPlays a recording made with --record in the same TUI, with no cluster:\nspace pauses, ←/→ jump to the previous/next event, +/- change the speed\n(1×, 2×, 4×, 10×, 60×), home/end go to the start/end.\n\nFlags:\n%s", fs.FlagUsages())
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
			return cmp.Or(helpErr, err)
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
	if f.events {
		return replayEvents(path, f.group, stdout, stderr)
	}
	// --once and the TUI read the file twice: its span first (--at, the
	// position), then its records.
	sum, err := scanRecording(path)
	if err != nil {
		return err
	}
	h := sum.Header
	group := h.Group
	if f.group != "" {
		if err := checkGroup(path, h, f.group); err != nil {
			return err
		}
		group = f.group
	}
	if f.once {
		at, past, err := recordingTime(f.at, "--at", sum)
		if err != nil {
			return err
		}
		if group == "" {
			err = replayOverviewOnce(path, h, at, f.output, stdout)
		} else {
			err = replayOnce(path, group, at, f.output, stdout)
		}
		if err != nil {
			// Nothing to show by then: because the file is damaged,
			// when it is.
			if _, damage := endNote(path, sum); damage != nil {
				return damage
			}
			return err
		}
		if past {
			fmt.Fprintf(stderr, "kgwatch: --at %s is past the end of %s (%s, %s in): this is its end\n",
				model.Printable(f.at), model.Printable(path), clockOf(sum.Last, at), playTime(sum.Last.Sub(h.Started)))
		}
		return ended(path, sum, stderr)
	}
	if err := replayTUI(ctx, path, sum, f); err != nil {
		return err
	}
	return ended(path, sum, stderr)
}

// ended says how the recording played ended, the same way on every path:
// a recording that is unfinished or cut short with a note on stderr, one
// that is damaged with the error (exit 1), after what could be played.
func ended(path string, sum record.Summary, stderr io.Writer) error {
	note, err := endNote(path, sum)
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	return err
}

// checkGroup refuses -g GROUP where the recording has none of it.
func checkGroup(path string, h record.Header, group string) error {
	if !h.Overview && group != h.Group {
		return usageError{fmt.Sprintf("%s records %s, not %s", path, model.Printable(h.Group), model.Printable(group))}
	}
	return nil
}

// openRecording opens path to read it; twice: it will be read again
// (--once and the TUI), so it must be a regular file, not a pipe whose
// bytes the first read takes.
func openRecording(path string, twice bool) (*os.File, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, openError(path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a kgwatch recording", model.Printable(path))
	case twice && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file: replay --once and the TUI read a recording twice, so save it to a file first (replay --events reads it once)", model.Printable(path))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	return f, nil
}

// openError words why the recording at path cannot be opened: its name
// and the reason (not Go's "stat NAME: …"), and what replay wants.
func openError(path string, err error) error {
	name := model.Printable(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the errno: "no such file or directory"
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w (kgwatch replay FILE plays a recording made with --record)", name, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: %w: kgwatch cannot read it", name, err)
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s: %w (a part of the path is a file)", name, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// scanRecording reads path through: its header, span and end.
func scanRecording(path string) (record.Summary, error) {
	f, err := openRecording(path, true)
	if err != nil {
		return record.Summary{}, err
	}
	defer f.Close()
	r, err := record.NewReader(f)
	if err != nil {
		return record.Summary{}, recordingError(path, err)
	}
	if _, err := demoSettingsOf(r.Header()); err != nil {
		return record.Summary{}, recordingError(path, err)
	}
	return r.Rest(), nil
}

// recordingError words what NewReader and Scan refuse, naming the file.
func recordingError(path string, err error) error {
	var nf *record.NewerFormatError
	var he *record.HeaderError
	switch {
	case errors.As(err, &nf):
		return fmt.Errorf("%s was %w", path, err)
	case errors.As(err, &he):
		return fmt.Errorf("%s is damaged: %w", path, err)
	case errors.Is(err, record.ErrNotRecording):
		return fmt.Errorf("%s is not a kgwatch recording", path)
	}
	return fmt.Errorf("read %s: %w", path, err)
}

// endNote is how a recording that does not end cleanly ends: the note
// on stderr of one whose writer was killed, or whose last record is cut
// short (what a crash leaves), or the error of a damaged one. Every path
// says it the same way, from the Summary of the recording read through
// (Scan's, or --events' one reading).
func endNote(path string, sum record.Summary) (note string, damage error) {
	name := model.Printable(path)
	upTo := func(t time.Time) string {
		if t.IsZero() {
			return "it holds no record"
		}
		return "replayed up to " + t.Local().Format("15:04:05") + " (" + playTime(t.Sub(sum.Header.Started)) + " in)"
	}
	var d *record.DamagedError
	switch {
	case sum.End == nil:
		return "", nil
	case errors.Is(sum.End, record.ErrUnfinished):
		return fmt.Sprintf("kgwatch: %s ends without its end mark (kgwatch was killed?): %s", name, upTo(sum.Last)), nil
	case errors.As(sum.End, &d) && d.Truncated:
		return fmt.Sprintf("kgwatch: %s: the last record is cut short (a crash or a full disk?) and is ignored: %s", name, upTo(sum.Last)), nil
	case errors.Is(sum.End, record.ErrChecksum):
		return "", fmt.Errorf("%s is damaged: %w: played to its end, %s (%s in), but a value shown may be wrong", path, record.ErrChecksum,
			sum.Last.Local().Format("15:04:05"), playTime(sum.Last.Sub(sum.Header.Started)))
	case sum.Last.IsZero():
		return "", fmt.Errorf("%s is damaged: its first record cannot be read, nothing was played: %w", path, sum.End)
	default:
		return "", fmt.Errorf("%s is damaged: played to %s (%s in), the last good record: %w", path,
			sum.Last.Local().Format("15:04:05"), playTime(sum.Last.Sub(sum.Header.Started)), sum.End)
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
// start (1m30s), an RFC 3339 time, or a clock time (15:04:05, 15:04,
// local time) on the recording's day nearest to it: the first day it is
// inside the recording, else the day it is nearest to its start or end.
// A time before the start is an error that gives the span; past its last
// good record is its end (past says so).
func recordingTime(s, flag string, sum record.Summary) (t time.Time, past bool, err error) {
	start := sum.Header.Started
	end := sum.Last
	if end.Before(start) {
		end = start
	}
	if s == "" {
		return end, false, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		t = start.Add(d)
	} else if at, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = at
	} else if c, ok := clockTime(s); ok {
		t = nearestDay(c, start, end)
	} else {
		return t, false, usageError{fmt.Sprintf("%s %q: want an offset from the start (1m30s), a clock time (03:12:40) or an RFC 3339 time", flag, s)}
	}
	if t.Before(start) {
		return t, false, usageError{fmt.Sprintf("%s %s is before the recording: it runs from %s to %s (%s)", flag, s,
			start.Local().Format("2006-01-02 ")+clockOf(start, t), clockOf(end, time.Time{}), playTime(end.Sub(start)))}
	}
	return t, t.After(end), nil
}

// nearestDay is the clock time c on the local day nearest to the span
// from start to end: the first day it falls inside it, else the one it
// is nearest to the span on.
func nearestDay(c, start, end time.Time) time.Time {
	st, en := start.Local(), end.Local()
	day := time.Date(st.Year(), st.Month(), st.Day()-1, 0, 0, 0, 0, time.Local)
	var best time.Time
	var bestDist time.Duration = -1
	for !day.After(en.AddDate(0, 0, 1)) {
		t := time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), time.Local)
		var dist time.Duration
		switch {
		case t.Before(start):
			dist = start.Sub(t)
		case t.After(end):
			dist = t.Sub(end)
		}
		if bestDist < 0 || dist < bestDist {
			best, bestDist = t, dist
		}
		if dist == 0 {
			break
		}
		day = day.AddDate(0, 0, 1)
	}
	return best
}

// clockOf is t's local clock time with the fewest digits of a second
// that tell it from other (zero: to the second): a recording that starts
// at 11:20:14.3 does not start at 11:20:14.
func clockOf(t, other time.Time) string {
	layout := "15:04:05"
	for d := range 10 {
		unit := time.Duration(math.Pow10(9 - d))
		lo := t.Truncate(unit)
		if other.IsZero() || other.Before(lo) || !other.Before(lo.Add(unit)) {
			break
		}
		if d == 0 {
			layout += "."
		}
		layout += "0"
	}
	return t.Local().Format(layout)
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
	f, err := openRecording(path, true)
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

// play feeds r's records of group to a pipeline as the recorded watch
// did, calling fn with each record (of every group and kind) and the
// events it gave, until fn returns false or the records end (r.Summary
// says how).
func play(r *record.Reader, group string, fn func(rec *record.Record, evs []model.Event) (bool, error)) error {
	pipe := model.NewPipeline(record.PipelineOptions(r.Header(), group))
	for {
		rec, err := r.Next()
		if err != nil {
			return nil
		}
		var evs []model.Event
		switch rec.Kind {
		case record.KindSnapshot, record.KindFailed, record.KindEvent:
			if rec.Group == group {
				evs = record.Feed(pipe, &rec)
			}
		}
		if more, err := fn(&rec, evs); err != nil || !more {
			return err
		}
	}
}

// playFile is play on the recording at path.
func playFile(path, group string, fn func(rec *record.Record, evs []model.Event) (bool, error)) error {
	r, f, err := readRecording(path)
	if err != nil {
		return err
	}
	defer f.Close()
	err = play(r, group, fn)
	return err
}

// replayEvents is `replay FILE --events`: the timeline of group (""
// the recording's) as the live --events printed it. It reads the file
// once, so it plays a pipe too.
func replayEvents(path, group string, stdout, stderr io.Writer) error {
	f, err := openRecording(path, false)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := record.NewReader(f)
	if err != nil {
		return recordingError(path, err)
	}
	h := r.Header()
	if _, err := demoSettingsOf(h); err != nil {
		return recordingError(path, err)
	}
	switch {
	case group != "":
		if err := checkGroup(path, h, group); err != nil {
			return err
		}
	case h.Overview:
		sum := r.Rest()
		return usageError{fmt.Sprintf("%s is a recording of the overview, and --events prints one group's timeline: add -g GROUP, one of the groups opened while recording: %s (replay %s --once prints the overview)",
			path, groupList(sum.Groups), path)}
	default:
		group = h.Group
	}
	out := bufio.NewWriter(stdout)
	err = play(r, group, func(_ *record.Record, evs []model.Event) (bool, error) {
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
	if err != nil {
		return err
	}
	sum := r.Summary()
	if err := ended(path, sum, stderr); err != nil {
		return err
	}
	if h.Overview && !slices.Contains(sum.Groups, group) {
		return fmt.Errorf("%s was not opened while %s was recorded: it holds no timeline of it (opened: %s)", group, path, groupList(sum.Groups))
	}
	return nil
}

// replayOnce is `replay FILE --once --at T`: the last snapshot polled by
// T, annotated by the pipeline fed up to then, as --once prints it.
func replayOnce(path, group string, at time.Time, output string, stdout io.Writer) error {
	var last *model.Snapshot
	err := playFile(path, group, func(rec *record.Record, _ []model.Event) (bool, error) {
		if rec.At.After(at) {
			return false, nil
		}
		if rec.Kind == record.KindSnapshot && rec.Group == group {
			s := rec.Snapshot
			last = &s
		}
		return true, nil
	})
	switch {
	case err != nil:
		return err
	case last == nil:
		return fmt.Errorf("no poll of %s was recorded by %s", group, clockOf(at, time.Time{}))
	case !last.Group.Exists():
		return fmt.Errorf("Consumer group '%s' does not exist.", group)
	}
	return printSnapshot(*last, output, stdout)
}

// replayOverviewOnce is `replay FILE --once --at T` of a recording of the
// overview: its last good poll by T, judged as the live overview judged
// it (its polls up to T through the overview's pipeline), printed as the
// live --once without --group prints it.
func replayOverviewOnce(path string, h record.Header, at time.Time, output string, stdout io.Writer) error {
	var last []model.GroupSummary
	polled := false
	pipe := model.NewOverviewPipeline(model.OverviewPipelineOptions{History: model.HistoryOptions{StallAfter: h.StallAfter, MaxLagAge: h.MaxLagAge}})
	err := playFile(path, "", func(rec *record.Record, _ []model.Event) (bool, error) {
		if rec.At.After(at) {
			return false, nil
		}
		switch rec.Kind {
		case record.KindOverviewPoll:
			last, polled = pipe.Observe(&rec.Overview), true
		case record.KindOverview: // judged when recorded (format 2)
			last, polled = pipe.Observe(&model.OverviewObservation{Judged: rec.Groups}), true
		}
		return true, nil
	})
	switch {
	case err != nil:
		return err
	case !polled:
		return fmt.Errorf("no poll of the overview was recorded by %s", clockOf(at, time.Time{}))
	}
	return printGroups(last, output, stdout)
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
		var past bool
		var err error
		if from, past, err = recordingTime(f.from, "--from", sum); err != nil {
			return ui.Replay{}, ui.Options{}, err
		}
		if past {
			return ui.Replay{}, ui.Options{}, usageError{fmt.Sprintf("--from %s is past the end of the recording: it runs from %s to %s (%s)", f.from,
				h.Started.Local().Format("2006-01-02 15:04:05"), clockOf(sum.Last, from), playTime(sum.Last.Sub(h.Started)))}
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
		set, err := demoSettingsOf(h)
		if err != nil {
			return rp, ui.Options{}, recordingError(path, err)
		}
		rp.DemoSettings = set
	}
	opts := ui.Options{Brokers: h.Brokers, Interval: h.Interval, Timeout: h.Timeout, StallAfter: h.StallAfter, MaxLagAge: h.MaxLagAge,
		MaxRebalances: h.MaxRebalances, TimelineSize: h.TimelineSize}
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

// printGroups writes the overview as --once without --group does: JSON
// or the table.
func printGroups(gs []model.GroupSummary, output string, stdout io.Writer) error {
	if output == "json" {
		b, err := model.MarshalJSONOverview(gs)
		if err != nil {
			return fmt.Errorf("encode overview: %w", err)
		}
		_, err = stdout.Write(b)
		return err
	}
	_, err := io.WriteString(stdout, model.FormatOverview(gs))
	return err
}

// demoHeader is the demo's settings as a recording's header holds them
// (record.Header.Demo, written by newDemoRecorder), named as the rest of
// the header is. It converts to and from ui.DemoSettings: a field added
// there fails to compile here until it has its name.
type demoHeader struct {
	SessionTimeout  time.Duration `json:"session_timeout_ns"`
	MaxPollInterval time.Duration `json:"max_poll_interval_ns"`
	Commit          string        `json:"commit"`
	CommitDelay     time.Duration `json:"commit_delay_ns"`
	ProcessTime     time.Duration `json:"process_time_ns"`
	SlowProcessTime time.Duration `json:"slow_process_time_ns"`
	Static          bool          `json:"static,omitempty"`
}

// demoSettingsOf reads h's demo settings (none when h is not of a demo),
// refusing values no flag of kgwatch demo takes. Recordings made before
// the header named them in snake_case named them as ui.DemoSettings's
// fields ("SessionTimeout"): those are read too.
func demoSettingsOf(h record.Header) (ui.DemoSettings, error) {
	if len(h.Demo) == 0 {
		return ui.DemoSettings{}, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(h.Demo, &fields); err != nil {
		return ui.DemoSettings{}, &record.HeaderError{Field: "demo", Value: "that is not an object", Want: oneLine(err.Error())}
	}
	var set demoHeader
	var err error
	if _, old := fields["SessionTimeout"]; old {
		var o ui.DemoSettings
		err = json.Unmarshal(h.Demo, &o)
		set = demoHeader(o)
	} else {
		err = json.Unmarshal(h.Demo, &set)
	}
	if err != nil {
		return ui.DemoSettings{}, &record.HeaderError{Field: "demo", Value: "what cannot be read", Want: oneLine(err.Error())}
	}
	// Zero: not recorded.
	for _, d := range []struct {
		field    string
		v        time.Duration
		min, max time.Duration
	}{
		{"session_timeout_ns", set.SessionTimeout, demo.MinSessionTimeout, demo.MaxSessionTimeout},
		{"max_poll_interval_ns", set.MaxPollInterval, demo.MinMaxPollInterval, demo.MaxMaxPollInterval},
		{"commit_delay_ns", set.CommitDelay, 0, demo.MaxCommitDelay},
		{"process_time_ns", set.ProcessTime, demo.MinWork, demo.MaxWork},
		{"slow_process_time_ns", set.SlowProcessTime, demo.MinWork, demo.MaxWork},
	} {
		if d.v != 0 && (d.v < d.min || d.v > d.max) {
			return ui.DemoSettings{}, &record.HeaderError{Field: "demo " + d.field, Value: fmt.Sprintf("%d (%s)", int64(d.v), d.v),
				Want: fmt.Sprintf("want 0 or from %s to %s", model.Setting(d.min), model.Setting(d.max))}
		}
	}
	if c := set.Commit; c != "" && c != demo.CommitAfter && c != demo.CommitBefore {
		return ui.DemoSettings{}, &record.HeaderError{Field: "demo commit", Value: fmt.Sprintf("%q", c), Want: "want after or before"}
	}
	return ui.DemoSettings(set), nil
}
