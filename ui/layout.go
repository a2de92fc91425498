package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"

	"github.com/kgwatch/kgwatch/model"
)

// relayout sizes the header, the panes and the help from the window and the
// current data. Frame sizes come from the styles themselves.
func (a *App) relayout() {
	fw, fh := a.styles.App.GetFrameSize()
	w, h := max(a.width-fw, 0), max(a.height-fh, 0)

	headerLines := 2
	if h < 6 {
		headerLines = 1
	}
	if h >= 16 {
		headerLines = 3 // the worst partition gets its own line
	}
	a.header.SetSize(w, headerLines)
	a.header.SetState(a.watch)
	a.headerText = a.header.View()
	headH := 0
	if a.headerText != "" {
		headH = lipgloss.Height(a.headerText)
	}

	a.helpText = ""
	if h-headH >= 6 {
		if a.help.ShowAll {
			a.helpText = a.fullHelp(w, h-headH-2)
			if a.helpText == "" {
				// Too tall beside the panes (a tiny terminal): the help
				// takes their place until ? closes it, rather than ?
				// seeming to do nothing.
				a.helpText = a.fullHelp(w, h-headH)
			}
		}
		if a.helpText == "" {
			a.helpText = a.shortHelp(w)
		}
	}
	if f := a.filterLine(w); f != "" && h-headH >= 2 {
		a.helpText = f // typing goes there: it replaces the help
	}
	helpH := 0
	if a.helpText != "" {
		helpH = lipgloss.Height(a.helpText)
	}

	demoH := a.demoFrame(w, h-headH-helpH) // the ledger, in demo mode
	a.bodyW, a.bodyH = w, max(h-headH-helpH-demoH, 0)
	a.layoutPanes()
}

// fullHelp is the help `?` opens, at most maxH lines of width w: the key
// columns when they all fit; else every key packed into lines, so none is
// cut off (bubbles' help drops the columns past the width); "" when even
// that is too tall.
func (a *App) fullHelp(w, maxH int) string {
	groups := a.keys.FullHelp()
	a.help.SetWidth(0)
	cols := a.help.FullHelpView(groups)
	a.help.SetWidth(w)
	if lipgloss.Width(cols) <= w && lipgloss.Height(cols) <= maxH {
		return cols
	}
	st := a.help.Styles
	sep := st.ShortSeparator.Render(a.help.ShortSeparator)
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
func (a *App) shortHelp(w int) string {
	keep := []key.Binding{a.keys.Help, a.keys.Quit}
	tail := a.help.ShortHelpView(keep)
	sep := a.help.Styles.ShortSeparator.Render(a.help.ShortSeparator)
	rest := w - lipgloss.Width(tail) - lipgloss.Width(sep)
	if rest < lipgloss.Width(a.help.Ellipsis) {
		a.help.SetWidth(w)
		return a.help.ShortHelpView(keep)
	}
	a.help.SetWidth(rest)
	head := a.help.ShortHelpView(a.keys.ShortHelp())
	a.help.SetWidth(w)
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
func (a *App) layoutPanes() {
	w, full := a.bodyW, a.bodyH
	a.split = full >= 10
	a.syncTimeline()
	if !a.split {
		a.table.SetSize(w, full)
		a.members.SetSize(w, full)
		a.lanes.SetSize(w, full)
		a.timeline.SetSize(w, full)
		return
	}
	a.gap = 0
	if full >= 20 {
		a.gap = 1
	}
	tlWant := max(a.timeline.Len(), 1) + timelineChrome
	body := full - a.gap - min(tlWant, max(full/4, timelineChrome+2))
	if a.showLanes {
		lh := min(max(a.lanes.Len(), 1)+lanesChrome, body)
		a.lanes.SetSize(w, lh)
		a.timeline.SetSize(w, full-lh-a.gap)
		return
	}
	tableNeed := max(a.table.Len(), 1) + tableChrome
	membersNeed := max(a.members.Len(), 1) + membersChrome
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
	a.timeline.SetSize(w, full-th-mh-2*a.gap)
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
	if a.demo.text != "" {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(a.demo.text)
	}
	if a.helpText != "" {
		b.WriteByte('\n')
		b.WriteString(a.helpText)
	}
	return a.styles.App.Render(fitBlock(b.String(), w, h))
}

// body is the area between header and help.
func (a *App) body() string {
	s := a.watch
	switch {
	case !s.HasSnap && s.Err != nil:
		return center("cannot reach "+strings.Join(printableAll(s.Brokers), ",")+" yet; retrying", a.bodyW, a.bodyH)
	case !s.HasSnap:
		return center("connecting to "+strings.Join(printableAll(s.Brokers), ",")+"…", a.bodyW, a.bodyH)
	case s.Waiting():
		return center("waiting for group "+model.Printable(a.opts.Group)+" to appear · polling every "+a.opts.Interval.String(), a.bodyW, a.bodyH)
	case !a.split && a.focus == paneMembers:
		return a.members.View()
	case !a.split && a.focus == paneTimeline:
		return a.timeline.View()
	case !a.split && a.showLanes:
		return a.lanes.View()
	case !a.split:
		return a.table.View()
	}
	sep := "\n" + strings.Repeat("\n", a.gap)
	if a.showLanes {
		return padLines(a.lanes.View(), a.lanes.height) + sep + a.timeline.View()
	}
	return padLines(a.table.View(), a.table.height) + sep +
		padLines(a.members.View(), a.members.height) + sep + a.timeline.View()
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
