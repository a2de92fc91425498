package model

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// statusChange is one partition whose status changed in this poll.
type statusChange struct {
	i    int
	from Status
	note string // detail for a single-partition event
}

// note explains a partition's new status in a few words, for the event of
// a single partition.
func (h *History) note(p *PartitionLag, st *partState, now int64) string {
	switch p.Status {
	case StatusStopped:
		return "group has no active members, lag " + Thousands(p.Lag)
	case StatusRewound:
		return fmt.Sprintf("committed offset went back %d → %s", st.rewoundFrom, Offset(p.Committed))
	case StatusStalled:
		note := fmt.Sprintf("committed offset %s unchanged for %s, lag %s",
			Offset(p.Committed), Age(time.Duration(now-st.movedAt)), Thousands(p.Lag))
		if r, ok := p.OldestRecord(); ok {
			note += ", stuck at offset " + Thousands(r.Offset) + ", key " + KeyText(r)
		}
		return note
	case StatusUnowned:
		return "no member owns it, lag " + Thousands(p.Lag)
	case StatusLagging:
		return h.laggingNote(p, st, now)
	}
	return "lag " + Thousands(p.Lag)
}

// Why a partition is LAGGING, by the rule that said it.
type lagWhy uint8

const (
	whyHeld      lagWhy = iota // held: its rates still say it falls behind
	whyFromStart               // never committed, its first record old
	whyWaited                  // its oldest record waited past the allowance
	whyNoCommit                // no age: its commit stood still past it
	whyGone                    // retention deleted its oldest records unread
	whyCount
)

// lagReason says why p is LAGGING, and how long for (the wait, or the
// commit's standing still).
func (h *History) lagReason(p *PartitionLag, st *partState, now int64) (lagWhy, time.Duration) {
	if p.LagAgeGone {
		return whyGone, 0
	}
	if w, ok := st.waited(p, now); ok {
		if p.LagFromStart {
			return whyFromStart, w
		}
		return whyWaited, w
	}
	if stuck := time.Duration(now - st.stuckAt); stuck >= st.allowance(h.opts.MaxLagAge) {
		return whyNoCommit, stuck
	}
	return whyHeld, 0
}

// laggingNote says why p is LAGGING: how long its oldest record waited
// (with no commit: "no commit, "), or with no age, how long its commit
// stood still; with its commit cadence when known.
func (h *History) laggingNote(p *PartitionLag, st *partState, now int64) string {
	why, d := h.lagReason(p, st, now)
	every := ""
	if c := st.cadence(); c > 0 {
		every = " (commits every " + Age(c) + ")"
	}
	switch why {
	case whyFromStart:
		return "no commit, oldest record " + Age(d) + " old, lag " + Thousands(p.Lag)
	case whyWaited:
		if off := d - p.LagAge; off > time.Second || off < -time.Second {
			// Its timestamp disagrees with the polls that saw it written.
			return "oldest record waited about " + Age(d) + " (timestamped " + Age(p.LagAge) + " ago)" + every + ", lag " + Thousands(p.Lag)
		}
		return "oldest record " + Age(d) + " old" + every + ", lag " + Thousands(p.Lag)
	case whyNoCommit:
		return "no commit for " + Age(d) + every + ", lag " + Thousands(p.Lag)
	case whyGone:
		return "retention deleted its oldest unprocessed records before they were consumed, lag " + Thousands(p.Lag)
	}
	return "still falling behind, lag " + Thousands(p.Lag)
}

