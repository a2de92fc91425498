package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// eventMsg carries one event from Watch.Events (a demo consumer's report)
// into the update loop.
type eventMsg struct {
	ctx   context.Context
	Event model.Event
}

// waitEvent waits for the next event on ch. It is re-armed after each
// event and returns nil once the channel closes or the page closes, so no
// goroutine outlives it.
func waitEvent(ctx context.Context, ch <-chan model.Event) tea.Cmd {
	return func() tea.Msg {
		select {
		case e, ok := <-ch:
			if !ok {
				return nil
			}
			return eventMsg{ctx: ctx, Event: e}
		case <-ctx.Done():
			return nil
		}
	}
}

// handleEvent files an outside event in the timeline and waits for the
// next one.
func (g *GroupPage) handleEvent(msg eventMsg) tea.Cmd {
	if msg.ctx != g.ctx {
		return nil // another page's
	}
	g.fileEvent(msg.Event)
	if g.ctx.Err() != nil {
		return nil
	}
	return waitEvent(g.ctx, g.watch.Events)
}

// fileEvent files an outside event (a demo consumer's report) in the
// timeline; a kill marks its owner's lanes.
func (g *GroupPage) fileEvent(ev model.Event) {
	e := g.pipe.Add(ev)
	if e.Type == model.EventDemoKilled && e.ClientID != "" {
		at := e.Time
		if at.IsZero() {
			at = g.st.Now
		}
		g.lanes.MarkKilled(e.ClientID, at)
	}
	g.showEvents()
}
