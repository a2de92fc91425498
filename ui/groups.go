package ui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// GroupsPane is the overview's one pane: a row per consumer group with its
// state, its status (the worst of its partitions), members, total and max
// lag, its oldest lag's age and a bar of that age on the partition table's
// fixed scale (ageMarks), so a bar means the same in both views. Only the
// rows in the scroll window are rendered.
type GroupsPane struct {
	listPane[model.GroupSummary]
	styles Styles
	grid   grid[model.GroupSummary]
	width  int
	height int
	stale  bool
	now    time.Time
	// worst is the group to look at first (model.GroupWorse), marked ◀;
	// none while every group is OK with no lag or only lag in flight.
	worst    string
	hasWorst bool
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
	g := GroupsPane{listPane: newListPane[model.GroupSummary](km), styles: st}
	g.grid = newGrid(g.groupColumns())
	return g
}

// SetNow sets the clock the column widths are held by.
func (g *GroupsPane) SetNow(now time.Time) { g.now = now }

// SetSize sets the pane's outer size, title and column header included.
func (g *GroupsPane) SetSize(w, h int) {
	g.width, g.height = max(w, 0), max(h, 0)
	g.setHeight(g.height - groupsChrome)
}

// SetStale marks the rows as last-known data from an earlier poll.
func (g *GroupsPane) SetStale(s bool) { g.stale = s }

// SetRows replaces the rows; the selected group stays selected when it is
// still listed.
func (g *GroupsPane) SetRows(rows []model.GroupSummary) {
	g.setRows(rows, func(a, b model.GroupSummary) bool { return a.ID == b.ID })
	g.hasWorst = false
	worst := -1
	for i := range rows {
		if groupNotable(&rows[i]) && (worst < 0 || model.GroupWorse(&rows[i], &rows[worst])) {
			worst = i
		}
	}
	if worst >= 0 {
		g.worst, g.hasWorst = rows[worst].ID, true
	}
}

// groupNotable reports whether a group may take the worst mark: its status
// is not OK, or it has lag not known to be in flight (its oldest
// unprocessed record has waited past the bar's first mark, or its age is
// unknown), as the group view marks no partition when all lag is in flight.
func groupNotable(r *model.GroupSummary) bool {
	if r.Status.Worse(model.StatusOK) {
		return true
	}
	return r.TotalLag > 0 && (!r.MaxLagAgeKnown || r.MaxLagAge > ageMarks[0])
}

// Selected returns the id of the group under the cursor.
func (g GroupsPane) Selected() (string, bool) {
	r, ok := g.selected()
	return r.ID, ok
}

// Update handles the list keys.
func (g GroupsPane) Update(msg tea.Msg) (GroupsPane, tea.Cmd) {
	g.handleKey(msg)
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
	case model.Group{State: s.State}.Rebalancing(): // classic, or consumer protocol's Assigning and Reconciling
		return glyphRebalance + " " + text, 1
	case s.State == model.StateDead:
		return glyphWaiting + " " + text, 2
	case s.State == "":
		return glyphError + " unknown", 2
	default:
		return "? " + text, 1
	}
}

// groupColumns declares the overview's columns, in screen order (the
// columns it shares with the --once table in that table's order, TYPE
// aside). GROUP, STATUS and TOTAL LAG never give way: they answer which
// group is in trouble. The others do, first to last: REBAL/10m, TYPE, the
// bar, MAX LAG, the state's words (to its name), MEMBERS, STATE, MAX LAG
// AGE.
func (g *GroupsPane) groupColumns() []column[model.GroupSummary] {
	st := g.styles
	return []column[model.GroupSummary]{
		{title: "GROUP", min: 16, max: 48, grow: 1, text: func(r *model.GroupSummary) string { return model.Name(r.ID) }},
		{title: "TYPE", drop: 9, grow: 7, hideEmpty: true, text: func(r *model.GroupSummary) string { return r.Type.Kind().Label }},
		{title: "STATE", min: 24, max: 24, narrowAt: 6, drop: 4, grow: 0,
			text:   func(r *model.GroupSummary) string { s, _ := groupState(r, true); return s },
			narrow: func(r *model.GroupSummary) string { s, _ := groupState(r, false); return s },
			paint: func(r *model.GroupSummary) paint {
				_, level := groupState(r, false)
				return [...]paint{st.stateOK, st.stateWarn, st.stateBad}[level]
			}},
		// STATUS is the partition table's: glyph and word, its paint, as
		// wide as the longest word whatever the rows say.
		{title: "STATUS", min: statusWidth, wide: statusWidth, grow: 0,
			text:  func(r *model.GroupSummary) string { return statusText(r.Status, true) },
			paint: func(r *model.GroupSummary) paint { return st.statusPaint(r.Status) }},
		{title: "MEMBERS", right: true, drop: 5, grow: 5, text: func(r *model.GroupSummary) string { return strconv.Itoa(r.Members) }},
		{title: "TOTAL LAG", right: true, grow: 2, text: totalLagText,
			paint: func(r *model.GroupSummary) paint { return groupBarPaint(st, r) }},
		{title: "MAX LAG", right: true, drop: 7, grow: 6, text: func(r *model.GroupSummary) string {
			if r.LagUnknown {
				return "-"
			}
			return model.Thousands(r.MaxLag)
		}},
		{title: "MAX LAG AGE", short: "MAX AGE", right: true, min: 7, drop: 3, grow: 3, text: maxLagAgeText},
		{title: "REBAL/10m", short: "REBAL", right: true, min: 5, drop: 10, grow: 9, hideEmpty: true, text: rebalancesText},
		{title: "LAG BAR", min: 9, drop: 8, grow: 8, fill: true, natural: 30},
	}
}