// events turns the status changes into one event per new status, worst
// status first.
func (h *History) events(s *Snapshot, changes []statusChange) []Event {
	if len(changes) == 0 {
		return nil
	}
	oneTopic := len(s.Partitions) > 0 && s.Partitions[0].Topic == s.Partitions[len(s.Partitions)-1].Topic
	name := func(tp TopicPartition) string {
		if oneTopic {
			return "p" + strconv.Itoa(int(tp.Partition))
		}
		return tp.Topic + "/p" + strconv.Itoa(int(tp.Partition))
	}
	var out []Event
	all := Statuses()
	for k := len(all) - 1; k >= 0; k-- {
		status := all[k]
		var group []statusChange
		for _, c := range changes {
			if s.Partitions[c.i].Status == status {
				group = append(group, c)
			}
		}
		if len(group) == 0 {
			continue
		}
		ev := Event{Time: s.ObservedAt(), Type: EventStatusChanged, Group: s.Group.ID, State: string(status)}
		ev.Partitions = make([]TopicPartition, len(group))
		for j, c := range group {
			ev.Partitions[j] = s.Partitions[c.i].TopicPartition
		}
		if len(group) == 1 {
			c := group[0]
			note := c.note
			if status == StatusOK {
				note = "recovered from " + string(c.from) + ", " + note
			}
			ev.Detail = fmt.Sprintf("%s %s: %s", name(ev.Partitions[0]), status, note)
		} else {
			var b strings.Builder
			for j, tp := range ev.Partitions {
				if j == 5 {
					fmt.Fprintf(&b, " +%d more", len(ev.Partitions)-5)
					break
				}
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(name(tp))
			}
			reason := h.reason(status)
			switch status {
			case StatusLagging:
				reason = h.laggingReason(s, group)
			case StatusStalled:
				reason = h.stalledReason(s, group)
			}
			fmt.Fprintf(&b, " %s: %s", status, reason)
			ev.Detail = b.String()
		}
		out = append(out, ev)
	}
	return out
}

// laggingReason says why several partitions turned LAGGING at once: each
// rule that said it for some, with the longest wait it saw (a record
// never committed counts among the oldest records).
func (h *History) laggingReason(s *Snapshot, group []statusChange) string {
	var most [whyCount]time.Duration
	var seen [whyCount]bool
	now := s.TakenAt.UnixNano()
	for _, c := range group {
		why, d := h.lagReason(&s.Partitions[c.i], &h.states[c.i], now)
		most[why], seen[why] = max(most[why], d), true
	}
	var parts []string
	switch {
	case seen[whyWaited]:
		parts = append(parts, "oldest records up to "+Age(max(most[whyWaited], most[whyFromStart]))+" old")
	case seen[whyFromStart]:
		parts = append(parts, "no commit, oldest record "+Age(most[whyFromStart])+" old")
	}
	if seen[whyNoCommit] {
		parts = append(parts, "no commit for "+Age(most[whyNoCommit])+" with records waiting")
	}
	if seen[whyGone] {
		parts = append(parts, "retention deleted records before they were consumed")
	}
	if seen[whyHeld] {
		parts = append(parts, h.reason(StatusLagging))
	}
	return strings.Join(parts, ", or ")
}

// stalledReason says how long several partitions that turned STALLED at
// once have stood still: the shortest of them, which is --stall-after or
// the cadence and a half when that is longer (a Kafka Streams app's 45s:
// the sentence said "30s or more" then).
func (h *History) stalledReason(s *Snapshot, group []statusChange) string {
	now := s.TakenAt.UnixNano()
	least := int64(-1)
	for _, c := range group {
		if d := now - h.states[c.i].stuckAt; least < 0 || d < least {
			least = d
		}
	}
	if least < 0 {
		return h.reason(StatusStalled)
	}
	return "committed offsets unchanged for " + Age(time.Duration(least)) + " or more"
}

// reason says why several partitions got a status at once.
func (h *History) reason(s Status) string {
	switch s {
	case StatusStopped:
		return "group has no active members"
	case StatusRewound:
		return "committed offsets went back"
	case StatusStalled:
		return "committed offsets unchanged for " + Setting(h.opts.StallAfter) + " or more"
	case StatusUnowned:
		return "no member owns them"
	case StatusLagging:
		return "still falling behind"
	}
	return "recovered"
}
