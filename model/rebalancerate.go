package model

import "time"

// How often a group rebalances, and for how long its partitions stop: the
// number that tells a rebalance storm (a crash-looping member, a rolling
// deploy without graceful shutdown, max.poll.interval evictions) from a
// one-off. A RebalanceRate counts, over the last minute, ten minutes and
// hour, the rebalances the differ completed (each rebalance_completed,
// each of a cooperative rebalance's two rounds when polls saw them apart)
// and those no poll saw: between two polls a group's generation
// (Group.RebalanceGeneration) that moved by 3 while the differ completed
// one is 3 rebalances, 2 of them inferred, their durations unknown.
//
// Stopped time is partition-time that could not be consumed: for each
// timed rebalance, its duration times the partitions it stopped. An eager
// rebalance stops every partition of the group (those it gave back to
// the same owner and those it moved: rebalance_completed's partitions and
// moves); an incremental one (cooperative, or a consumer group's) only
// those revoked or moved (its moves). A cooperative rebalance's revoke
// round counts as a rebalance but adds no time: its assign round is timed
// from the revoke round's start.

// The spans RebalanceStats counts over. StormWindow is the one
// --max-rebalances counts over (RebalanceStorm), and the header's.
const (
	ShortWindow = time.Minute
	StormWindow = 10 * time.Minute
	LongWindow  = time.Hour
)

// MaxMaxRebalances bounds --max-rebalances (a count in 10 minutes).
const MaxMaxRebalances = 100_000

// rebalanceBucket: rebalances completed this close together share one
// mark, so a group rebalancing at every 100ms poll for an hour keeps 3,600
// marks, not 36,000.
const rebalanceBucket = time.Second

// RebalanceWindow counts the rebalances completed in one span of time
// ending at a poll.
type RebalanceWindow struct {
	Span time.Duration
	// Count is every rebalance completed in the span; Inferred those no
	// poll saw in progress (begun and ended between two polls, or counted
	// from a generation's jump); Untimed those whose duration is unknown.
	Count, Inferred, Untimed int
	// Rebalancing sums the timed ones' durations (wall time); Stopped the
	// partition-time they stopped (see above).
	Rebalancing, Stopped time.Duration
}

// RebalanceStats is a group's rebalance counts at one poll.
type RebalanceStats struct {
	// At is the poll's time; Watched how long the counts have been kept,
	// from the first poll to this one. Zero: one poll, nothing measured.
	// A window longer than Watched counts only Watched.
	At      time.Time
	Watched time.Duration
	// Generation is the group's generation at the poll
	// (Group.RebalanceGeneration); 0 when unknown.
	Generation int32
	// Generations: the generation was read at two polls or more, so its
	// moves are counted (the overview counts nothing else).
	Generations bool
	// The counts over the last ShortWindow, StormWindow and LongWindow.
	Minute, TenMinutes, Hour RebalanceWindow
	// Max is --max-rebalances (0: none); Storm: RebalanceStorm(s, Max).
	Max   int
	Storm bool
}

// Measured reports whether the counts cover any time: one poll knows the
// generation only.
func (s RebalanceStats) Measured() bool { return s.Watched > 0 }

// Window returns the counts over span (ShortWindow, StormWindow or
// LongWindow); a zero window for another span.
func (s RebalanceStats) Window(span time.Duration) RebalanceWindow {
	for _, w := range [...]RebalanceWindow{s.Minute, s.TenMinutes, s.Hour} {
		if w.Span == span {
			return w
		}
	}
	return RebalanceWindow{Span: span}
}

// RebalanceStorm reports whether s counts more than max rebalances
// (max > 0) in the last StormWindow: a storm, not a one-off. It is the one
// rule: the header's mark, the rebalance_storm events and JSON's storm
// read it.
func RebalanceStorm(s RebalanceStats, max int) bool {
	return max > 0 && s.Measured() && s.Window(StormWindow).Count > max
}

// rebalanceMark is the rebalances completed at one time (within
// rebalanceBucket of it).
type rebalanceMark struct {
	at                   time.Time
	n, inferred, untimed int
	took, stopped        time.Duration
}

// RebalanceRate counts a group's rebalances poll after poll. It reads no
// clock: each poll brings its time. It is not safe for concurrent use.
type RebalanceRate struct {
	marks       []rebalanceMark // oldest first, none older than the longest span
	first, last time.Time
	// gen is the last generation read (0: none yet); reads how many polls
	// read one.
	gen   int32
	reads int
	// balance is the generations counted minus the rebalances completed
	// since the last poll that settled them: owed (positive) are
	// rebalances no poll saw; credit (negative) completions whose
	// generation is not read yet (a group gone Empty tells none).
	balance int
	max     int
}

