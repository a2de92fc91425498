package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
)

// recorder is `--record FILE`: it writes what the watch is fed to a
// recording (package model/record) from a goroutine of its own, so neither
// the UI's update loop nor --events waits on the disk. Records are queued
// in the order they are fed, each stamped as it is queued.
type recorder struct {
	path string
	f    *os.File
	w    *record.Writer
	now  func() time.Time

	mu     sync.Mutex // orders stamping and queueing
	q      chan func(*record.Writer) error
	done   chan struct{}
	closed bool

	errMu    sync.Mutex
	err      error     // the first write error
	lastGood time.Time // the time of the last record written before it

	written atomic.Int64 // bytes that reached the file
	// stopped, when set (onStop), is told once when a write fails
	// (--events: the TUI's header shows status instead). Under errMu.
	stopped func(error)
}

// onStop sets what is told when a write fails.
func (r *recorder) onStop(f func(error)) {
	r.errMu.Lock()
	r.stopped = f
	r.errMu.Unlock()
}

// countingFile counts the bytes written to the recording's file.
type countingFile struct {
	f *os.File
	n *atomic.Int64
}

func (c countingFile) Write(p []byte) (int, error) {
	n, err := c.f.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// status is how the recording goes, for the TUI's header.
func (r *recorder) status() ui.RecordingStatus {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return ui.RecordingStatus{Path: r.path, Bytes: r.written.Load(), Err: r.err, Until: r.lastGood}
}

// statusOf is r.status, nil without a recording.
func (r *recorder) statusOf() func() ui.RecordingStatus {
	if r == nil {
		return nil
	}
	return r.status
}

// openRecorder creates path (never over an existing file: a recording is
// not lost to a command run twice) and writes h to it, so a path that
// cannot be written fails now, not an hour into the watch.
func openRecorder(path string, h record.Header) (*recorder, error) {
	f, err := createRecording(path)
	if err != nil {
		return nil, err
	}
	return newRecorder(f, path, h)
}

// createRecording creates the file of --record: before a demo starts,
// which must know its brokers before the header is written.
func createRecording(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return nil, fmt.Errorf("--record %s is a directory: name a file", path)
		}
		return nil, fmt.Errorf("--record %s: the file exists (kgwatch does not write over a recording: remove it or name another)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return f, nil
}

// newRecorder writes h to f (created by createRecording) and records
// into it from then on.
func newRecorder(f *os.File, path string, h record.Header) (*recorder, error) {
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	h.Kgwatch = versionString()
	r := &recorder{path: path, f: f, now: time.Now, q: make(chan func(*record.Writer) error, 256), done: make(chan struct{})}
	w, err := record.NewWriter(countingFile{f, &r.written}, h)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("--record %s: %w", path, err)
	}
	r.w = w
	go r.run()
	return r, nil
}

func (r *recorder) run() {
	defer close(r.done)
	for write := range r.q {
		if r.failed() {
			continue
		}
		if err := write(r.w); err != nil {
			r.errMu.Lock()
			r.err = err
			stopped := r.stopped
			r.errMu.Unlock()
			if stopped != nil {
				stopped(r.stoppedError(err))
			}
		}
	}
}

func (r *recorder) failed() bool {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err != nil
}

// add queues a record stamped now (or at at, when given).
func (r *recorder) add(at time.Time, write func(w *record.Writer, at time.Time) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if at.IsZero() {
		at = r.now()
	}
	r.q <- func(w *record.Writer) error {
		if err := write(w, at); err != nil {
			return err
		}
		r.errMu.Lock()
		r.lastGood = at
		r.errMu.Unlock()
		return nil
	}
}

// Close writes what is queued and the end mark, and closes the file. It
// returns the first error writing met, saying how far the recording got.
func (r *recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.q)
	r.mu.Unlock()
	<-r.done
	err := r.err
	if err == nil {
		err = r.w.Close()
	}
	if cerr := r.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write recording: %w", cerr)
	}
	if err != nil {
		return r.stoppedError(err)
	}
	return nil
}

// stoppedError says that the recording stopped at err and how far the
// file goes.
func (r *recorder) stoppedError(err error) error {
	r.errMu.Lock()
	last := r.lastGood
	r.errMu.Unlock()
	upTo := "nothing after its header"
	if !last.IsZero() {
		upTo = "what came before " + last.Format("15:04:05")
	}
	return fmt.Errorf("--record %s stopped: %w (the file holds %s)", model.Printable(r.path), err, upTo)
}

// tap records what the pipeline of group is fed.
func (r *recorder) tap(group string) model.Tap { return groupTap{r: r, group: group} }

type groupTap struct {
	r     *recorder
	group string
}

