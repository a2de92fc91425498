package ui

// fileStatusEvents puts the last snapshot's status_changed events (from
// History.Annotate) into the timeline, after the tracker's own events of
// the same snapshot.
func (a *App) fileStatusEvents() {
	if len(a.statusEvents) == 0 {
		return
	}
	for _, e := range a.statusEvents {
		a.tracker.Add(e)
	}
	a.timeline.SetEvents(a.tracker.Timeline().Events())
}
