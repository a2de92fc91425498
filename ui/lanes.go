package ui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Lanes is the ownership view: one lane per partition, time running left
// to right up to now, each cell the letter of the member that owned the
// partition then. A rebalance is a run of "·" (owner unknown), an unowned
// partition is blank, and a legend maps letters to client ids. Only the
// rows in the scroll window are computed.
type Lanes struct {
	styles  Styles
	keys    LanesKeyMap
	hist    *model.Lanes
	sc      scroller
	width   int
	height  int
	focused bool
	now     time.Time

	letters    []rune   // per owner index of hist
	letterText []string // letters as strings
	used       map[rune]bool
	ownerP     []paint // letter colours, cycled
	gapP       paint
	highlight  map[model.TopicPartition]bool
	mark       time.Time            // the selected event's time, marked on the axis
	killed     map[string]time.Time // demo consumers killed, by client id
	badP       paint
	// zoom is how many steps of laneSteps finer (negative) or coarser
	// (positive) than the fit a cell stands for; 0 fits what was watched
	// to the width.
	zoom int
	// bare: no title line (compare mode says on each group's line what
	// the title would).
	bare bool
}

// LanesKeyMap is the keys the lanes own: the list keys and the zoom.
type LanesKeyMap struct {
	List            ListKeyMap
	ZoomIn, ZoomOut key.Binding
}

// LanesKeys returns the lanes' bindings of k. The zoom keys work wherever the
// lanes are drawn, whether or not the page's help offers them, so they
// are enabled here whatever k says.
func (k KeyMap) LanesKeys() LanesKeyMap {
	m := LanesKeyMap{List: k.List(), ZoomIn: k.ZoomIn, ZoomOut: k.ZoomOut}
	m.ZoomIn.SetEnabled(true)
	m.ZoomOut.SetEnabled(true)
	return m
}

// ShortHelp lists the zoom keys.
func (k LanesKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.ZoomIn, k.ZoomOut} }

// FullHelp lists every key of the lanes.
func (k LanesKeyMap) FullHelp() [][]key.Binding {
	return append(k.List.FullHelp(), k.ShortHelp())
}

// Lanes chrome: title and time axis above the lanes, legend below.
const lanesChrome = 3

// Glyphs of the lanes.
const (
	glyphLaneGap     = "·" // rebalancing: owner unknown
	glyphLaneUnknown = "?" // polls failed
	glyphLaneMark    = "▼" // the selected event on the time axis
	glyphLaneKilled  = "✗" // owner killed; the group still counts it
)

// NewLanes returns a lanes view drawing hist.
func NewLanes(st Styles, km KeyMap, hist *model.Lanes) Lanes {
	l := Lanes{styles: st, keys: km.LanesKeys(), hist: hist, used: map[rune]bool{}}
	if st.NoColor {
		l.ownerP = []paint{{}}
	} else {
		for _, s := range []lipgloss.Style{st.StateOK, st.PaneTitle, st.Title, st.StateWarn, st.LagLow, st.Group} {
			l.ownerP = append(l.ownerP, newPaint(s))
		}
	}
	l.gapP = newPaint(st.StateWarn)
	l.badP = newPaint(st.StateBad)
	return l
}

// SetSize sets the view's outer size, chrome included.
func (l *Lanes) SetSize(w, h int) {
	l.width, l.height = max(w, 0), max(h, 0)
	l.fitRows()
}

// SetBare drops the title line: the lanes are the axis, the rows and,
// when there is room for it, the legend.
func (l *Lanes) SetBare(on bool) {
	l.bare = on
	l.fitRows()
}

// top is the lines above the rows: the title (unless bare) and the axis.
func (l Lanes) top() int {
	if l.bare {
		return 1
	}
	return 2
}

// fitRows sizes the scroll window: every row and the legend when they
// fit; bare, the legend gives way before a row does.
func (l *Lanes) fitRows() {
	avail := max(l.height-l.top(), 0)
	switch {
	case avail > l.hist.Len():
		l.sc.SetHeight(avail - 1)
	case l.bare:
		l.sc.SetHeight(avail)
	default:
		l.sc.SetHeight(max(avail-1, 0))
	}
}

// Zoomed returns how far the zoom is from the fit (0: the fit).
func (l Lanes) Zoomed() int { return l.zoom }