// NewRebalanceRate returns a rate that has seen no poll; max is
// --max-rebalances (0: none).
func NewRebalanceRate(max int) *RebalanceRate { return &RebalanceRate{max: max} }

// Observe takes one poll at at: the group as it was, the events the
// differ gave for it (its rebalance_completed ones count), and whether a
// rebalance is still open (its completion is to come, so a generation
// moved for it is not yet owed). Polls must come in time order; an older
// one starts the count afresh.
func (r *RebalanceRate) Observe(at time.Time, g Group, events []Event, open bool) RebalanceStats {
	return r.ObserveGeneration(at, g.RebalanceGeneration(), g.Exists(), events, open)
}

// ObserveGeneration is Observe for a poll that read only the group's
// generation (Group.RebalanceGeneration; 0: unknown) and whether it
// exists, as the overview does.
func (r *RebalanceRate) ObserveGeneration(at time.Time, gen int32, exists bool, events []Event, open bool) RebalanceStats {
	if r.first.IsZero() || at.Before(r.last) {
		*r = RebalanceRate{max: r.max, first: at}
	}
	r.last = at
	switch {
	case !exists:
		// Deleted: a group of that name starts its generations again.
		r.gen, r.balance = 0, 0
	case gen > 0:
		if r.gen > 0 && gen > r.gen {
			r.balance += int(gen - r.gen)
		}
		r.gen = gen // a generation gone back (the group recreated) starts afresh
		r.reads++
	}
	for _, e := range events {
		if e.Type == EventRebalanceCompleted {
			r.add(completedMark(e))
			r.balance--
		}
	}
	if gen > 0 && !open {
		if r.balance > 0 {
			r.add(rebalanceMark{at: at, n: r.balance, inferred: r.balance, untimed: r.balance})
		}
		r.balance = 0
	}
	return r.stats(at, gen)
}

// completedMark is one rebalance_completed's mark.
func completedMark(e Event) rebalanceMark {
	m := rebalanceMark{at: e.Time, n: 1}
	if e.Inferred {
		m.inferred = 1
	}
	switch {
	case e.Phase == PhaseRevoke: // timed with its assign round
	case e.HasDuration:
		m.took = e.Duration
		m.stopped = e.Duration * time.Duration(len(e.Partitions)+len(e.Moves))
	default:
		m.untimed = 1
	}
	return m
}

// add files m, merged with the newest mark when within rebalanceBucket of
// it, and forgets marks older than the longest span.
func (r *RebalanceRate) add(m rebalanceMark) {
	if k := len(r.marks) - 1; k >= 0 && m.at.Sub(r.marks[k].at) < rebalanceBucket && !m.at.Before(r.marks[k].at) {
		last := &r.marks[k]
		last.n, last.inferred, last.untimed = last.n+m.n, last.inferred+m.inferred, last.untimed+m.untimed
		last.took, last.stopped = last.took+m.took, last.stopped+m.stopped
		return
	}
	r.marks = append(r.marks, m)
}

// stats counts the marks in each span ending at at, once it has forgotten
// those older than the longest.
func (r *RebalanceRate) stats(at time.Time, gen int32) RebalanceStats {
	drop := 0
	for drop < len(r.marks) && !r.marks[drop].at.After(at.Add(-LongWindow)) {
		drop++
	}
	if drop > 0 {
		r.marks = append(r.marks[:0], r.marks[drop:]...)
	}
	s := RebalanceStats{At: at, Watched: at.Sub(r.first), Generation: gen, Generations: r.reads >= 2, Max: r.max,
		Minute: r.window(at, ShortWindow), TenMinutes: r.window(at, StormWindow), Hour: r.window(at, LongWindow)}
	s.Storm = RebalanceStorm(s, r.max)
	return s
}

// window counts the marks in the span ending at at.
func (r *RebalanceRate) window(at time.Time, span time.Duration) RebalanceWindow {
	w := RebalanceWindow{Span: span}
	from := at.Add(-span)
	for _, m := range r.marks {
		if m.at.After(from) {
			w.Count, w.Inferred, w.Untimed = w.Count+m.n, w.Inferred+m.inferred, w.Untimed+m.untimed
			w.Rebalancing, w.Stopped = w.Rebalancing+m.took, w.Stopped+m.stopped
		}
	}
	return w
}
