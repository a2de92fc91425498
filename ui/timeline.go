package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Timeline is the event pane: the group's rebalance timeline, newest
// first, one event a line with its wall-clock time, how long ago it was, a
// glyph for its kind and what happened. The event under the cursor is the
// selected one; the root highlights the partitions it touched.
type Timeline struct {
	// The events, newest first.
	listPane[model.Event]
	styles  Styles
	kinds   kindPaints
	width   int
	height  int
	focused bool
	now     time.Time
}

// timelineChrome is the title line above the events.
const timelineChrome = 1

// Event kinds; each has a colour, and every event type a glyph of its own,
// so colour only repeats what the glyph says.
const (
	kindInfo = iota
	kindGood
	kindBad
	kindChange
	kindMove
	numKinds
)

type kindPaints [numKinds]paint

func newKindPaints(st Styles) kindPaints {
	var k kindPaints
	k[kindInfo] = newPaint(st.Muted)
	k[kindGood] = newPaint(st.StateOK)
	k[kindBad] = newPaint(st.StateBad)
	k[kindChange] = newPaint(st.StateWarn)
	k[kindMove] = newPaint(st.PaneTitle)
	return k
}

// eventGlyph returns the one-cell glyph and the colour kind of an event
// type, from the model's registry (model.EventTypes).
func eventGlyph(t model.EventType) (string, int) {
	spec, _ := t.Spec()
	return spec.Glyph, classKinds[spec.Class]
}

// classKinds maps the model's event classes to the pane's colours.
var classKinds = map[model.EventClass]int{
	model.ClassInfo: kindInfo, model.ClassGood: kindGood, model.ClassBad: kindBad,
	model.ClassChange: kindChange, model.ClassMove: kindMove,
}

// NewTimeline returns an empty timeline pane.
func NewTimeline(st Styles, km KeyMap) Timeline {
	return Timeline{listPane: newListPane[model.Event](km), styles: st, kinds: newKindPaints(st)}
}

// SetSize sets the pane's outer size, title included.
func (t *Timeline) SetSize(w, h int) {
	t.width, t.height = max(w, 0), max(h, 0)
	t.setHeight(t.height - timelineChrome)
}

// SetFocused marks the pane as the one receiving scroll keys.
func (t *Timeline) SetFocused(f bool) { t.focused = f }

// SetNow sets the clock relative times are measured from.
func (t *Timeline) SetNow(now time.Time) { t.now = now }

// SetEvents replaces the events, given oldest first as model.Timeline
// keeps them, and shows them newest first. With the cursor on the newest event it stays on the newest,
// so the pane follows the watch; otherwise the selected event stays
// selected.
func (t *Timeline) SetEvents(oldestFirst []model.Event) {
	cur := t.cursor()
	sel, had := t.selected()
	had = had && cur > 0
	n := len(oldestFirst)
	// Grown as append grows a slice, not to n exactly: a timeline that
	// fills poll after poll would otherwise be copied at every new event.
	events := slices.Grow(t.rows[:0], n)[:n]
	// Newest first, but the events of one moment keep their order (a
	// member left, then the rebalance started), so each moment reads
	// top-down as it happened.
	k := 0
	for i := n; i > 0; {
		j := i - 1
		for j > 0 && oldestFirst[j-1].Time.Equal(oldestFirst[i-1].Time) {
			j--
		}
		k += copy(events[k:], oldestFirst[j:i])
		i = j
	}
	t.replace(events)
	if !had {
		return
	}
	// Search outwards from the old position: new events push it down.
	for d := 0; d < n; d++ {
		for _, i := range [2]int{cur + d, cur - d} {
			if i >= 0 && i < n && sameEvent(&events[i], &sel) {
				t.setCursor(i)
				return
			}
		}
	}
}

func sameEvent(a, b *model.Event) bool {
	return a.Time.Equal(b.Time) && a.Type == b.Type && a.MemberID == b.MemberID &&
		a.From == b.From && a.To == b.To && a.Detail == b.Detail
}

// Selected returns the event under the cursor.
func (t Timeline) Selected() (model.Event, bool) { return t.selected() }

// Update handles the list keys.
func (t Timeline) Update(msg tea.Msg) (Timeline, tea.Cmd) {
	t.handleKey(msg)
	return t, nil
}

// eventText is what happened, in words: the event's detail, with the
// member named by client id and short member id.
func eventText(e *model.Event) string {
	text := e.Detail
	if text == "" {
		text = strings.ReplaceAll(string(e.Type), "_", " ")
	}
	if e.Type == model.EventStateChanged {
		text = "state " + text
	}
	if e.MemberID != "" {
		label := e.ClientID
		if label == "" {
			label = model.ShortID(e.MemberID)
		}
		short := model.ShortID(e.MemberID)
		if rest, ok := strings.CutPrefix(text, label+" "); ok && short != label {
			text = label + " (" + short + ") " + rest
		}
	}
	// The model writes details on one line; names in them are shown as
	// they are, made printable, not reflowed.
	return model.Printable(text)
}

// timelineCols are the widths of the time columns for the pane width: the
// relative time goes first when space is short, then the wall clock.
func (t Timeline) timelineCols() (clockW, agoW int) {
	switch {
	case t.width >= 60:
		return 10, 10
	case t.width >= 36:
		return 10, 0
	default:
		return 0, 0
	}
}

