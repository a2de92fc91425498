// Package ui is kgwatch's terminal interface: a Bubble Tea root model that
// polls a Source and renders the group, its partitions and its members.
package ui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
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

	status Status
	focus  pane

	header  Header
	table   Table
	members Members

	// layout, computed in relayout after every Update
	headerText string
	helpText   string
	bodyW      int
	bodyH      int
	split      bool // table and members both on screen
	gap        int  // blank lines between the panes when split
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
	}
	a.status = Status{Brokers: opts.Brokers, Group: opts.Group, Interval: opts.Interval, Now: opts.Now()}
	a.setFocus(paneTable)
	return a
}

// Close cancels any poll in flight. Quitting with q or ctrl+c does it too.
func (a *App) Close() { a.cancel() }

// Init starts the poll loop.
func (a *App) Init() tea.Cmd {
	a.seq++
	a.polling = true
	return pollCmd(a.ctx, a.src, a.opts.Timeout, a.seq)
}

// Update handles one message.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	a.status.Now = a.opts.Now()
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
	}
	a.relayout()
	return a, cmd
}

func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, a.keys.Quit):
		a.cancel()
		return tea.Quit
	case key.Matches(msg, a.keys.Help):
		a.help.ShowAll = !a.help.ShowAll
	case key.Matches(msg, a.keys.NextPane):
		a.setFocus((a.focus + 1) % numPanes)
	default:
		var cmd tea.Cmd
		switch a.focus {
		case paneTable:
			a.table, cmd = a.table.Update(msg)
		case paneMembers:
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
}

// handleTick starts the next poll when the tick belongs to the current loop
// and no poll is in flight; anything else is a stale tick and dropped, so
// there is only ever one loop.
func (a *App) handleTick(msg tickMsg) tea.Cmd {
	if msg.Seq != a.seq || a.polling || a.ctx.Err() != nil {
		return nil
	}
	if msg.Remaining > 0 {
		return tickCmd(msg.Remaining, a.seq)
	}
	a.polling = true
	return pollCmd(a.ctx, a.src, a.opts.Timeout, a.seq)
}

// handlePoll takes a poll result of the current loop: a snapshot replaces
// the data, an error keeps the last data, marks it stale and backs off.
// Either way the next tick is scheduled.
func (a *App) handlePoll(msg pollMsg) tea.Cmd {
	if msg.Seq != a.seq {
		return nil
	}
	a.polling = false
	if msg.Err != nil {
		a.applyError(msg.Err)
	} else {
		a.applySnapshot(msg.Snap)
	}
	if a.ctx.Err() != nil {
		return nil
	}
	s := &a.status
	delay := NextPollDelay(s.Snap.Group, a.opts.Interval, s.Failures)
	s.RetryAt = s.Now.Add(delay)
	a.seq++
	return tickCmd(delay, a.seq)
}

// applySnapshot takes a good poll. This is where anything derived from the
// sequence of snapshots (timeline events, lanes, rates) is fed.
func (a *App) applySnapshot(snap model.Snapshot) {
	s := &a.status
	s.Err, s.Failures = nil, 0
	s.Snap, s.HasSnap, s.LastGood = snap, true, s.Now
	a.refreshRows()
	a.members.SetMembers(snap.Members)
	a.table.SetStale(false)
	a.members.SetStale(false)
}

// applyError takes a failed poll: the last data stays, marked stale.
func (a *App) applyError(err error) {
	s := &a.status
	s.Err = err
	s.Failures++
	a.table.SetStale(true)
	a.members.SetStale(true)
}

// refreshRows hands the partition table its rows. Sorting and filtering
// of the rows belong here, so every key that changes them calls it.
func (a *App) refreshRows() {
	a.table.SetRows(a.status.Snap.Partitions)
}

