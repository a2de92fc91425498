// Package ui is kgwatch's terminal interface: a Bubble Tea root model that
// polls a Source and renders the group, its partitions and its members.
package ui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/kgwatch/kgwatch/model"
)

// Source is what the UI needs from a poller (kafka.Watcher satisfies it).
// A group that does not exist is a Snapshot whose Group is not Exists(),
// not an error.
type Source interface {
	Poll(ctx context.Context) (model.Snapshot, error)
}

// Options configures the UI.
type Options struct {
	Brokers  []string
	Group    string
	Interval time.Duration // poll interval
	Timeout  time.Duration // per poll context timeout
	// NoColor forces monochrome styles; main sets it from NO_COLOR != "".
	NoColor bool
	// Now is the clock; nil means time.Now. Tests pass a fixed clock.
	Now func() time.Time
	// Context, when set, bounds every poll: cancelling it stops the loop.
	// Nil means context.Background(); quitting cancels polls either way.
	Context context.Context
	// Events, when set, carries events from outside the polls (demo
	// consumers' reports) into the timeline. The app reads it until it
	// closes or the app quits.
	Events <-chan model.Event
	// TimelineSize is the number of events the timeline keeps; zero means
	// model.DefaultTimelineCapacity (1,000).
	TimelineSize int
	// StallAfter is how long a partition with lag may go without a commit
	// before it is STALLED (`--stall-after`); zero means the model's
	// default, 30s.
	StallAfter time.Duration
	// Demo, in demo mode, is the running demo: it enables the demo keys and
	// the ledger pane (ui/demo.go). Nil when watching any other group.
	Demo Demo
	// DemoSettings are the demo's settings the screen explains.
	DemoSettings DemoSettings
	// WatchGroup, in the overview (NewOverview), makes the source for one
	// group when enter opens it, and the func that releases it when the
	// view goes back to the overview or the app closes.
	WatchGroup func(group string) (src Source, release func())
}

// ProgramOptions returns the tea.Program options the UI needs: with NoColor
// the output profile drops colour even where the terminal has it.
func ProgramOptions(opts Options) []tea.ProgramOption {
	if opts.NoColor {
		return []tea.ProgramOption{tea.WithColorProfile(colorprofile.Ascii)}
	}
	return nil
}

// pane identifies a focusable pane. Tab cycles through them in order.
type pane int

const (
	paneTable pane = iota
	paneMembers
	paneTimeline
	numPanes
)

// App is the root model; it is the only tea.Model of the UI. Children are
// concrete panes the root sizes and routes keys to.
type App struct {
	src    Source
	opts   Options
	keys   KeyMap
	styles Styles
	help   help.Model
	ctx    context.Context
	cancel context.CancelFunc

	width, height int
	ready         bool // a WindowSizeMsg arrived

	seq     uint64 // poll loop step; messages with another Seq are stale
	polling bool   // a poll is in flight

	watch WatchState
	focus pane

	header  Header
	table   Table
	members Members

	// Timeline events (from the snapshots and Options.Events), ownership
	// history, and the panes showing them: ui/timeline_app.go.
	tracker   *model.Tracker
	lanesHist *model.Lanes
	timeline  Timeline
	lanes     Lanes
	showLanes bool // the lanes view replaces the table and the members

	// history derives statuses, rates and ETA from the snapshots; rows is
	// the table's sort, filter and only-lag view (ui/filter.go).
	history *model.History
	rows    rowView
	// statusEvents are the status_changed events of the last snapshot,
	// for the timeline.
	statusEvents []model.Event

	// layout, computed in relayout after every Update
	headerText string
	helpText   string
	bodyW      int
	bodyH      int
	split      bool // table and members both on screen
	gap        int  // blank lines between the panes when split

	demo demoState // demo mode: ui/demo.go

	// ov is the all-groups overview (ui/overview.go); nil when the app
	// watches one group from the start.
	ov *overview
}

// New returns the root model polling src.
func New(src Source, opts Options) *App {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	st := NewStyles(opts.NoColor)
	km := DefaultKeyMap()
	km.Demo.SetEnabled(opts.Demo != nil)
	h := help.New()
	h.Styles = st.Help
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancel(parent)
	a := &App{
		src: src, opts: opts, keys: km, styles: st, help: h,
		ctx: ctx, cancel: cancel,
		header:  NewHeader(st),
		table:   NewTable(st, km),
		members: NewMembers(st, km),
		demo:    demoState{pane: NewLedgerPane(st)},
		history: model.NewHistory(model.HistoryOptions{StallAfter: opts.StallAfter}),
	}
	a.initTimeline()
	a.watch = WatchState{Brokers: opts.Brokers, Group: opts.Group, Interval: opts.Interval, Now: opts.Now()}
	a.setFocus(paneTable)
	return a
}

