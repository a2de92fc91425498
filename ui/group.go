package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Watch is what a group page watches: the group, its source, and in demo
// mode the demo and its consumers' reports.
type Watch struct {
	Group  string
	Source Source
	// Events, when set, carries events from outside the polls (demo
	// consumers' reports) into the timeline, until it closes.
	Events <-chan model.Event
	// Demo, in demo mode, is the running demo: it enables the demo keys
	// and the ledger (ui/demo.go). Nil when watching any other group.
	Demo Demo
	// DemoSettings are the demo's settings the screen explains.
	DemoSettings DemoSettings
	// Tap, when set, is told what the page's pipeline is fed
	// (`--record`).
	Tap model.Tap
}

// pane identifies a focusable pane of the group page. Tab cycles through
// them in order.
type pane int

const (
	paneTable pane = iota
	paneMembers
	paneTimeline
	numPanes
)

// GroupPage is the view of one group: header, partition table, members,
// timeline (or, in their place, the ownership lanes), help, and in demo
// mode the demo's ledger. It polls its source with one poller and feeds
// each poll through one model.Pipeline.
//
// Pages are held by pointer: each owns a poll loop and a pipeline whose
// state must not be copied, unlike the panes, which are values.
type GroupPage struct {
	watch     Watch
	opts      Options
	keys      KeyMap
	styles    Styles
	pageFrame // size and help: SetSize, SetFullHelp
	ctx       context.Context
	cancel    context.CancelFunc

	poll *poller[polled]
	// builder builds the snapshots of an ObservationSource's polls, in
	// one set of rows: the snapshot shown is valid until the next is
	// built.
	builder model.SnapshotBuilder
	pipe    *model.Pipeline
	// events is showEvents's copy of the pipeline's timeline, kept.
	events []model.Event
	st     WatchState

	focus     pane
	header    Header
	table     Table
	members   Members
	timeline  Timeline
	lanes     Lanes
	showLanes bool // the lanes replace the table and the members
	// rows is the table's sort, filter and only-lag view (ui/filter.go).
	rows rowView

	// layout, computed in relayout after every Update
	headerText string
	helpText   string
	bodyW      int
	bodyH      int
	split      bool // table and members both on screen
	gap        int  // blank lines between the panes when split

	// demo is demo mode (ui/demo.go), nil outside it; demoText its
	// ledger pane, rendered by relayout.
	demo     *demoPanel
	demoText string

	// note answers a key that cannot act here (o in the lanes), in place
	// of the help line for a few seconds; in demo mode the demo's line
	// under the ledger says it instead.
	note   string
	noteAt time.Time
}

// newGroupPage returns a page for w, under ctx; back enables the key that
// returns to the overview.
func newGroupPage(ctx context.Context, w Watch, opts Options, st Styles, back bool) *GroupPage {
	km := DefaultKeyMap()
	km.Back.SetEnabled(back)
	h := help.New()
	h.Styles = st.Help
	ctx, cancel := context.WithCancel(ctx)
	g := &GroupPage{
		watch: w, opts: opts, keys: km, styles: st, ctx: ctx, cancel: cancel,
		pipe:    model.NewPipeline(opts.Pipeline(w.Group, opts.Interval, w.Tap)),
		header:  NewHeader(st),
		table:   NewTable(st, km),
		members: NewMembers(st, km),
		demo:    newDemoPanel(w, st),
	}
	g.pageFrame = pageFrame{help: h, layout: g.relayout}
	g.poll = newPoller(ctx, opts.Timeout, pollOf(w.Source))
	g.timeline = NewTimeline(st, km)
	g.lanes = NewLanes(st, km, g.pipe.Lanes())
	g.st = WatchState{Brokers: opts.Brokers, Group: w.Group, Interval: opts.Interval, StallAfter: opts.StallAfter, Now: opts.Now()}
	g.setFocus(paneTable)
	return g
}

// Init starts the poll loop, the demo's refresh and the outside events.
func (g *GroupPage) Init() tea.Cmd {
	cmds := []tea.Cmd{g.poll.now(g.opts.Now()), g.demo.init()}
	if g.watch.Events != nil {
		cmds = append(cmds, waitEvent(g.ctx, g.watch.Events))
	}
	return tea.Batch(cmds...)
}

// Close stops the page's polls and refreshes.
func (g *GroupPage) Close() { g.cancel() }

// Title is the window title.
func (g *GroupPage) Title() string { return "kgwatch · " + model.Name(g.watch.Group) }

// Capturing reports whether keys go to an input (the filter being typed),
// so the root's own keys (q, ?) are typed rather than acted on.
func (g *GroupPage) Capturing() bool { return g.rows.editing }

