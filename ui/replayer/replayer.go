// Package replayer is `kgwatch replay FILE`: it plays a recording made
// with --record (package model/record) in the TUI, prints it as --once or
// --events printed it live, and says how the recording ends.
package replayer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/headless"
	"github.com/kgwatch/kgwatch/ui/recorder"
)

// Recording is a recording read through once (Scan): its header, span
// and end, for --once and the TUI, which read it again.
type Recording struct {
	path string
	sum  record.Summary
	// group is the group played ("": the overview); chosen, that it
	// was given (-g), of a recording of the overview.
	group  string
	chosen bool
}

// Scan reads the recording at path through, playing group (-g; "": the
// one it records, or its overview). A group the recording cannot hold is
// a model.UsageError.
func Scan(path, group string) (*Recording, error) {
	f, err := openRecording(path, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := record.NewReader(f)
	if err != nil {
		return nil, recordingError(path, err)
	}
	h := r.Header()
	if _, err := recorder.DemoSettings(h); err != nil {
		return nil, recordingError(path, err)
	}
	rec := &Recording{path: path, sum: r.Rest(), group: h.Group}
	if group != "" {
		if err := checkGroup(path, h, group); err != nil {
			return nil, err
		}
		rec.group, rec.chosen = group, true
	}
	return rec, nil
}

// checkGroup refuses -g GROUP where the recording has none of it.
func checkGroup(path string, h record.Header, group string) error {
	if !h.Overview && group != h.Group {
		return model.Usagef("%s records %s, not %s", path, model.Printable(h.Group), model.Printable(group))
	}
	return nil
}

// Ended says how the recording played ended, the same way on every path:
// a recording that is unfinished or cut short with a note on stderr, one
// that is damaged with the error, after what could be played.
func (r *Recording) Ended(stderr io.Writer) error {
	return ended(r.path, r.sum, stderr)
}

func ended(path string, sum record.Summary, stderr io.Writer) error {
	note, err := endNote(path, sum)
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	return err
}

// Once is `replay FILE --once --at AT`: what --once printed (in format
// f) as the recorded watch stood at AT ("": its end), then how the
// recording ends.
func (r *Recording) Once(at string, f headless.Format, stdout, stderr io.Writer) error {
	t, past, err := recordingTime(at, "--at", r.sum)
	if err != nil {
		return err
	}
	if r.group == "" {
		err = overviewOnce(r.path, r.sum.Header, t, f, stdout)
	} else {
		err = groupOnce(r.path, r.group, t, f, stdout)
	}
	if err != nil {
		// Nothing to show by then: because the file is damaged,
		// when it is.
		if _, damage := endNote(r.path, r.sum); damage != nil {
			return damage
		}
		return err
	}
	if past {
		fmt.Fprintf(stderr, "kgwatch: --at %s is past the end of %s (%s, %s in): this is its end\n",
			model.Printable(at), model.Printable(r.path), clockOf(r.sum.Last, t), playTime(r.sum.Last.Sub(r.sum.Header.Started)))
	}
	return r.Ended(stderr)
}

// Player is what the TUI plays: the recording from --from (""): its
// start) at speed, and the options the recorded watch ran with.
func (r *Recording) Player(from string, speed float64) (ui.Replay, ui.Options, error) {
	h := r.sum.Header
	start := h.Started
	if from != "" {
		var past bool
		var err error
		if start, past, err = recordingTime(from, "--from", r.sum); err != nil {
			return ui.Replay{}, ui.Options{}, err
		}
		if past {
			return ui.Replay{}, ui.Options{}, model.Usagef("--from %s is past the end of the recording: it runs from %s to %s (%s)", from,
				h.Started.Local().Format("2006-01-02 15:04:05"), clockOf(r.sum.Last, start), playTime(r.sum.Last.Sub(h.Started)))
		}
	}
	path := r.path
	rp := ui.Replay{
		Group: h.Group, Overview: h.Overview, Groups: r.sum.Groups,
		Start: h.Started, End: r.sum.Last,
		Open: func() (ui.ReplayReader, error) {
			rd, file, err := readRecording(path)
			if err != nil {
				return nil, err
			}
			return fileReader{rd, file}, nil
		},
		Resume: func(m record.Mark) (ui.ReplayReader, error) {
			file, err := openRecording(path, true)
			if err != nil {
				return nil, err
			}
			rd, err := record.Resume(file, m)
			if err != nil {
				file.Close()
				return nil, recordingError(path, err)
			}
			return fileReader{rd, file}, nil
		},
		Speed: speed, From: start,
		EndNote: shortEndNote(r.sum),
	}
	if r.chosen {
		// One group of an overview recording: its page alone.
		rp.Group, rp.Overview = r.group, false
	}
	if len(h.Demo) > 0 {
		rp.Demo = true
		set, err := recorder.DemoSettings(h)
		if err != nil {
			return rp, ui.Options{}, recordingError(path, err)
		}
		rp.DemoSettings = set
	}
	opts := ui.Options{Brokers: h.Brokers, Interval: h.Interval, Timeout: h.Timeout, Judging: h.Judging()}
	return rp, opts, nil
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
	return play(r, group, fn)
}

// Events is `replay FILE --events`: the timeline of group ("" the
// recording's) as the live --events printed it. It reads the file once,
// so it plays a pipe too; ctx ending ends it, even while a FIFO waits for
// its writer.
func Events(ctx context.Context, path, group string, stdout, stderr io.Writer) error {
	f, stop, err := openRecordingContext(ctx, path, false)
	if err != nil {
		return err
	}
	defer f.Close()
	defer stop()
	r, err := record.NewReader(f)
	if err != nil {
		return recordingError(path, err)
	}
	h := r.Header()
	if _, err := recorder.DemoSettings(h); err != nil {
		return recordingError(path, err)
	}
	switch {
	case group != "":
		if err := checkGroup(path, h, group); err != nil {
			return err
		}
	case h.Overview:
		sum := r.Rest()
		return model.Usagef("%s is a recording of the overview, and --events prints one group's timeline: add -g GROUP, one of the groups opened while recording: %s (replay %s --once prints the overview)",
			path, groupList(sum.Groups), path)
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

// groupOnce is `replay FILE --once --at T` of a group: the last snapshot
// polled by T, annotated by the pipeline fed up to then, as --once
// prints it.
func groupOnce(path, group string, at time.Time, f headless.Format, stdout io.Writer) error {
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
		return headless.GroupMissing(group)
	}
	return f.PrintSnapshot(stdout, *last)
}