// Close cancels any poll in flight. Quitting with q or ctrl+c does it too.
func (a *App) Close() {
	a.closeGroup()
	a.cancel()
}

// Init starts the poll loop.
func (a *App) Init() tea.Cmd {
	if a.ov != nil {
		return a.overviewInit()
	}
	a.seq++
	a.polling = true
	poll := tea.Batch(pollCmd(a.ctx, a.src, a.opts.Timeout, a.seq), a.demoInit())
	if a.opts.Events != nil {
		return tea.Batch(poll, waitEvent(a.ctx, a.opts.Events))
	}
	return poll
}

// Update handles one message.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if a.ov != nil {
		return a, a.overviewUpdate(msg)
	}
	a.watch.Now = a.opts.Now()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height, a.ready = max(msg.Width, 0), max(msg.Height, 0), true
	case tea.KeyPressMsg:
		cmd = a.handleKey(msg)
	case pollMsg:
		cmd = a.handlePoll(msg)
	case tickMsg:
		cmd = a.handleTick(msg)
	case demoStatusMsg:
		cmd = a.handleDemoStatus(msg)
	case demoActionMsg:
		cmd = a.handleDemoAction(msg)
	case eventMsg:
		cmd = a.handleEvent(msg)
	}
	a.relayout()
	return a, cmd
}

// View renders the frame. Until the first WindowSizeMsg it is a
// placeholder.
func (a *App) View() tea.View {
	if a.ov != nil {
		return a.overviewView()
	}
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.WindowTitle = "kgwatch · " + model.Printable(a.opts.Group)
	return v
}

func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if a.viewKey(msg) {
		return nil
	}
	if cmd, ok := a.demoKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, a.keys.Quit):
		a.cancel()
		return tea.Quit
	case key.Matches(msg, a.keys.Help):
		a.help.ShowAll = !a.help.ShowAll
	case key.Matches(msg, a.keys.NextPane):
		a.setFocus(a.nextPane())
	case key.Matches(msg, a.keys.PrevPane):
		a.setFocus(a.prevPane())
	case key.Matches(msg, a.keys.Lanes):
		a.toggleLanes()
	default:
		var cmd tea.Cmd
		switch {
		case a.focus == paneTable && a.showLanes:
			a.lanes, cmd = a.lanes.Update(msg)
		case a.focus == paneTimeline:
			a.timeline, cmd = a.timeline.Update(msg)
		case a.focus == paneTable:
			a.table, cmd = a.table.Update(msg)
		case a.focus == paneMembers:
			a.members, cmd = a.members.Update(msg)
		}
		return cmd
	}
	return nil
}

func (a *App) setFocus(p pane) {
	a.focus = p
	a.table.SetFocused(p == paneTable)
	a.members.SetFocused(p == paneMembers)
	a.timeline.SetFocused(p == paneTimeline)
}

// applySnapshot takes a good poll. This is where anything derived from the
// sequence of snapshots (timeline events, lanes, rates) is fed.
func (a *App) applySnapshot(snap model.Snapshot) {
	s := &a.watch
	s.Err, s.Failures = nil, 0
	a.statusEvents = a.history.Annotate(&snap)
	s.Snap, s.HasSnap, s.LastGood = snap, true, s.Now
	a.refreshRows()
	a.members.SetMembers(a.demoMembers(snap.Members))
	a.members.SetPartitionCount(len(snap.Partitions))
	a.members.SetPending(snap.Group.Rebalancing())
	a.table.SetStale(false)
	a.members.SetStale(false)
	a.observe(snap)
	a.fileStatusEvents()
}

// applyError takes a failed poll: the last data stays, marked stale.
func (a *App) applyError(err error) {
	s := &a.watch
	s.Err = err
	s.Failures++
	a.table.SetStale(true)
	a.members.SetStale(true)
	a.observeError(err)
}

// refreshRows hands the partition table its rows. Sorting and filtering
// of the rows belong here, so every key that changes them calls it.
func (a *App) refreshRows() {
	// A cursor on the first row stays there, so the worst of a sorted
	// table stays in view while the order changes; elsewhere the cursor
	// follows its partition.
	top := a.table.sc.Cursor() <= 0
	a.table.SetRows(a.rows.apply(a.watch.Snap.Partitions))
	if top {
		a.table.sc.Top()
	}
	snap := &a.watch.Snap
	a.table.SetView(a.rows.describe(), len(snap.Partitions), snap.WorstPartition, snap.HasWorst)
}
