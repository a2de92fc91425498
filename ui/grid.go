package ui

import (
	"strings"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// column declares one column of a grid: its title, alignment, widths, the
// order in which it gives way when the pane is narrow, and its cells.
// Tables list their columns once, so adding one is one entry and the
// header and the rows cannot disagree (bubbles' table.Column, gh-dash's
// table are the models; this one renders only the rows in view, as fast).
type column[T any] struct {
	// title heads the column; short replaces it when the column is
	// narrower than title.
	title, short string
	right        bool
	// min is the narrowest the column gets; narrower, it is dropped. Zero
	// means its natural width.
	min int
	// max caps its natural width (zero: none); wide is the least natural
	// width whatever the rows in view hold (a status column as wide as its
	// longest word, so it holds still when a row turns LAGGING).
	max, wide int
	// drop orders the columns that give way when the row is too wide:
	// the highest first; zero never. narrowAt, in the same order, is when
	// a column with a narrow text switches to it (zero: only when its
	// text does not fit its width).
	drop, narrowAt int
	// grow orders the columns that get spare cells, up to their natural
	// width: the lowest first; fill columns take what is left at the end.
	grow int
	fill bool
	// natural, for a fill column, is the width it reads best at.
	natural int
	// hideEmpty: the column is not shown while every row in view has an
	// empty cell (an instance id no member has).
	hideEmpty bool
	// whole: the column shows at its natural width (up to max) or not at
	// all, its text not cut below that (a name cut mid-word reads as
	// another name); min is then ignored.
	whole bool
	// text is a cell's text; the grid makes it printable, measures it and
	// cuts it. narrow, when set, is the shorter text used when the column
	// is narrower than every row's text (a status's glyph for its word).
	text, narrow func(*T) string
	// paint styles a cell (nil: plain).
	paint func(*T) paint
	// render draws a cell itself at width w (a bar); styled is false on
	// the selected row, which is reversed as a whole. A pane sets it each
	// frame, bound to itself (panes are values: a method value taken at
	// construction would read a stale copy).
	render func(row *T, w int, styled bool) string
}

// grid lays out and renders rows of T with declared columns. It keeps each
// column's natural width for a while after it was needed, so the columns
// hold still when a long name comes and goes (they grow at once and
// shrink only after holdWidth).
type grid[T any] struct {
	cols []column[T]
	// natural widths seen, and when each was last needed
	seen    []int
	seenAt  []time.Time
	holdFor time.Duration
	lastNow time.Time
	// lastNat is the natural widths the last layout measured, before the
	// hold (holds).
	lastNat  []int
	scratch  []int
	scratchB []bool
}

// holdWidth is how long a column keeps a width it no longer needs.
const holdWidth = 30 * time.Second

// gridLayout is one frame's columns: which show, their widths, and which
// use their narrow text.
type gridLayout struct {
	show   []bool
	w      []int
	narrow []bool
}

func newGrid[T any](cols []column[T]) grid[T] {
	return grid[T]{cols: cols, seen: make([]int, len(cols)), seenAt: make([]time.Time, len(cols)), lastNat: make([]int, len(cols)), holdFor: holdWidth}
}

// holds reports whether a layout of the last layout's rows, at the same
// width, would at now give the widths it gave, and keeps the time as
// that layout would (a width still needed is held from now). A pane whose
// rows did not change may then show its last frame.
func (g *grid[T]) holds(now time.Time) bool {
	same := true
	for c := range g.cols {
		if g.lastNat[c] >= g.seen[c] || now.Sub(g.seenAt[c]) > g.holdFor || now.Before(g.lastNow) {
			same = same && g.seen[c] == g.lastNat[c]
			g.seen[c], g.seenAt[c] = g.lastNat[c], now
		}
	}
	g.lastNow = now
	return same
}

// cellText is a cell's printable text.
func (c *column[T]) cellText(r *T, narrow bool) string {
	if narrow && c.narrow != nil {
		return model.Printable(c.narrow(r))
	}
	if c.text == nil {
		return ""
	}
	return model.Printable(c.text(r))
}

// layout fits the columns into width cells (a one-cell gutter first) for
// rows, the rows in view, at now.
func (g *grid[T]) layout(rows []T, width int, now time.Time) gridLayout {
	n := len(g.cols)
	l := gridLayout{show: make([]bool, n), w: make([]int, n), narrow: make([]bool, n)}
	nat := make([]int, n)
	narrowNat := make([]int, n)
	for c := range g.cols {
		col := &g.cols[c]
		nat[c] = textWidth(col.title)
		if col.fill {
			nat[c] = max(nat[c], col.natural)
		}
		for i := range rows {
			if col.text != nil {
				nat[c] = max(nat[c], textWidth(col.cellText(&rows[i], false)))
			}
			if col.narrow != nil {
				narrowNat[c] = max(narrowNat[c], textWidth(col.cellText(&rows[i], true)))
			}
		}
		if col.max > 0 {
			nat[c] = min(nat[c], col.max)
		}
		nat[c] = max(nat[c], col.wide)
		g.lastNat[c] = nat[c]
		// Hold: a width needed lately is kept.
		if nat[c] >= g.seen[c] || now.Sub(g.seenAt[c]) > g.holdFor || now.Before(g.lastNow) {
			g.seen[c], g.seenAt[c] = nat[c], now
		} else {
			nat[c] = g.seen[c]
		}
	}
	g.lastNow = now
	avail := width - 1
	used := func() int {
		u, k := 0, 0
		for c := range g.cols {
			if l.show[c] {
				u += l.w[c]
				k++
			}
		}
		return u + max(k-1, 0)
	}
	narrowW := func(c int) int { return max(narrowNat[c], textWidth(g.cols[c].short), 1) }
	for c := range g.cols {
		col := &g.cols[c]
		l.show[c] = true
		if col.hideEmpty {
			l.show[c] = false
			for i := range rows {
				if col.text(&rows[i]) != "" {
					l.show[c] = true
					break
				}
			}
		}
		l.w[c] = nat[c]
		if col.min > 0 && !col.whole {
			l.w[c] = min(col.min, nat[c])
		}
		if col.narrow != nil && l.w[c] < nat[c] {
			l.w[c] = min(l.w[c], narrowW(c))
			l.narrow[c] = true
		}
	}
	for used() > avail {
		// The next to give way: a column dropped, or one switched to its
		// narrow text, whichever comes first.
		pick, prio, narrowIt := -1, 0, false
		for c := range g.cols {
			col := &g.cols[c]
			if !l.show[c] {
				continue
			}
			if col.drop > prio {
				pick, prio, narrowIt = c, col.drop, false
			}
			if col.narrowAt > prio && !l.narrow[c] {
				pick, prio, narrowIt = c, col.narrowAt, true
			}
		}
		if pick < 0 {
			break
		}
		if narrowIt {
			l.narrow[pick], l.w[pick] = true, narrowW(pick)
		} else {
			l.show[pick] = false
		}
	}
	extra := avail - used()
	order := g.growOrder()
	for _, c := range order {
		if !l.show[c] || extra <= 0 || g.cols[c].fill || (l.narrow[c] && g.cols[c].narrowAt > 0) {
			continue
		}
		if d := min(extra, nat[c]-l.w[c]); d > 0 {
			l.w[c] += d
			extra -= d
		}
	}
	for c := range g.cols {
		if l.show[c] && g.cols[c].fill && extra > 0 {
			l.w[c] += extra
			extra = 0
		}
		l.narrow[c] = g.cols[c].narrow != nil && (l.narrow[c] && l.w[c] < nat[c] || l.w[c] < nat[c])
	}
	return l
}

// growOrder lists the column indexes by grow, ties in screen order.
func (g *grid[T]) growOrder() []int {
	order := g.scratch[:0]
	for c := range g.cols {
		order = append(order, c)
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && g.cols[order[j]].grow < g.cols[order[j-1]].grow; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	g.scratch = order
	return order
}

// header renders the column titles.
func (g *grid[T]) header(l gridLayout) string {
	var b strings.Builder
	b.WriteByte(' ')
	l.each(func(c int) {
		t := g.cols[c].title
		if g.cols[c].short != "" && (l.narrow[c] || textWidth(t) > l.w[c]) {
			t = g.cols[c].short
		}
		b.WriteString(cell(t, l.w[c], g.cols[c].right))
	}, &b)
	return b.String()
}

// each calls cell for every shown column, in screen order, writing the
// space between two columns to b.
func (l gridLayout) each(cell func(c int), b *strings.Builder) {
	first := true
	for c, show := range l.show {
		if !show {
			continue
		}
		if !first {
			b.WriteByte(' ')
		}
		first = false
		cell(c)
	}
}

// row renders one row after its one-cell gutter: the selected row plain
// (the caller reverses it), the others styled.
func (g *grid[T]) row(b *strings.Builder, l gridLayout, r *T, gutter string, styled bool) {
	b.WriteString(gutter)
	l.each(func(c int) {
		col := &g.cols[c]
		if col.render != nil {
			b.WriteString(col.render(r, l.w[c], styled))
			return
		}
		s := cell(col.cellText(r, l.narrow[c]), l.w[c], col.right)
		if styled && col.paint != nil {
			s = col.paint(r).Render(s)
		}
		b.WriteString(s)
	}, b)
}
