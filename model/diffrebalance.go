package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// rebalanceStart says how a rebalance came to be seen, for its
// rebalance_started.
type rebalanceStart struct {
	inferred bool   // it began and ended between two polls
	restored bool   // first seen right after an outage
	phase    string // PhaseAssign after a cooperative revoke phase (nextPhase)
	epoch    string // how the target assignment epoch moved (epochMove)
}

// open opens d.rb, first seen in progress now, from the owners of base
// (nil: unknown), and returns its rebalance_started. Seen first right
// after an outage, it may have begun at any time during it: its duration
// is unknown.
func (d *differ) open(b stamp, base *snapView, how rebalanceStart, causes []string) Event {
	d.rb = &openRebalance{at: b.at, timed: !how.restored, outage: how.restored, base: base}
	return rebalanceStarted(b, how, causes)
}

// rebalanceStarted is a rebalance's rebalance_started, with the members'
// comings and goings that set it off.
func rebalanceStarted(b stamp, how rebalanceStart, causes []string) Event {
	var what string
	switch {
	case how.inferred && how.phase == PhaseAssign:
		what = "assign phase of the cooperative rebalance happened between polls"
	case how.inferred:
		what = "rebalance happened between polls"
	case how.phase == PhaseAssign:
		what = "assign phase of the cooperative rebalance started"
	case how.restored:
		what = "rebalance in progress (it began while the connection was lost)"
	default:
		what = "rebalance started"
	}
	e := b.event(EventRebalanceStarted, startDetail(what+how.epoch, causes))
	e.Inferred, e.Phase = how.inferred, how.phase
	return e
}

// nextPhase is the phase of a classic group's next rebalance: the assign
// phase after a cooperative revoke phase, else none.
func (d *differ) nextPhase() string {
	if d.phase != nil {
		return PhaseAssign
	}
	return ""
}

// completeClassic closes the classic rebalance d.rb at the settled view
// cur. A cooperative group rebalances in two phases: the first ends with
// the partitions that move revoked (unowned, their owners still members)
// and is reported as the revoke phase; the next rebalance, the assign
// phase, reports the moves from the owners before the first.
func (d *differ) completeClassic(b stamp, cur *snapView, inferred bool) []Event {
	rb := d.rb
	coop := d.coop || cur.coop // commit folded rb.base's into d.coop
	if coop && d.phase == nil && cur.state == StateStable && rb.base != nil && revokedOnly(rb.base, cur) {
		d.phase = rb
		c := completion{inferred: inferred, phase: PhaseRevoke}
		if !inferred && rb.timed {
			c.took, c.timed = nonNegative(cur.at.Sub(rb.at)), true
		}
		return rebalanceCompleted(b, rb.base, cur, c, coop)
	}
	switch {
	case d.phase == nil && inferred:
		c, base := d.coordinatorTimed(d.endedBetweenPolls(cur.at), rb.base, cur.at)
		return rebalanceCompleted(b, base, cur, c, coop)
	case d.phase == nil:
		c, base := d.coordinatorTimed(ended(rb, cur.at), rb.base, cur.at)
		return rebalanceCompleted(b, base, cur, c, coop)
	}
	first := d.phase // the revoke phase: the rebalance began with it
	c := completion{inferred: inferred, phase: PhaseAssign}
	switch {
	case first.timed && rb.timed && !inferred:
		c.took, c.timed = nonNegative(cur.at.Sub(first.at)), true
		c.lead = "assign phase took " + Elapsed(nonNegative(cur.at.Sub(rb.at))) +
			"; cooperative rebalance took " + Elapsed(c.took)
	case inferred && first.timed:
		c.lead = "assign phase between polls; the cooperative rebalance began " +
			Elapsed(nonNegative(cur.at.Sub(first.at))) + " before"
	default:
		c.lead = "assign phase of a cooperative rebalance completed, duration unknown"
	}
	d.phase = nil
	return rebalanceCompleted(b, first.base, cur, d.coordinatorAssign(c, cur.at), coop)
}

// completion is how a rebalance_completed begins: whether the rebalance
// was only inferred, which phase of a cooperative one it is, how long it
// took when that is known, and the words its sentence begins with (the
// revoke phase's are revokeDetail's).
type completion struct {
	inferred bool
	phase    string
	took     time.Duration
	timed    bool
	lead     string
}

// ended is the completion of a whole rebalance seen in progress, rb,
// completed at at.
func ended(rb *openRebalance, at time.Time) completion {
	switch {
	case rb.timed:
		took := nonNegative(at.Sub(rb.at))
		return completion{took: took, timed: true, lead: "rebalance took " + Elapsed(took)}
	case rb.outage:
		return completion{lead: "rebalance completed, duration unknown (the connection was lost meanwhile)"}
	}
	return completion{lead: "rebalance completed (it began before the watch started)"}
}

