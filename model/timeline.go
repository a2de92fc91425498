package model

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultTimelineCapacity is the number of events a timeline keeps when no
// capacity is given.
const DefaultTimelineCapacity = 1000

// Timeline is a bounded ring of events, kept in time order. When it is full
// the oldest event makes room for the newest, so memory stays flat however
// long the watch runs. It is safe for concurrent use.
//
// Events share their Partitions and Moves slices with whoever added them;
// treat them as read-only.
type Timeline struct {
	mu    sync.Mutex
	buf   []Event
	start int // index in buf of the oldest event
	n     int
}

// NewTimeline returns an empty timeline holding at most capacity events
// (DefaultTimelineCapacity when capacity is not positive).
func NewTimeline(capacity int) *Timeline {
	if capacity <= 0 {
		capacity = DefaultTimelineCapacity
	}
	return &Timeline{buf: make([]Event, capacity)}
}

// Cap returns the most events the timeline holds.
func (t *Timeline) Cap() int { return len(t.buf) }

// Add inserts events in time order. An event is normally the newest and
// goes at the end; one that arrives late (a demo consumer's report racing a
// poll) is placed among the events it belongs with, after those of the same
// time. An event older than everything held by a full timeline is dropped:
// it would be the next to go.
func (t *Timeline) Add(events ...Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, e := range events {
		t.add(e)
	}
}

func (t *Timeline) add(e Event) {
	c := len(t.buf)
	i := t.n // insertion position, counted from the oldest
	for i > 0 && t.buf[(t.start+i-1)%c].Time.After(e.Time) {
		i--
	}
	if t.n == c {
		if i == 0 {
			return
		}
		t.buf[t.start] = Event{} // release its slices
		t.start = (t.start + 1) % c
		t.n--
		i--
	}
	for j := t.n; j > i; j-- {
		t.buf[(t.start+j)%c] = t.buf[(t.start+j-1)%c]
	}
	t.buf[(t.start+i)%c] = e
	t.n++
}

// Len returns the number of events held.
func (t *Timeline) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}

// At returns the i-th event held; 0 is the oldest. It panics when i is out
// of range, as indexing a slice does.
func (t *Timeline) At(i int) Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i < 0 || i >= t.n {
		panic("model: Timeline.At index out of range")
	}
	return t.buf[(t.start+i)%len(t.buf)]
}

// Events returns a copy of the events held, oldest first.
func (t *Timeline) Events() []Event { return t.AppendEvents(nil) }

// AppendEvents appends the events held to dst, oldest first, and returns
// it: a page that shows them after every poll with new ones copies them
// into a slice it keeps, not a new one each time (up to 1,000 events of
// 10,000-partition groups, 5% of their TUI's allocation).
func (t *Timeline) AppendEvents(dst []Event) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	dst = append(dst, t.buf[t.start:min(t.start+t.n, len(t.buf))]...)
	return append(dst, t.buf[:t.n-(min(t.start+t.n, len(t.buf))-t.start)]...)
}

// Tracker turns the sequence of snapshots of one group into timeline events
// and keeps them in a Timeline. It is safe for concurrent use: the watcher
// may Observe while demo consumers Add.
//
// Observe keeps the snapshot's members (their lists are never written) and
// its partitions' keys, never its rows: they may be built again in place
// for the next poll (SnapshotBuilder).
type Tracker struct {
	mu sync.Mutex
	d  differ
	w  waitState // an outage opened by an unanswered poll (unanswered.go)
	// cluster is the last cluster id known (cluster.go); ends the last
	// snapshot's log ends, for log_end_backwards (diffends.go).
	cluster string
	ends    lastEnds
	tl      *Timeline
	// rate counts the rebalances, stats at the last poll
	// (rebalancestats.go).
	rate  *RebalanceRate
	stats RebalanceStats
}

// triggerWindow is how long a consumer's start, stop or restart waits for
// the rebalance it sets off.
const triggerWindow = 10 * time.Second

// maxConsumerReports bounds differ.consumers between two snapshots.
const maxConsumerReports = 1024

// NewTracker returns a tracker for group whose timeline holds capacity
// events (DefaultTimelineCapacity when capacity is not positive).
func NewTracker(group string, capacity int) *Tracker {
	return &Tracker{d: differ{group: group}, tl: NewTimeline(capacity), rate: NewRebalanceRate(0)}
}

