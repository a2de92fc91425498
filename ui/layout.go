package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/kgwatch/kgwatch/model"
)

// relayout sizes the header, the panes and the help from the page's size
// and the current data.
func (g *GroupPage) relayout() {
	g.st.Now = g.opts.Now()
	w, h := g.width, g.height

	headerLines := 2
	if h < 6 {
		headerLines = 1
	}
	if h >= 16 {
		headerLines = 3 // the worst partition gets its own line
	}
	if h >= stuckLineFrom {
		headerLines = 4 // and the record it is stuck on one under it
	}
	g.header.SetSize(w, headerLines)
	g.st.Recording = recordingNow(g.opts.Recording)
	g.header.SetState(g.st)
	g.headerText = g.header.View()
	headH := blockHeight(g.headerText)

	g.helpText = ""
	if h-headH >= 6 {
		if g.help.ShowAll {
			g.helpText = g.fullHelp(w, h-headH-2)
			if g.helpText == "" {
				// Too tall beside the panes (a tiny terminal): the help
				// takes their place until ? closes it, rather than ?
				// seeming to do nothing.
				g.helpText = g.fullHelp(w, h-headH)
			}
		}
		if g.helpText == "" {
			g.helpText = g.shortHelp(w)
		}
	}
	if g.note != "" && g.st.Now.Sub(g.noteAt) >= flashFor {
		g.note = ""
	}
	if g.note != "" && g.helpText != "" {
		g.helpText = g.styles.Banner.Render(cell(glyphError+" "+flatText(g.note), w, false))
	}
	if f := g.filterLine(w); f != "" && h-headH >= 2 {
		g.helpText = f // typing goes there: it replaces the help
	}
	helpH := blockHeight(g.helpText)

	demoH := 0
	if g.demo != nil { // the ledger, in demo mode
		g.members.SetNotes(g.demo.notes(g.members.rows, g.st.Now))
		g.demoText, demoH = g.demo.frame(w, h-headH-helpH, g.target(), g.st.Now)
	}
	g.bodyW, g.bodyH = w, max(h-headH-helpH-demoH, 0)
	g.layoutPanes()
}

// fullHelp is the help `?` opens, at most maxH lines of width w: the key
// columns when they all fit; else every key packed into lines, so none is
// cut off (bubbles' help drops the columns past the width); "" when even
// that is too tall.
func (g *GroupPage) fullHelp(w, maxH int) string {
	groups := g.keys.FullHelp(g.demo.bindings(false))
	g.help.SetWidth(0)
	cols := g.help.FullHelpView(groups)
	g.help.SetWidth(w)
	if lipgloss.Width(cols) <= w && lipgloss.Height(cols) <= maxH {
		return cols
	}
	st := g.help.Styles
	sep := st.ShortSeparator.Render(g.help.ShortSeparator)
	sepW := lipgloss.Width(sep)
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, g := range groups {
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			item := st.ShortKey.Render(b.Help().Key) + " " + st.ShortDesc.Render(b.Help().Desc)
			iw := lipgloss.Width(item)
			switch {
			case curW == 0:
			case curW+sepW+iw <= w:
				cur.WriteString(sep)
				curW += sepW
			default:
				lines = append(lines, cur.String())
				cur.Reset()
				curW = 0
			}
			cur.WriteString(item)
			curW += iw
		}
	}
	if curW > 0 {
		lines = append(lines, cur.String())
	}
	if len(lines) > maxH {
		return ""
	}
	return strings.Join(lines, "\n")
}

// shortHelp is the one-line help. The help and quit keys come last, as
// is usual, but are never the ones cut: the other keys give way (ending
// in "…") so "? help • q quit" stays on screen at every width.
func (g *GroupPage) shortHelp(w int) string {
	return shortHelpKeeping(&g.help, w, g.keys.ShortHelp(g.demo.bindings(true)), g.keys.Help, g.keys.Quit)
}

// blockHeight is how many lines s takes on screen: none when it is empty
// (lipgloss.Height counts one).
func blockHeight(s string) int {
	if s == "" {
		return 0
	}
	return lipgloss.Height(s)
}

