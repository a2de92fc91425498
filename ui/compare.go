package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// CompareGroup is one group of `kgwatch demo --compare`: its watch and how
// it assigns ("range (eager)", "cooperative-sticky", "consumer (uniform)").
type CompareGroup struct {
	Watch Watch
	Label string
}

// ComparePage stacks two or three groups reading one topic from one
// producer, each with its ownership lanes and what its last rebalance
// cost: an eager rebalance is a gap across every lane, a cooperative one
// only on the partitions that moved, so "stop-the-world vs incremental" is
// seen at a glance. Each group is a group page of its own (its poller,
// pipeline and lanes); the demo's keys act on the same consumer letter in
// every group.
type ComparePage struct {
	opts   Options
	keys   KeyMap
	styles Styles
	help   help.Model
	ctx    context.Context

	pages  []*GroupPage
	labels []string
	demo   *demoPanel
	events <-chan model.Event
	focus  int // the group whose lanes have the cursor

	width, height int
}

// NewCompare returns the root model of `kgwatch demo --compare`: groups
// side by side, d the demo running them all, events its consumers'
// reports (each filed in its group's timeline).
func NewCompare(groups []CompareGroup, d Demo, set DemoSettings, events <-chan model.Event, opts Options) *App {
	a := newApp(opts)
	c := &ComparePage{opts: a.opts, keys: DefaultKeyMap(), styles: a.styles, ctx: a.ctx, events: events}
	c.keys.ZoomIn.SetEnabled(true) // the lanes always show
	c.keys.ZoomOut.SetEnabled(true)
	c.help = help.New()
	c.help.Styles = a.styles.Help
	for _, g := range groups {
		w := g.Watch
		w.Events, w.Demo = nil, nil // the compare page routes both
		p := newGroupPage(a.ctx, w, a.opts, a.styles, false)
		p.toggleLanes()
		c.pages = append(c.pages, p)
		c.labels = append(c.labels, g.Label)
	}
	c.demo = newDemoPanel(Watch{Group: "every group", Demo: d, DemoSettings: set}, a.styles)
	c.demo.pane.perGroup = true
	c.setFocus(0)
	a.compare = c
	return a
}

// Init starts every group's polls, the demo's refresh and the events.
func (c *ComparePage) Init() tea.Cmd {
	cmds := []tea.Cmd{c.demo.init()}
	for _, p := range c.pages {
		cmds = append(cmds, p.Init())
	}
	if c.events != nil {
		cmds = append(cmds, waitEvent(c.ctx, c.events))
	}
	return tea.Batch(cmds...)
}

// Title is the window title.
func (c *ComparePage) Title() string {
	return "kgwatch · compare " + strconv.Itoa(len(c.pages)) + " groups"
}

// SetSize sizes the page.
func (c *ComparePage) SetSize(w, h int) {
	c.width, c.height = max(w, 0), max(h, 0)
	c.relayout()
}

// SetFullHelp shows the full help or the one-line help.
func (c *ComparePage) SetFullHelp(on bool) { c.help.ShowAll = on }

func (c *ComparePage) setFocus(i int) {
	c.focus = i
	for j, p := range c.pages {
		p.lanes.SetFocused(j == i)
	}
}

// Update handles one message: keys here, the rest to every group page
// (each ignores what is not its own) and the demo panel.
func (c *ComparePage) Update(msg tea.Msg) tea.Cmd {
	now := c.opts.Now()
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		cmds = append(cmds, c.handleKey(msg, now))
	case eventMsg:
		if msg.ctx != c.ctx {
			return nil
		}
		for _, p := range c.pages {
			if msg.Event.Group == p.watch.Group {
				p.fileEvent(msg.Event)
			}
		}
		if c.ctx.Err() == nil {
			cmds = append(cmds, waitEvent(c.ctx, c.events))
		}
	case demoStatusMsg:
		cmds = append(cmds, c.demo.refreshed(msg, now, c.ctx.Err() == nil))
	case demoActionMsg:
		cmd, poll := c.demo.acted(msg, now)
		cmds = append(cmds, cmd)
		if poll {
			for _, p := range c.pages {
				cmds = append(cmds, p.pollNow())
			}
		}
	default:
		for _, p := range c.pages {
			cmds = append(cmds, p.Update(msg))
		}
	}
	c.relayout()
	return tea.Batch(cmds...)
}

