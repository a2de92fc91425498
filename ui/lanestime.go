package ui

import (
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// The lanes' time: what one cell stands for, where the cells start, and
// the axis and scale that say so.

// laneSteps are the durations one cell may stand for, each at most 1.5
// times the one before, so the fit leaves at most a third of the width
// undrawn.
var laneSteps = []time.Duration{
	100 * time.Millisecond, 150 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond,
	300 * time.Millisecond, 400 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond,
	time.Second, 1500 * time.Millisecond, 2 * time.Second, 3 * time.Second, 4 * time.Second,
	5 * time.Second, 7500 * time.Millisecond, 10 * time.Second, 15 * time.Second, 20 * time.Second,
	30 * time.Second, 45 * time.Second, time.Minute, 90 * time.Second, 2 * time.Minute,
	3 * time.Minute, 5 * time.Minute,
}

// laneTicks are the spacings of the time axis's marks; the axis takes the
// first at least laneTickCells cells apart.
var laneTicks = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour,
}

const laneTickCells = 10

// laneMinGap is the fewest cells a rebalance is drawn over, so one
// shorter than a cell still reads as a gap and not a speck.
const laneMinGap = 3

// geometry is the layout of one frame: label column, cell count, the time
// one cell stands for and the time of the first cell.
type laneGeometry struct {
	multi  bool
	labelW int
	cells  int
	step   time.Duration
	from   time.Time
}

func (l Lanes) geometry(start, end int) laneGeometry {
	var g laneGeometry
	for i := 1; i < l.hist.Len(); i++ {
		if l.hist.Row(i).Topic != l.hist.Row(0).Topic {
			g.multi = true
			break
		}
	}
	g.labelW = len("PART")
	for i := start; i < end; i++ {
		g.labelW = max(g.labelW, textWidth(laneLabel(l.hist.Row(i), g.multi)))
	}
	g.labelW = min(g.labelW, max(l.width/3, 4))
	g.cells = max(l.width-1-g.labelW-1, 0)
	g.step = laneSteps[l.stepIndex(g.cells)]
	// Cells end at whole steps, so the picture does not shimmer as the
	// clock moves between polls.
	endT := l.now.Truncate(g.step).Add(g.step)
	g.from = endT.Add(-time.Duration(g.cells) * g.step)
	return g
}

// stepIndex is the index in laneSteps of the time a cell stands for: the
// fit (the finest step whose cells span what was watched) moved by the
// zoom.
func (l Lanes) stepIndex(cells int) int {
	watched := time.Duration(0)
	if since, ok := l.hist.Since(); ok && l.now.After(since) {
		watched = l.now.Sub(since)
	}
	fit := len(laneSteps) - 1
	for i, s := range laneSteps {
		if time.Duration(cells)*s >= watched {
			fit = i
			break
		}
	}
	return min(max(fit+l.zoom, 0), len(laneSteps)-1)
}

// widenGaps draws each run of rebalancing cells shorter than laneMinGap
// over laneMinGap cells, growing it over the owners' cells on both sides.
func widenGaps(buf []int) {
	for c := 0; c < len(buf); {
		if buf[c] != model.LaneRebalancing {
			c++
			continue
		}
		n := 1
		for c+n < len(buf) && buf[c+n] == model.LaneRebalancing {
			n++
		}
		lo, hi := c, c+n // the run is buf[lo:hi]
		for hi-lo < laneMinGap {
			grew := false
			if hi < len(buf) && buf[hi] >= 0 {
				buf[hi], hi, grew = model.LaneRebalancing, hi+1, true
			}
			if hi-lo < laneMinGap && lo > 0 && buf[lo-1] >= 0 {
				lo, grew = lo-1, true
				buf[lo] = model.LaneRebalancing
			}
			if !grew {
				break
			}
		}
		c = hi
	}
}

// Scale says what the lanes span and what a cell stands for: "last 17s,
// 0.15s a cell", with the zoom key's effect when it is not the fit.
func (l Lanes) Scale(g laneGeometry) string {
	s := "last " + spanText(time.Duration(g.cells)*g.step) + ", " + spanText(g.step) + " a cell"
	if l.zoom != 0 {
		s += " (zoomed)"
	}
	return s
}

// scale is Scale at the view's current size.
func (l Lanes) scale() string {
	start, end := l.sc.Window()
	return l.Scale(l.geometry(start, end))
}

// spanText writes a span the axis way: 30s, 3m, 3m30s, 1h; under ten
// seconds to the hundredth (0.15s, 7.5s).
func spanText(d time.Duration) string {
	if d < 10*time.Second && d%time.Second != 0 {
		return model.Setting(d.Round(10 * time.Millisecond))
	}
	return model.Setting(d.Round(time.Second))
}

// axis writes the time axis: "PART" over the labels, a mark every minute
// (every 30s when the span is short), "now" at the right edge, and ▼ over
// the cell of the selected event. Labels never overwrite each other or
// the ▼; "now" steps left to make room for it.
func (l Lanes) axis(g laneGeometry) string {
	base := 1 + g.labelW + 1
	line := []rune(spaces(base + g.cells))
	copy(line[1:], []rune(cell("PART", g.labelW, false)))
	put := func(col int, s string, pad int) bool {
		n := len([]rune(s))
		if col < base || col+n > len(line) {
			return false
		}
		for i := max(col-pad, base); i < min(col+n+pad, len(line)); i++ {
			if line[i] != ' ' {
				return false
			}
		}
		copy(line[col:], []rune(s))
		return true
	}
	span := time.Duration(g.cells) * g.step
	endT := g.from.Add(span)
	if !l.mark.IsZero() && !l.mark.Before(g.from) && l.mark.Before(endT) {
		line[base+int(l.mark.Sub(g.from)/g.step)] = []rune(glyphLaneMark)[0]
	}
	for col := base + g.cells - 3; col >= base+g.cells-7; col-- {
		if put(col, "now", 0) {
			break
		}
	}
	tick := laneTicks[len(laneTicks)-1]
	for _, t := range laneTicks {
		if t >= laneTickCells*g.step {
			tick = t
			break
		}
	}
	for k := 1; time.Duration(k)*tick < span; k++ {
		at := endT.Add(-time.Duration(k) * tick)
		put(base+int(at.Sub(g.from)/g.step), "|-"+spanText(time.Duration(k)*tick), 1)
	}
	return l.styles.ColHeader.Render(string(line))
}
