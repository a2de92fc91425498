// Package headless is kgwatch without a terminal UI: `--events` writes the
// timeline of a group as JSON lines. It feeds the same model.Pipeline as
// the TUI, so both tell the same story, and it imports no Bubble Tea.
package headless

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// Source is what the events runner needs from a poller (kafka.Watcher
// satisfies it).
type Source interface {
	Poll(ctx context.Context) (model.Snapshot, error)
}

// Options configure RunEvents.
type Options struct {
	Group    string
	Interval time.Duration // poll interval; model.MinInterval at least
	Timeout  time.Duration // per poll
	// Judging is how the polls are judged (`--stall-after`, …); with
	// HideKeys a STALLED event names its record's key by its size alone.
	model.Judging
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Events, when set, carries events from outside the polls (demo
	// consumers' reports); they are written too.
	Events <-chan model.Event
	// Queue bounds the lines waiting for a reader that does not read
	// (zero: 1,024). The polls wait while it is full.
	Queue int
	// Grace is how long, once ctx is done, the lines already queued may
	// take to be written (zero: 500ms).
	Grace time.Duration
	// Tap, when set, is told what the pipeline is fed (`--record`).
	Tap model.Tap
	// Tick is how often a poll in flight is looked at, for its
	// poll_unanswered (zero: 1s, as the TUI's clock).
	Tick time.Duration
	// Stop, when set, is asked of every event once its line is written;
	// an error ends the watch, and RunEvents returns it (`--fail-on`).
	Stop func(model.Event) error
}

// RunEvents is `--events`: it polls src on the TUI's cadence
// (model.NextPollDelay: opts.Interval, faster while the group rebalances,
// backing off after failures to at most about the interval), feeds each
// poll through a model.Pipeline (a failed one with its start, so an
// outage's connection_restored gives its least and most length) and
// writes every event as one JSON line to out, until ctx is done; then it
// returns nil. Events from opts.Events are written too. A failed poll is
// one line on errOut and a connection_lost event (once per outage);
// polling goes on.
//
// Lines are written from a goroutine of their own, so a reader that stops
// reading (a full pipe) never keeps RunEvents from ending when ctx is done:
// it waits at most opts.Grace for the lines in hand, then says on errOut
// how many it could not write, and returns.
func RunEvents(ctx context.Context, src Source, opts Options, out, errOut io.Writer) error {
	opts.Interval, opts.Timeout = cmp.Or(opts.Interval, model.DefaultInterval), cmp.Or(opts.Timeout, model.DefaultTimeout)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Queue <= 0 {
		opts.Queue = 1024
	}
	if opts.Grace <= 0 {
		opts.Grace = 500 * time.Millisecond
	}
	if opts.Tick <= 0 {
		opts.Tick = time.Second
	}
	pipe := model.NewPipeline(opts.Pipeline(opts.Group, opts.Interval, opts.Tap))
	w := newLineWriter(out, opts.Queue)
	defer func() {
		if n := w.stop(opts.Grace); n > 0 {
			fmt.Fprintf(errOut, "kgwatch: stopped with %s not written: stdout was not being read\n", model.Count(n, "event"))
		}
	}()
	write := func(evs []model.Event) error {
		for _, e := range evs {
			b, err := model.MarshalEventJSON(e)
			if err != nil {
				return fmt.Errorf("encode %s event: %w", e.Type, err)
			}
			if err := w.write(ctx, append(b, '\n')); err != nil {
				return err
			}
			if opts.Stop != nil {
				if err := opts.Stop(e); err != nil {
					return err
				}
			}
		}
		return nil
	}

	var (
		group    model.Group
		failures int
	)
	timer := time.NewTimer(0)
	defer timer.Stop()
	events := opts.Events
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.errc:
			// stdout cannot be written (closed, a reader gone): end
			// now, not at the next event, which may be hours away.
			return done(ctx, err)
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if e.Time.IsZero() {
				e.Time = opts.Now()
			}
			if err := write([]model.Event{pipe.Add(e)}); err != nil {
				return done(ctx, err)
			}
			continue
		case <-timer.C:
		}
		started := opts.Now()
		snap, err, werr := pollWaiting(ctx, src, opts, func(now time.Time) error { return write(pipe.Waiting(now, started)) })
		if werr != nil {
			return done(ctx, werr)
		}
		if ctx.Err() != nil {
			return nil // interrupted mid-poll: not a failure
		}
		var evs []model.Event
		if err != nil {
			failures++
			// Printable shows the error's line breaks as ␊: one line of stderr.
			fmt.Fprintf(errOut, "kgwatch: poll %s (attempt %d, %s): %s\n",
				model.Printable(opts.Group), failures, retrying(model.NextPollDelay(group, opts.Interval, failures, opts.Now().Sub(started))), model.Printable(err.Error()))
			evs = pipe.PollFailed(started, opts.Now(), err)
		} else {
			failures = 0
			if snap.CompletedAt.IsZero() {
				snap.CompletedAt = opts.Now()
			}
			group = snap.Group
			evs = pipe.Observe(&snap)
		}
		if err := write(evs); err != nil {
			return done(ctx, err)
		}
		timer.Reset(model.NextPollDelay(group, opts.Interval, failures, opts.Now().Sub(started)))
	}
}

