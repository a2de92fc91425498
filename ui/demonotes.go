package ui

import (
	"strings"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// What only the demo knows about the group's members, for the members
// pane: which are ours, killed (with the countdown to their eviction),
// slow, joining; and the demo consumers the group no longer lists.

// demoConsumer finds the demo consumer behind a group member: by member
// id, else by client id (a consumer between generations, or listed before
// the coordinator answered).
func (p *demoPanel) consumer(mb model.Member) (model.DemoConsumer, bool) {
	cs := p.status.Consumers
	if mb.MemberID != "" {
		for _, c := range cs {
			if c.MemberID == mb.MemberID {
				return c, true
			}
		}
	}
	for _, c := range cs {
		if mb.ClientID != "" && c.ClientID == mb.ClientID {
			return c, true
		}
	}
	return model.DemoConsumer{}, false
}

// members returns the group's members followed by the demo consumers
// the group does not list: joining ones, and for a minute those that were
// stopped or evicted. Outside demo mode it returns ms unchanged.
func (p *demoPanel) members(ms []model.Member, now time.Time) []model.Member {
	if p == nil || !p.has {
		return ms
	}
	listed := make(map[string]bool, len(ms))
	for _, mb := range ms {
		if c, ok := p.consumer(mb); ok {
			listed[c.ClientID] = true
			p.seen[c.ClientID] = true
		}
	}
	out := ms
	for _, c := range p.status.Consumers {
		if listed[c.ClientID] || !ghostShown(c, now) {
			continue
		}
		if len(out) == len(ms) {
			out = append(make([]model.Member, 0, len(ms)+2), ms...)
		}
		out = append(out, model.Member{ClientID: c.ClientID})
	}
	return out
}

// ghostShown reports whether a demo consumer missing from the group is
// listed anyway.
func ghostShown(c model.DemoConsumer, now time.Time) bool {
	switch c.State {
	case model.DemoStopped:
		return !c.StoppedAt.IsZero() && now.Sub(c.StoppedAt) < ghostFor
	case model.DemoEvicted:
		return !c.EvictedAt.IsZero() && now.Sub(c.EvictedAt) < ghostFor
	}
	return true
}

// notes returns what only the demo knows about each listed member, for
// the members pane: killed with its countdown, slow, joining, outside.
func (p *demoPanel) notes(ms []model.Member, now time.Time) []string {
	if p == nil {
		return nil
	}
	notes := make([]string, len(ms))
	for i, mb := range ms {
		c, ours := p.consumer(mb)
		if !ours {
			notes[i] = glyphOutside + " outside · watch only"
			continue
		}
		notes[i] = p.note(c, mb.MemberID != "", now)
	}
	return notes
}

// Glyphs of the demo notes (one cell each, with a word beside them).
const (
	glyphKilled  = "✗"
	glyphSlow    = "◷"
	glyphLeaving = "↪"
	glyphOutside = "◇"
)

// demoNote describes consumer c; inGroup says whether the coordinator
// lists it.
func (p *demoPanel) note(c model.DemoConsumer, inGroup bool, now time.Time) string {
	set := p.set
	slow := ""
	if c.Slow {
		slow = glyphSlow + " slow"
	}
	switch c.State {
	case model.DemoKilled:
		left := c.KilledAt.Add(set.SessionTimeout).Sub(now)
		if left <= 0 {
			return glyphKilled + " killed · session timeout passed, eviction due"
		}
		return glyphKilled + " killed · evicted in " + model.Countdown(left)
	case model.DemoEvicted:
		if !p.seen[c.ClientID] && !inGroup {
			return glyphKilled + " killed before it joined"
		}
		if c.EvictedAt.IsZero() || c.KilledAt.IsZero() {
			return glyphKilled + " killed · evicted"
		}
		return glyphKilled + " evicted after " + model.Countdown(c.EvictedAt.Sub(c.KilledAt))
	case model.DemoStopping:
		return glyphLeaving + " stopping · finishing its order, then LeaveGroup"
	case model.DemoStopped:
		return glyphLeaving + " stopped · left the group"
	}
	if !inGroup {
		s := glyphWaiting + " joining"
		if p.seen[c.ClientID] {
			s = glyphWaiting + " rejoining"
		}
		if slow != "" {
			s = slow + " · " + s
			if set.MaxPollInterval > 0 && set.SlowProcessTime > set.MaxPollInterval {
				s += " (left: over max.poll.interval)"
			}
		}
		return s
	}
	if w := poisonNote(c); w != "" {
		return w
	}
	if w := pendingNote(c, now); w != "" {
		if slow != "" {
			return slow + " · " + w
		}
		return w
	}
	if c.State == model.DemoRestarting {
		return glyphWaiting + " restarting"
	}
	return slow
}

// glyphWindow marks a consumer inside its commit window.
const glyphWindow = "⧗"

// pendingNote is the commit window a kill can be timed into: "⧗ order-9
// processed, commit in 1.4s" (a kill now: processed twice), "⧗ order-9
// committed, processing 1.4s" (a kill now: lost); "" outside it.
func pendingNote(c model.DemoConsumer, now time.Time) string {
	left := c.PendingUntil.Sub(now)
	if c.PendingOrder == "" || left <= 0 {
		return ""
	}
	switch c.PendingPhase {
	case model.DemoPhaseProcessed:
		return glyphWindow + " " + c.PendingOrder + " processed, commit in " + model.Countdown(left)
	case model.DemoPhaseCommitted:
		return glyphWindow + " " + c.PendingOrder + " committed, processing " + model.Countdown(left)
	}
	return ""
}

// SetNotes sets what the demo knows about each member, in the order of
// SetMembers; a missing or empty note leaves the PARTITIONS cell as is.
func (m *Members) SetNotes(notes []string) { m.notes = notes }

// notedParts is the PARTITIONS cell of a member with a demo note: the
// note, then its partitions, if any (a narrow screen cuts those first).
func (m Members) notedParts(i int) string {
	if len(m.rows[i].Partitions) == 0 {
		return m.notes[i]
	}
	return m.notes[i] + "  " + m.parts[i]
}

// findMember returns the index of the member with member id id, else of
// the first with client id client (a demo consumer listed before it joined
// keeps its selection when it does), else -1.
func findMember(ms []model.Member, id, client string) int {
	if id != "" {
		for i := range ms {
			if ms[i].MemberID == id {
				return i
			}
		}
	}
	if client != "" {
		for i := range ms {
			if ms[i].ClientID == client {
				return i
			}
		}
	}
	return -1
}

// notesWidth is the widest of notes among members [start, end), so the
// members pane drops other columns before it cuts a countdown.
func notesWidth(ms []model.Member, notes []string, start, end int) int {
	w := 0
	for i := start; i < end && i < len(notes); i++ {
		nw := textWidth(notes[i])
		if nw > 0 && i < len(ms) && len(ms[i].Partitions) > 0 {
			nw += 3 // "  " and the partitions' first cell, or their "…"
		}
		w = max(w, nw)
	}
	return w
}

// shortNotes returns notes in their short form, nil when none is shorter:
// a note's glyph and what follows its last " · " ("✗ killed · evicted in
// 8.1s" is "✗ evicted in 8.1s"), the rest as they are.
func shortNotes(notes []string) []string {
	var out []string
	for i, n := range notes {
		j := strings.LastIndex(n, " · ")
		if j < 0 {
			continue
		}
		glyph, _, _ := strings.Cut(n, " ")
		if out == nil {
			out = append([]string(nil), notes...)
		}
		out[i] = glyph + " " + n[j+len(" · "):]
	}
	return out
}

// ghosts counts the listed demo consumers the group does not list (no
// member id: joining, stopped or evicted), so the pane's count stays the
// group's.
func (m Members) ghosts() int {
	n := 0
	for i := range m.rows {
		if m.rows[i].MemberID == "" {
			n++
		}
	}
	return n
}
