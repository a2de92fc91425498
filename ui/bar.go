package ui

import (
	"math"
	"strings"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// ageMarks are the lag ages the bar's segments end at: a bar reaching the
// second segment's end has waited 30s, the last one's an hour or more.
// Lag in flight (under 5s) draws one cell.
var ageMarks = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, time.Hour}

// ageBar is what a lag-age bar shows, the partition table's and the
// overview's alike, so a bar means the same in both views.
type ageBar struct {
	// err, when set, is shown instead of the bar: a bar drawn from offsets
	// that could not all be read would mislead.
	err string
	// empty draws only the track (no lag, or lag known only by markers).
	empty bool
	// full fills the bar (the age is past what can be measured).
	full bool
	// age is the oldest unprocessed record's wait, when ageKnown; else the
	// bar counts lag decades, drawn ▒.
	age      time.Duration
	ageKnown bool
	lag      int64
	// worst marks the bar ◀.
	worst bool
	// paint colours the filled cells.
	paint paint
}

// drawBar draws b at width w: filled cells (█) on the fixed scale of
// ageMarks, a track (░) for the rest, and a marker (◀) on the worst row.
// Lag in flight draws one cell; with no age known the bar counts lag
// decades (lagCells), drawn ▒. styled is false on the selected row, which
// is reversed as a whole.
func drawBar(st Styles, b ageBar, w int, styled bool) string {
	if b.err != "" {
		s := cell(glyphError+" "+flatText(b.err), w, false)
		if styled {
			s = st.err.Render(s)
		}
		return s
	}
	inner, marker := w, ""
	if w >= 4 {
		inner, marker = w-2, "  "
		if b.worst {
			marker = " " + glyphWorst
		}
	}
	filled, glyph := 0, glyphBarFull
	switch {
	case b.empty:
	case b.full:
		filled = inner
	case b.ageKnown:
		filled = barCells(b.age, inner)
	default:
		filled, glyph = lagCells(b.lag, inner), glyphBarByLag
	}
	full := strings.Repeat(glyph, filled)
	track := strings.Repeat(glyphBarTrack, inner-filled)
	if !styled {
		return full + track + marker
	}
	var s string
	if filled > 0 {
		s = b.paint.Render(full)
	}
	if inner > filled {
		s += st.lagNone.Render(track)
	}
	if strings.TrimSpace(marker) != "" {
		return s + st.worst.Render(marker)
	}
	return s + marker
}

// barCells is how many of inner cells the bar of a lag age a fills: one
// up to the first mark, then each segment between marks an equal share,
// filled logarithmically within it; an hour or more fills it all.
func barCells(a time.Duration, inner int) int {
	if a <= ageMarks[0] {
		return 1
	}
	segs := len(ageMarks) - 1
	seg := float64(inner-1) / float64(segs)
	for i := 1; i < len(ageMarks); i++ {
		if a <= ageMarks[i] {
			f := math.Log(float64(a)/float64(ageMarks[i-1])) / math.Log(float64(ageMarks[i])/float64(ageMarks[i-1]))
			return min(1+int(math.Round(seg*(float64(i-1)+f))), inner)
		}
	}
	return inner
}

// lagCells is the bar of a lag whose age is unknown: one segment a decade
// above 1 (1–9 one cell, 10s to the first segment's end …).
func lagCells(lag int64, inner int) int {
	if lag <= 1 {
		return 1
	}
	segs := len(ageMarks) - 1
	seg := float64(inner-1) / float64(segs)
	return min(1+int(math.Round(seg*math.Log10(float64(lag)))), inner)
}

// rulerHeader is g's header with its last column, an age bar, headed by
// the bar's scale when it is wide enough (the partition table's and the
// overview's): "≤5s  30s  2m …".
func rulerHeader[T any](g *grid[T], l gridLayout) string {
	h := g.header(l)
	last := len(g.cols) - 1
	if !l.show[last] {
		return h
	}
	w := l.w[last]
	ruler := ageRuler(w)
	if ruler == "" {
		return h
	}
	return h[:len(h)-len(cell(g.cols[last].title, w, false))] + ruler
}

// ageRuler labels the age bar's scale under its segment ends, or "" when
// they do not fit (the partition table's and the overview's bar headers).
func ageRuler(w int) string {
	inner := w - 2
	if inner < 20 {
		return ""
	}
	line := []rune(spaces(w))
	pos := 0
	for i, m := range ageMarks {
		end := barCells(m, inner)
		label := model.Setting(m)
		at := max(end-len(label), pos)
		if i == 0 {
			at = 0
			label = "≤" + label
		}
		if at+len([]rune(label)) > w {
			return ""
		}
		copy(line[at:], []rune(label))
		pos = at + len([]rune(label)) + 1
	}
	return string(line)
}
