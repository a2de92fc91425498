package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// Table is the partition pane: one row per partition with its owner,
// offsets, lag and a lag bar scaled to the largest lag on screen. Only the
// rows in the scroll window are measured and rendered, so its cost does not
// grow with the partition count.
type Table struct {
	styles  Styles
	keys    KeyMap
	rows    []model.PartitionLag
	sc      scroller
	width   int
	height  int
	focused bool
	stale   bool
	// highlight marks the partitions of the selected timeline event.
	highlight map[model.TopicPartition]bool

	// Set by SetView: how the rows were sorted and filtered, how many
	// partitions the snapshot has, and its worst partition (marked).
	viewDesc string
	total    int
	worst    model.TopicPartition
	hasWorst bool
	// oneTopic is the rows' topic when they all share one ("" otherwise):
	// a narrow table names it in the title instead of on every row.
	oneTopic string
}

// Table columns, in screen order.
const (
	colTopic = iota
	colPart
	colStatus
	colOwner
	colCommitted
	colLogEnd
	colLag
	colAge
	colRate
	colBar
	numCols
)

// tableChrome is the number of lines above the rows: title and column
// header.
const tableChrome = 2

// NewTable returns an empty partition table.
func NewTable(st Styles, km KeyMap) Table {
	return Table{styles: st, keys: km}
}

// SetSize sets the pane's outer size, title and column header included.
func (t *Table) SetSize(w, h int) {
	t.width, t.height = max(w, 0), max(h, 0)
	t.sc.SetHeight(max(t.height-tableChrome, 0))
}

// SetFocused marks the pane as the one receiving scroll keys.
func (t *Table) SetFocused(f bool) { t.focused = f }

// SetStale marks the rows as last-known data from an earlier poll.
func (t *Table) SetStale(s bool) { t.stale = s }

// SetRows replaces the rows. The table keeps a reference, not a copy. The
// selected partition stays selected when it is still present.
func (t *Table) SetRows(rows []model.PartitionLag) {
	cur := t.sc.Cursor()
	var sel model.TopicPartition
	had := cur >= 0 && cur < len(t.rows)
	if had {
		sel = t.rows[cur].TopicPartition
	}
	t.rows = rows
	t.oneTopic = singleTopic(rows)
	t.sc.SetLen(len(rows))
	if !had || (cur < len(rows) && rows[cur].TopicPartition == sel) {
		return
	}
	for i := range rows {
		if rows[i].TopicPartition == sel {
			t.sc.SetCursor(i)
			return
		}
	}
}

// SetView tells the table how its rows were chosen, for the title (desc,
// "sort: lag · only lag"; total partitions before filtering), and which
// partition is the worst, for the marker.
func (t *Table) SetView(desc string, total int, worst model.TopicPartition, hasWorst bool) {
	t.viewDesc, t.total, t.worst, t.hasWorst = desc, total, worst, hasWorst
}

// Selected returns the partition under the cursor.
func (t Table) Selected() (model.PartitionLag, bool) {
	i := t.sc.Cursor()
	if i < 0 || i >= len(t.rows) {
		return model.PartitionLag{}, false
	}
	return t.rows[i], true
}

// Len returns the number of rows.
func (t Table) Len() int { return len(t.rows) }

// Update handles scroll keys.
func (t Table) Update(msg tea.Msg) (Table, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		t.sc.handleKey(k, t.keys)
	}
	return t, nil
}

// tableLayout is the visible columns and their widths for one frame.
type tableLayout struct {
	show      [numCols]bool
	w         [numCols]int
	partTitle string
	ownerHost bool // OWNER shows the host too
	barTitle  string
	// titles of the issue-5 columns, shortened to their widths
	statusTitle, ageTitle, rateTitle string
	statusWords                      bool // STATUS fits the words, not only glyphs
	maxLag                           int64
	fromStart                        bool // a visible row counts lag from log start
}

