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
		return fmt.Sprintf("committed offset %s unchanged for %s, lag %s",
			Offset(p.Committed), Age(time.Duration(now-st.movedAt)), Thousands(p.Lag))
	case StatusUnowned:
		return "no member owns it, lag " + Thousands(p.Lag)
	case StatusLagging:
		if p.LagFromStart && p.LagAgeKnown {
			return "no commit, oldest record " + Age(p.LagAge) + " old, lag " + Thousands(p.Lag)
		}
		start, _ := h.lagWindow(st, now)
		if start < 0 {
			return fmt.Sprintf("lag %s", Thousands(p.Lag))
		}
		first := st.recentAt(start)
		s := fmt.Sprintf("lag grew %s → %s in %s", Thousands(first.lag), Thousands(p.Lag), Age(time.Duration(now-first.t)))
		if since := time.Duration(now - st.movedAt); first.committed == p.Committed && since >= h.opts.LaggingWindow {
			s += ", no commit for " + Age(since)
		}
		return s
	}
	return "lag " + Thousands(p.Lag)
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
			if status == StatusLagging {
				reason = laggingReason(s, group, reason)
			}
			fmt.Fprintf(&b, " %s: %s", status, reason)
			ev.Detail = b.String()
		}
		out = append(out, ev)
	}
	return out
}

// laggingReason says why several partitions turned LAGGING at once:
// grown (the reason given), or, never committed, their records old
// (History.lagging), or both.
func laggingReason(s *Snapshot, group []statusChange, grew string) string {
	never, oldest := 0, time.Duration(0)
	for _, c := range group {
		if p := &s.Partitions[c.i]; p.LagFromStart && p.LagAgeKnown {
			never++
			oldest = max(oldest, p.LagAge)
		}
	}
	switch never {
	case 0:
		return grew
	case len(group):
		return "no commit, oldest record " + Age(oldest) + " old"
	}
	return grew + ", or no commit of records up to " + Age(oldest) + " old"
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
		return "lag grew over the last " + Setting(h.opts.LaggingWindow)
	}
	return "recovered"
}
