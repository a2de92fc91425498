package model

import "time"

// An unanswered poll. A cluster that stops answering (a frozen broker
// process, a half-open connection) fails no poll until --timeout ends
// it; until then the data on screen only gets older. The callers of a
// Pipeline tell it, on their clock ticks, how long the poll in flight has
// waited (Pipeline.Waiting); once that passes UnansweredAfter the
// interval, the timeline says so (poll_unanswered), and the poll's answer
// says how long it took (poll_answered). An unanswered poll opens an
// outage as a failed one does: a failure that follows (the timeout)
// gives no connection_lost of its own, and the outage then ends with
// connection_restored; one outage, one pair of events.

// UnansweredAfter is how long a poll may go unanswered before it is news:
// three poll intervals, and at least 3s (a healthy poll of a large group
// takes a good part of a second; at the shortest intervals three of them
// would be noise). Data older than this plus an interval is never shown
// as fresh.
func UnansweredAfter(interval time.Duration) time.Duration {
	if interval <= 0 {
		interval = time.Second
	}
	return max(3*interval, minUnanswered)
}

// minUnanswered is the least UnansweredAfter gives.
const minUnanswered = 3 * time.Second

// waitState is the tracker's part of an outage opened by an unanswered
// poll.
type waitState struct {
	// open: the outage began with poll_unanswered and no poll has failed
	// since; its end is poll_answered.
	open bool
}

// Waiting is told that a poll begun at started has had no answer by now.
// Once it has waited after (UnansweredAfter the interval), and no outage
// is open, it files and returns a poll_unanswered event; later calls
// return nil until a poll is observed again.
func (t *Tracker) Waiting(now, started time.Time, after time.Duration) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.d.lost || started.IsZero() || now.Sub(started) < after {
		return nil
	}
	waited := now.Sub(started)
	detail := "the cluster has not answered a poll for " + Elapsed(waited)
	if t.d.last == nil && t.d.goodAt.IsZero() {
		detail = "no answer from the cluster yet: the first poll has waited " + Elapsed(waited)
	}
	e := Event{Time: now, Type: EventPollUnanswered, Group: t.d.group, State: t.lastState(),
		Duration: waited, HasDuration: true, Detail: detail}
	t.openUnanswered(e)
	t.tl.Add(e)
	return []Event{e}
}

// openUnanswered opens the outage a poll_unanswered event says began, at
// the start of the poll it is about (the event's time less its duration).
func (t *Tracker) openUnanswered(e Event) {
	if t.d.lost {
		return
	}
	t.d.lost, t.w.open = true, true
	t.d.failedFrom, t.d.failedTo = e.Time.Add(-e.Duration), e.Time
}

// answered closes an outage opened by an unanswered poll, none having
// failed since, with the poll_answered of the snapshot that answered it;
// nil when there is none such.
func (t *Tracker) answered(s Snapshot) []Event {
	if !t.w.open {
		return nil
	}
	t.w.open, t.d.lost = false, false
	at := s.ObservedAt()
	took := nonNegative(at.Sub(t.d.failedFrom))
	detail := "the cluster answered a poll after " + Elapsed(took)
	if t.d.last == nil && t.d.goodAt.IsZero() {
		detail = "the cluster answered the first poll after " + Elapsed(took)
	}
	return []Event{{Time: at, Type: EventPollAnswered, Group: t.d.group, State: normState(s.Group.State),
		Duration: took, HasDuration: true, Detail: detail}}
}

// lastState is the group's state at the last snapshot; "" before one.
func (t *Tracker) lastState() string {
	if t.d.last == nil {
		return ""
	}
	return t.d.last.state
}

// Waiting tells the pipeline that the poll begun at started has had no
// answer by now (the TUI and `--events` call it on their clock ticks
// while a poll is in flight). It returns the poll_unanswered event once
// the poll has waited UnansweredAfter the interval, and nil otherwise;
// the tap records the event as an added one, so a replay, which makes no
// calls of its own, files it at the same moment.
func (p *Pipeline) Waiting(now, started time.Time) []Event {
	events := p.tracker.Waiting(now, started, UnansweredAfter(p.interval))
	if p.tap != nil {
		for _, e := range events {
			p.tap.Added(e)
		}
	}
	return events
}