// shortHelpKeeping is a one-line help of width w: bs, cut where they do
// not fit (ending in "…"), then keep, never cut.
func shortHelpKeeping(h *help.Model, w int, bs []key.Binding, keep ...key.Binding) string {
	tail := h.ShortHelpView(keep)
	sep := h.Styles.ShortSeparator.Render(h.ShortSeparator)
	rest := w - lipgloss.Width(tail) - lipgloss.Width(sep)
	if rest < lipgloss.Width(h.Ellipsis) {
		h.SetWidth(w)
		return h.ShortHelpView(keep)
	}
	h.SetWidth(rest)
	head := h.ShortHelpView(bs)
	h.SetWidth(w)
	if head == "" || lipgloss.Width(head) > rest {
		return tail
	}
	return head + sep + tail
}

// layoutPanes shares the body between the table, the members pane (or, in
// their place, the lanes) and the timeline below them. The timeline is
// kept at least a quarter of the body (3 lines or more) and takes whatever
// the others leave; the table and the members get what they need when that
// fits, otherwise the members pane takes at most a third of the rest.
// Below 10 lines only the focused pane is shown.
func (g *GroupPage) layoutPanes() {
	w, full := g.bodyW, g.bodyH
	g.split = full >= 10
	g.syncTimeline()
	if !g.split {
		g.table.SetSize(w, full)
		g.members.SetSize(w, full)
		g.lanes.SetSize(w, full)
		g.timeline.SetSize(w, full)
		return
	}
	g.gap = 0
	if full >= 20 {
		g.gap = 1
	}
	tlWant := max(g.timeline.Len(), 1) + timelineChrome
	body := full - g.gap - min(tlWant, max(full/4, timelineChrome+2))
	if g.showLanes {
		lh := min(max(g.lanes.Len(), 1)+lanesChrome, body)
		g.lanes.SetSize(w, lh)
		g.timeline.SetSize(w, full-lh-g.gap)
		return
	}
	tableNeed := max(g.table.Len(), 1) + tableChrome
	membersNeed := max(g.members.Len(), 1) + membersChrome
	mh := membersNeed
	if tableNeed+g.gap+membersNeed > body {
		mh = min(membersNeed, max(body/3, membersChrome+1))
	}
	th := body - g.gap - mh
	if tableNeed < th {
		th = tableNeed
	}
	g.table.SetSize(w, th)
	g.members.SetSize(w, mh)
	g.timeline.SetSize(w, full-th-mh-2*g.gap)
}

// View renders the page: header, body, ledger (demo mode), help.
func (g *GroupPage) View() string {
	w, h := g.width, g.height
	if w == 0 || h == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow((w + 32) * h)
	b.WriteString(g.headerText)
	if g.bodyH > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(padLines(g.body(), g.bodyH))
	}
	if g.demoText != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(g.demoText)
	}
	if g.helpText != "" {
		b.WriteByte('\n')
		b.WriteString(g.helpText)
	}
	return b.String()
}

// body is the area between header and help.
func (g *GroupPage) body() string {
	s := g.st
	switch {
	case !s.HasSnap && s.Err != nil:
		return center("cannot reach "+strings.Join(printableAll(s.Brokers), ",")+" yet; retrying", g.bodyW, g.bodyH)
	case !s.HasSnap:
		return center("connecting to "+strings.Join(printableAll(s.Brokers), ",")+"…", g.bodyW, g.bodyH)
	case s.Waiting():
		return center("waiting for group "+model.Name(g.watch.Group)+" to appear · polling every "+g.opts.Interval.String(), g.bodyW, g.bodyH)
	case !g.split && g.focus == paneMembers:
		return g.members.View()
	case !g.split && g.focus == paneTimeline:
		return g.timeline.View()
	case !g.split && g.showLanes:
		return g.lanes.View()
	case !g.split:
		return g.table.View()
	}
	sep := "\n" + strings.Repeat("\n", g.gap)
	if g.showLanes {
		return padLines(g.lanes.View(), g.lanes.height) + sep + g.timeline.View()
	}
	return padLines(g.table.View(), g.table.height) + sep +
		padLines(g.members.View(), g.members.height) + sep + g.timeline.View()
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
