package ui

import (
	"time"

	"charm.land/bubbles/v2/key"

	"github.com/kgwatch/kgwatch/model"
)

func (g *GroupPage) setFocus(p pane) {
	g.focus = p
	g.table.SetFocused(p == paneTable)
	g.members.SetFocused(p == paneMembers)
	g.timeline.SetFocused(p == paneTimeline)
}

// nextPane is the pane tab moves to. The lanes view takes the place of
// the table and the members pane.
func (g *GroupPage) nextPane() pane {
	p := (g.focus + 1) % numPanes
	if g.showLanes && p == paneMembers {
		p = (p + 1) % numPanes
	}
	return p
}

// prevPane is the pane before the focused one (shift+tab).
func (g *GroupPage) prevPane() pane {
	p := (g.focus + numPanes - 1) % numPanes
	if g.showLanes && p == paneMembers {
		p = (p + numPanes - 1) % numPanes
	}
	return p
}

// toggleLanes switches between the table with the members and the lanes.
func (g *GroupPage) toggleLanes() {
	g.showLanes = !g.showLanes
	if g.showLanes {
		g.keys.Lanes.SetHelp("v", "table")
	} else {
		g.keys.Lanes.SetHelp("v", "lanes")
	}
	// Sort, filter and only-lag shape the partition table; the lanes
	// show every partition. Off in the lanes, they would change a table
	// that is not on screen while help offered them as if they worked.
	for _, b := range []*key.Binding{&g.keys.Sort, &g.keys.Filter, &g.keys.OnlyLag} {
		b.SetEnabled(!g.showLanes)
	}
	g.keys.ZoomIn.SetEnabled(g.showLanes)
	g.keys.ZoomOut.SetEnabled(g.showLanes)
	g.keys.ClearFilter.SetEnabled(g.rows.query != "" && !g.showLanes)
	if g.showLanes && g.focus == paneMembers {
		g.setFocus(paneTable)
	}
	g.setFocus(g.focus)
}

// syncTimeline hands the timeline and the lanes the clock, and the
// partitions of the selected event to the table and the lanes while the
// timeline has the focus.
func (g *GroupPage) syncTimeline() {
	g.timeline.SetNow(g.st.Now)
	g.lanes.SetNow(g.st.Now)
	g.table.SetNow(g.st.Now)
	g.members.SetNow(g.st.Now)
	shift := g.ageShift()
	g.table.SetAgeShift(shift)
	g.members.SetAgeShift(shift)
	g.lanes.SetFocused(g.showLanes && g.focus == paneTable)
	if e, ok := g.timeline.Selected(); ok && g.focus == paneTimeline {
		touched := e.Touched()
		g.table.SetHighlight(touched)
		g.lanes.SetHighlight(touched, e.Time)
		return
	}
	g.table.SetHighlight(nil)
	g.lanes.SetHighlight(nil, time.Time{})
}

// ageShift is how far the clock is past the poll the panes show, to the
// tenth of a second Age writes, while that poll is stale (the last one
// failed): their ages since a commit count on by it. 0 while fresh.
func (g *GroupPage) ageShift() time.Duration {
	if g.st.Err == nil || !g.st.HasSnap {
		return 0
	}
	return max(g.st.Now.Sub(g.st.Snap.TakenAt), 0).Truncate(100 * time.Millisecond)
}

// target is the member the demo's member keys act on: the owner of the
// selected partition while the table has the focus, the selected member
// in the members pane.
func (g *GroupPage) target() target {
	switch {
	case g.showLanes:
		return target{why: "the lanes hide the table and the members: v back to them, then pick a partition or a member (tab, ↑/↓)"}
	case g.focus == paneMembers:
		mb, ok := g.members.Selected()
		if !ok {
			return target{why: "no member selected: the group has no members"}
		}
		return target{member: mb, ok: true, owns: ownsText(mb.Partitions)}
	case g.focus == paneTable:
		p, ok := g.table.Selected()
		if !ok {
			if len(g.st.Snap.Partitions) > 0 {
				// The view hides every partition: the group has some.
				return target{why: "no partition shown: the view hides them all (esc clears a filter, l shows all), or tab to the Members pane"}
			}
			return target{why: "no partition selected: the group owns none yet"}
		}
		if !p.Owned() {
			if t, ok := lastOwnerTarget(p, g.st.Snap.Members, g.table.oneTopic == ""); ok {
				return t
			}
			return target{why: model.PartName(p.TopicPartition, g.table.oneTopic == "") + " has no owner: pick an owned partition, or tab to the Members pane"}
		}
		for _, mb := range g.st.Snap.Members {
			if mb.MemberID == p.MemberID {
				return target{member: mb, ok: true, owns: "owns " + model.PartName(p.TopicPartition, g.table.oneTopic == "")}
			}
		}
	}
	return target{why: "select a member first: a partition in the table (its owner), or tab to the Members pane, then ↑/↓ (j/k)"}
}

// ownsText is "owns p0–p2" for a member's partitions; "" for none.
func ownsText(tps []model.TopicPartition) string {
	if len(tps) == 0 {
		return ""
	}
	return "owns " + model.PartitionList(tps, model.MultiTopic(tps))
}
