package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Table is the partition pane: one row per partition with its status,
// owner, offsets, lag, lag age, rates and a bar that says how long the
// oldest unprocessed record has waited, on a fixed scale (ageMarks), so a
// bar means the same on every row and every poll. Only the rows in the
// scroll window are measured and rendered, so its cost does not grow with
// the partition count.
type Table struct {
	listPane[*model.PartitionLag]
	// order sorts the rows lazily: only the rows on screen are put in
	// place (ui/order.go). A pointer, shared by the table's copies, as
	// the rows are.
	order *order
	// sel is the partition under the cursor, kept by value: the rows
	// point into a snapshot that the next poll may reuse.
	sel    model.TopicPartition
	hasSel bool
	// fromStart: a row of the table counts its lag from the log start
	// (the title's note), found once a poll rather than every frame.
	fromStart bool
	styles    Styles
	// visible holds copies of the rows on screen, for the grid.
	visible []model.PartitionLag
	grid    grid[model.PartitionLag]
	width   int
	height  int
	focused bool
	stale   bool
	now     time.Time
	// ageShift is how much the COMMIT column counts on (SetAgeShift).
	ageShift time.Duration
	// highlight marks the partitions of the selected timeline event.
	highlight map[model.TopicPartition]bool

	// Set by SetView: how the rows were sorted and filtered, how many
	// partitions the snapshot has, and its worst partition (marked).
	viewDesc string
	// empty says why no row shows, when none does.
	empty    string
	total    int
	worst    model.TopicPartition
	hasWorst bool
	// oneTopic is the rows' topic when they all share one ("" otherwise):
	// a narrow table names it in the title instead of on every row.
	oneTopic string

	// rowsSeq counts SetSorted calls; frame is the last View's inputs
	// and output, shown again while they are equal (a clock tick, a key
	// in another pane) rather than rendered anew.
	rowsSeq uint64
	frame   tableFrame
}

// tableFrame is a rendered table and what it was rendered from, but for
// the clock, which only the column widths' hold reads (grid.holds).
type tableFrame struct {
	key tableKey
	hl  []bool // each row's highlight
	out string
}

// tableKey is what a frame of the table shows, the rows' content aside:
// rows are replaced (rowsSeq) only by SetSorted.
type tableKey struct {
	rowsSeq                  uint64
	sc                       scroller
	width, height            int
	focused, stale, hasWorst bool
	viewDesc, empty          string
	total                    int
	worst                    model.TopicPartition
	shift                    time.Duration
}

// sameFrame reports whether the frame last rendered shows rows, the
// window starting at start, as a frame rendered now would.
func (t *Table) sameFrame(k tableKey, rows []*model.PartitionLag) bool {
	f := &t.frame
	if f.out == "" || f.key != k || len(f.hl) != len(rows) {
		return false
	}
	for i, r := range rows {
		if f.hl[i] != t.highlight[r.TopicPartition] {
			return false
		}
	}
	return t.grid.holds(t.now)
}

// tableChrome is the number of lines above the rows: title and column
// header.
const tableChrome = 2

// Glyphs of the table.
const (
	glyphPrevOwner = "◌" // the owner before a rebalance that left the partition unowned
	glyphPending   = "→" // the owner a consumer group's partition is being handed to
	glyphStaleRate = "~" // a rate not measured this poll: its last value
	glyphBarByLag  = "▒" // the lag age is unknown: the bar counts lag decades instead
)

// NewTable returns an empty partition table.
func NewTable(st Styles, km KeyMap) Table {
	t := Table{listPane: newListPane[*model.PartitionLag](km), order: &order{}, styles: st}
	t.grid = newGrid(t.columns())
	return t
}

// topicFirstDrop is the TOPIC column's drop while every row has one
// topic: above every other column's, so it gives way first.
const topicFirstDrop = 11