// SetFocused marks the view as the one receiving scroll keys.
func (l *Lanes) SetFocused(f bool) { l.focused = f }

// SetNow sets the time at the right edge.
func (l *Lanes) SetNow(now time.Time) { l.now = now }

// SetHighlight marks the lanes of the given partitions and the moment at
// on the time axis (zero: none); nil clears.
func (l *Lanes) SetHighlight(tps []model.TopicPartition, at time.Time) {
	l.highlight, l.mark = highlightSet(tps), at
}

// MarkKilled records that a demo consumer was killed at at: from then on
// the partitions the group still gives it are drawn ✗, the time the group
// waits for its session to time out.
func (l *Lanes) MarkKilled(clientID string, at time.Time) {
	if l.killed == nil {
		l.killed = map[string]time.Time{}
	}
	l.killed[clientID] = at
}

// laneKilled offsets an owner index in a lane buffer: the owner was killed.
const laneKilled = -100

// Refresh takes new rows and owners from the history.
func (l *Lanes) Refresh() {
	l.sc.SetLen(l.hist.Len())
	l.fitRows()
	owners := l.hist.Owners()
	for i := len(l.letters); i < len(owners); i++ {
		r := letterFor(owners[i], l.used)
		l.used[r] = true
		l.letters = append(l.letters, r)
		l.letterText = append(l.letterText, string(r))
	}
}

// Selected returns the partition of the lane under the cursor.
func (l Lanes) Selected() (model.TopicPartition, bool) {
	i := l.sc.Cursor()
	if i < 0 || i >= l.hist.Len() {
		return model.TopicPartition{}, false
	}
	return l.hist.Row(i), true
}

// Len returns the number of lanes.
func (l Lanes) Len() int { return l.hist.Len() }

// Update handles scroll and zoom keys.
func (l Lanes) Update(msg tea.Msg) (Lanes, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, l.keys.ZoomIn):
			l.zoom = max(l.zoom-1, -len(laneSteps))
		case key.Matches(k, l.keys.ZoomOut):
			l.zoom = min(l.zoom+1, len(laneSteps))
		default:
			l.sc.handleListKey(k, l.keys.List)
		}
	}
	return l, nil
}

// letterFor picks the letter of an owner: the one its client id ends in
// ("consumer-c" → c) when that is free, else its first letter ("rdkafka" →
// r), else the first free one.
func letterFor(label string, used map[rune]bool) rune {
	alnum := func(r byte) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' }
	if i := strings.LastIndexAny(label, "-_."); i >= 0 && i == len(label)-2 && alnum(label[i+1]) && !used[rune(label[i+1])] {
		return rune(label[i+1])
	}
	if label != "" && alnum(label[0]) && !used[rune(label[0])] {
		return rune(label[0])
	}
	for _, set := range []string{"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"} {
		for _, r := range set {
			if !used[r] {
				return r
			}
		}
	}
	return '*'
}

// laneLabel names a lane: "p3", or "orders/p3" when the group reads more
// than one topic.
func laneLabel(tp model.TopicPartition, multi bool) string {
	p := "p" + strconv.Itoa(int(tp.Partition))
	if multi {
		return model.Printable(tp.Topic) + "/" + p
	}
	return p
}