// endedBetweenPolls is the completion of a whole rebalance inferred
// between two polls, the second at at: timed by its consumers' reports
// when they give it a duration.
func (d *differ) endedBetweenPolls(at time.Time) completion {
	if took, ok := consumerSpan(d.consumers, at); ok {
		return completion{inferred: true, took: took, timed: true,
			lead: "rebalance between polls took " + Elapsed(took) + " (its consumers' clocks)"}
	}
	return completion{inferred: true, lead: "rebalance between polls, duration unknown"}
}

// revokedOnly reports whether cur, after a rebalance from base, has
// partitions that members still in the group gave up and nobody owns yet:
// a cooperative revoke phase.
func revokedOnly(base, cur *snapView) bool {
	moves, _ := diffOwners(base, cur)
	for _, m := range moves {
		if m.To != "" || m.fromID == "" {
			continue
		}
		if i, ok := base.byID[m.fromID]; ok {
			if _, stays := cur.byKey[memberKey(base.members[i])]; stays {
				return true
			}
		}
	}
	return false
}

// rebalanceCompleted closes a rebalance at cur, from the owners of base
// (nil: unknown): rebalance_completed, then one partition_moved per
// partition whose owner changed (none for a revoke phase: they wait for
// the assign phase). incremental: the rebalance leaves the partitions that
// stay alone (cooperative or coordinator-assigned).
func rebalanceCompleted(b stamp, base, cur *snapView, c completion, incremental bool) []Event {
	e := b.event(EventRebalanceCompleted, "")
	e.Inferred, e.Phase = c.inferred, c.phase
	e.Duration, e.HasDuration = c.took, c.timed
	multi := cur.multiTopic()
	var (
		moves []ownerMove
		kept  []TopicPartition
	)
	if base != nil {
		multi = multi || base.multiTopic()
		moves, kept = diffOwners(base, cur)
		if incremental {
			// A cooperative (or coordinator-assigned) rebalance leaves
			// the partitions that stay alone.
			kept = nil
		}
	}
	if len(kept) > 0 {
		if cap(kept) > 2*len(kept) {
			kept = slices.Clone(kept) // the ring keeps it: drop the spare room
		}
		e.Partitions = kept
	}
	if len(moves) > 0 {
		e.Moves = make([]Move, len(moves))
		for i, m := range moves {
			e.Moves[i] = m.Move
		}
	}
	if c.phase == PhaseRevoke {
		e.Detail = revokeDetail(e, multi)
		return []Event{e} // partition_moved waits for the assign phase
	}
	e.Detail = c.lead + ": " + completedSummary(base, cur, moves, kept)
	if len(moves) > MaxMoveEvents {
		// A rebalance of a large group would flush the whole timeline with
		// one event per partition; rebalance_completed lists every move.
		e.Detail += fmt.Sprintf("; %d partition_moved events not listed one by one (see moves)", len(moves))
		return []Event{e}
	}
	out := make([]Event, 0, 1+len(moves))
	out = append(out, e)
	tps := make([]TopicPartition, len(moves)) // one array for all the events
	for i, m := range moves {
		tps[i] = m.TopicPartition
		pe := b.event(EventPartitionMoved, moveDetail(m, multi))
		pe.Inferred = c.inferred
		pe.Partitions = tps[i : i+1 : i+1]
		pe.From, pe.To = m.From, m.To
		out = append(out, pe)
	}
	return out
}

// completedSummary says what a rebalance from base (nil: unknown) to cur
// did: "1 partition moved, 2 paused, then back to their owner; consumer-c
// owns no partitions".
func completedSummary(base, cur *snapView, moves []ownerMove, kept []TopicPartition) string {
	var summary []string
	if base == nil {
		summary = append(summary, "moves unknown")
	} else {
		var moved, gained, lost int
		for _, m := range moves {
			switch {
			case m.From == "":
				gained++
			case m.To == "":
				lost++
			default:
				moved++
			}
		}
		if moved > 0 {
			summary = append(summary, Count(moved, "partition")+" moved")
		}
		if gained > 0 {
			summary = append(summary, Count(gained, "partition")+" newly assigned")
		}
		if lost > 0 {
			summary = append(summary, Count(lost, "partition")+" left unowned")
		}
		if len(moves) == 0 {
			summary = append(summary, "no partitions moved")
		}
		if len(kept) > 0 {
			summary = append(summary, strconv.Itoa(len(kept))+" paused, then back to their owner")
		}
	}
	detail := strings.Join(summary, ", ")
	if cur.assigned() {
		var idle []string
		for _, m := range cur.members {
			if len(m.Partitions) == 0 {
				idle = append(idle, memberLabel(m))
			}
		}
		switch len(idle) {
		case 0:
		case 1:
			detail += "; " + idle[0] + " owns no partitions"
		default:
			detail += "; " + listNames(idle) + " own no partitions"
		}
	} else if cur.state == StateEmpty {
		detail += "; the group is empty"
	}
	return detail
}
