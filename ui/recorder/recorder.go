// Package recorder is `--record FILE`: it writes what a watch is fed to a
// recording (package model/record) from a goroutine of its own, so neither
// the TUI's update loop nor --events waits on the disk. Taps put it
// between a page and its sources.
package recorder

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
)

// MaxQueued is how many bytes of records (their rows' size in memory) may
// wait for a disk that does not keep up before the recording stops: about
// seventy polls of a group of 10,000 partitions, hours of a small one.
const MaxQueued = 256 << 20

// Recorder writes a recording. Records are queued in the order they are
// fed, each stamped as it is queued; adding one never waits. A nil
// *Recorder records nothing: its taps are nil or the sources themselves.
type Recorder struct {
	path string
	f    io.WriteCloser
	w    *record.Writer
	now  func() time.Time
	// maxQueued is MaxQueued (tests lower it).
	maxQueued int

	mu     sync.Mutex // orders stamping and queueing
	q      []queued
	size   int           // the bytes of q
	wake   chan struct{} // told when q grows or the recorder closes
	closed bool
	done   chan struct{}
	// telling is a stop being told off run (add's); Close waits for it.
	telling sync.WaitGroup

	errMu    sync.Mutex
	err      error     // why the recording stopped: the first write error, or ErrFellBehind
	told     bool      // err was told to stopped
	lastGood time.Time // the time of the last record written before it

	written atomic.Int64 // bytes that reached the file
	// stopped, when set (OnStop), is told once when the recording stops
	// (--events: the TUI's header shows Status instead). Under errMu.
	stopped func(error)
}

// queued is a record waiting for the disk: its write and its size.
type queued struct {
	write func(*record.Writer) error
	size  int
}

// ErrFellBehind is why a recording stops when the disk does not take its
// records as fast as the watch makes them.
var ErrFellBehind = errors.New("the disk fell behind")

// Create creates path (never over an existing file: a recording is not
// lost to a command run twice), so that a path that cannot be written
// fails now, not an hour into the watch: before a demo starts, whose
// header (its brokers) New writes later.
func Create(path string) (*os.File, error) {
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

// Open creates path (as Create) and records into it from h on.
func Open(path string, h record.Header) (*Recorder, error) {
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	return New(f, path, h)
}

// New writes h to f (made by Create at path) and records into it from
// then on; it closes f and removes path when h cannot be written.
func New(f io.WriteCloser, path string, h record.Header) (*Recorder, error) {
	if h.Started.IsZero() {
		h.Started = time.Now()
	}
	r := &Recorder{path: path, f: f, now: time.Now, maxQueued: MaxQueued, wake: make(chan struct{}, 1), done: make(chan struct{})}
	w, err := record.NewWriter(countingWriter{f, &r.written}, h)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("--record %s: %w", path, err)
	}
	r.w = w
	go r.run()
	return r, nil
}

// countingWriter counts the bytes written to the recording's file.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// OnStop sets what is told when the recording stops.
func (r *Recorder) OnStop(f func(error)) {
	r.errMu.Lock()
	r.stopped = f
	r.errMu.Unlock()
}

// Status is how the recording goes, for the TUI's header.
func (r *Recorder) Status() ui.RecordingStatus {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return ui.RecordingStatus{Path: r.path, Bytes: r.written.Load(), Err: r.err, Until: r.lastGood}
}

// StatusFunc is r.Status, nil without a recording.
func (r *Recorder) StatusFunc() func() ui.RecordingStatus {
	if r == nil {
		return nil
	}
	return r.Status
}

func (r *Recorder) run() {
	defer close(r.done)
	for {
		r.mu.Lock()
		batch, closed := r.q, r.closed
		r.q, r.size = nil, 0
		r.mu.Unlock()
		for _, rec := range batch {
			if r.failed() {
				break
			}
			if err := rec.write(r.w); err != nil {
				r.fail(err)
			}
		}
		r.tell()
		if closed && len(batch) == 0 {
			return
		}
		if len(batch) == 0 {
			<-r.wake
		}
	}
}

// fail stops the recording at err, unless it stopped already.
func (r *Recorder) fail(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
}

// tell tells OnStop's function, once, that the recording stopped.
func (r *Recorder) tell() {
	r.errMu.Lock()
	err, stopped := r.err, r.stopped
	if err == nil || r.told {
		r.errMu.Unlock()
		return
	}
	r.told = true
	r.errMu.Unlock()
	if stopped != nil {
		stopped(r.stoppedError(err))
	}
}

func (r *Recorder) failed() bool {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err != nil
}

// add queues a record of about size bytes, stamped now (or at at, when
// given). It never waits for the disk: when more than maxQueued bytes are
// waiting, the recording stops with ErrFellBehind, said as a write error
// is, and records nothing more.
func (r *Recorder) add(at time.Time, size int, write func(w *record.Writer, at time.Time) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.failed() {
		return
	}
	if r.size+size > r.maxQueued {
		r.fail(fmt.Errorf("%w: %s of records waited to be written", ErrFellBehind, model.Bytes(int64(r.size))))
		r.q, r.size = nil, 0
		// Told now, whatever run waits on, but not by the caller (the
		// update loop): the telling may write to a terminal.
		r.telling.Add(1)
		go func() {
			defer r.telling.Done()
			r.tell()
		}()
		return
	}
	if at.IsZero() {
		at = r.now()
	}
	r.q = append(r.q, queued{size: size, write: func(w *record.Writer) error {
		if err := write(w, at); err != nil {
			return err
		}
		r.errMu.Lock()
		r.lastGood = at
		r.errMu.Unlock()
		return nil
	}})
	r.size += size
	r.wakeRun()
}

// wakeRun tells run that there is work (or an end); it never waits.
func (r *Recorder) wakeRun() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Close writes what is queued and the end mark, and closes the file. It
// returns the first error writing met, saying how far the recording got.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	r.wakeRun()
	r.mu.Unlock()
	<-r.done
	r.telling.Wait()
	r.errMu.Lock()
	err := r.err
	r.errMu.Unlock()
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

// CloseInto closes r (nil: nothing to do) and makes its error *err's,
// unless *err holds one already.
func (r *Recorder) CloseInto(err *error) {
	if r == nil {
		return
	}
	if cerr := r.Close(); cerr != nil && *err == nil {
		*err = cerr
	}
}

// stoppedError says that the recording stopped at err and how far the
// file goes.
func (r *Recorder) stoppedError(err error) error {
	r.errMu.Lock()
	last := r.lastGood
	r.errMu.Unlock()
	upTo := "nothing after its header"
	if !last.IsZero() {
		upTo = "what came before " + last.Format("15:04:05")
	}
	return fmt.Errorf("--record %s stopped: %w (the file holds %s)", model.Printable(r.path), err, upTo)
}