// relayout sizes the header, the panes and the help from the window and the
// current data. Frame sizes come from the styles themselves.
func (a *App) relayout() {
	fw, fh := a.styles.App.GetFrameSize()
	w, h := max(a.width-fw, 0), max(a.height-fh, 0)

	headerLines := 2
	if h < 6 {
		headerLines = 1
	}
	a.header.SetSize(w, headerLines)
	a.header.SetStatus(a.status)
	a.headerText = a.header.View()
	headH := 0
	if a.headerText != "" {
		headH = lipgloss.Height(a.headerText)
	}

	a.helpText = ""
	if h-headH >= 6 {
		a.help.SetWidth(w)
		a.helpText = a.help.View(a.keys)
		if lipgloss.Height(a.helpText) > h-headH-2 {
			a.helpText = a.help.ShortHelpView(a.keys.ShortHelp())
		}
	}
	helpH := 0
	if a.helpText != "" {
		helpH = lipgloss.Height(a.helpText)
	}

	a.bodyW, a.bodyH = w, max(h-headH-helpH, 0)
	a.layoutPanes()
}

// layoutPanes shares the body between the table and the members pane. Each
// gets what it needs when that fits; otherwise the members pane takes at
// most a third. Below 10 lines only the focused pane is shown.
func (a *App) layoutPanes() {
	w, body := a.bodyW, a.bodyH
	a.split = body >= 10
	if !a.split {
		a.table.SetSize(w, body)
		a.members.SetSize(w, body)
		return
	}
	tableNeed := max(a.table.Len(), 1) + tableChrome
	membersNeed := max(a.members.Len(), 1) + membersChrome
	a.gap = 0
	if body >= 20 {
		a.gap = 1
	}
	mh := membersNeed
	if tableNeed+a.gap+membersNeed > body {
		mh = min(membersNeed, max(body/3, membersChrome+1))
	}
	th := body - a.gap - mh
	if tableNeed < th {
		th = tableNeed
	}
	a.table.SetSize(w, th)
	a.members.SetSize(w, mh)
}

// View renders the frame. Until the first WindowSizeMsg it is a
// placeholder.
func (a *App) View() tea.View {
	v := tea.NewView(a.render())
	v.AltScreen = true
	v.WindowTitle = "kgwatch · " + a.opts.Group
	return v
}

// render builds the screen content: header, body, help.
func (a *App) render() string {
	if !a.ready {
		return "kgwatch: starting…"
	}
	fw, fh := a.styles.App.GetFrameSize()
	w, h := max(a.width-fw, 0), max(a.height-fh, 0)
	if w == 0 || h == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow((w + 32) * h)
	b.WriteString(a.headerText)
	if a.bodyH > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(padLines(a.body(), a.bodyH))
	}
	if a.helpText != "" {
		b.WriteByte('\n')
		b.WriteString(a.helpText)
	}
	return a.styles.App.Render(fitBlock(b.String(), w, h))
}

// body is the area between header and help.
func (a *App) body() string {
	s := a.status
	switch {
	case !s.HasSnap && s.Err != nil:
		return center("cannot reach "+strings.Join(s.Brokers, ",")+" yet; retrying", a.bodyW, a.bodyH)
	case !s.HasSnap:
		return center("connecting to "+strings.Join(s.Brokers, ",")+"…", a.bodyW, a.bodyH)
	case s.Waiting():
		return center("waiting for group "+a.opts.Group+" to appear · polling every "+a.opts.Interval.String(), a.bodyW, a.bodyH)
	case !a.split && a.focus == paneMembers:
		return a.members.View()
	case !a.split:
		return a.table.View()
	}
	return a.table.View() + "\n" + strings.Repeat("\n", a.gap) + a.members.View()
}

// padLines pads s with empty lines to h lines, so the help stays at the
// bottom of the screen.
func padLines(s string, h int) string {
	n := strings.Count(s, "\n") + 1
	if n >= h {
		return s
	}
	return s + strings.Repeat("\n", h-n)
}
