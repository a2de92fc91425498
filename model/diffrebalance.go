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
		out, held := completedWith(b, rb.base, cur, c, coop, nil, true)
		d.revoked = held
		return out
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
	// The moves are read from the revoke phase's settled view, and the
	// partitions it revoked are completed from d.revoked: each move is
	// counted once, by the round in which it ended, and dated when the
	// partition left its owner. The assign phase of one join may revoke
	// for the next (a third member joining meanwhile): it is a revoke
	// phase too, and the next round its assign phase.
	base := rb.base
	if base == nil {
		base = first.base
	}
	chained := base != nil && revokedOnly(base, cur)
	if !chained {
		c = d.coordinatorAssign(c, cur.at)
	}
	out, held := completedWith(b, base, cur, c, coop, d.revoked, chained)
	d.phase, d.revoked = nil, held
	if chained {
		d.phase = rb
	}
	return out
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
		if m.To == "" && m.fromID != "" && staysIn(base, cur, m.fromID) {
			return true
		}
	}
	return false
}

// rebalanceCompleted closes a rebalance at cur, from the owners of base
// (nil: unknown): rebalance_completed, then one partition_moved per
// partition whose owner changed. incremental: the rebalance leaves the
// partitions that stay alone (cooperative or coordinator-assigned).
func rebalanceCompleted(b stamp, base, cur *snapView, c completion, incremental bool) []Event {
	out, _ := completedWith(b, base, cur, c, incremental, nil, false)
	return out
}

// revocation is a partition a cooperative revoke phase took from a member
// that stays: its move ends in a later round, when it gets its new owner,
// and is dated when it left this one (at).
type revocation struct {
	from, fromID string
	at           time.Time
	inferred     bool
}

