package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// eventMsg carries one event from Options.Events (a demo consumer's
// report) into the update loop.
type eventMsg struct{ Event model.Event }

// initTimeline builds the tracker, the ownership history and their panes.
func (a *App) initTimeline() {
	a.tracker = model.NewTracker(a.opts.Group, a.opts.TimelineSize)
	a.lanesHist = model.NewLanes(0)
	a.timeline = NewTimeline(a.styles, a.keys)
	a.lanes = NewLanes(a.styles, a.keys, a.lanesHist)
}

// waitEvent waits for the next event on Options.Events. It is re-armed
// after each event and returns nil once the channel closes or the app
// quits, so no goroutine outlives the program.
func waitEvent(ctx context.Context, ch <-chan model.Event) tea.Cmd {
	return func() tea.Msg {
		select {
		case e, ok := <-ch:
			if !ok {
				return nil
			}
			return eventMsg{Event: e}
		case <-ctx.Done():
			return nil
		}
	}
}

// handleEvent files an outside event in the timeline and waits for the
// next one.
func (a *App) handleEvent(msg eventMsg) tea.Cmd {
	a.tracker.Add(msg.Event)
	if e := msg.Event; e.Type == model.EventDemoKilled && e.ClientID != "" {
		at := e.Time
		if at.IsZero() {
			at = a.watch.Now
		}
		a.lanes.MarkKilled(e.ClientID, at)
	}
	a.timeline.SetEvents(a.tracker.Timeline().Events())
	if a.ctx.Err() != nil || a.opts.Events == nil {
		return nil
	}
	return waitEvent(a.ctx, a.opts.Events)
}

// observe feeds a good snapshot to the tracker and the ownership history.
func (a *App) observe(snap model.Snapshot) {
	a.lanesHist.Observe(snap)
	a.lanes.Refresh()
	if evs := a.tracker.Observe(snap); len(evs) > 0 {
		a.timeline.SetEvents(a.tracker.Timeline().Events())
	}
}

// observeError records a failed poll: the first failure of an outage is a
// connection_lost event; the next good snapshot brings connection_restored.
func (a *App) observeError(err error) {
	now := a.watch.Now
	if evs := a.tracker.ConnectionLost(now, err); len(evs) > 0 {
		a.lanesHist.Lost(now)
		a.timeline.SetEvents(a.tracker.Timeline().Events())
	}
}

// Events returns the timeline's events, oldest first.
func (a *App) Events() []model.Event { return a.tracker.Timeline().Events() }

// nextPane is the pane tab moves to. The lanes view takes the place of
// the table and the members pane.
func (a *App) nextPane() pane {
	p := (a.focus + 1) % numPanes
	if a.showLanes && p == paneMembers {
		p = (p + 1) % numPanes
	}
	return p
}

// prevPane is the pane before the focused one (shift+tab).
func (a *App) prevPane() pane {
	p := (a.focus + numPanes - 1) % numPanes
	if a.showLanes && p == paneMembers {
		p = (p + numPanes - 1) % numPanes
	}
	return p
}

// toggleLanes switches between the table with the members and the lanes.
func (a *App) toggleLanes() {
	a.showLanes = !a.showLanes
	if a.showLanes {
		a.keys.Lanes.SetHelp("v", "table")
	} else {
		a.keys.Lanes.SetHelp("v", "lanes")
	}
	// Sort, filter and only-lag shape the partition table; the lanes
	// show every partition. Off in the lanes, they would change a table
	// that is not on screen while help offered them as if they worked.
	for _, b := range []*key.Binding{&a.keys.Sort, &a.keys.Filter, &a.keys.OnlyLag, &a.keys.ClearFilter} {
		b.SetEnabled(!a.showLanes)
	}
	if a.showLanes && a.focus == paneMembers {
		a.setFocus(paneTable)
	}
	a.setFocus(a.focus)
}

// syncTimeline hands the timeline and the lanes the clock, and the
// partitions of the selected event to the table and the lanes while the
// timeline has the focus.
func (a *App) syncTimeline() {
	a.timeline.SetNow(a.watch.Now)
	a.lanes.SetNow(a.watch.Now)
	a.lanes.SetFocused(a.showLanes && a.focus == paneTable)
	if e, ok := a.timeline.Selected(); ok && a.focus == paneTimeline {
		touched := e.Touched()
		a.table.SetHighlight(touched)
		a.lanes.SetHighlight(touched, e.Time)
		return
	}
	a.table.SetHighlight(nil)
	a.lanes.SetHighlight(nil, time.Time{})
}