// TakesKey reports whether the page has a use for msg that comes before
// the root's: while the filter is typed every key is the filter's, and esc
// clears an applied filter before it goes back to the overview.
func (g *GroupPage) TakesKey(msg tea.KeyPressMsg) bool {
	return g.rows.editing || key.Matches(msg, g.keys.ClearFilter) // enabled only where it acts
}

// Update handles one message; messages of other pages are ignored.
func (g *GroupPage) Update(msg tea.Msg) tea.Cmd {
	if m, ok := msg.(pollTickMsg[polled]); ok && g.poll.starts(m) && g.poll.Err == nil {
		// A poll starting after a good one shows nothing new: the page's
		// clock stays, so the frame is the last one and is not painted
		// again (at short intervals half the frames were these, "updated
		// 0.3s ago" for a moment before the answer). A poll that goes
		// unanswered moves the clock at its first clock step. A retry
		// does show: the banner's "retry in 1.0s" becomes "retrying".
		return g.poll.tick(m, g.opts.Now())
	}
	g.st.Now = g.opts.Now()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		cmd = g.handleKey(msg)
	case tea.PasteMsg:
		if took, _ := g.rows.typed(msg); !took {
			return nil
		}
	case pollResultMsg[polled]:
		cmd = g.handlePoll(msg)
	case pollTickMsg[polled]:
		cmd = g.poll.tick(msg, g.st.Now)
	case pollClockMsg[polled]:
		var ok bool
		if cmd, ok = g.poll.clockTick(msg); !ok {
			return nil
		}
		g.waiting()
	case demoStatusMsg:
		if g.demo == nil {
			return nil
		}
		cmd = g.demo.refreshed(msg, g.st.Now, g.ctx.Err() == nil)
		g.members.SetMembers(g.demo.members(g.st.Snap.Members, g.st.Now))
	case demoActionMsg:
		if g.demo == nil {
			return nil
		}
		var poll bool
		cmd, poll = g.demo.acted(msg, g.st.Now)
		g.members.SetMembers(g.demo.members(g.st.Snap.Members, g.st.Now))
		if poll {
			cmd = tea.Batch(g.pollNow(), cmd)
		}
	case eventMsg:
		cmd = g.handleEvent(msg)
	default:
		return nil
	}
	g.st.PollStarted = time.Time{}
	if started, ok := g.poll.inFlight(); ok {
		g.st.PollStarted = started
	}
	g.relayout()
	return cmd
}

// waiting tells the pipeline how long the poll in flight has waited; the
// timeline shows the poll_unanswered it may give.
func (g *GroupPage) waiting() {
	started, ok := g.poll.inFlight()
	if !ok {
		return
	}
	if evs := g.pipe.Waiting(g.st.Now, started); len(evs) > 0 {
		g.showEvents()
	}
}

func (g *GroupPage) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if g.viewKey(msg) {
		return nil
	}
	if cmd, ok := g.demo.key(msg, g.target(), g.st.Now); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, g.keys.NextPane):
		g.setFocus(g.nextPane())
	case key.Matches(msg, g.keys.PrevPane):
		g.setFocus(g.prevPane())
	case key.Matches(msg, g.keys.Lanes):
		g.toggleLanes()
	case key.Matches(msg, g.keys.ZoomIn, g.keys.ZoomOut):
		g.lanes, _ = g.lanes.Update(msg)
	default:
		var cmd tea.Cmd
		switch {
		case g.focus == paneTable && g.showLanes:
			g.lanes, cmd = g.lanes.Update(msg)
		case g.focus == paneTimeline:
			g.timeline, cmd = g.timeline.Update(msg)
		case g.focus == paneTable:
			g.table, cmd = g.table.Update(msg)
		case g.focus == paneMembers:
			g.members, cmd = g.members.Update(msg)
		}
		return cmd
	}
	return nil
}

// handlePoll takes an answer of the page's poller: a snapshot replaces the
// data, an error keeps the last data, marks it stale and backs off.
// Either way the next poll is scheduled.
func (g *GroupPage) handlePoll(msg pollResultMsg[polled]) tea.Cmd {
	now := g.st.Now
	answer, err, took, ok := g.poll.result(msg, now)
	if !ok {
		return nil
	}
	if err != nil {
		g.applyError(now.Add(-took), err)
	} else {
		snap := answer.snap
		if answer.observed {
			// The rows of the snapshot shown are written again here:
			// the pipeline keeps none of them, and the panes take the
			// new snapshot below.
			snap = g.builder.Build(&answer.obs)
		}
		if snap.CompletedAt.IsZero() {
			snap.CompletedAt = now
		}
		g.applySnapshot(snap)
	}
	delay := model.NextPollDelay(g.st.Snap.Group, g.opts.Interval, g.poll.Failures, took)
	if g.poll.Failures == 0 && g.demo.fastPoll(now) {
		delay = min(delay, model.FastInterval)
	}
	cmd := g.poll.schedule(now, delay)
	g.st.RetryAt = g.poll.RetryAt
	return cmd
}

