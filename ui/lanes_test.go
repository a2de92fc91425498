package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// lanesAfter is a lanes view of 120 columns over a group watched for d,
// polled every second, with one rebalance (PreparingRebalance for one
// poll) in the middle.
func lanesAfter(t *testing.T, d time.Duration) Lanes {
	t.Helper()
	hist := model.NewLanes(0)
	for s := time.Duration(0); s <= d; s += time.Second {
		state := model.StateStable
		if s == (d / 2).Truncate(time.Second) {
			state = model.StatePreparingRebalance
		}
		hist.Observe(compareSnap("g", s, state, "consumer-a", "consumer-a", "consumer-b"))
	}
	l := NewLanes(NewStyles(true), DefaultKeyMap(), hist)
	l.Refresh()
	l.SetSize(120, 7)
	l.SetNow(t0.Add(d))
	return l
}

// laneRow is the cells of lane p0 in view, the label cut off.
func laneRow(t *testing.T, view string) string {
	t.Helper()
	for _, line := range strings.Split(ansi.Strip(view), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.TrimPrefix(f[0], glyphCursor) == "p0" {
			return line[strings.Index(line, "p0")+3:]
		}
	}
	t.Fatalf("no p0 lane:\n%s", view)
	return ""
}

// 15 s into a watch the lanes are mostly drawn, not blank history, and
// a one-poll rebalance is a few cells wide; + and - zoom.
func TestLanesFitWhatWasWatched(t *testing.T) {
	l := lanesAfter(t, 15*time.Second)
	row := laneRow(t, l.View())
	drawn := len(strings.TrimLeft(row, " "))
	if cells := len([]rune(row)); drawn*3 < cells*2 {
		t.Errorf("15s in, %d of %d cells drawn, want two thirds or more: %q", drawn, cells, row)
	}
	if n := strings.Count(row, glyphLaneGap); n < laneMinGap {
		t.Errorf("the rebalance is %d cells, want at least %d: %q", n, laneMinGap, row)
	}
	scale := l.scale()
	l, _ = l.Update(keyPress("+"))
	if in := l.scale(); in == scale || !strings.Contains(in, "zoomed") {
		t.Errorf("+ left the scale %q (was %q)", in, scale)
	}
	l, _ = l.Update(keyPress("-"))
	l, _ = l.Update(keyPress("-"))
	out := l.scale()
	if out == scale {
		t.Errorf("- left the scale %q", out)
	}
	if less := len(strings.TrimLeft(laneRow(t, l.View()), " ")); less >= drawn {
		t.Errorf("zoomed out, %d cells drawn, as many as at the fit (%d)", less, drawn)
	}
}