// columns declares the table's columns, in screen order. They give way
// (drop, highest first) the topic when the title names it, commit delay,
// log-end, committed, rates, the bar; the status's word gives way to its
// glyph before any of them.
func (t *Table) columns() []column[model.PartitionLag] {
	st := t.styles
	right := true
	return []column[model.PartitionLag]{
		{title: "TOPIC", min: 12, max: 40, drop: topicFirstDrop, grow: 3, whole: true,
			text: func(p *model.PartitionLag) string { return p.Topic }},
		{title: "PARTITION", short: "P", right: right, min: 1, grow: 4,
			text:   func(p *model.PartitionLag) string { return strconv.Itoa(int(p.Partition)) },
			narrow: func(p *model.PartitionLag) string { return strconv.Itoa(int(p.Partition)) }},
		{title: "STATUS", short: "S", min: statusWidth, wide: statusWidth, narrowAt: 3, grow: 0,
			text:   func(p *model.PartitionLag) string { return statusText(p.Status, true) },
			narrow: func(p *model.PartitionLag) string { return statusText(p.Status, false) },
			paint:  func(p *model.PartitionLag) paint { return st.statusPaint(p.Status) }},
		{title: "OWNER", min: 10, drop: 1, grow: 5,
			text:   func(p *model.PartitionLag) string { return ownerText(p, true) },
			narrow: func(p *model.PartitionLag) string { return ownerText(p, false) },
			paint: func(p *model.PartitionLag) paint {
				if !p.Owned() {
					return st.unowned
				}
				return paint{}
			}},
		{title: "COMMITTED", right: right, drop: 8, grow: 6,
			text: func(p *model.PartitionLag) string { return model.Offset(p.Committed) }},
		{title: "LOG-END", right: right, drop: 9, grow: 7,
			text: func(p *model.PartitionLag) string { return model.Offset(p.LogEnd) }},
		{title: "LAG", right: right, grow: 1,
			text:  lagText,
			paint: func(p *model.PartitionLag) paint { return st.barPaint(p) }},
		{title: "LAG AGE", short: "AGE", right: right, min: 6, drop: 2, grow: 2,
			text: lagAgeText},
		{title: "CONS/PROD", short: "RATE", right: right, drop: 7, grow: 8, text: rateText},
		{title: "COMMIT", right: right, drop: 10, grow: 10, text: commitText},
		{title: "LAG BAR", min: 12, drop: 5, grow: 9, fill: true, natural: 42},
	}
}

// statusWidth is the STATUS column's width with words: the longest label,
// so a partition turning LAGGING does not widen it.
var statusWidth = func() int {
	w := 0
	for _, s := range model.Statuses() {
		w = max(w, textWidth(s.Label()))
	}
	return w
}()

// SetSize sets the pane's outer size, title and column header included.
func (t *Table) SetSize(w, h int) {
	t.width, t.height = max(w, 0), max(h, 0)
	t.setHeight(t.height - tableChrome)
	t.settle()
}

// SetFocused marks the pane as the one receiving scroll keys.
func (t *Table) SetFocused(f bool) { t.focused = f }

// SetStale marks the rows as last-known data from an earlier poll.
func (t *Table) SetStale(s bool) { t.stale = s }

// SetAgeShift sets how far the clock is past the poll of stale rows
// (GroupPage.ageShift; 0 while fresh): the COMMIT column, how long ago the
// commit was last seen moving, counts on by it, where it would otherwise
// stand still ("0s" through an outage).
func (t *Table) SetAgeShift(d time.Duration) { t.ageShift = d }

// SetNow sets the clock the column widths are held by.
func (t *Table) SetNow(now time.Time) { t.now = now }

// SetRows replaces the rows, in the order given. The table keeps a
// reference, not a copy. The selected partition stays selected when it is
// still present.
func (t *Table) SetRows(rows []*model.PartitionLag) { t.SetSorted(rows, nil, true) }

// SetSorted replaces the rows, in any order, to be shown ordered by cmp
// (nil: as given); only the rows on screen are ever put in their places.
// With follow the selected partition stays selected when it is still
// present (at its new place); without, the cursor goes to the first row.
func (t *Table) SetSorted(rows []*model.PartitionLag, cmp func(a, b *model.PartitionLag) int, follow bool) {
	t.replace(rows)
	t.order.reset(rows, cmp)
	t.rowsSeq++
	if !follow {
		t.sc.Top()
	}
	// One pass for what the title says of all the rows and for the
	// selected partition's row.
	at := -1
	t.oneTopic, t.fromStart = "", false
	if len(rows) > 0 {
		t.oneTopic = rows[0].Topic
	}
	for i, p := range rows {
		if p.Topic != t.oneTopic {
			t.oneTopic = ""
		}
		t.fromStart = t.fromStart || p.CountsFromStart() && p.Lag > 0
		if follow && t.hasSel && at < 0 && p.TopicPartition == t.sel {
			at = i
		}
	}
	if at >= 0 {
		// Most often, after a poll, it is still on screen near the top:
		// among the rows a heap puts in place there, its place is its
		// index. Else one pass puts it in its place, and the window
		// grows around it.
		sel := rows[at]
		if _, end := t.sc.Window(); end <= heapSelectMax {
			t.settle()
		}
		if i := slices.Index(rows[t.order.lo:t.order.hi], sel); i >= 0 {
			t.sc.SetCursor(t.order.lo + i)
		} else {
			t.sc.SetCursor(t.order.placeRow(slices.Index(rows, sel)))
		}
	}
	t.settle()
}

// settle puts the rows on screen and the cursor's in their places and
// notes the selected partition; every change of the rows, the cursor or
// the window ends with it.
func (t *Table) settle() {
	start, end := t.sc.Window()
	c := t.sc.Cursor()
	t.order.place(min(start, max(c, 0)), max(end, c+1))
	t.sel, t.hasSel = model.TopicPartition{}, false
	if c >= 0 && c < len(t.rows) {
		t.sel, t.hasSel = t.rows[c].TopicPartition, true
	}
}

