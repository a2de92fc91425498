package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
)

// fakeOverview is an OverviewSource replaying scripted results.
type fakeOverview struct {
	batched bool
	mu      sync.Mutex
	results []overviewResult // consumed in order; the last one repeats
	calls   int
}

type overviewResult struct {
	groups []model.GroupSummary
	err    error
}

// Batched says the fake reads commits as brokers too old for OffsetFetch
// v8 do (one request per group), unless batched is set.
func (f *fakeOverview) Batched() bool { return f.batched }

func (f *fakeOverview) Overview(ctx context.Context) ([]model.GroupSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	r := f.results[0]
	if len(f.results) > 1 {
		f.results = f.results[1:]
	}
	return r.groups, r.err
}

// overviewGroups is a cluster with a group in each state, sorted as the
// source sorts them (total lag, most first).
func overviewGroups() []model.GroupSummary {
	gs := []model.GroupSummary{
		{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer", Members: 2, Partitions: 3, Committed: 3, TotalLag: 1234, MaxLag: 800},
		{ID: "billing-reconciliation-nightly", State: model.StateEmpty, ProtocolType: "consumer", Partitions: 12, Committed: 12, TotalLag: 98765, MaxLag: 20011},
		{ID: "audit", State: model.StatePreparingRebalance, ProtocolType: "consumer", Members: 3, Partitions: 6, Committed: 6, TotalLag: 40, MaxLag: 12},
		{ID: "new-service", State: model.StateStable, ProtocolType: "consumer", Members: 1, Partitions: 4},
		{ID: "kip848-group", State: model.StateUnknown, Partitions: 2, Committed: 2, TotalLag: 7, MaxLag: 7},
		{ID: "payments", State: model.StateStable, ProtocolType: "consumer", Members: 4, Partitions: 8, Committed: 8, TotalLag: 300, MaxLag: 120,
			Err: "log end of 2 partitions unknown"},
	}
	model.SortGroups(gs)
	return gs
}

// watched records the groups WatchGroup opened and released.
type watched struct {
	opened, released []string
	src              map[string]*fakeSource
}

func (w *watched) watchGroup(group string) (Watch, func()) {
	w.opened = append(w.opened, group)
	snap := stableSnapshot()
	snap.Group.ID = group
	src := &fakeSource{results: []pollResult{{snap: snap}}}
	if w.src == nil {
		w.src = map[string]*fakeSource{}
	}
	w.src[group] = src
	return Watch{Group: group, Source: src}, func() { w.released = append(w.released, group) }
}

// overviewApp starts an overview of src at w×h after its first poll, with
// the clock 1.5s later.
func overviewApp(t *testing.T, src *fakeOverview, wg *watched, w, h int) (*App, *clock) {
	t.Helper()
	clk := &clock{t: t0}
	a := NewOverview(src, wg.watchGroup, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	feedOverview(t, a, a.Init())
	clk.Set(t0.Add(1500 * time.Millisecond))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, clk
}

// feedOverview runs cmd, which must be an overview poll, and hands its
// answer to the app.
func feedOverview(t *testing.T, a *App, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	if cmd == nil {
		t.Fatal("expected an overview poll, got no command")
	}
	msg := cmd()
	if _, ok := msg.(pollResultMsg[[]model.GroupSummary]); !ok {
		t.Fatalf("command produced %T, want overviewMsg", msg)
	}
	_, next := a.Update(msg)
	return next
}

func TestOverviewGolden(t *testing.T) {
	states := map[string][]overviewResult{
		"groups": {{groups: overviewGroups()}},
		"stale":  {{groups: overviewGroups()}, {err: errors.New("connect to brokers 127.0.0.1:19092: connection refused")}},
		"none":   {{groups: []model.GroupSummary{}}},
	}
	for name, results := range states {
		for _, sz := range [][2]int{{120, 40}, {80, 24}} {
			t.Run(fmt.Sprintf("%s_%dx%d", name, sz[0], sz[1]), func(t *testing.T) {
				src := &fakeOverview{results: results}
				a, clk := overviewApp(t, src, &watched{}, sz[0], sz[1])
				if len(results) > 1 {
					clk.Set(t0.Add(2500 * time.Millisecond))
					feedOverview(t, a, a.overview.pollNow())
				}
				out := plain(a)
				checkFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, out)
			})
		}
	}
}

func TestOverviewEnterWatchesGroupAndEscReturns(t *testing.T) {
	src := &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}
	wg := &watched{}
	a, _ := overviewApp(t, src, wg, 120, 40)
	out := plain(a)
	for _, want := range []string{"all groups", "6 groups", "Groups 6", "enter watch group", "○ has no active members", "◐ is rebalancing", "? help", "q quit"} {
		if !strings.Contains(out, want) {
			t.Errorf("overview lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"all groups", "tab", "lanes"} {
		if strings.Contains(a.overview.helpText, absent) {
			t.Errorf("overview help offers %q, which does nothing there: %q", absent, a.overview.helpText)
		}
	}

	// The rows are sorted by total lag: the second is order-workers.
	a.Update(ovKey("j"))
	_, cmd := a.Update(ovKey("enter"))
	if len(wg.opened) != 1 || wg.opened[0] != "order-workers" {
		t.Fatalf("enter opened %v, want [order-workers]", wg.opened)
	}
	msg := cmd()
	if _, ok := msg.(pollResultMsg[model.Snapshot]); !ok {
		t.Fatalf("enter's command produced %T, want the group's first poll", msg)
	}
	a.Update(msg)
	out = plain(a)
	for _, want := range []string{"order-workers", "Partitions", "Members", "esc/⌫ all groups"} {
		if !strings.Contains(out, want) {
			t.Errorf("group view lacks %q:\n%s", want, out)
		}
	}
	if got := a.View().WindowTitle; got != "kgwatch · order-workers" {
		t.Errorf("window title %q", got)
	}

	// esc clears an applied filter first; then it goes back.
	for _, k := range []string{"/", "p", "a", "y", "enter"} {
		a.Update(ovKey(k))
	}
	a.Update(ovKey("esc"))
	if a.group == nil {
		t.Fatal("esc with a filter applied left the group instead of clearing the filter")
	}
	_, cmd = a.Update(ovKey("esc"))
	if a.group != nil {
		t.Fatal("esc did not return to the overview")
	}
	if len(wg.released) != 1 || wg.released[0] != "order-workers" {
		t.Fatalf("released %v, want [order-workers]", wg.released)
	}
	calls := src.calls
	feedOverview(t, a, cmd)
	if src.calls != calls+1 || !strings.Contains(plain(a), "Groups 6") {
		t.Fatalf("back on the overview: polls %d → %d, view:\n%s", calls, src.calls, plain(a))
	}

	// backspace goes back too.
	a.Update(ovKey("enter"))
	if _, cmd := a.Update(ovKey("backspace")); a.group != nil || cmd == nil {
		t.Fatal("backspace did not return to the overview and poll it")
	}
}

// A poll of a group left with esc answers late: the group opened next
// drops it.
func TestOverviewStaleGroupPollDropped(t *testing.T) {
	src := &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}
	wg := &watched{}
	a, _ := overviewApp(t, src, wg, 120, 40)
	_, first := a.Update(ovKey("enter")) // billing-reconciliation-nightly
	a.Update(ovKey("esc"))
	a.Update(ovKey("j"))
	a.Update(ovKey("enter")) // order-workers, its poll not answered yet
	a.Update(first())
	if a.group.st.HasSnap {
		t.Fatal("the closed group's late poll was taken by the next group")
	}
}

func TestOverviewWithoutWatchGroupHasNoEnter(t *testing.T) {
	clk := &clock{t: t0}
	a := NewOverview(&fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, nil, Options{Brokers: testBrokers, Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	feedOverview(t, a, a.Init())
	if strings.Contains(a.overview.helpText, "enter") {
		t.Errorf("help offers enter with no way to open a group: %q", a.overview.helpText)
	}
	if _, cmd := a.Update(ovKey("enter")); cmd != nil || a.group != nil {
		t.Error("enter did something with no WatchGroup")
	}
}

func TestOverviewScrollsAndResizes(t *testing.T) {
	var gs []model.GroupSummary
	for i := range 300 {
		gs = append(gs, model.GroupSummary{ID: fmt.Sprintf("group-%03d", i), State: model.StateEmpty, TotalLag: int64(300 - i), MaxLag: 1})
	}
	src := &fakeOverview{results: []overviewResult{{groups: gs}}}
	a, _ := overviewApp(t, src, &watched{}, 80, 24)
	a.Update(ovKey("G"))
	out := plain(a)
	if !strings.Contains(out, "group-299") || !strings.Contains(out, "rows ") {
		t.Fatalf("after G the last group is not on screen:\n%s", out)
	}
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {10, 3}, {40, 10}, {200, 5}, {3, 50}, {120, 40}} {
		a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		checkFits(t, plain(a), sz[0], sz[1])
		for _, k := range []string{"k", "?", "pgup", "g", "?"} {
			a.Update(ovKey(k))
			checkFits(t, plain(a), sz[0], sz[1])
		}
	}
}

// A single-group app (started with --group) never offers the way back.
func TestGroupAppHasNoBackKey(t *testing.T) {
	a := stableApp(t, false, 120, 40)
	a.Update(ovKey("?"))
	if strings.Contains(plain(a), "all groups") {
		t.Errorf("single-group help offers esc to all groups:\n%s", plain(a))
	}
}

// ovKey is keyPress with the keys the overview adds.
func ovKey(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	return keyPress(k)
}

func TestOverviewNoColorKeepsMeaning(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		clk := &clock{t: t0}
		a := NewOverview(&fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, nil,
			Options{Brokers: testBrokers, NoColor: noColor, Now: clk.Now})
		a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		feedOverview(t, a, a.Init())
		a.Update(ovKey("j")) // the styled rows, not only the selected one
		out := a.View().Content
		if hasColour := colourSGR.MatchString(out); hasColour == noColor {
			t.Errorf("NoColor=%v: colour sequences present = %v", noColor, hasColour)
		}
		for _, w := range []string{"● Stable", "○ has no active members", "◐ is rebalancing", "█", "░", "◀", "! log end"} {
			if !strings.Contains(out, w) {
				t.Errorf("NoColor=%v: overview lacks %q", noColor, w)
			}
		}
	}
}

// The overview sorts (o), filters (/) and shows only groups with lag (l),
// as the group view does, and says so in its title; a filter matching
// nothing says why the pane is empty and how to clear it.
func TestOverviewSortFilterOnlyLag(t *testing.T) {
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, &watched{}, 120, 40)
	firstRow := func() string { // the row under the column header
		lines := strings.Split(plain(a), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, " GROUP ") && i+1 < len(lines) {
				return strings.Fields(strings.TrimLeft(lines[i+1], glyphCursor+glyphError+" "))[0]
			}
		}
		return ""
	}
	if got := firstRow(); got != "billing-reconciliation-nightly" {
		t.Fatalf("first row %q, want the group with the most lag", got)
	}
	a.Update(ovKey("o")) // max lag: billing still first
	a.Update(ovKey("o")) // state: the unreadable group first
	if out := plain(a); !strings.Contains(out, "sort: state") || firstRow() != "payments" {
		t.Errorf("sort by state: first %q:\n%s", firstRow(), out)
	}
	a.Update(ovKey("o")) // name
	if firstRow() != "audit" {
		t.Errorf("sort by name: first %q", firstRow())
	}
	a.Update(ovKey("l"))
	if out := plain(a); !strings.Contains(out, "Groups 5 of 6") || strings.Contains(out, "new-service") {
		t.Errorf("only lag still lists new-service, or the count is wrong:\n%s", out)
	}
	for _, k := range []string{"/", "z", "z", "z", "enter"} {
		a.Update(ovKey(k))
	}
	if out := plain(a); !strings.Contains(out, `no group matches "zzz" (esc clears the filter)`) {
		t.Errorf("a filter matching nothing does not say so:\n%s", out)
	}
	a.Update(ovKey("esc"))
	a.Update(ovKey("l"))
	if out := plain(a); !strings.Contains(out, "Groups 6") || strings.Contains(out, "no group matches") {
		t.Errorf("esc and l did not bring every group back:\n%s", out)
	}
	// q while the filter is typed is typed, not quit.
	a.Update(ovKey("/"))
	if _, cmd := a.Update(ovKey("q")); cmd != nil || !strings.Contains(plain(a), "filter / q") {
		t.Errorf("q while filtering quit or was not typed:\n%s", plain(a))
	}
}