func (c *ComparePage) handleKey(msg tea.KeyPressMsg, now time.Time) tea.Cmd {
	if cmd, ok := c.demo.key(msg, c.target(), now); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, c.keys.NextPane):
		c.setFocus((c.focus + 1) % len(c.pages))
	case key.Matches(msg, c.keys.PrevPane):
		c.setFocus((c.focus + len(c.pages) - 1) % len(c.pages))
	default:
		p := c.pages[c.focus]
		p.lanes, _ = p.lanes.Update(msg)
	}
	return nil
}

// notice shows a message of the root's (the quit confirmation).
func (c *ComparePage) notice(s string) { c.demo.show(s, false, c.opts.Now()) }

// target is the member the demo's member keys act on: the owner of the
// selected lane of the focused group (the same consumer letter in every
// group).
func (c *ComparePage) target() target {
	p := c.pages[c.focus]
	tp, ok := p.lanes.Selected()
	if !ok {
		return target{why: "no partition yet: wait for the groups to own them"}
	}
	for _, r := range p.st.Snap.Partitions {
		if r.TopicPartition != tp || !r.Owned() {
			continue
		}
		for _, mb := range p.st.Snap.Members {
			if mb.MemberID == r.MemberID {
				return target{member: mb, ok: true, owns: "owns " + model.PartName(tp, false) + " in " + p.watch.Group + "; acts in every group"}
			}
		}
	}
	return target{why: model.PartName(tp, false) + " has no owner in " + p.watch.Group + ": ↑/↓ to an owned one, tab to another group"}
}

// compareLayout is how the page's lines are shared: a speaker's screen
// is often 80x24, so each group's line (with its rebalance cost), the
// lanes, the ledger, the line naming what the keys act on and the key
// help come first; the title, the legends, the blank lines and the
// producer's line take what is left, and below that the groups not in
// focus shrink to their line.
type compareLayout struct {
	title   bool
	blanks  bool   // a blank line before each group
	rows    []int  // lane rows shown per group (0: the group's line only)
	legends []bool // per group
	ledger  int    // lines of the ledger: counts, producer, the target or the last action
}

// layout shares c.height lines.
func (c *ComparePage) layout() compareLayout {
	n := len(c.pages)
	lay := compareLayout{title: true, rows: make([]int, n), legends: make([]bool, n), ledger: 2}
	used := 1 + 1 + lay.ledger // title, help, ledger
	for i, p := range c.pages {
		lay.rows[i] = max(p.lanes.Len(), 1)
		used += 2 + lay.rows[i] // the group's line, the axis, the rows
	}
	if free := c.height - used; free >= 0 {
		take := func(k int) bool {
			if free < k {
				return false
			}
			free -= k
			return true
		}
		lay.legends[0] = take(1)
		lay.blanks = take(n)
		if take(1) {
			lay.ledger++
		}
		for i := 1; i < n; i++ {
			lay.legends[i] = take(1)
		}
		return lay
	}
	// Too short for every group's lanes: the others shrink to their
	// line, then the focused group's rows, then the title and a ledger
	// line go.
	over := used - c.height
	for i := n - 1; i >= 0 && over > 0; i-- {
		if i == c.focus {
			continue
		}
		over -= 1 + lay.rows[i]
		lay.rows[i] = 0
	}
	if over > 0 {
		cut := min(over, lay.rows[c.focus]-1)
		lay.rows[c.focus] -= cut
		over -= cut
	}
	if over > 0 {
		lay.title = false
		over--
	}
	if over > 0 {
		lay.ledger--
	}
	return lay
}

func (c *ComparePage) relayout() {
	w := c.width
	lay := c.layout()
	for i, p := range c.pages {
		p.st.Now = c.opts.Now()
		p.lanes.SetNow(p.st.Now)
		p.lanes.SetBare(true)
		h := 0
		if lay.rows[i] > 0 {
			h = 1 + lay.rows[i]
			if lay.legends[i] {
				h++
			}
		}
		p.lanes.SetSize(w, h)
	}
	c.setFocus(c.focus) // a group page's own layout focuses its lanes
}