// setCursor puts the cursor on row i.
func (t *Table) setCursor(i int) {
	t.sc.SetCursor(i)
	t.settle()
}

// SetView tells the table how its rows were chosen, for the title (desc,
// "sort: lag · only lag"; total partitions before filtering), why none
// shows when none does, and which partition is the worst, for the marker.
func (t *Table) SetView(desc, empty string, total int, worst model.TopicPartition, hasWorst bool) {
	t.viewDesc, t.empty, t.total, t.worst, t.hasWorst = desc, empty, total, worst, hasWorst
}

// Selected returns the partition under the cursor.
func (t Table) Selected() (model.PartitionLag, bool) {
	if p, ok := t.selected(); ok {
		return *p, true
	}
	return model.PartitionLag{}, false
}

// Update handles the list keys.
func (t Table) Update(msg tea.Msg) (Table, tea.Cmd) {
	if t.handleKey(msg) {
		t.settle()
	}
	return t, nil
}

// ownerText is the OWNER cell: client id and host, or only the client id
// when the column is too narrow for both; while a rebalance leaves the
// partition unowned, the owner it had, marked. The grid makes cells
// printable; the name is made so here too, for the header's worst line.
func ownerText(p *model.PartitionLag, withHost bool) string {
	pending := ""
	if p.PendingMemberID != "" || p.PendingClientID != "" {
		// Being handed over: in its next owner's target, nobody's yet.
		next := p.PendingClientID
		if next == "" {
			next = model.ShortID(p.PendingMemberID)
		}
		pending = glyphPending + " " + model.Printable(next)
	}
	if !p.Owned() {
		switch {
		case p.PrevOwner != "" && pending != "":
			return model.Printable(p.PrevOwner) + " " + pending
		case p.PrevOwner != "":
			return glyphPrevOwner + " " + p.PrevOwner
		case pending != "":
			return pending
		}
		return "-"
	}
	name := p.ClientID
	if name == "" {
		name = model.ShortID(p.MemberID)
	}
	name = model.Printable(name)
	if more := len(p.Owners) - 1; more > 0 {
		name += " +" + strconv.Itoa(more) // a share group's partition, shared
	}
	if pending != "" {
		name += " " + pending
	}
	if p.Host == "" || !withHost {
		return name
	}
	return name + " (" + strings.TrimPrefix(p.Host, "/") + ")"
}

// lagText is the LAG cell, with thousands separators as everywhere; a lag
// counted from the log start (nothing committed) is marked *, unless it is
// 0: an empty log has nothing to read however it is counted.
func lagText(p *model.PartitionLag) string {
	s := model.Thousands(p.Lag)
	if p.CountsFromStart() && p.Lag > 0 {
		s += glyphFromStart
	}
	return s
}

// View renders the title, the column header and the visible rows.
func (t *Table) View() string {
	if t.width <= 0 || t.height <= 0 {
		return ""
	}
	t.settle() // placed already, unless the window was moved from outside
	start, rows := t.window()
	end := start + len(rows)
	key := tableKey{rowsSeq: t.rowsSeq, sc: t.sc, width: t.width, height: t.height, focused: t.focused, stale: t.stale,
		hasWorst: t.hasWorst, viewDesc: t.viewDesc, empty: t.empty, total: t.total, worst: t.worst, shift: t.ageShift}
	if t.sameFrame(key, rows) {
		return t.frame.out
	}
	hl := make([]bool, len(rows))
	for i, r := range rows {
		hl[i] = t.highlight[r.TopicPartition]
	}
	out := t.render(start, end, rows)
	t.frame = tableFrame{key: key, hl: hl, out: out}
	return out
}

// render renders the title, the column header and rows, the window from
// start to end.
func (t *Table) render(start, end int, rows []*model.PartitionLag) string {
	t.visible = t.visible[:0]
	for _, r := range rows {
		t.visible = append(t.visible, *r)
		t.visible[len(t.visible)-1].CommitDelay += t.ageShift
	}
	visible := t.visible
	t.grid.cols[len(t.grid.cols)-1].render = t.bar // this frame's table: its worst, its styles
	// One topic: the title names it, so its column shows whole (a name
	// cut mid-word reads as another) or is the first to give way.
	// Several: it never gives way, and is cut when it must be, its
	// prefix telling the topics apart.
	tc := &t.grid.cols[0]
	tc.drop, tc.whole = topicFirstDrop, true
	if t.oneTopic == "" {
		tc.drop, tc.whole = 0, false
	}
	l := t.grid.layout(visible, t.width, t.now)

	var b strings.Builder
	b.Grow((t.width + 16) * t.height)
	topic := ""
	if !l.show[0] {
		topic = t.oneTopic
	}
	b.WriteString(t.title(start, end, visible, topic))
	if t.height < 2 {
		return b.String()
	}
	b.WriteByte('\n')
	b.WriteString(t.styles.ColHeader.Render(t.header(l)))
	if len(t.rows) == 0 && t.height > tableChrome {
		empty := t.empty
		if empty == "" {
			empty = "no partitions: nothing assigned or committed yet"
		}
		b.WriteByte('\n')
		b.WriteString(t.styles.Muted.Render(cell("  "+empty, t.width, false)))
	}
	for i := range visible {
		b.WriteByte('\n')
		t.row(&b, l, &visible[i], t.focused && t.isCursor(start+i))
	}
	return b.String()
}

