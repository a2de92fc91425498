package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// The overview's rows keep their columns whatever the group names: every
// row's STATE starts at the same cell, counted as the terminal (tmux,
// which counts code points) counts; blank names are drawn quoted.
func TestOverviewAlignsHostileWidths(t *testing.T) {
	names := []string{
		"plain-group", "a" + strings.Repeat("\u0903", 40), "\U0001F44D\U0001F3FD-team", "\u1100\u1161\u11a8",
		"\u0915\u093f\u0936\u094b\u0930", "", "   ", "\u3164", "\u3000",
	}
	var gs []model.GroupSummary
	for _, n := range names {
		gs = append(gs, model.GroupSummary{ID: n, State: "Stable", ProtocolType: "consumer", Members: 1, Partitions: 3, Committed: 3})
	}
	clk := testutil.NewClock(t0)
	wg := &watched{}
	a := NewOverview(&fakeOverview{results: []overviewResult{{groups: gs}}}, wg.watchGroup,
		Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now})
	a.Update(a.Init()())
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		view := ansi.Strip(a.View().Content)
		var starts []int
		for _, l := range strings.Split(view, "\n") {
			if w := ansi.StringWidthWc(l); w > sz[0] {
				t.Errorf("%dx%d: a line of %d cells:\n%s", sz[0], sz[1], w, l)
			}
			if i := strings.Index(l, "Stable"); i >= 0 {
				starts = append(starts, ansi.StringWidthWc(l[:i]))
			}
		}
		if len(starts) != len(names) {
			t.Fatalf("%dx%d: %d rows show Stable, want %d:\n%s", sz[0], sz[1], len(starts), len(names), view)
		}
		for i, s := range starts {
			if s != starts[0] {
				t.Errorf("%dx%d: row %d's STATE at cell %d, row 0's at %d: a name pushed it off its column:\n%s", sz[0], sz[1], i, s, starts[0], view)
			}
		}
		for _, want := range []string{`""`, `"   "`, `\u3164`, `"\u3000"`} {
			if !strings.Contains(view, want) {
				t.Errorf("%dx%d: the blank name %s is not drawn visibly:\n%s", sz[0], sz[1], want, view)
			}
		}
	}
}