// summary is a group's line: its name and assignor, its state, what its
// last rebalance cost, its lag, and its ledger; the longest form that
// fits the width.
func (c *ComparePage) summary(i int) string {
	p, st := c.pages[i], c.styles
	glyph := glyphUnfocused
	if i == c.focus {
		glyph = glyphFocused
	}
	name := st.PaneTitle.Render(glyph + " " + model.Printable(p.watch.Group))
	label := st.Value.Render(c.labels[i])
	h := Header{styles: st, width: c.width, st: p.st}
	state := h.stateSegment(1) // the short words: the line holds more
	var lag, led string
	if p.st.HasSnap {
		l := model.Thousands(p.st.Snap.TotalLag)
		if p.st.Snap.LagFromStart() {
			l += model.FromStartMark
		}
		lag = st.Label.Render("lag ") + st.Value.Render(l)
	}
	if l, ok := c.demo.status.Ledgers[p.watch.Group]; ok {
		led = st.Label.Render("processed ") + st.Value.Render(model.Thousands(l.Processed))
		if l.Duplicates > 0 {
			led += st.StateWarn.Render(" " + glyphStale + " dup " + model.Thousands(l.Duplicates))
		}
		if l.Lost > 0 {
			led += st.StateBad.Render(" " + glyphKilled + " lost " + model.Thousands(l.Lost))
		}
	}
	sep := st.Separator.Render(" · ")
	join := func(segs ...string) string {
		var kept []string
		for _, s := range segs {
			if s != "" {
				kept = append(kept, s)
			}
		}
		return strings.Join(kept, sep)
	}
	cost := func(form int) string { return c.cost(i, form) }
	var line string
	for _, line = range []string{
		join(name, label, state, cost(0), lag, led),
		join(name, label, state, cost(1), lag, led),
		join(name, label, state, cost(2), lag, led),
		join(name, label, cost(2), lag, led),
		join(name, label, cost(2), led),
		join(name, label, cost(2)),
		join(st.PaneTitle.Render(glyph+" "+c.labels[i]), cost(2)),
		join(st.PaneTitle.Render(glyph+" "+c.labels[i]), cost(3)),
	} {
		if textWidth(line) <= c.width {
			return line
		}
	}
	return truncate(line, c.width, ellipsis)
}

// cost is what the group's last rebalance seen whole stopped, in form 0
// (longest) to 2 (shortest): the partition-time no member could consume
// (summed over the partitions, the number an eager and a cooperative
// rebalance are compared by) and the longest pause of one partition,
// read from the lanes over the rebalance. One that began before the
// watch, or during an outage, says nothing of the assignor: "".
func (c *ComparePage) cost(i, form int) string {
	p, st := c.pages[i], c.styles
	events := p.pipe.Timeline().Events()
	e, from, ok := lastRebalanceSpan(events)
	if !ok || !(e.HasDuration || e.Inferred) {
		return ""
	}
	// The consumers' own reports of when each partition stopped and
	// started again, when there are any (the demo's); else the lanes,
	// as the polls saw them.
	pause, reported := model.ConsumerPause(events, from, c.opts.Now())
	if !reported {
		pause = p.pipe.Lanes().Paused(from, e.Time)
	}
	if e.Inferred && !reported {
		// Begun and ended between two polls, no consumer's report to
		// time it: said so, not "0s".
		stopped := len(e.Moves) + len(e.Partitions)
		lead := "rebalance between polls: "
		if form > 0 {
			lead = "between polls: "
		}
		return st.Label.Render(lead) + st.Value.Render(model.Count(stopped, "partition")) + st.Label.Render(" stopped")
	}
	if pause.Sum == 0 {
		return st.Label.Render("rebalance: ") + st.Value.Render("no partition stopped")
	}
	sum, longest := model.Elapsed(pause.Sum), model.Elapsed(pause.Longest)
	switch form {
	case 0:
		took := ""
		if e.HasDuration {
			took = st.Label.Render("rebalance ") + st.Value.Render(model.Elapsed(e.Duration)) + st.Label.Render(": ")
		}
		return took + st.Label.Render("stopped ") + st.Value.Render(model.Count(pause.Partitions, "partition")) +
			st.Label.Render(" for ") + st.Value.Render(sum) + st.Label.Render(" in all, longest ") + st.Value.Render(longest)
	case 1:
		return st.Label.Render("stopped ") + st.Value.Render(sum) + st.Label.Render(" partition-time, longest ") + st.Value.Render(longest)
	case 3:
		return st.Label.Render("stop ") + st.Value.Render(sum)
	}
	return st.Label.Render("stop ") + st.Value.Render(sum) + st.Label.Render(" in all, max ") + st.Value.Render(longest)
}

