package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// GroupsPane is the overview's one pane: a row per consumer group with its
// state, members, total and max lag and a lag bar scaled to the largest
// total lag on screen. Only the rows in the scroll window are rendered.
type GroupsPane struct {
	styles Styles
	keys   KeyMap
	rows   []model.GroupSummary
	sc     scroller
	width  int
	height int
	stale  bool
}

// groupsChrome is the number of lines above the rows: title and column
// header.
const groupsChrome = 2

// Groups pane columns, in screen order.
const (
	gcGroup = iota
	gcState
	gcMembers
	gcTotal
	gcMax
	gcBar
	numGroupCols
)

// NewGroupsPane returns an empty groups pane.
func NewGroupsPane(st Styles, km KeyMap) GroupsPane {
	return GroupsPane{styles: st, keys: km}
}

// SetSize sets the pane's outer size, title and column header included.
func (g *GroupsPane) SetSize(w, h int) {
	g.width, g.height = max(w, 0), max(h, 0)
	g.sc.SetHeight(max(g.height-groupsChrome, 0))
}

// SetStale marks the rows as last-known data from an earlier poll.
func (g *GroupsPane) SetStale(s bool) { g.stale = s }

// SetRows replaces the rows; the selected group stays selected when it is
// still listed.
func (g *GroupsPane) SetRows(rows []model.GroupSummary) {
	sel, had := g.Selected()
	g.rows = rows
	g.sc.SetLen(len(rows))
	if !had {
		return
	}
	for i := range rows {
		if rows[i].ID == sel {
			g.sc.SetCursor(i)
			return
		}
	}
}

// Selected returns the id of the group under the cursor.
func (g GroupsPane) Selected() (string, bool) {
	i := g.sc.Cursor()
	if i < 0 || i >= len(g.rows) {
		return "", false
	}
	return g.rows[i].ID, true
}

// Len returns the number of rows.
func (g GroupsPane) Len() int { return len(g.rows) }

// Update handles scroll keys.
func (g GroupsPane) Update(msg tea.Msg) (GroupsPane, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		g.sc.handleKey(k, g.keys)
	}
	return g, nil
}

// groupState is the STATE cell: a glyph and kafka-consumer-groups' words
// (or, when short, the state's name), so colour is never the only signal.
func groupState(s *model.GroupSummary, words bool) (string, int) {
	text := model.Printable(s.State)
	if words {
		text = model.Printable(s.StateText())
	}
	switch {
	case s.State == model.StateStable:
		return glyphStable + " " + text, 0
	case s.State == model.StateEmpty:
		return glyphEmpty + " " + text, 1
	case s.State == model.StatePreparingRebalance || s.State == model.StateCompletingRebalance:
		return glyphRebalance + " " + text, 1
	case s.State == model.StateDead:
		return glyphWaiting + " " + text, 2
	case s.State == "":
		return glyphError + " unknown", 2
	default:
		return "? " + text, 1
	}
}

// groupsLayout is the visible columns and their widths for one frame.
type groupsLayout struct {
	show       [numGroupCols]bool
	w          [numGroupCols]int
	stateWords bool
	maxTotal   int64
}

// layout fits the columns to the width: the bar goes first, then MAX LAG,
// then the state's words give way to its name, then the group id shrinks.
func (g GroupsPane) layout(rows []model.GroupSummary) groupsLayout {
	var l groupsLayout
	var nat [numGroupCols]int
	nat[gcGroup], nat[gcMembers], nat[gcTotal], nat[gcMax] = 5, 7, 9, 7
	stateShort, stateLong := 5, 5
	for i := range rows {
		r := &rows[i]
		nat[gcGroup] = max(nat[gcGroup], textWidth(model.Printable(r.ID)))
		s, _ := groupState(r, false)
		stateShort = max(stateShort, textWidth(s))
		s, _ = groupState(r, true)
		stateLong = max(stateLong, min(textWidth(s), 24))
		nat[gcTotal] = max(nat[gcTotal], len(model.Thousands(r.TotalLag)))
		nat[gcMax] = max(nat[gcMax], len(model.Thousands(r.MaxLag)))
		l.maxTotal = max(l.maxTotal, r.TotalLag)
	}
	nat[gcState] = stateLong
	nat[gcBar] = 40
	for c := range numGroupCols {
		l.show[c] = true
	}
	l.w = nat
	l.w[gcGroup] = min(nat[gcGroup], 16)
	l.w[gcBar] = 7
	avail := g.width - 1 // cursor gutter
	used := func() int {
		n, cols := 0, 0
		for c := range numGroupCols {
			if l.show[c] {
				n += l.w[c]
				cols++
			}
		}
		return n + max(cols-1, 0)
	}
	for step := 0; used() > avail && step < 5; step++ {
		switch step {
		case 0:
			l.show[gcBar] = false
		case 1:
			l.show[gcMax] = false
		case 2:
			l.w[gcState] = stateShort
		case 3:
			l.w[gcGroup] = min(l.w[gcGroup], 8)
		case 4:
			l.show[gcMembers] = false
		}
	}
	l.stateWords = l.w[gcState] == stateLong
	extra := avail - used()
	grow := func(c, target int) {
		if !l.show[c] || extra <= 0 {
			return
		}
		if d := min(extra, target-l.w[c]); d > 0 {
			l.w[c] += d
			extra -= d
		}
	}
	grow(gcGroup, min(nat[gcGroup], 32))
	grow(gcBar, 20)
	grow(gcGroup, nat[gcGroup])
	grow(gcBar, nat[gcBar])
	return l
}