// Observe diffs s against the previous snapshot, adds the resulting events
// to the timeline and returns them. The first snapshot gives a single
// watch_started. After ConnectionLost, the next snapshot first gives a
// connection_restored.
func (t *Tracker) Observe(s Snapshot) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	events := t.answered(s)
	cluster := t.clusterEvents(s) // may start the differ afresh
	events = afterOutage(append(events, t.d.observe(s)...), cluster)
	events = t.countRebalances(s, events)
	completed := false
	for _, e := range events {
		completed = completed || e.Type == EventRebalanceCompleted
	}
	// A start, stop or restart waits for its rebalance, across polls
	// that still see the group as it was; not once an assignment came
	// after it by this poll (its rebalance ended unseen: before the watch
	// began, or with no owner changed), else a later one would be timed
	// from it (the demo's own consumers' starts timed a spawn 6s on as
	// taking 6.11s).
	var assigned time.Time
	for _, r := range t.d.consumers {
		if r.Type == EventDemoAssigned && !r.Time.After(s.TakenAt) && r.Time.After(assigned) {
			assigned = r.Time
		}
	}
	kept := t.d.consumers[:0]
	for _, r := range t.d.consumers {
		if isTrigger(r.Type) && !completed && s.TakenAt.Sub(r.Time) < triggerWindow && r.Time.After(assigned) {
			kept = append(kept, r)
		}
	}
	clear(t.d.consumers[len(kept):])
	t.d.consumers = kept
	t.d.pruneClocks(s.ObservedAt())
	t.ends.keep(s.Partitions)
	t.tl.Add(events...)
	return events
}

// isTrigger reports whether a consumer's report is of an act that sets a
// rebalance off.
func isTrigger(t EventType) bool {
	return t == EventDemoSpawned || t == EventDemoStopped || t == EventDemoRestarted
}

// consumerSpan is the duration the group's consumers reported for a
// rebalance that began and ended between two polls, the second at at: from
// the first of them to act (a consumer started, stopped or restarted, one
// revoking its partitions) to the last assignment, when they reported
// both. A demo's rebalance on an in-process cluster takes about a tenth of
// a second, less than a poll interval, and compare mode is about exactly
// that duration.
func consumerSpan(reports []Event, at time.Time) (time.Duration, bool) {
	var start, end time.Time
	for _, r := range reports {
		if r.Time.After(at) {
			continue
		}
		switch {
		case isTrigger(r.Type) || r.Type == EventDemoRevoked:
			if start.IsZero() || r.Time.Before(start) {
				start = r.Time
			}
		case r.Type == EventDemoAssigned:
			if r.Time.After(end) {
				end = r.Time
			}
		}
	}
	if start.IsZero() || !end.After(start) {
		return 0, false
	}
	return end.Sub(start), true
}

// ConnectionLost records that a poll failed with err, seen at at. Only the
// first failure of an outage gives a connection_lost event; later ones
// return nil until a snapshot is observed again.
func (t *Tracker) ConnectionLost(at time.Time, err error) []Event {
	return t.PollFailed(at, at, err)
}

// PollFailed is ConnectionLost for a poll that began at started: the
// outage's polls failed from the first one's start to the last failure,
// the least the connection_restored says it lasted. (A failure known only
// by when it was seen, as a recording's, counts from then.)
func (t *Tracker) PollFailed(started, at time.Time, err error) []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	if started.IsZero() || started.After(at) {
		started = at
	}
	if t.d.lost {
		if at.After(t.d.failedTo) {
			t.d.failedTo = at
		}
		// An outage an unanswered poll opened has failed now: it ends
		// with connection_restored.
		t.w.open = false
		return nil
	}
	t.d.lost = true
	t.d.failedFrom, t.d.failedTo = started, at
	detail := "connection lost"
	if t.d.last == nil && t.d.goodAt.IsZero() {
		// No poll has succeeded yet: nothing was lost.
		detail = "cannot reach the cluster yet"
	}
	if err != nil {
		detail += ": " + strings.Join(strings.Fields(err.Error()), " ")
	}
	state := ""
	if t.d.last != nil {
		state = t.d.last.state
	}
	e := Event{Time: at, Type: EventConnectionLost, Group: t.d.group, State: state, Detail: detail}
	t.tl.Add(e)
	return []Event{e}
}

// Add records an event from outside the diff, such as a demo consumer's
// report. Its Group is filled in when empty, and a zero Time becomes that of
// the newest event held, so it is not filed as the oldest. It returns the
// event as filed.
func (t *Tracker) Add(e Event) Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.Group == "" {
		e.Group = t.d.group
	}
	if e.Time.IsZero() {
		if n := t.tl.Len(); n > 0 {
			e.Time = t.tl.At(n - 1).Time
		}
	}
	switch e.Type {
	case EventPollUnanswered: // a recording's (Pipeline.Waiting taps it)
		t.openUnanswered(e)
	case EventDemoSpawned, EventDemoStopped, EventDemoRestarted, EventDemoRevoked, EventDemoAssigned:
		if len(t.d.consumers) < maxConsumerReports {
			t.d.consumers = append(t.d.consumers, e)
		}
	case EventDemoRebalanceClocked:
		t.d.clocked(e)
	}
	t.tl.Add(e)
	return e
}

// Timeline returns the tracker's timeline.
func (t *Tracker) Timeline() *Timeline { return t.tl }

// Touched returns the partitions an event is about: its Partitions and the
// partitions of its Moves, sorted, without repeats. The UI highlights them.
func (e Event) Touched() []TopicPartition {
	if len(e.Moves) == 0 {
		return e.Partitions
	}
	out := make([]TopicPartition, 0, len(e.Partitions)+len(e.Moves))
	out = append(out, e.Partitions...)
	for _, m := range e.Moves {
		out = append(out, m.TopicPartition)
	}
	slices.SortFunc(out, CompareTP)
	return slices.Compact(out)
}