func (t groupTap) Observed(s model.Snapshot) {
	// The pipeline annotates the rows in place once this returns.
	s.Partitions = slices.Clone(s.Partitions)
	s.Members = slices.Clone(s.Members)
	t.r.add(time.Time{}, func(w *record.Writer, at time.Time) error { return w.Snapshot(at, t.group, s) })
}

func (t groupTap) Failed(started, at time.Time, err error) {
	text := ""
	if err != nil {
		text = err.Error()
	}
	t.r.add(at, func(w *record.Writer, at time.Time) error { return w.PollFailed(started, at, t.group, text) })
}

func (t groupTap) Added(e model.Event) {
	t.r.add(time.Time{}, func(w *record.Writer, at time.Time) error { return w.Event(at, t.group, e) })
}

// overview records the overview's polls of src.
func (r *recorder) overview(src ui.OverviewSource) ui.OverviewSource {
	return overviewTap{src: src, r: r}
}

type overviewTap struct {
	src ui.OverviewSource
	r   *recorder
}

func (o overviewTap) Batched() bool { return o.src.Batched() }

func (o overviewTap) Overview(ctx context.Context) (model.OverviewObservation, error) {
	obs, err := o.src.Overview(ctx)
	if ctx.Err() != nil {
		return obs, err // the page stopped waiting: it will not show this
	}
	if err != nil {
		text := err.Error()
		o.r.add(time.Time{}, func(w *record.Writer, at time.Time) error { return w.OverviewFailed(at, text) })
		return obs, err
	}
	// The raw read, as the page's pipeline is fed it (nothing changes
	// an observation once read).
	o.r.add(time.Time{}, func(w *record.Writer, at time.Time) error { return w.OverviewPoll(at, &obs) })
	return obs, nil
}

// demo records what the demo panel reads of d and the actions it asks.
func (r *recorder) demo(d ui.Demo) ui.Demo { return demoTap{d: d, r: r} }

type demoTap struct {
	d ui.Demo
	r *recorder
}

func (d demoTap) Status(withLedger bool) model.DemoStatus {
	s := d.d.Status(withLedger)
	cp := s
	cp.Consumers = slices.Clone(s.Consumers)
	d.r.add(time.Time{}, func(w *record.Writer, at time.Time) error { return w.DemoStatus(at, cp) })
	return s
}

func (d demoTap) Act(a model.DemoAction) (model.DemoOutcome, error) {
	out, err := d.d.Act(a)
	text := ""
	if err != nil {
		text = err.Error()
	}
	d.r.add(time.Time{}, func(w *record.Writer, at time.Time) error { return w.DemoAction(at, a, out, text) })
	return out, err
}

// openRecorder opens --record's file, if given, before anything connects;
// nil without --record.
func (f *watchFlags) openRecorder(brokers []string) (*recorder, error) {
	if f.record == "" {
		return nil, nil
	}
	mode := "tui"
	if f.events {
		mode = "events"
	}
	return openRecorder(f.record, record.Header{
		Mode: mode, Group: f.group, Overview: f.group == "", Brokers: brokers,
		Interval: f.interval, Timeout: f.timeout, StallAfter: f.stallAfter, MaxLagAge: f.maxLagAge,
		MaxRebalances: f.maxRebalances,
	})
}

// closeInto closes r (nil: nothing to do) and makes its error *err's,
// unless *err holds one already.
func (r *recorder) closeInto(err *error) {
	if r == nil {
		return
	}
	if cerr := r.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}

// tapOf is r.tap(group), nil without a recording.
func (r *recorder) tapOf(group string) model.Tap {
	if r == nil {
		return nil
	}
	return r.tap(group)
}

// overviewOf is r.overview(src), src itself without a recording.
func (r *recorder) overviewOf(src ui.OverviewSource) ui.OverviewSource {
	if r == nil {
		return src
	}
	return r.overview(src)
}

// demoOf is r.demo(d), d itself without a recording.
func (r *recorder) demoOf(d ui.Demo) ui.Demo {
	if r == nil {
		return d
	}
	return r.demo(d)
}

// newDemoRecorder starts the recording of a demo watching group, on the
// file createRecording made.
func newDemoRecorder(f *os.File, path, group string, set ui.DemoSettings, opts ui.Options) (*recorder, error) {
	js, err := json.Marshal(demoHeader(set))
	if err != nil {
		return nil, fmt.Errorf("--record: demo settings: %w", err)
	}
	return newRecorder(f, path, record.Header{
		Mode: "demo", Group: group, Brokers: opts.Brokers,
		Interval: opts.Interval, Timeout: opts.Timeout, StallAfter: opts.StallAfter, MaxLagAge: opts.MaxLagAge,
		MaxRebalances: opts.MaxRebalances, TimelineSize: opts.TimelineSize, Demo: js,
	})
}