// ownerText is the OWNER cell: client id and host, or only the client id
// when the column is too narrow for both.
func ownerText(p *model.PartitionLag, withHost bool) string {
	if !p.Owned() {
		return "-"
	}
	name := p.ClientID
	if name == "" {
		name = model.ShortID(p.MemberID)
	}
	name = model.Printable(name)
	if p.Host == "" || !withHost {
		return name
	}
	return name + " (" + model.Printable(strings.TrimPrefix(p.Host, "/")) + ")"
}

func lagText(p *model.PartitionLag) string {
	s := strconv.FormatInt(p.Lag, 10)
	if p.LagFromStart && p.LogEnd >= 0 {
		s += glyphFromStart
	}
	return s
}

func digits(n int64) int {
	if n < 0 {
		return 1 // "-"
	}
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// layout fits the columns to the pane width from the visible rows: columns
// are dropped (LOG-END, COMMITTED, OWNER, bar) until the minimum widths
// fit, then spare cells go to the columns that read best wider.
func (t Table) layout(rows []model.PartitionLag) tableLayout {
	var l tableLayout
	var nat [numCols]int
	ownerShort := 5
	nat[colTopic], nat[colPart], nat[colOwner] = 5, 1, 5
	nat[colCommitted], nat[colLogEnd], nat[colLag] = 9, 7, 3
	nat[colStatus], nat[colAge], nat[colRate] = 6, 3, 9
	for i := range rows {
		p := &rows[i]
		nat[colTopic] = max(nat[colTopic], textWidth(model.Printable(p.Topic)))
		nat[colPart] = max(nat[colPart], digits(int64(p.Partition)))
		nat[colOwner] = max(nat[colOwner], textWidth(ownerText(p, true)))
		ownerShort = max(ownerShort, textWidth(ownerText(p, false)))
		nat[colCommitted] = max(nat[colCommitted], digits(p.Committed))
		nat[colLogEnd] = max(nat[colLogEnd], digits(p.LogEnd))
		lw := digits(p.Lag)
		if p.LagFromStart && p.LogEnd >= 0 {
			lw++
			l.fromStart = true
		}
		nat[colLag] = max(nat[colLag], lw)
		l.maxLag = max(l.maxLag, p.Lag)
		if p.Status != "" {
			nat[colStatus] = max(nat[colStatus], textWidth(p.Status.Label()))
		}
		nat[colAge] = max(nat[colAge], len(lagAgeText(p)))
		nat[colRate] = max(nat[colRate], len(rateText(p)))
	}
	nat[colBar] = 60

	minW := nat
	minW[colTopic] = min(nat[colTopic], 20)
	minW[colOwner] = min(ownerShort, 10)
	shrinkStatus := -1 // step below: the glyph alone, without the word
	minW[colBar] = 7

	avail := t.width - 1 // cursor gutter
	for c := range numCols {
		l.show[c] = true
	}
	used := func() int {
		n, cols := 0, 0
		for c := range numCols {
			if l.show[c] {
				n += l.w[c]
				cols++
			}
		}
		return n + max(cols-1, 0)
	}
	l.w = minW
	// Dropped first to last (negative: the topic gives up cells instead);
	// partition, owner, lag, status and age stay longest.
	dropTopic := -2 // step below: drop TOPIC when every row has the same
	for _, c := range []int{colLogEnd, colCommitted, colRate, dropTopic, -12, colBar, shrinkStatus, -8, colAge, colOwner} {
		if used() <= avail {
			break
		}
		if c == dropTopic {
			l.show[colTopic] = t.oneTopic == ""
			continue
		}
		if c == shrinkStatus {
			l.w[colStatus] = 1
			continue
		}
		if c < 0 {
			l.w[colTopic] = min(l.w[colTopic], -c)
			continue
		}
		l.show[c] = false
	}
	extra := avail - used()
	grow := func(c, target int) {
		if !l.show[c] || extra <= 0 {
			return
		}
		d := min(extra, target-l.w[c])
		if d > 0 {
			l.w[c] += d
			extra -= d
		}
	}
	grow(colStatus, nat[colStatus]) // the word, not only the glyph
	grow(colBar, 10)
	grow(colTopic, min(nat[colTopic], 24))
	grow(colPart, max(nat[colPart], 4))
	grow(colBar, 16)
	grow(colOwner, ownerShort)
	if extra >= nat[colOwner]-l.w[colOwner] { // the host fits too
		grow(colOwner, nat[colOwner])
	}
	grow(colPart, max(nat[colPart], 9))
	grow(colTopic, nat[colTopic])
	grow(colBar, nat[colBar])

	l.ownerHost = l.w[colOwner] >= nat[colOwner]
	switch w := l.w[colPart]; {
	case w >= 9:
		l.partTitle = "PARTITION"
	case w >= 4:
		l.partTitle = "PART"
	default:
		l.partTitle = "P"
	}
	switch w := l.w[colBar]; {
	case w >= 19 && (t.hasWorst || len(rows) > 0 && rows[0].Status != ""):
		// Statuses known: the marker is the worst partition's, when
		// there is one (lag only in flight names none).
		l.barTitle = "LAG BAR (" + glyphWorst + " = worst)"
	case w >= 22:
		l.barTitle = "LAG BAR (" + glyphWorst + " = most lag)"
	case w >= 7:
		l.barTitle = "LAG BAR"
	}
	l.statusWords = l.w[colStatus] >= nat[colStatus]
	l.statusTitle = "STATUS"
	if !l.statusWords {
		l.w[colStatus], l.statusTitle = 1, "S"
	}
	l.ageTitle = "LAG AGE"
	if l.w[colAge] < 7 {
		l.ageTitle = "AGE"
	}
	l.rateTitle = "CONS/PROD"
	if l.w[colRate] < 9 {
		l.rateTitle = "RATE"
	}
	return l
}

// View renders the title, the column header and the visible rows.
func (t Table) View() string {
	if t.width <= 0 || t.height <= 0 {
		return ""
	}
	start, end := t.sc.Window()
	visible := t.rows[start:end]
	l := t.layout(visible)

	var b strings.Builder
	b.Grow((t.width + 16) * t.height)
	topic := ""
	if !l.show[colTopic] {
		topic = t.oneTopic
	}
	b.WriteString(t.title(start, end, l.fromStart, topic))
	if t.height < 2 {
		return b.String()
	}
	b.WriteByte('\n')
	b.WriteString(t.header(l))
	if len(t.rows) == 0 && t.height > tableChrome {
		b.WriteByte('\n')
		b.WriteString(t.styles.Muted.Render(cell("  no partitions: nothing assigned or committed yet", t.width, false)))
	}
	for i := range visible {
		b.WriteByte('\n')
		t.row(&b, l, &visible[i], t.focused && start+i == t.sc.Cursor())
	}
	return b.String()
}

func (t Table) title(start, end int, fromStart bool, topic string) string {
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
	if fromStart {
		extra = append(extra, glyphFromStart+" no commit: lag from log start")
	}
	if len(extra) > 0 {
		s += t.styles.Muted.Render("  " + strings.Join(extra, " · "))
	}
	return ansi.Truncate(s, t.width, ellipsis)
}

func (t Table) header(l tableLayout) string {
	titles := [numCols]string{"TOPIC", l.partTitle, l.statusTitle, "OWNER", "COMMITTED", "LOG-END", "LAG", l.ageTitle, l.rateTitle, l.barTitle}
	right := [numCols]bool{colPart: true, colCommitted: true, colLogEnd: true, colLag: true, colAge: true, colRate: true}
	return t.styles.ColHeader.Render(" " + joinCells(titles[:], l.w[:], l.show[:], right[:]))
}

// row writes one partition row. The selected row is rendered plain and then
// reversed as a whole, so inner colours never cut the highlight.
func (t Table) row(b *strings.Builder, l tableLayout, p *model.PartitionLag, selected bool) {
	st := t.styles
	styled := !selected
	gutter := " "
	switch {
	case selected:
		gutter = glyphCursor
	case t.highlight[p.TopicPartition]:
		gutter = glyphHighlight
	case p.Err != "":
		gutter = glyphError
	}
	var line strings.Builder
	line.WriteString(gutter)
	sep := func() { line.WriteByte(' ') }
	if l.show[colTopic] {
		line.WriteString(cell(model.Printable(p.Topic), l.w[colTopic], false))
		sep()
	}
	line.WriteString(cell(strconv.Itoa(int(p.Partition)), l.w[colPart], true))
	if l.show[colStatus] {
		sep()
		s := cell(statusText(p.Status, l.statusWords), l.w[colStatus], false)
		if styled {
			s = st.statusPaint(p.Status).Render(s)
		}
		line.WriteString(s)
	}
	if l.show[colOwner] {
		sep()
		o := cell(ownerText(p, l.ownerHost), l.w[colOwner], false)
		if styled && !p.Owned() {
			o = st.unowned.Render(o)
		}
		line.WriteString(o)
	}
	if l.show[colCommitted] {
		sep()
		line.WriteString(cell(model.Offset(p.Committed), l.w[colCommitted], true))
	}
	if l.show[colLogEnd] {
		sep()
		line.WriteString(cell(model.Offset(p.LogEnd), l.w[colLogEnd], true))
	}
	sep()
	lag := cell(lagText(p), l.w[colLag], true)
	if styled {
		lag = st.barPaint(p, l.maxLag).Render(lag)
	}
	line.WriteString(lag)
	if l.show[colAge] {
		sep()
		line.WriteString(cell(lagAgeText(p), l.w[colAge], true))
	}
	if l.show[colRate] {
		sep()
		line.WriteString(cell(rateText(p), l.w[colRate], true))
	}
	if l.show[colBar] {
		sep()
		line.WriteString(t.bar(p, l.w[colBar], l.maxLag, styled))
	}
	if selected {
		b.WriteString(st.Selected.Render(line.String()))
		return
	}
	b.WriteString(line.String())
}

// isWorst reports whether p gets the worst-partition marker: the
// snapshot's worst partition once statuses are known, the largest lag on
// screen before.
func (t Table) isWorst(p *model.PartitionLag, maxLag int64) bool {
	if t.hasWorst {
		return p.TopicPartition == t.worst
	}
	return p.Status == "" && p.Lag > 0 && p.Lag == maxLag
}

// bar draws the lag bar: filled cells (█) proportional to lag over the
// largest lag on screen, a track (░) for the rest, and a marker (◀) on the
// partition with the most lag. A partition whose offsets could not be read
// shows its error instead: a bar drawn from offsets that could not all be
// read would mislead.
func (t Table) bar(p *model.PartitionLag, w int, maxLag int64, styled bool) string {
	st := t.styles
	if p.Err != "" {
		s := cell(glyphError+" "+oneLine(p.Err), w, false)
		if styled {
			s = st.err.Render(s)
		}
		return s
	}
	inner := w
	marker := ""
	if w >= 4 {
		inner = w - 2
		marker = "  "
		if t.isWorst(p, maxLag) {
			marker = " " + glyphWorst
		}
	}
	filled := 0
	if p.Lag > 0 && maxLag > 0 {
		filled = int((p.Lag*int64(inner) + maxLag - 1) / maxLag)
		filled = min(max(filled, 1), inner)
	}
	full := strings.Repeat(glyphBarFull, filled)
	track := strings.Repeat(glyphBarTrack, inner-filled)
	if !styled {
		return full + track + marker
	}
	var s string
	if filled > 0 {
		s = st.barPaint(p, maxLag).Render(full)
	}
	if inner > filled {
		s += st.lagNone.Render(track)
	}
	if strings.TrimSpace(marker) != "" {
		return s + st.worst.Render(marker)
	}
	return s + marker
}