// View renders the title, the time axis, the visible lanes and the legend.
func (l Lanes) View() string {
	if l.width <= 0 || l.height <= 0 {
		return ""
	}
	start, end := l.sc.Window()
	g := l.geometry(start, end)
	var b strings.Builder
	b.Grow((l.width + 64) * l.height)
	if !l.bare {
		b.WriteString(l.title(start, end, g))
		if l.height < 2 {
			return b.String()
		}
		b.WriteByte('\n')
	}
	b.WriteString(l.axis(g))
	if l.hist.Len() == 0 && l.height > l.top() {
		b.WriteByte('\n')
		b.WriteString(l.styles.Muted.Render(cell("  no partitions yet", l.width, false)))
	}
	buf := make([]int, g.cells)
	seen := make([]bool, len(l.letters))
	gaps, dead := false, false
	// killedFrom is the first cell at which each owner was dead.
	var killedFrom []int
	if len(l.killed) > 0 {
		owners := l.hist.Owners()
		killedFrom = make([]int, len(l.letters))
		for i := range killedFrom {
			killedFrom[i] = g.cells
			if at, ok := l.killed[owners[i]]; ok && at.Before(g.from.Add(time.Duration(g.cells)*g.step)) {
				killedFrom[i] = max(int(at.Sub(g.from)/g.step), 0)
			}
		}
	}
	for i := start; i < end; i++ {
		tp := l.hist.Row(i)
		l.hist.Lane(i, g.from, g.step, buf)
		widenGaps(buf)
		if killedFrom != nil {
			for c, v := range buf {
				if v >= 0 && v < len(killedFrom) && c >= killedFrom[v] {
					buf[c] = laneKilled - v
					dead = true
				}
			}
		}
		b.WriteByte('\n')
		gutter := " "
		switch {
		case l.focused && i == l.sc.Cursor():
			gutter = glyphCursor
		case l.highlight[tp]:
			gutter = glyphHighlight
		}
		label := cell(laneLabel(tp, g.multi), g.labelW, false)
		if l.focused && i == l.sc.Cursor() {
			b.WriteString(l.styles.Selected.Render(gutter + label))
		} else if l.highlight[tp] {
			b.WriteString(l.styles.Group.Render(gutter + label))
		} else {
			b.WriteString(gutter + label)
		}
		b.WriteByte(' ')
		gaps = l.cells(&b, buf, seen) || gaps
	}
	if l.height > l.top()+end-start {
		b.WriteByte('\n')
		b.WriteString(l.legend(seen, gaps, dead))
	}
	return b.String()
}

// cells writes one lane, a styled run per owner; it records the owners
// seen and reports whether a gap was drawn.
func (l Lanes) cells(b *strings.Builder, owners []int, seen []bool) bool {
	gaps := false
	run := func(p paint, glyph string, n int) {
		b.WriteString(p.pre)
		for range n {
			b.WriteString(glyph)
		}
		b.WriteString(p.post)
	}
	for c := 0; c < len(owners); {
		v := owners[c]
		n := 1
		for c+n < len(owners) && owners[c+n] == v {
			n++
		}
		c += n
		switch {
		case v >= 0 && v < len(l.letters):
			seen[v] = true
			run(l.ownerP[v%len(l.ownerP)], l.letterText[v], n)
		case v <= laneKilled && laneKilled-v < len(l.letters):
			seen[laneKilled-v] = true
			run(l.badP, glyphLaneKilled, n)
		case v == model.LaneRebalancing:
			gaps = true
			run(l.gapP, glyphLaneGap, n)
		case v == model.LaneUnknown:
			run(l.styles.unowned, glyphLaneUnknown, n)
		default:
			b.WriteString(spaces(n))
		}
	}
	return gaps
}

func (l Lanes) title(start, end int, g laneGeometry) string {
	st := l.styles.PaneTitleOff
	glyph := glyphUnfocused
	if l.focused {
		st, glyph = l.styles.PaneTitle, glyphFocused
	}
	s := st.Render(glyph + " Ownership lanes " + strconv.Itoa(l.hist.Len()))
	extra := []string{l.Scale(g)}
	if l.hist.Len() > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if len(l.highlight) > 0 {
		extra = append(extra, glyphHighlight+" touched by the selected event")
	}
	s += l.styles.Muted.Render("  " + strings.Join(extra, " · "))
	return truncate(s, l.width, ellipsis)
}

// legend maps the letters on screen to client ids and says what the gaps
// mean, as much as fits on one line.
func (l Lanes) legend(seen []bool, gaps, dead bool) string {
	owners := l.hist.Owners()
	var idx []int
	for i, ok := range seen {
		if ok {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(l.letters[a], l.letters[b]) })
	var parts []string
	for _, i := range idx {
		parts = append(parts, string(l.letters[i])+" "+model.Printable(owners[i]))
	}
	if gaps {
		parts = append(parts, glyphLaneGap+" rebalancing (≥"+strconv.Itoa(laneMinGap)+" cells)")
	}
	if dead {
		parts = append(parts, glyphLaneKilled+" owner killed, group waiting for its session timeout")
	}
	parts = append(parts, "blank: unowned or not yet watched")
	return truncate(l.styles.Muted.Render(" "+strings.Join(parts, "  ")), l.width, ellipsis)
}
