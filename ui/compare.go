package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

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

// Lines each group takes: its summary, then its lanes (title, axis, a
// row per partition, legend).
func (c *ComparePage) groupHeight(p *GroupPage) int {
	return 1 + lanesChrome + max(p.lanes.Len(), 1)
}

func (c *ComparePage) relayout() {
	w := c.width
	for _, p := range c.pages {
		p.st.Now = c.opts.Now()
		p.lanes.SetNow(p.st.Now)
		p.lanes.SetSize(w, c.groupHeight(p)-1)
	}
	c.setFocus(c.focus) // a group page's own layout focuses its lanes
}

// summary is a group's line: its name and assignor, its state, what its
// last rebalance took and how many partitions it stopped, its lag, and
// its ledger.
func (c *ComparePage) summary(i int) string {
	p, st := c.pages[i], c.styles
	glyph := glyphUnfocused
	if i == c.focus {
		glyph = glyphFocused
	}
	segs := []string{st.PaneTitle.Render(glyph + " " + model.Printable(p.watch.Group)), st.Value.Render(c.labels[i])}
	h := Header{styles: st, width: c.width, st: p.st}
	segs = append(segs, h.stateSegment(1)) // the short words: the line holds more
	// The last rebalance seen whole (one that began before the watch, or
	// during an outage, says nothing of the assignor): what it took and
	// how many partitions it stopped, the comparison's point.
	if e, ok := lastRebalance(p.pipe.Timeline().Events()); ok && (e.HasDuration || e.Inferred) {
		stopped := len(e.Moves) + len(e.Partitions)
		// One begun and ended between two polls with no consumer's
		// report to time it: said so, not "?".
		took := st.Label.Render("rebalance between polls")
		if e.HasDuration {
			took = st.Label.Render("rebalance ") + st.Value.Render(model.Elapsed(e.Duration))
		}
		segs = append(segs, took+
			st.Label.Render(": ")+st.Value.Render(model.Count(stopped, "partition"))+st.Label.Render(" stopped"))
	}
	if p.st.HasSnap {
		lag := model.Thousands(p.st.Snap.TotalLag)
		if p.st.Snap.LagFromStart() {
			lag += model.FromStartMark
		}
		segs = append(segs, st.Label.Render("lag ")+st.Value.Render(lag))
	}
	if l, ok := c.demo.status.Ledgers[p.watch.Group]; ok {
		led := st.Label.Render("processed ") + st.Value.Render(model.Thousands(l.Processed))
		if l.Duplicates > 0 {
			led += st.StateWarn.Render(" " + glyphStale + " dup " + model.Thousands(l.Duplicates))
		}
		if l.Lost > 0 {
			led += st.StateBad.Render(" " + glyphKilled + " lost " + model.Thousands(l.Lost))
		}
		segs = append(segs, led)
	}
	return joinFitting(segs, st.Separator.Render(" · "), c.width)
}

// lastRebalance is the newest rebalance_completed of events (oldest
// first); a cooperative rebalance's assign phase counts as its end.
func lastRebalance(events []model.Event) (model.Event, bool) {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == model.EventRebalanceCompleted {
			return events[i], true
		}
	}
	return model.Event{}, false
}

// View renders the groups stacked, the demo's line and the help.
func (c *ComparePage) View() string {
	if c.width == 0 || c.height == 0 {
		return ""
	}
	st := c.styles
	var b strings.Builder
	title := st.Title.Render("kgwatch") + st.Separator.Render(" · ") +
		st.Group.Render("compare "+strconv.Itoa(len(c.pages))+" groups on one topic")
	// The explanation that fits: long, short, or none.
	for _, why := range []string{
		"an eager rebalance stops every partition (a gap across every lane), a cooperative one only those that move",
		"eager: a gap across every lane; cooperative: only the partitions that move",
		"eager stops all, cooperative only the moved",
	} {
		if t := title + st.Separator.Render(" · ") + st.Muted.Render(why); textWidth(t) <= c.width {
			title = t
			break
		}
	}
	b.WriteString(title)
	for i, p := range c.pages {
		b.WriteString("\n\n")
		b.WriteString(c.summary(i))
		b.WriteByte('\n')
		b.WriteString(padLines(p.lanes.View(), c.groupHeight(p)-1))
	}
	used := lipgloss.Height(b.String())
	helpText := c.shortHelp()
	free := c.height - used - 1
	if text, hh := c.demo.frame(c.width, free, c.target(), c.opts.Now()); hh > 0 {
		b.WriteString("\n" + padLines("", max(free-hh, 0)) + text)
	} else {
		b.WriteString(padLines("", max(free, 0)))
	}
	b.WriteString("\n" + helpText)
	return b.String()
}

func (c *ComparePage) shortHelp() string {
	c.help.SetWidth(c.width)
	bs := append(c.demo.bindings(true), c.keys.Up, c.keys.Down, c.keys.NextPane, c.keys.Help, c.keys.Quit)
	if c.help.ShowAll {
		return c.help.FullHelpView([][]key.Binding{c.demo.bindings(false), {c.keys.Up, c.keys.Down, c.keys.NextPane}, {c.keys.CloseHelp, c.keys.Quit}})
	}
	return c.help.ShortHelpView(bs)
}
