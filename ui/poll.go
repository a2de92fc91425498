package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Polling cadence.
const (
	// FastInterval is the poll interval while a group rebalances, so the
	// rebalance's start and end are timed well.
	FastInterval = 200 * time.Millisecond
	// MaxBackoff caps the retry delay after failed polls.
	MaxBackoff = 10 * time.Second
	// clockInterval refreshes relative times on screen.
	clockInterval = time.Second
)

// NextPollDelay chooses how long to wait before the next poll. After
// failures it backs off 1s, 2s, 4s … capped at MaxBackoff. While the group
// is between generations it polls every FastInterval (never slower than
// base). Otherwise, including while waiting for a group that does not exist
// yet, it polls every base.
func NextPollDelay(g model.Group, base time.Duration, failures int) time.Duration {
	if failures > 0 {
		return Backoff(failures)
	}
	if base <= 0 {
		base = time.Second
	}
	if g.Rebalancing() && FastInterval < base {
		return FastInterval
	}
	return base
}

// overviewFetchesPerSecond bounds the overview's polling: it reads each
// group's commits with one OffsetFetch (kafka-go cannot batch them), so a
// cluster of many groups is polled more slowly rather than harder.
const overviewFetchesPerSecond = 100

// OverviewPollDelay is NextPollDelay for the all-groups overview: never
// faster than one OffsetFetch per group at overviewFetchesPerSecond.
func OverviewPollDelay(base time.Duration, groups, failures int) time.Duration {
	d := NextPollDelay(model.Group{}, base, failures)
	if failures > 0 {
		return d
	}
	return max(d, time.Duration(groups)*time.Second/overviewFetchesPerSecond)
}

// Backoff returns the retry delay after the given number of consecutive
// failures: 1s, 2s, 4s, 8s, then MaxBackoff.
func Backoff(failures int) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := time.Second
	for i := 1; i < failures && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// pollCmd runs one poll of src with a timeout, off the update loop.
func pollCmd(ctx context.Context, src Source, timeout time.Duration, seq uint64) tea.Cmd {
	return func() tea.Msg {
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		pctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		snap, err := src.Poll(pctx)
		return pollMsg{Seq: seq, Snap: snap, Err: err}
	}
}

// tickCmd schedules the next poll of loop seq after d, in steps of at most
// clockInterval so the screen's relative times refresh during long waits.
func tickCmd(d time.Duration, seq uint64) tea.Cmd {
	step := min(d, clockInterval)
	return tea.Tick(step, func(time.Time) tea.Msg { return tickMsg{Seq: seq, Remaining: d - step} })
}

// handleTick starts the next poll when the tick belongs to the current loop
// and no poll is in flight; anything else is a stale tick and dropped, so
// there is only ever one loop.
func (a *App) handleTick(msg tickMsg) tea.Cmd {
	if msg.Seq != a.seq || a.polling || a.ctx.Err() != nil {
		return nil
	}
	if msg.Remaining > 0 {
		return tickCmd(msg.Remaining, a.seq)
	}
	a.polling = true
	return pollCmd(a.ctx, a.src, a.opts.Timeout, a.seq)
}

// handlePoll takes a poll result of the current loop: a snapshot replaces
// the data, an error keeps the last data, marks it stale and backs off.
// Either way the next tick is scheduled.
func (a *App) handlePoll(msg pollMsg) tea.Cmd {
	if msg.Seq != a.seq {
		return nil
	}
	a.polling = false
	if msg.Err != nil {
		a.applyError(msg.Err)
	} else {
		a.applySnapshot(msg.Snap)
	}
	if a.ctx.Err() != nil {
		return nil
	}
	s := &a.watch
	delay := NextPollDelay(s.Snap.Group, a.opts.Interval, s.Failures)
	if s.Failures == 0 && a.demoFastPoll() {
		delay = min(delay, FastInterval)
	}
	s.RetryAt = s.Now.Add(delay)
	a.seq++
	return tickCmd(delay, a.seq)
}

// pollNow polls at once instead of waiting for the next tick (for keys that
// change what is watched, such as demo actions). The pending tick chain
// becomes stale; a poll already in flight is left to finish, so there is
// still only one loop.
func (a *App) pollNow() tea.Cmd {
	if a.polling || a.ctx.Err() != nil {
		return nil
	}
	a.seq++
	a.polling = true
	return pollCmd(a.ctx, a.src, a.opts.Timeout, a.seq)
}