// pollWaiting polls src with opts.Timeout and, every opts.Tick while the
// poll is in flight, calls waiting with the time (the pipeline's Waiting,
// whose poll_unanswered is written as it comes, as the TUI files it on
// its clock steps): a freeze shorter than --timeout is an event too. It
// returns once the poll has; werr is waiting's error.
func pollWaiting(ctx context.Context, src Source, opts Options, waiting func(time.Time) error) (snap model.Snapshot, err, werr error) {
	type answer struct {
		snap model.Snapshot
		err  error
	}
	res := make(chan answer, 1)
	go func() {
		pctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
		s, err := src.Poll(pctx)
		res <- answer{s, err}
	}()
	tick := time.NewTicker(opts.Tick)
	defer tick.Stop()
	for {
		select {
		case a := <-res:
			return a.snap, a.err, werr
		case <-tick.C:
			if werr == nil {
				werr = waiting(opts.Now())
			}
		}
	}
}

// done is a write's error, unless ctx ended meanwhile: then the watch was
// interrupted, which is not a failure.
func done(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// retrying says when the next poll is: "retrying in 2.0s" (the countdown's
// tenths), "retrying now" when there is no wait.
func retrying(d time.Duration) string {
	if w := model.Countdown(d); w != model.Countdown(0) {
		return "retrying in " + w
	}
	return "retrying now"
}

// lineWriter writes lines to out from a goroutine of its own, in order, one
// Write per line so a reader never sees half an event.
type lineWriter struct {
	q    chan []byte
	errc chan error // the first write error
	done chan struct{}
}

func newLineWriter(out io.Writer, queue int) *lineWriter {
	w := &lineWriter{q: make(chan []byte, queue), errc: make(chan error, 1), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for line := range w.q {
			if _, err := out.Write(line); err != nil {
				w.errc <- fmt.Errorf("write event: %w", err)
				for range w.q { // drain: nothing more is written
				}
				return
			}
		}
	}()
	return w
}

// write queues line; it waits while the queue is full, until ctx is done.
func (w *lineWriter) write(ctx context.Context, line []byte) error {
	select {
	case err := <-w.errc:
		return err
	default:
	}
	select {
	case w.q <- line:
		return nil
	case err := <-w.errc:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop lets the queued lines be written for up to grace and returns how
// many were not: when it times out the writer is stuck in a Write, so the
// line in hand and those still queued. A writer blocked on a reader that
// never reads is left behind: the process is ending.
func (w *lineWriter) stop(grace time.Duration) int {
	close(w.q)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-w.done:
		return 0
	case <-t.C:
		return len(w.q) + 1
	}
}