// lastRebalanceSpan is the newest rebalance_completed of events (oldest
// first; a cooperative rebalance's assign phase counts as its end) and
// when it began: its rebalance_started (the revoke phase's, for an assign
// phase), or earlier when its duration says so; and not before the
// rebalance completed before it, so that one's costs stay its own.
func lastRebalanceSpan(events []model.Event) (model.Event, time.Time, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type != model.EventRebalanceCompleted {
			continue
		}
		e := events[i]
		from := e.Time
		if e.HasDuration {
			from = e.Time.Add(-e.Duration)
		}
		floor := time.Time{}
		for j := i - 1; j >= 0; j-- {
			s := events[j]
			if s.Type == model.EventRebalanceStarted && s.Phase != model.PhaseAssign && s.Time.Before(from) {
				from = s.Time
			}
			if s.Type == model.EventRebalanceCompleted && s.Phase != model.PhaseRevoke {
				floor = s.Time
				break
			}
		}
		// A rebalance's first revocations may come before the poll that
		// saw it begin: from the one before it.
		if !floor.IsZero() {
			from = floor.Add(time.Nanosecond)
		} else {
			from = time.Time{}
		}
		return e, from, true
	}
	return model.Event{}, time.Time{}, false
}

// View renders the groups stacked, the demo's lines and the help, in
// the lines layout gives them.
func (c *ComparePage) View() string {
	if c.width == 0 || c.height == 0 {
		return ""
	}
	st := c.styles
	lay := c.layout()
	var lines []string
	if lay.title {
		title := st.Title.Render("kgwatch") + st.Separator.Render(" · ") +
			st.Group.Render("compare "+strconv.Itoa(len(c.pages))+" groups on one topic")
		// The explanation that fits: long, short, or none; then the
		// lanes' scale.
		for _, why := range []string{
			"an eager rebalance stops every partition (a gap across every lane), a cooperative one only those that move",
			"eager: a gap across every lane; cooperative: only the partitions that move",
			"eager stops all, cooperative only the moved",
			"",
		} {
			t := title
			if why != "" {
				t += st.Separator.Render(" · ") + st.Muted.Render(why)
			}
			if textWidth(t) <= c.width {
				title = t
				break
			}
		}
		if t := title + st.Separator.Render(" · ") + st.Muted.Render("lanes: "+c.pages[c.focus].lanes.scale()); textWidth(t) <= c.width {
			title = t
		}
		lines = append(lines, truncate(title, c.width, ellipsis))
	}
	for i, p := range c.pages {
		if lay.blanks {
			lines = append(lines, "")
		}
		lines = append(lines, c.summary(i))
		if lay.rows[i] > 0 {
			lines = append(lines, strings.Split(p.lanes.View(), "\n")...)
		}
	}
	free := c.height - len(lines) - 1
	if text, hh := c.demo.frameLines(c.width, min(lay.ledger, max(free, 0)), c.target(), c.opts.Now()); hh > 0 {
		for range max(free-hh, 0) {
			lines = append(lines, "")
		}
		lines = append(lines, strings.Split(text, "\n")...)
	} else {
		for range max(free, 0) {
			lines = append(lines, "")
		}
	}
	lines = append(lines, c.shortHelp())
	if len(lines) > c.height { // never past the screen: the help stays
		lines = append(lines[:c.height-1], lines[len(lines)-1])
	}
	return strings.Join(lines, "\n")
}

func (c *ComparePage) shortHelp() string {
	c.help.SetWidth(c.width)
	if c.help.ShowAll {
		return c.help.FullHelpView([][]key.Binding{c.demo.bindings(false), {c.keys.Up, c.keys.Down, c.keys.NextPane, c.keys.ZoomIn}, {c.keys.CloseHelp, c.keys.Quit}})
	}
	return shortHelpKeeping(&c.help, c.width, append(c.demo.bindings(true), c.keys.ZoomIn, c.keys.Up, c.keys.Down, c.keys.NextPane), c.keys.Help, c.keys.Quit)
}
