package ui

import (
	"strconv"
	"strings"
	"time"

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
	grid   grid[model.GroupSummary]
	width  int
	height int
	stale  bool
	now    time.Time
	// most is the group with the most total lag, marked ◀.
	most    string
	hasMost bool
	// desc says how the rows were sorted and filtered, empty why none
	// shows, total how many groups there are before filtering.
	desc, empty string
	total       int
}

// SetView tells the pane how its rows were chosen, for the title.
func (g *GroupsPane) SetView(desc, empty string, total int) {
	g.desc, g.empty, g.total = desc, empty, total
}

// groupsChrome is the number of lines above the rows: title and column
// header.
const groupsChrome = 2

// NewGroupsPane returns an empty groups pane.
func NewGroupsPane(st Styles, km KeyMap) GroupsPane {
	g := GroupsPane{styles: st, keys: km}
	g.grid = newGrid(g.groupColumns())
	return g
}

// SetNow sets the clock the column widths are held by.
func (g *GroupsPane) SetNow(now time.Time) { g.now = now }

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
	g.hasMost = false
	for i := range rows {
		if rows[i].TotalLag > 0 && (!g.hasMost || rows[i].TotalLag > g.mostLag()) {
			g.most, g.hasMost = rows[i].ID, true
		}
	}
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
	text := s.State
	if words {
		text = s.StateText()
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

// groupColumns declares the overview's columns, in screen order: the bar
// gives way first, then MAX LAG, then the state's words give way to its
// name.
func (g *GroupsPane) groupColumns() []column[model.GroupSummary] {
	st := g.styles
	return []column[model.GroupSummary]{
		{title: "GROUP", min: 16, max: 48, drop: 2, grow: 1, text: func(r *model.GroupSummary) string { return r.ID }},
		{title: "TYPE", drop: 6, grow: 5, hideEmpty: true, text: func(r *model.GroupSummary) string {
			if r.Type == model.TypeClassic || r.Type == "" {
				return ""
			}
			return r.Type
		}},
		{title: "STATE", min: 24, max: 24, narrowAt: 3, grow: 0,
			text:   func(r *model.GroupSummary) string { s, _ := groupState(r, true); return s },
			narrow: func(r *model.GroupSummary) string { s, _ := groupState(r, false); return s },
			paint: func(r *model.GroupSummary) paint {
				_, level := groupState(r, false)
				return [...]paint{st.stateOK, st.stateWarn, st.stateBad}[level]
			}},
		{title: "MEMBERS", right: true, drop: 1, grow: 2, text: func(r *model.GroupSummary) string { return strconv.Itoa(r.Members) }},
		{title: "TOTAL LAG", right: true, grow: 1, text: func(r *model.GroupSummary) string { return model.Thousands(r.TotalLag) }},
		{title: "MAX LAG", right: true, drop: 4, grow: 3, text: func(r *model.GroupSummary) string { return model.Thousands(r.MaxLag) }},
		{title: "LAG BAR", min: 9, drop: 5, grow: 4, fill: true, natural: 30},
	}
}

// View renders the title, the column header and the visible rows.
func (g *GroupsPane) View() string {
	if g.width <= 0 || g.height <= 0 {
		return ""
	}
	start, end := g.sc.Window()
	visible := g.rows[start:end]
	g.grid.cols[len(g.grid.cols)-1].render = g.bar // this frame's pane: its most lagging group
	l := g.grid.layout(visible, g.width, g.now)
	var b strings.Builder
	b.WriteString(g.title(start, end))
	if g.height < 2 {
		return b.String()
	}
	b.WriteByte('\n')
	b.WriteString(g.styles.ColHeader.Render(g.grid.header(l)))
	if len(g.rows) == 0 && g.empty != "" && g.height > groupsChrome {
		b.WriteByte('\n')
		b.WriteString(g.styles.Muted.Render(cell("  "+g.empty, g.width, false)))
	}
	for i := range visible {
		b.WriteByte('\n')
		r := &visible[i]
		switch {
		case start+i == g.sc.Cursor():
			var line strings.Builder
			g.grid.row(&line, l, r, glyphCursor, false)
			b.WriteString(g.styles.Selected.Render(line.String()))
		case r.Err != "":
			g.grid.row(&b, l, r, glyphError, true)
		default:
			g.grid.row(&b, l, r, " ", true)
		}
	}
	return b.String()
}

func (g *GroupsPane) title(start, end int) string {
	st := g.styles
	n := strconv.Itoa(len(g.rows))
	if g.total > len(g.rows) {
		n += " of " + strconv.Itoa(g.total)
	}
	s := st.PaneTitle.Render(glyphFocused + " Groups " + n)
	desc := g.desc
	if desc == "" {
		desc = "sort: total lag"
	}
	extra := []string{desc}
	if len(g.rows) > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if g.stale {
		extra = append(extra, glyphStale+" stale")
	}
	extra = append(extra, glyphWorst+" most lag", "bar: total lag, a segment a decade")
	s += st.Muted.Render("  " + strings.Join(extra, " · "))
	return ansi.Truncate(s, g.width, ellipsis)
}

// bar draws a group's total lag on fixed decades (lagCells: 1–9 one cell,
// a segment for each tenfold), so a bar means the same in every row and
// every poll; a group that could not all be read shows its error.
func (g *GroupsPane) bar(r *model.GroupSummary, w int, styled bool) string {
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
		if g.hasMost && r.ID == g.most {
			marker = " " + glyphWorst
		}
	}
	filled := 0
	if r.TotalLag > 0 {
		filled = lagCells(r.TotalLag, inner)
	}
	full := strings.Repeat(glyphBarFull, filled)
	track := strings.Repeat(glyphBarTrack, inner-filled)
	if !styled {
		return full + track + marker
	}
	s := ""
	if filled > 0 {
		s = st.lagLow.Render(full)
	}
	if inner > filled {
		s += st.lagNone.Render(track)
	}
	if strings.TrimSpace(marker) != "" {
		return s + st.worst.Render(marker)
	}
	return s + marker
}

func (g *GroupsPane) mostLag() int64 {
	for i := range g.rows {
		if g.rows[i].ID == g.most {
			return g.rows[i].TotalLag
		}
	}
	return 0
}