// View renders the title and the visible events.
func (t Timeline) View() string {
	if t.width <= 0 || t.height <= 0 {
		return ""
	}
	start, end := t.sc.Window()
	var b strings.Builder
	b.Grow((t.width + 32) * t.height)
	b.WriteString(t.title(start, end))
	if len(t.rows) == 0 && t.height > timelineChrome {
		b.WriteByte('\n')
		b.WriteString(t.styles.Muted.Render(cell("  no events yet: joins, leaves and rebalances appear here", t.width, false)))
	}
	clockW, agoW := t.timelineCols()
	// The selected event is written in full, wrapped under its text, when
	// it is longer than a line: the lines it takes push the last events
	// out of view, or, when it is at the bottom, the first ones.
	rows := t.height - timelineChrome
	var more []string
	cur := t.cursor()
	if t.focused && cur >= start && cur < end {
		more = t.wrapped(&t.rows[cur], clockW, agoW)
		if over := (cur - start + 1 + len(more)) - rows; over > 0 {
			start = min(start+over, cur)
			more = more[:min(len(more), rows-(cur-start+1))]
		}
	}
	shown := 0
	for i := start; i < end && shown < rows; i++ {
		b.WriteByte('\n')
		// A moment's time is written once, on its first line.
		again := i > start && t.rows[i].Time.Equal(t.rows[i-1].Time)
		t.line(&b, &t.rows[i], t.focused && i == cur, again, clockW, agoW)
		shown++
		if i == cur {
			for _, l := range more {
				if shown == rows {
					break
				}
				b.WriteByte('\n')
				b.WriteString(t.styles.Selected.Render(l))
				shown++
			}
		}
	}
	return b.String()
}

// textCol is where an event's text begins: after the gutter, the clock,
// the time since and the glyph.
func textCol(clockW, agoW int) int {
	return 1 + clockW + min(clockW, 1) + agoW + min(agoW, 1) + 2
}

// wrapped returns the rest of the selected event's text, past its first
// line, wrapped under the text column; none when it fits on one line.
func (t Timeline) wrapped(e *model.Event, clockW, agoW int) []string {
	col := textCol(clockW, agoW)
	w := t.width - col
	text := eventText(e)
	if w < 8 || textWidth(text) <= w {
		return nil
	}
	lines := strings.Split(wrapCells(text, w), "\n")
	out := make([]string, 0, len(lines)-1)
	for _, l := range lines[1:] {
		out = append(out, cell(spaces(col)+strings.TrimLeft(l, " "), t.width, false))
	}
	return out
}

func (t Timeline) title(start, end int) string {
	st := t.styles.PaneTitleOff
	glyph := glyphUnfocused
	if t.focused {
		st, glyph = t.styles.PaneTitle, glyphFocused
	}
	s := st.Render(glyph + " Timeline " + strconv.Itoa(len(t.rows)))
	extra := []string{"newest first"}
	if len(t.rows) > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if e, ok := t.Selected(); ok && t.focused && len(e.Touched()) > 0 {
		extra = append(extra, glyphHighlight+" partitions of the selected event")
	}
	s += t.styles.Muted.Render("  " + strings.Join(extra, " · "))
	return truncate(s, t.width, ellipsis)
}

// line writes one event. The selected line is rendered plain and reversed
// as a whole, like the table's cursor row.
func (t Timeline) line(b *strings.Builder, e *model.Event, selected, again bool, clockW, agoW int) {
	glyph, kind := eventGlyph(e.Type)
	var line strings.Builder
	gutter := " "
	if selected {
		gutter = glyphCursor
	}
	line.WriteString(gutter)
	used := 1
	if again && !selected {
		line.WriteString(spaces(clockW + agoW + min(clockW, 1) + min(agoW, 1)))
		used += clockW + agoW + min(clockW, 1) + min(agoW, 1)
	} else {
		if clockW > 0 {
			line.WriteString(t.paint(t.kinds[kindInfo], cell(e.Time.Format("15:04:05.0"), clockW, false), selected))
			line.WriteByte(' ')
			used += clockW + 1
		}
		if agoW > 0 {
			line.WriteString(t.paint(t.kinds[kindInfo], cell(model.Since(t.now.Sub(e.Time))+" ago", agoW, true), selected))
			line.WriteByte(' ')
			used += agoW + 1
		}
	}
	line.WriteString(t.paint(t.kinds[kind], glyph, selected))
	line.WriteByte(' ')
	used += 2
	text := eventText(e)
	if selected && t.width-used >= 8 && textWidth(text) > t.width-used {
		// Written in full below (wrapped): this line holds its start.
		text = strings.Split(wrapCells(text, t.width-used), "\n")[0]
	}
	text = cell(text, max(t.width-used, 0), false)
	switch {
	case kind == kindBad:
		text = t.paint(t.kinds[kind], text, selected)
	case e.Type == model.EventStateChanged:
		text = t.paint(t.kinds[kindInfo], text, selected) // the rebalance lines say it better
	}
	line.WriteString(text)
	if selected {
		b.WriteString(t.styles.Selected.Render(line.String()))
		return
	}
	b.WriteString(line.String())
}

func (t Timeline) paint(p paint, s string, selected bool) string {
	if selected {
		return s
	}
	return p.Render(s)
}