// completedWith is rebalanceCompleted for a classic group's cooperative
// rounds. revoked holds the partitions earlier rounds revoked, keyed by
// partition: a move from none to a member here is theirs, from their
// owner, dated when they were revoked; those still unowned are reported
// left unowned. hold: this round is a revoke phase, whose partitions left
// unowned are held (returned, listed in the event's Partitions and its
// detail) instead of reported as moves: they are moved by the round that
// assigns them.
func completedWith(b stamp, base, cur *snapView, c completion, incremental bool, revoked map[TopicPartition]revocation, hold bool) ([]Event, map[TopicPartition]revocation) {
	e := b.event(EventRebalanceCompleted, "")
	e.Inferred, e.Phase = c.inferred, c.phase
	e.Duration, e.HasDuration = c.took, c.timed
	multi := cur.multiTopic()
	var (
		moves []ownerMove
		kept  []TopicPartition
		held  []ownerMove
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
	moves, carried := completeRevoked(moves, revoked, cur, hold)
	if hold {
		moves, held = holdRevoked(moves)
	}
	if len(kept) > 0 {
		if cap(kept) > 2*len(kept) {
			kept = slices.Clone(kept) // the ring keeps it: drop the spare room
		}
		e.Partitions = kept
	}
	next := carried
	if len(held) > 0 {
		if next == nil {
			next = make(map[TopicPartition]revocation, len(held))
		}
		for _, m := range held {
			e.Partitions = append(e.Partitions, m.TopicPartition)
			next[m.TopicPartition] = revocation{from: m.From, fromID: m.fromID, at: b.at, inferred: c.inferred}
		}
	}
	if len(moves) > 0 {
		e.Moves = make([]Move, len(moves))
		for i, m := range moves {
			e.Moves[i] = m.Move
		}
	}
	switch {
	case c.phase == PhaseRevoke:
		e.Detail = revokeDetail(e, held, moves, multi)
	case len(held) > 0:
		e.Detail = c.lead + ": " + completedSummary(base, cur, moves, kept) + "; " + revokedDetail(held, multi)
	default:
		e.Detail = c.lead + ": " + completedSummary(base, cur, moves, kept)
	}
	if len(moves) > MaxMoveEvents {
		// A rebalance of a large group would flush the whole timeline with
		// one event per partition; rebalance_completed lists every move.
		e.Detail += fmt.Sprintf("; %d partition_moved events not listed one by one (see moves)", len(moves))
		return []Event{e}, next
	}
	out := make([]Event, 0, 1+len(moves))
	out = append(out, e)
	tps := make([]TopicPartition, len(moves)) // one array for all the events
	for i, m := range moves {
		tps[i] = m.TopicPartition
		pe := b.event(EventPartitionMoved, moveDetail(m, multi))
		pe.Inferred = c.inferred
		if !m.at.IsZero() {
			pe.Time, pe.Inferred = m.at, m.inferred // it left its owner then
		}
		pe.Partitions = tps[i : i+1 : i+1]
		pe.From, pe.To = m.From, m.To
		out = append(out, pe)
	}
	return out, next
}

// completeRevoked completes the moves of partitions an earlier round
// revoked (revoked): one that a member now owns moves from its owner
// before the revocation, dated then; one given back to that owner did not
// move; one still unowned is carried on to the next round when this one
// revokes too (hold), else reported left unowned. moves stays sorted.
func completeRevoked(moves []ownerMove, revoked map[TopicPartition]revocation, cur *snapView, hold bool) ([]ownerMove, map[TopicPartition]revocation) {
	if len(revoked) == 0 {
		return moves, nil
	}
	var carried map[TopicPartition]revocation
	out := moves[:0:0]
	seen := make(map[TopicPartition]bool, len(revoked))
	for _, m := range moves {
		r, ok := revoked[m.TopicPartition]
		if !ok || m.From != "" {
			out = append(out, m)
			continue
		}
		seen[m.TopicPartition] = true
		if m.toID == r.fromID {
			continue // given back to the member that gave it up
		}
		m.From, m.fromID, m.at, m.inferred = r.from, r.fromID, r.at, r.inferred
		out = append(out, m)
	}
	owned := make(map[TopicPartition]bool)
	for _, o := range cur.owned() {
		owned[o.tp] = true
	}
	for tp, r := range revoked {
		switch {
		case seen[tp] || owned[tp]:
		case hold:
			if carried == nil {
				carried = make(map[TopicPartition]revocation)
			}
			carried[tp] = r
		default:
			out = append(out, ownerMove{Move: Move{TopicPartition: tp, From: r.from}, fromID: r.fromID, at: r.at, inferred: r.inferred})
		}
	}
	slices.SortFunc(out, func(a, b ownerMove) int { return CompareTP(a.TopicPartition, b.TopicPartition) })
	return out, carried
}

// holdRevoked splits off the moves of a revoke phase that leave a
// partition unowned: the next round assigns it (given up by a member that
// stays, or left by one that went as the round ran).
func holdRevoked(moves []ownerMove) (rest, held []ownerMove) {
	rest = moves[:0:0]
	for _, m := range moves {
		if m.To == "" && m.fromID != "" && m.at.IsZero() {
			held = append(held, m)
			continue
		}
		rest = append(rest, m)
	}
	return rest, held
}

// staysIn reports whether the member of base with id id is in cur too.
func staysIn(base, cur *snapView, id string) bool {
	i, ok := base.byID[id]
	if !ok {
		return false
	}
	_, stays := cur.byKey[memberKey(base.members[i])]
	return stays
}

// movesSummary counts moves: "1 partition moved, 2 newly assigned"; ""
// with none.
func movesSummary(moves []ownerMove) string {
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
	var summary []string
	if moved > 0 {
		summary = append(summary, Count(moved, "partition")+" moved")
	}
	if gained > 0 {
		summary = append(summary, Count(gained, "partition")+" newly assigned")
	}
	if lost > 0 {
		summary = append(summary, Count(lost, "partition")+" left unowned")
	}
	return strings.Join(summary, ", ")
}

// completedSummary says what a rebalance from base (nil: unknown) to cur
// did: "1 partition moved, 2 paused, then back to their owner; consumer-c
// owns no partitions".
func completedSummary(base, cur *snapView, moves []ownerMove, kept []TopicPartition) string {
	var summary []string
	if base == nil {
		summary = append(summary, "moves unknown")
	} else {
		if s := movesSummary(moves); s != "" {
			summary = append(summary, s)
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