// View renders the title, the column header and the visible rows.
func (g GroupsPane) View() string {
	if g.width <= 0 || g.height <= 0 {
		return ""
	}
	start, end := g.sc.Window()
	visible := g.rows[start:end]
	l := g.layout(visible)
	var b strings.Builder
	b.WriteString(g.title(start, end))
	if g.height < 2 {
		return b.String()
	}
	b.WriteByte('\n')
	b.WriteString(g.header(l))
	for i := range visible {
		b.WriteByte('\n')
		g.row(&b, l, &visible[i], start+i == g.sc.Cursor())
	}
	return b.String()
}

func (g GroupsPane) title(start, end int) string {
	st := g.styles
	s := st.PaneTitle.Render(glyphFocused + " Groups " + strconv.Itoa(len(g.rows)))
	extra := []string{"sort: total lag"}
	if len(g.rows) > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if g.stale {
		extra = append(extra, glyphStale+" stale")
	}
	s += st.Muted.Render("  " + strings.Join(extra, " · "))
	return ansi.Truncate(s, g.width, ellipsis)
}

func (g GroupsPane) header(l groupsLayout) string {
	titles := [numGroupCols]string{"GROUP", "STATE", "MEMBERS", "TOTAL LAG", "MAX LAG", "LAG BAR (" + glyphWorst + " = most lag)"}
	if l.w[gcBar] < len(titles[gcBar]) {
		titles[gcBar] = "LAG BAR"
	}
	right := [numGroupCols]bool{gcMembers: true, gcTotal: true, gcMax: true}
	return g.styles.ColHeader.Render(" " + joinCells(titles[:], l.w[:], l.show[:], right[:]))
}

// row writes one group row. The selected row is rendered plain and then
// reversed as a whole.
func (g GroupsPane) row(b *strings.Builder, l groupsLayout, r *model.GroupSummary, selected bool) {
	st := g.styles
	styled := !selected
	var line strings.Builder
	switch {
	case selected:
		line.WriteString(glyphCursor)
	case r.Err != "":
		line.WriteString(glyphError)
	default:
		line.WriteByte(' ')
	}
	line.WriteString(cell(model.Printable(r.ID), l.w[gcGroup], false))
	line.WriteByte(' ')
	text, level := groupState(r, l.stateWords)
	s := cell(text, l.w[gcState], false)
	if styled {
		s = [...]func(...string) string{st.StateOK.Render, st.StateWarn.Render, st.StateBad.Render}[level](s)
	}
	line.WriteString(s)
	if l.show[gcMembers] {
		line.WriteByte(' ')
		line.WriteString(cell(strconv.Itoa(r.Members), l.w[gcMembers], true))
	}
	line.WriteByte(' ')
	lag := cell(model.Thousands(r.TotalLag), l.w[gcTotal], true)
	if styled {
		lag = st.lagStyle(r.TotalLag, l.maxTotal).Render(lag)
	}
	line.WriteString(lag)
	if l.show[gcMax] {
		line.WriteByte(' ')
		line.WriteString(cell(model.Thousands(r.MaxLag), l.w[gcMax], true))
	}
	if l.show[gcBar] {
		line.WriteByte(' ')
		line.WriteString(g.bar(r, l.w[gcBar], l.maxTotal, styled))
	}
	if selected {
		b.WriteString(st.Selected.Render(line.String()))
		return
	}
	b.WriteString(line.String())
}

// bar draws the total lag over the largest on screen, like the partition
// table's bar; a group that could not all be read shows its error.
func (g GroupsPane) bar(r *model.GroupSummary, w int, maxTotal int64, styled bool) string {
	st := g.styles
	if r.Err != "" {
		s := cell(glyphError+" "+oneLine(r.Err), w, false)
		if styled {
			s = st.err.Render(s)
		}
		return s
	}
	inner, marker := w, ""
	if w >= 4 {
		inner, marker = w-2, "  "
		if r.TotalLag > 0 && r.TotalLag == maxTotal {
			marker = " " + glyphWorst
		}
	}
	filled := 0
	if r.TotalLag > 0 && maxTotal > 0 {
		filled = int((r.TotalLag*int64(inner) + maxTotal - 1) / maxTotal)
		filled = min(max(filled, 1), inner)
	}
	full := strings.Repeat(glyphBarFull, filled)
	track := strings.Repeat(glyphBarTrack, inner-filled)
	if !styled {
		return full + track + marker
	}
	s := ""
	if filled > 0 {
		s = st.lagStyle(r.TotalLag, maxTotal).Render(full)
	}
	if inner > filled {
		s += st.lagNone.Render(track)
	}
	if strings.TrimSpace(marker) != "" {
		return s + st.worst.Render(marker)
	}
	return s + marker
}
