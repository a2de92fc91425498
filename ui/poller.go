package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// clockInterval refreshes relative times on screen during long waits.
const clockInterval = time.Second

// poller is the one poll loop of a page: it runs fetch off the update loop
// with a timeout, one poll at a time, and schedules the next. Its messages
// carry the poller itself and a sequence number: a tick or an answer of
// another poller (a page since closed) or of an earlier step of this one
// (a poll made stale by pollNow) is dropped, so there is only ever one
// loop. T is what a poll reads: a group's snapshot, the overview's groups.
type poller[T any] struct {
	fetch   func(ctx context.Context) (T, error)
	ctx     context.Context
	timeout time.Duration

	seq     uint64
	polling bool
	started time.Time // when the poll in flight began

	// Failures counts consecutive failed polls; Err is the last one's.
	Failures int
	Err      error
	// LastGood is when the last good poll completed; RetryAt when the
	// next poll is due.
	LastGood time.Time
	RetryAt  time.Time
}

// pollResultMsg is the answer to one poll.
type pollResultMsg[T any] struct {
	p       *poller[T]
	seq     uint64
	val     T
	err     error
	started time.Time
}

// pollTickMsg asks a poller for its next poll once remaining has passed;
// long waits are cut into clockInterval steps so the screen's relative
// times stay fresh.
type pollTickMsg[T any] struct {
	p         *poller[T]
	seq       uint64
	remaining time.Duration
}

// pollClockMsg says that the poll in flight has not answered for another
// clockInterval: the page re-renders, so the data's age counts up on
// screen while the cluster does not answer (nothing else would redraw the
// header until the answer, or --timeout), and tells its pipeline how long
// the poll has waited. It is the poll's own wait, cut into steps as the
// ticks between polls are: it carries the poll's sequence number and the
// channel its answer comes on, so a stale one (a page since closed or
// paused) is dropped with the answer it waits for, and there is never a
// second loop.
type pollClockMsg[T any] struct {
	p    *poller[T]
	seq  uint64
	done <-chan pollResultMsg[T]
}

func newPoller[T any](ctx context.Context, timeout time.Duration, fetch func(context.Context) (T, error)) *poller[T] {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	return &poller[T]{fetch: fetch, ctx: ctx, timeout: timeout}
}

// now polls at once, unless a poll is in flight (it is left to finish, so
// there is still one loop) or the page has closed. The pending tick, if
// any, becomes stale.
func (p *poller[T]) now(at time.Time) tea.Cmd {
	if p.polling || p.ctx.Err() != nil {
		return nil
	}
	p.seq++
	p.polling, p.started = true, at
	seq, started, fetch, timeout, ctx := p.seq, at, p.fetch, p.timeout, p.ctx
	return func() tea.Msg {
		done := make(chan pollResultMsg[T], 1) // the poll never waits for a reader
		go func() {
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			v, err := fetch(pctx)
			done <- pollResultMsg[T]{p: p, seq: seq, val: v, err: err, started: started}
		}()
		return p.await(seq, done)
	}
}

// sync polls at once on the caller's goroutine and returns the answer,
// for the page's Update to take as any poll's (a replay feeds its records
// so, its clock standing at each). A poll in flight becomes stale. Only
// for a source whose answers are its own to give (a replay's): an
// ObservationSource's observation is its watcher's storage, which a poll
// still in flight would write while the page builds from it.
func (p *poller[T]) sync(at time.Time) pollResultMsg[T] {
	p.seq++
	p.polling, p.started = true, at
	v, err := p.fetch(p.ctx)
	return pollResultMsg[T]{p: p, seq: p.seq, val: v, err: err, started: at}
}

// await is the poll's answer, or a clock step if it takes longer than
// clockInterval.
func (p *poller[T]) await(seq uint64, done <-chan pollResultMsg[T]) tea.Msg {
	t := time.NewTimer(clockInterval)
	defer t.Stop()
	select {
	case r := <-done:
		return r
	case <-t.C:
		return pollClockMsg[T]{p: p, seq: seq, done: done}
	}
}

// clockTick takes a clock step of the poll in flight: ok when it is that
// poll's (the page then re-renders and tells its pipeline how long the
// poll has waited), and cmd waits on.
func (p *poller[T]) clockTick(msg pollClockMsg[T]) (cmd tea.Cmd, ok bool) {
	if msg.p != p || msg.seq != p.seq || !p.polling {
		return nil, false
	}
	seq, done := msg.seq, msg.done
	return func() tea.Msg { return p.await(seq, done) }, true
}

// inFlight returns when the poll in flight began; ok is false when none is.
func (p *poller[T]) inFlight() (started time.Time, ok bool) { return p.started, p.polling }

// current reports whether msg is a tick of the current loop, waiting for
// its next poll.
func (p *poller[T]) current(msg pollTickMsg[T]) bool {
	return msg.p == p && msg.seq == p.seq && !p.polling && p.ctx.Err() == nil
}

// starts reports whether msg is the tick that starts the current loop's
// next poll (tick then starts it).
func (p *poller[T]) starts(msg pollTickMsg[T]) bool { return p.current(msg) && msg.remaining <= 0 }

// tick handles a tick: the next poll when it is the current loop's and due.
func (p *poller[T]) tick(msg pollTickMsg[T], at time.Time) tea.Cmd {
	if !p.current(msg) {
		return nil
	}
	if msg.remaining > 0 {
		return p.after(msg.remaining)
	}
	return p.now(at)
}

// result takes an answer of the current loop; ok is false for any other
// message. at is when it arrived; took is how long the poll took.
func (p *poller[T]) result(msg pollResultMsg[T], at time.Time) (v T, err error, took time.Duration, ok bool) {
	if msg.p != p || msg.seq != p.seq {
		return v, nil, 0, false
	}
	p.polling = false
	if msg.err != nil {
		p.Failures++
		p.Err = msg.err
	} else {
		p.Failures, p.Err, p.LastGood = 0, nil, at
	}
	return msg.val, msg.err, at.Sub(msg.started), true
}

// schedule sets the next poll delay from now.
func (p *poller[T]) schedule(at time.Time, delay time.Duration) tea.Cmd {
	if p.ctx.Err() != nil {
		return nil
	}
	p.RetryAt = at.Add(delay)
	p.seq++
	return p.after(delay)
}

func (p *poller[T]) after(d time.Duration) tea.Cmd {
	step := min(d, clockInterval)
	seq := p.seq
	return tea.Tick(step, func(time.Time) tea.Msg { return pollTickMsg[T]{p: p, seq: seq, remaining: d - step} })
}