// polled is one poll's answer: the snapshot, or (observed) the
// observation the page builds it from.
type polled struct {
	snap     model.Snapshot
	obs      model.Observation
	observed bool
}

// pollOf is the page's poll of src: an ObservationSource's observation,
// any other source's snapshot.
func pollOf(src Source) func(context.Context) (polled, error) {
	if o, ok := src.(ObservationSource); ok {
		return func(ctx context.Context) (polled, error) {
			obs, err := o.Observe(ctx)
			return polled{obs: obs, observed: err == nil}, err
		}
	}
	return func(ctx context.Context) (polled, error) {
		snap, err := src.Poll(ctx)
		return polled{snap: snap}, err
	}
}

// pollSync polls the source at once, on the caller's goroutine, and takes
// its answer as a live poll's, begun at started: a replay feeds its
// records so, its clock at each. The next poll is left to the caller.
func (g *GroupPage) pollSync(started time.Time) { g.Update(g.poll.sync(started)) }

// pollNow polls at once instead of waiting for the next tick (for keys
// that change what is watched, such as demo actions).
func (g *GroupPage) pollNow() tea.Cmd { return g.poll.now(g.opts.Now()) }

// applySnapshot takes a good poll through the pipeline, then to the panes,
// and returns the events it gave.
func (g *GroupPage) applySnapshot(snap model.Snapshot) []model.Event {
	events := g.pipe.Observe(&snap)
	for _, e := range events {
		if e.Type == model.EventClusterChanged || e.Type == model.EventLogEndBackwards {
			g.st.Notice = e
		}
	}
	g.showSnapshot(snap, len(events) > 0)
	return events
}

// showSnapshot hands a snapshot the pipeline has observed to the panes
// (a replay running through many polls shows only the last).
func (g *GroupPage) showSnapshot(snap model.Snapshot, newEvents bool) {
	s := &g.st
	s.Err, s.Failures = nil, 0
	s.Snap, s.HasSnap, s.LastGood = snap, true, s.Now
	s.snapSeq++
	g.refreshRows()
	g.members.SetMembers(g.demo.members(snap.Members, s.Now))
	g.members.SetPartitionCount(len(snap.Partitions))
	g.members.SetPending(!snap.Group.AssignmentsKnown())
	g.members.SetTargetEpoch(snap.Group.AssignmentEpoch)
	g.table.SetStale(false)
	g.members.SetStale(false)
	g.lanes.Refresh()
	if newEvents {
		g.showEvents()
	}
}

// showEvents hands the timeline pane the pipeline's events.
func (g *GroupPage) showEvents() {
	g.events = g.pipe.Timeline().AppendEvents(g.events[:0])
	g.timeline.SetEvents(g.events)
}

// applyError takes a failed poll, begun at started (zero: not known): the
// last data stays, marked stale; the first failure of an outage is a
// connection_lost event, returned.
func (g *GroupPage) applyError(started time.Time, err error) []model.Event {
	s := &g.st
	s.Err, s.Failures = err, g.poll.Failures
	g.table.SetStale(true)
	g.members.SetStale(true)
	evs := g.pipe.PollFailed(started, s.Now, err)
	if len(evs) > 0 {
		g.showEvents()
	}
	return evs
}

// refreshRows hands the partition table its rows. Sorting and filtering
// of the rows belong here, so every key that changes them calls it.
func (g *GroupPage) refreshRows() {
	// A cursor on the first row stays there, so the worst of a sorted
	// table stays in view while the order changes; elsewhere the cursor
	// follows its partition.
	top := g.table.sc.Cursor() <= 0
	g.table.SetSorted(g.rows.apply(g.st.Snap.Partitions), g.rows.cmp(), !top)
	// esc clears a filter: offered only while one is applied.
	g.keys.ClearFilter.SetEnabled(g.rows.query != "" && !g.showLanes)
	snap := &g.st.Snap
	g.table.SetView(g.rows.describe(), g.rows.empty(len(snap.Partitions)), len(snap.Partitions), snap.WorstPartition, snap.HasWorst)
}

// notice shows a message of the root's (the quit confirmation) where the
// demo's actions answer.
func (g *GroupPage) notice(s string) {
	if g.demo != nil {
		g.demo.show(s, false, g.st.Now)
	} else {
		g.note, g.noteAt = s, g.st.Now
	}
	g.relayout()
}
