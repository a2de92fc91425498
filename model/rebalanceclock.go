package model

import "time"

// coordinatorClock is one rebalance as the demo's embedded coordinator
// dated it (demo_rebalance_clocked): from when the group left Stable or a
// member asked to join, to when every member had its assignment.
type coordinatorClock struct {
	start, end time.Time
	fromEmpty  bool // the group was empty when it began
}

// maxClocks bounds differ.clocks between two completions.
const maxClocks = 64

// clocked keeps the coordinator's dates of a rebalance for its
// rebalance_completed.
func (d *differ) clocked(e Event) {
	if !e.HasDuration || e.Duration < 0 || len(d.clocks) >= maxClocks {
		return
	}
	d.clocks = append(d.clocks, coordinatorClock{start: e.Time.Add(-e.Duration), end: e.Time, fromEmpty: e.State == StateEmpty})
}

// pruneClocks drops, while no rebalance is open, the clocks that ended by
// at: their rebalance has completed (or ended unseen, with no owner
// changed), so none can date a later one.
func (d *differ) pruneClocks(at time.Time) {
	if d.rb != nil || d.phase != nil {
		return
	}
	kept := d.clocks[:0]
	for _, c := range d.clocks {
		if c.end.After(at) {
			kept = append(kept, c)
		}
	}
	clear(d.clocks[len(kept):])
	d.clocks = kept
}

// coordinatorSpan is the span of the clocks that ended by at, the poll
// that saw their rebalance complete: from the first start to the last
// end, however many generations the polls saw as one rebalance.
func (d *differ) coordinatorSpan(at time.Time) (coordinatorClock, bool) {
	var span coordinatorClock
	ok := false
	for _, c := range d.clocks {
		if c.end.After(at) {
			continue
		}
		if !ok || c.start.Before(span.start) {
			span.start, span.fromEmpty = c.start, c.fromEmpty
		}
		if !ok || c.end.After(span.end) {
			span.end = c.end
		}
		ok = true
	}
	return span, ok
}

// coordinatorTimed gives c, the completion at at of a whole rebalance
// from base (nil: unknown), the coordinator's duration when the demo's
// coordinator dated it: the same number for the same action, whatever the
// poll interval, and for members the demo does not run (an outside client
// joining through --listen). A rebalance that began from an empty group —
// the demo's consumers starting with the watch — moved every partition
// from nobody: base becomes the empty group.
func (d *differ) coordinatorTimed(c completion, base *snapView, at time.Time) (completion, *snapView) {
	span, ok := d.coordinatorSpan(at)
	if !ok {
		return c, base
	}
	c.took, c.timed = nonNegative(span.end.Sub(span.start)), true
	lead := "rebalance took "
	if c.inferred {
		lead = "rebalance between polls took "
	}
	c.lead = lead + Elapsed(c.took) + " (the coordinator's clock)"
	if base == nil && span.fromEmpty {
		base = &snapView{at: span.start, state: StateEmpty, known: true, byID: map[string]int{}, byKey: map[memberRef]int{}, counts: map[string]int{}}
	}
	return c, base
}

// coordinatorAssign gives c, the completion of a cooperative rebalance's
// assign phase at at, the coordinator's duration of both phases.
func (d *differ) coordinatorAssign(c completion, at time.Time) completion {
	span, ok := d.coordinatorSpan(at)
	if !ok {
		return c
	}
	c.took, c.timed = nonNegative(span.end.Sub(span.start)), true
	c.lead = "cooperative rebalance took " + Elapsed(c.took) + " (the coordinator's clock, both phases)"
	return c
}