// totalLagText is the TOTAL LAG cell, "60*" when some of it is counted
// from the log start (partitions never committed), as the group view's
// LAG cells are marked.
func totalLagText(r *model.GroupSummary) string {
	if r.LagUnknown {
		return "-" // commits not read yet: 0 would say nothing waits
	}
	s := model.Thousands(r.TotalLag)
	if r.LagFromStart {
		s += model.FromStartMark
	}
	return s
}

// maxLagAgeText is the MAX LAG AGE cell: how long the group's oldest
// unprocessed record has waited, "-" when no partition's age is known.
func maxLagAgeText(r *model.GroupSummary) string {
	if !r.MaxLagAgeKnown {
		return "-"
	}
	return model.Age(r.MaxLagAge)
}

// rebalancesText is the REBAL/10m cell: the group's rebalances in the
// last 10 minutes, by its generation's moves between polls; blank until
// two polls read its generation (or never: clients that do not send it),
// and the column is not shown while no group in view has a count.
func rebalancesText(r *model.GroupSummary) string {
	if !r.RebalancesKnown {
		return ""
	}
	return model.Thousands(int64(r.Rebalances))
}

// groupBarPaint colours a group's bar and total lag by its status, as the
// partition table colours a partition's (Styles.barPaint).
func groupBarPaint(st Styles, r *model.GroupSummary) paint {
	switch {
	case r.TotalLag <= 0:
		return st.lagNone
	case r.Status == model.StatusOK || r.Status == "":
		return st.lagLow
	}
	return st.statusPaint(r.Status)
}

// View renders the title, the column header and the visible rows.
func (g *GroupsPane) View() string {
	if g.width <= 0 || g.height <= 0 {
		return ""
	}
	start, visible := g.window()
	end := start + len(visible)
	g.grid.cols[len(g.grid.cols)-1].render = g.bar // this frame's pane: its worst group
	l := g.grid.layout(visible, g.width, g.now)
	var b strings.Builder
	b.WriteString(g.title(start, end, visible))
	if g.height < 2 {
		return b.String()
	}
	b.WriteByte('\n')
	b.WriteString(g.styles.ColHeader.Render(g.header(l)))
	if len(g.rows) == 0 && g.empty != "" && g.height > groupsChrome {
		b.WriteByte('\n')
		b.WriteString(g.styles.Muted.Render(cell("  "+g.empty, g.width, false)))
	}
	for i := range visible {
		b.WriteByte('\n')
		r := &visible[i]
		switch {
		case g.isCursor(start + i):
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

// header is the grid's header with the bar column as a ruler of its scale
// when it is wide enough, as the partition table's: "≤5s  30s  2m …".
func (g *GroupsPane) header(l gridLayout) string { return rulerHeader(&g.grid, l) }

// title names the pane, how its rows were chosen and its legend: always
// the worst mark and the bar's meaning, so the line holds still; the rarer
// marks while a row in view shows them, in the group view's words.
func (g *GroupsPane) title(start, end int, visible []model.GroupSummary) string {
	st := g.styles
	n := strconv.Itoa(len(g.rows))
	if g.total > len(g.rows) {
		n += " of " + strconv.Itoa(g.total)
	}
	s := st.PaneTitle.Render(glyphFocused + " Groups " + n)
	desc := g.desc
	if desc == "" {
		desc = "sort: " + model.DefaultGroupSort.String()
	}
	extra := []string{desc}
	if len(g.rows) > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if g.stale {
		extra = append(extra, glyphStale+" stale")
	}
	extra = append(extra, glyphWorst+" worst", "bar: lag age")
	var fromStart, byLag bool
	for i := range visible {
		r := &visible[i]
		fromStart = fromStart || r.LagFromStart
		byLag = byLag || r.Err == "" && r.TotalLag > 0 && !r.MaxLagAgeKnown
	}
	if fromStart {
		extra = append(extra, model.LagFromStartNote)
	}
	if byLag {
		extra = append(extra, glyphBarByLag+" age unknown: bar by lag")
	}
	s += st.Muted.Render("  " + strings.Join(extra, " · "))
	return truncate(s, g.width, ellipsis)
}

// bar draws how long the group's oldest unprocessed record has waited, on
// the partition table's fixed scale (barCells: lag in flight one cell, 30s,
// 2m, 10m, an hour or more all of it), coloured by the group's status and
// marked ◀ on the worst group; with no age known, its total lag on the
// same decades as a partition's (lagCells), drawn ▒. A group that could
// not all be read shows its error.
func (g *GroupsPane) bar(r *model.GroupSummary, w int, styled bool) string {
	return drawBar(g.styles, ageBar{
		err:      r.Err,
		empty:    r.TotalLag <= 0,
		age:      r.MaxLagAge,
		ageKnown: r.MaxLagAgeKnown,
		lag:      r.TotalLag,
		worst:    g.hasWorst && r.ID == g.worst,
		paint:    groupBarPaint(g.styles, r),
	}, w, styled)
}