// header is the grid's header with the bar column as a ruler of its
// scale when it is wide enough: "LAG BAR 5s  30s  2m …".
func (t *Table) header(l gridLayout) string { return rulerHeader(&t.grid, l) }

func (t *Table) title(start, end int, visible []model.PartitionLag, topic string) string {
	st := t.styles.PaneTitleOff
	glyph := glyphUnfocused
	if t.focused {
		st, glyph = t.styles.PaneTitle, glyphFocused
	}
	n := strconv.Itoa(len(t.rows))
	if t.total > len(t.rows) {
		n += " of " + strconv.Itoa(t.total)
	}
	s := st.Render(glyph + " Partitions " + n)
	if topic != "" {
		s += st.Render(" in " + model.Printable(topic))
	}
	var extra []string
	if t.viewDesc != "" {
		extra = append(extra, t.viewDesc)
	}
	if len(t.rows) > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if t.stale {
		extra = append(extra, glyphStale+" stale")
	}
	// The legend is always there, so the line does not shift as rows
	// come and go; the rarer marks only while a row shows them.
	extra = append(extra, glyphWorst+" worst", "bar: lag age")
	// The header marks the total lag "*" when any row counts from the
	// log start: the note is there whenever a row of the table is.
	fromStart := t.fromStart
	var prev, pending, shared, staleRate, byLag bool
	for i := range visible {
		p := &visible[i]
		prev = prev || !p.Owned() && p.PrevOwner != ""
		pending = pending || p.PendingMemberID != "" || p.PendingClientID != ""
		shared = shared || len(p.Owners) > 1
		staleRate = staleRate || p.ConsumeRate.Stale || p.ProduceRate.Stale
		byLag = byLag || p.Lag > 0 && !p.LagAgeKnown && !p.LagAgeGone
	}
	if fromStart {
		extra = append(extra, glyphFromStart+" no commit: lag from log start")
	}
	if prev {
		extra = append(extra, glyphPrevOwner+" owner before the rebalance")
	}
	if pending {
		extra = append(extra, glyphPending+" being handed to")
	}
	if shared {
		extra = append(extra, "+N shared with N more members")
	}
	if staleRate {
		extra = append(extra, glyphStaleRate+" last rate")
	}
	if byLag {
		extra = append(extra, glyphBarByLag+" age unknown: bar by lag")
	}
	s += t.styles.Muted.Render("  " + strings.Join(extra, " · "))
	return truncate(s, t.width, ellipsis)
}

// row writes one partition row. The selected row is rendered plain and then
// reversed as a whole, so inner colours never cut the highlight.
func (t *Table) row(b *strings.Builder, l gridLayout, p *model.PartitionLag, selected bool) {
	gutter := " "
	switch {
	case selected:
		gutter = glyphCursor
	case t.highlight[p.TopicPartition]:
		gutter = glyphHighlight
	case p.Err != "":
		gutter = glyphError
	}
	if selected {
		var line strings.Builder
		t.grid.row(&line, l, p, gutter, false)
		b.WriteString(t.styles.Selected.Render(line.String()))
		return
	}
	t.grid.row(b, l, p, gutter, true)
}

// isWorst reports whether p gets the worst-partition marker: the
// snapshot's worst partition once statuses are known.
func (t *Table) isWorst(p *model.PartitionLag) bool {
	return t.hasWorst && p.TopicPartition == t.worst
}

// bar draws how long the oldest unprocessed record has waited (drawBar),
// coloured by its status and marked on the worst partition; a partition
// whose offsets could not be read shows its error instead.
func (t *Table) bar(p *model.PartitionLag, w int, styled bool) string {
	return drawBar(t.styles, ageBar{
		err:      p.Err,
		empty:    p.Lag <= 0 || p.LagMarkersOnly,
		full:     p.LagAgeGone,
		age:      p.LagAge,
		ageKnown: p.LagAgeKnown,
		lag:      p.Lag,
		worst:    t.isWorst(p),
		paint:    t.styles.barPaint(p),
	}, w, styled)
}
