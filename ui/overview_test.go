package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// fakeOverview is an OverviewSource replaying scripted results: groups
// as judged (the page shows them as they are, as it shows the polls of
// a recording of format 2), or raw reads for the page's pipeline to
// judge.
type fakeOverview struct {
	batched bool
	mu      sync.Mutex
	results []overviewResult // consumed in order; the last one repeats
	calls   int
}

type overviewResult struct {
	groups []model.GroupSummary
	obs    *model.OverviewObservation // when set, in place of groups
	err    error
}

// Batched says the fake reads commits as brokers too old for OffsetFetch
// v8 do (one request per group), unless batched is set.
func (f *fakeOverview) Batched() bool { return f.batched }

func (f *fakeOverview) Overview(ctx context.Context) (model.OverviewObservation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	r := f.results[0]
	if len(f.results) > 1 {
		f.results = f.results[1:]
	}
	switch {
	case r.err != nil:
		return model.OverviewObservation{}, r.err
	case r.obs != nil:
		return *r.obs, nil
	}
	return model.OverviewObservation{Judged: r.groups}, nil
}

// overviewGroups is a cluster with a group in each state, judged and
// sorted as the page's pipeline judges and sorts them (model.OverviewPipeline,
// model.DefaultGroupSort: the group in trouble first).
func overviewGroups() []model.GroupSummary {
	gs := []model.GroupSummary{
		{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer", Members: 2, Partitions: 3, Committed: 3, TotalLag: 1234, MaxLag: 800,
			MaxLagAge: 124 * time.Second, MaxLagAgeKnown: true, Status: model.StatusLagging},
		{ID: "billing-reconciliation-nightly", State: model.StateEmpty, ProtocolType: "consumer", Partitions: 12, Committed: 12, TotalLag: 98765, MaxLag: 20011,
			MaxLagAge: 3*time.Hour + 12*time.Minute, MaxLagAgeKnown: true, Status: model.StatusStopped},
		{ID: "audit", State: model.StatePreparingRebalance, ProtocolType: "consumer", Members: 3, Partitions: 6, Committed: 6, TotalLag: 40, MaxLag: 12,
			MaxLagAge: 800 * time.Millisecond, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "new-service", State: model.StateStable, ProtocolType: "consumer", Members: 1, Partitions: 4, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "invoice-export", State: model.StateStable, ProtocolType: "consumer", Members: 1, Partitions: 3, TotalLag: 60, MaxLag: 20,
			LagFromStart: true, FromStartPartitions: 3, MaxLagAge: 40 * time.Second, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "kip848-group", State: model.StateUnknown, Partitions: 2, Committed: 2, TotalLag: 7, MaxLag: 7, Status: model.StatusOK},
		{ID: "payments", State: model.StateStable, ProtocolType: "consumer", Members: 4, Partitions: 8, Committed: 8, TotalLag: 300, MaxLag: 120,
			MaxLagAge: 12 * time.Second, MaxLagAgeKnown: true, Status: model.StatusOK, Err: "log end of 2 partitions unknown"},
	}
	model.SortGroupsBy(gs, model.DefaultGroupSort)
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
	clk := testutil.NewClock(t0)
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
	if _, ok := msg.(pollResultMsg[model.OverviewObservation]); !ok {
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
		for _, sz := range [][2]int{{120, 40}, {80, 24}, {40, 10}} {
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
	for _, want := range []string{"all groups", "7 groups", "Groups 7", "enter watch group", "○ has no active members", "◐ is rebalancing", "? help", "q quit"} {
		if !strings.Contains(out, want) {
			t.Errorf("overview lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"all groups", "tab", "lanes"} {
		if strings.Contains(a.overview.helpText, absent) {
			t.Errorf("overview help offers %q, which does nothing there: %q", absent, a.overview.helpText)
		}
	}

	// The rows are sorted by status: the second is order-workers (LAGGING).
	a.Update(ovKey("j"))
	_, cmd := a.Update(ovKey("enter"))
	if len(wg.opened) != 1 || wg.opened[0] != "order-workers" {
		t.Fatalf("enter opened %v, want [order-workers]", wg.opened)
	}
	msg := cmd()
	if _, ok := msg.(pollResultMsg[polled]); !ok {
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

	// esc closes the full help first, and says so in it.
	a.Update(ovKey("?"))
	if !strings.Contains(plain(a), "?/esc close help") {
		t.Errorf("the full help does not say how to close it:\n%s", plain(a))
	}
	a.Update(ovKey("esc"))
	if a.group == nil || a.fullHelp || strings.Contains(plain(a), "close help") {
		t.Fatalf("esc with the full help open: group %v, help %v", a.group != nil, a.fullHelp)
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
	if src.calls != calls+1 || !strings.Contains(plain(a), "Groups 7") {
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
	clk := testutil.NewClock(t0)
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
		clk := testutil.NewClock(t0)
		a := NewOverview(&fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, nil,
			Options{Brokers: testBrokers, NoColor: noColor, Now: clk.Now})
		a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		feedOverview(t, a, a.Init())
		a.Update(ovKey("j")) // the styled rows, not only the selected one
		out := a.View().Content
		if hasColour := colourSGR.MatchString(out); hasColour == noColor {
			t.Errorf("NoColor=%v: colour sequences present = %v", noColor, hasColour)
		}
		for _, w := range []string{"● Stable", "○ has no active members", "◐ is rebalancing", "⊘ STOPPED", "▴ LAGGING", "✓ OK", "█", "░", "◀", "! log end", "60*"} {
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
	if got := firstRow(a); got != "billing-reconciliation-nightly" {
		t.Fatalf("first row %q, want the stopped group", got)
	}
	for range 5 { // lag age, rebalances, total lag, max lag: billing still first; state
		a.Update(ovKey("o"))
	}
	if out := plain(a); !strings.Contains(out, "sort: state") || firstRow(a) != "payments" {
		t.Errorf("sort by state: first %q:\n%s", firstRow(a), out)
	}
	a.Update(ovKey("o")) // name
	if firstRow(a) != "audit" {
		t.Errorf("sort by name: first %q", firstRow(a))
	}
	a.Update(ovKey("l"))
	if out := plain(a); !strings.Contains(out, "Groups 6 of 7") || strings.Contains(out, "new-service") {
		t.Errorf("only lag still lists new-service, or the count is wrong:\n%s", out)
	}
	for _, k := range []string{"/", "z", "z", "z", "enter"} {
		a.Update(ovKey(k))
	}
	if out := plain(a); !strings.Contains(out, `no group with lag matches "zzz" (esc clears the filter, l shows all)`) {
		t.Errorf("a filter matching nothing does not say so:\n%s", out)
	}
	a.Update(ovKey("esc"))
	a.Update(ovKey("l"))
	if out := plain(a); !strings.Contains(out, "Groups 7") || strings.Contains(out, "no group matches") {
		t.Errorf("esc and l did not bring every group back:\n%s", out)
	}
	// q while the filter is typed is typed, not quit.
	a.Update(ovKey("/"))
	if _, cmd := a.Update(ovKey("q")); cmd != nil || !strings.Contains(plain(a), "filter / q") {
		t.Errorf("q while filtering quit or was not typed:\n%s", plain(a))
	}
}

// firstRow is the id of the group in the row under the column header.
func firstRow(a *App) string {
	lines := strings.Split(plain(a), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, " GROUP ") && i+1 < len(lines) {
			if f := strings.Fields(strings.TrimLeft(lines[i+1], glyphCursor+glyphError+" ")); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// rowOf is the screen line of the group id, "" when it is not on screen.
func rowOf(out, id string) string {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(strings.TrimLeft(l, glyphCursor+glyphError+" ")); len(f) > 0 && f[0] == id {
			return l
		}
	}
	return ""
}

// okGroups are n healthy groups, each with more lag than trouble below,
// in flight.
func okGroups(n int) []model.GroupSummary {
	var gs []model.GroupSummary
	for i := range n {
		gs = append(gs, model.GroupSummary{ID: fmt.Sprintf("ok-%02d", i), State: model.StateStable, Members: 2, Partitions: 3, Committed: 3,
			TotalLag: int64(500 + i), MaxLag: 200, MaxLagAge: time.Second, MaxLagAgeKnown: true, Status: model.StatusOK})
	}
	return gs
}

// The 3 a.m. question: among healthy groups with more lag, the one group
// in trouble is the first row, its status word on it, at every size; the
// title says the sort. The source's order (here by total lag) is not the
// pane's: the pane sorts by model.DefaultGroupSort itself.
func TestOverviewGroupInTroubleFirst(t *testing.T) {
	for _, st := range []model.Status{model.StatusStopped, model.StatusLagging} {
		trouble := model.GroupSummary{ID: "trouble", State: model.StateStable, Members: 1, Partitions: 3, Committed: 3,
			TotalLag: 12, MaxLag: 12, MaxLagAge: 95 * time.Second, MaxLagAgeKnown: true, Status: st}
		if st == model.StatusStopped {
			trouble.State, trouble.Members = model.StateEmpty, 0
		}
		gs := append(okGroups(20), trouble)
		model.SortGroupsBy(gs, model.GroupsByLag)
		for _, sz := range [][2]int{{120, 40}, {80, 24}, {40, 10}} {
			a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: gs}}}, &watched{}, sz[0], sz[1])
			out := plain(a)
			checkFits(t, out, sz[0], sz[1])
			if got := firstRow(a); got != "trouble" {
				t.Errorf("%v %dx%d: first row %q, want the %s group:\n%s", st, sz[0], sz[1], got, st, out)
			}
			if row := rowOf(out, "trouble"); !strings.Contains(row, st.Label()) {
				t.Errorf("%v %dx%d: its row %q does not say %q", st, sz[0], sz[1], row, st.Label())
			}
			if row := rowOf(out, "ok-19"); !strings.Contains(row, model.StatusOK.Label()) {
				t.Errorf("%v %dx%d: a healthy row %q does not say %q", st, sz[0], sz[1], row, model.StatusOK.Label())
			}
			if !strings.Contains(out, "sort: status") {
				t.Errorf("%v %dx%d: the title does not name the sort:\n%s", st, sz[0], sz[1], out)
			}
		}
	}
}

// o cycles through every sort key, from the default, and back; each names
// itself in the title and puts its own group first.
func TestOverviewSortCycle(t *testing.T) {
	gs := []model.GroupSummary{
		{ID: "zeta-stopped", State: model.StateEmpty, TotalLag: 5, MaxLag: 5, MaxLagAge: 10 * time.Second, MaxLagAgeKnown: true, Status: model.StatusStopped},
		{ID: "yak-oldest", State: model.StateStable, Members: 1, TotalLag: 10, MaxLag: 10, MaxLagAge: time.Hour, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "xray-most-lag", State: model.StateStable, Members: 1, TotalLag: 1000, MaxLag: 100, MaxLagAge: time.Second, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "whale-max-lag", State: model.StateStable, Members: 1, TotalLag: 500, MaxLag: 400, MaxLagAge: 2 * time.Second, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "vole-unreadable", State: model.StateStable, Members: 1, Status: model.StatusOK, Err: "log end of 1 partition unknown"},
		{ID: "alpha-idle", State: model.StateStable, Members: 1, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "ursa-flappy", State: model.StateStable, Members: 1, MaxLagAgeKnown: true, Status: model.StatusOK, Rebalances: 7, RebalancesKnown: true},
		{ID: "tern-calm", State: model.StateStable, Members: 1, MaxLagAgeKnown: true, Status: model.StatusOK, Rebalances: 0, RebalancesKnown: true},
	}
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: gs}}}, &watched{}, 120, 40)
	want := []struct{ sort, first string }{
		{"status", "zeta-stopped"}, {"lag age", "yak-oldest"}, {"rebalances", "ursa-flappy"}, {"total lag", "xray-most-lag"},
		{"max lag", "whale-max-lag"}, {"state", "vole-unreadable"}, {"name", "alpha-idle"}, {"status", "zeta-stopped"},
	}
	for i, w := range want {
		if i > 0 {
			a.Update(ovKey("o"))
		}
		out := plain(a)
		if !strings.Contains(out, "sort: "+w.sort+" ·") || firstRow(a) != w.first {
			t.Errorf("after %d o: want sort %q with %s first, got %q first:\n%s", i, w.sort, w.first, firstRow(a), out)
		}
	}
}

// / matches status words too (model.ViewGroups), and the prompt says so.
func TestOverviewFilterByStatus(t *testing.T) {
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, &watched{}, 120, 40)
	a.Update(ovKey("/"))
	if out := plain(a); !strings.Contains(out, "group id, state, status or type") {
		t.Errorf("the filter prompt does not say it matches statuses:\n%s", out)
	}
	for _, k := range "lagging" {
		a.Update(ovKey(string(k)))
	}
	a.Update(ovKey("enter"))
	out := plain(a)
	if !strings.Contains(out, "Groups 1 of 7") || firstRow(a) != "order-workers" || !strings.Contains(out, `filter "lagging"`) {
		t.Errorf("/lagging does not list only the lagging group:\n%s", out)
	}
}

// MAX LAG AGE says the group's oldest lag's age in model.Age's words, "-"
// when no age is known; TOTAL LAG counted partly from the log start reads
// 60*, and the title carries the group view's footnote while such a row
// shows, and not otherwise.
func TestOverviewLagAgeAndFromStart(t *testing.T) {
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, &watched{}, 120, 40)
	out := plain(a)
	for id, want := range map[string][]string{
		"billing-reconciliation-nightly": {" 98,765 20,011 " + model.Age(3*time.Hour+12*time.Minute) + " "},
		"order-workers":                  {" 1,234 800 " + model.Age(124*time.Second) + " "},
		"invoice-export":                 {" 60* 20 " + model.Age(40*time.Second)},
		"audit":                          {" 40 12 " + model.Age(800*time.Millisecond) + " "},
		"kip848-group":                   {" 7 - "},
	} {
		row := strings.Join(strings.Fields(rowOf(out, id)), " ") + " "
		for _, w := range want {
			if !strings.Contains(row, w) {
				t.Errorf("row of %s %q lacks %q", id, row, w)
			}
		}
	}
	if !strings.Contains(out, "MAX LAG AGE") || !strings.Contains(out, model.LagFromStartNote) {
		t.Errorf("no MAX LAG AGE column or no %q legend:\n%s", model.LagFromStartNote, out)
	}
	// The group view says the same words for its 20*.
	g := stableApp(t, false, 120, 40)
	if gout := plain(g); !strings.Contains(gout, "*") || !strings.Contains(gout, model.LagFromStartNote) {
		t.Errorf("the group view's legend is not %q:\n%s", model.LagFromStartNote, gout)
	}

	gs := overviewGroups()[:2] // billing and order-workers: all committed
	a, _ = overviewApp(t, &fakeOverview{results: []overviewResult{{groups: gs}}}, &watched{}, 120, 40)
	if out := plain(a); strings.Contains(out, "no commit") || strings.Contains(out, "*") {
		t.Errorf("the footnote shows with no row marked:\n%s", out)
	}
}

// STATUS is as wide as its longest word whatever the rows say: a group
// turning LAGGING does not move a column.
func TestOverviewStatusColumnHoldsStill(t *testing.T) {
	ok := okGroups(3)
	lagging := okGroups(3)
	lagging[1].Status = model.StatusLagging
	header := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, " GROUP ") {
				return l
			}
		}
		return ""
	}
	for _, sz := range [][2]int{{120, 40}, {80, 24}, {40, 10}} {
		src := &fakeOverview{results: []overviewResult{{groups: ok}, {groups: lagging}}}
		a, clk := overviewApp(t, src, &watched{}, sz[0], sz[1])
		before := header(plain(a))
		clk.Set(t0.Add(2500 * time.Millisecond))
		feedOverview(t, a, a.overview.pollNow())
		after := plain(a)
		if !strings.Contains(after, "▴ LAGGING") {
			t.Fatalf("%dx%d: the second poll is not shown:\n%s", sz[0], sz[1], after)
		}
		if header(after) != before {
			t.Errorf("%dx%d: the columns moved when a group turned LAGGING:\n%q\n%q", sz[0], sz[1], before, header(after))
		}
	}
}

// STATUS is painted as the partition table paints it (Styles.statusPaint).
func TestOverviewStatusPaintedAsTable(t *testing.T) {
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, &watched{}, 120, 40)
	a.Update(ovKey("j")) // the stopped group's row styled, not selected
	out := a.View().Content
	for _, st := range []model.Status{model.StatusStopped, model.StatusOK} {
		want := a.styles.statusPaint(st).Render(cell(st.Label(), statusWidth, false))
		if !strings.Contains(out, want) {
			t.Errorf("the %s cell is not painted as the table paints it: want %q in\n%q", st, want, out)
		}
	}
}

// The bar says how long the oldest unprocessed record has waited, on the
// partition table's scale: lag in flight draws one cell whatever its size,
// an hour fills it, equal ages draw equal bars; with no age known it
// counts lag decades, drawn ▒. The worst group (model.GroupWorse) is
// marked ◀; a calm cluster (all OK, lag in flight) marks none. Wide
// enough, the header is the table's ruler.
func TestOverviewBarByLagAge(t *testing.T) {
	gs := []model.GroupSummary{
		{ID: "huge-in-flight", State: model.StateStable, Members: 1, TotalLag: 5_000_000, MaxLag: 5_000_000, MaxLagAge: time.Second, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "small-old", State: model.StateStable, Members: 1, TotalLag: 3, MaxLag: 3, MaxLagAge: 2 * time.Hour, MaxLagAgeKnown: true, Status: model.StatusStalled},
		{ID: "big-2m", State: model.StateStable, Members: 1, TotalLag: 90_000, MaxLag: 90_000, MaxLagAge: 2 * time.Minute, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "tiny-2m", State: model.StateStable, Members: 1, TotalLag: 2, MaxLag: 2, MaxLagAge: 2 * time.Minute, MaxLagAgeKnown: true, Status: model.StatusOK},
		{ID: "age-unknown", State: model.StateStable, Members: 1, TotalLag: 10_000, MaxLag: 10_000, Status: model.StatusOK},
	}
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: gs}}}, &watched{}, 200, 20)
	a.Update(ovKey("j"))
	out := plain(a)
	cells := func(id string) (full, byLag int, marked bool) {
		row := rowOf(out, id)
		return strings.Count(row, glyphBarFull), strings.Count(row, glyphBarByLag), strings.HasSuffix(strings.TrimRight(row, " "), glyphWorst)
	}
	inFlight, _, m1 := cells("huge-in-flight")
	old, _, m2 := cells("small-old")
	big, _, m3 := cells("big-2m")
	tiny, _, _ := cells("tiny-2m")
	_, unknown, _ := cells("age-unknown")
	if inFlight != 1 || big != tiny || big <= inFlight || old <= big || unknown == 0 {
		t.Errorf("bars: in flight %d, 2h %d, 2m %d and %d, age unknown %d ▒:\n%s", inFlight, old, big, tiny, unknown, out)
	}
	if !m2 || m1 || m3 {
		t.Errorf("◀ is not on the stalled group alone:\n%s", out)
	}
	for _, w := range []string{"bar: lag age", "◀ worst", "▒ age unknown: bar by lag", "≤5s", "30s", "10m", "1h"} {
		if !strings.Contains(out, w) {
			t.Errorf("the overview lacks %q:\n%s", w, out)
		}
	}

	calm := okGroups(5)
	a, _ = overviewApp(t, &fakeOverview{results: []overviewResult{{groups: calm}}}, &watched{}, 120, 40)
	for _, l := range strings.Split(plain(a), "\n")[2:] {
		if strings.Contains(l, glyphWorst) {
			t.Errorf("a calm cluster marks a group: %q", l)
		}
	}
}

// BenchmarkOverview1000 is one poll of 1,000 groups reaching the screen:
// sorted, filtered (none), the worst found, the visible rows rendered at
// 120x40.
func BenchmarkOverview1000(b *testing.B) {
	gs := make([]model.GroupSummary, 1000)
	sts := model.Statuses()
	for i := range gs {
		gs[i] = model.GroupSummary{ID: fmt.Sprintf("group-%04d", i), State: model.StateStable, Members: 3, Partitions: 6, Committed: 6,
			TotalLag: int64(i * 37 % 5000), MaxLag: int64(i * 11 % 900), MaxLagAge: time.Duration(i%600) * time.Second, MaxLagAgeKnown: i%7 != 0,
			LagFromStart: i%13 == 0, Status: sts[i%len(sts)]}
	}
	src := &fakeOverview{batched: true, results: []overviewResult{{groups: gs}}}
	clk := testutil.NewClock(t0)
	a := NewOverview(src, nil, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Update(a.Init()())
	b.ReportAllocs()
	for b.Loop() {
		a.overview.groups = gs // a poll's answer: refresh is what Update does with it
		a.overview.refresh()
		_ = a.View()
	}
}

// / matches the TYPE shown on screen; with l on too, an empty result says
// both; typed control, format and bidi characters never reach the title
// or the line (they are dropped as typed).
func TestOverviewFilterTypeAndHostileInput(t *testing.T) {
	gs := overviewGroups()
	for i := range gs {
		gs[i].Type = model.TypeClassic
		if gs[i].ID == "audit" {
			gs[i].Type = model.TypeShare
		}
	}
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: gs}}}, &watched{}, 120, 40)
	a.Update(ovKey("/"))
	for _, k := range "share" {
		a.Update(ovKey(string(k)))
	}
	a.Update(ovKey("enter"))
	if out := plain(a); firstRow(a) != "audit" || !strings.Contains(out, "Groups 1 of 7") {
		t.Errorf("/share does not list the share group:\n%s", out)
	}
	a.Update(ovKey("esc"))
	a.Update(ovKey("l"))
	a.Update(ovKey("/"))
	a.Update(tea.KeyPressMsg{Text: "zz\x1b]0;PWNED\x07\u202e\u009b31m"})
	a.Update(ovKey("enter"))
	raw := a.View().Content
	for _, bad := range []string{"\x1b]0;PWNED", "\x07", "\u202e", "\u009b"} {
		if strings.Contains(raw, bad) {
			t.Errorf("typed %q reached the screen", bad)
		}
	}
	if out := plain(a); !strings.Contains(out, `no group with lag matches "zz]0;PWNED31m" (esc clears the filter, l shows all)`) {
		t.Errorf("the empty result does not say the filter and l:\n%s", out)
	}
}

// In the lanes, where the filter does not apply (esc clear filter is not
// offered), esc goes back to the overview even with a filter applied: it
// was taken by the page and did nothing.
func TestEscBackFromLanesWithAFilter(t *testing.T) {
	wg := &watched{}
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, wg, 120, 40)
	_, cmd := a.Update(ovKey("enter"))
	a.Update(cmd())
	for _, k := range []string{"/", "p", "a", "y", "enter", "v"} {
		a.Update(ovKey(k))
	}
	if a.group == nil || !a.group.showLanes || a.group.rows.query == "" {
		t.Fatal("not in the lanes with a filter applied")
	}
	a.Update(ovKey("esc"))
	if a.group != nil {
		t.Fatal("esc in the lanes with a filter applied did not go back to the overview")
	}
}

// The overview's REBAL/10m column shows the groups' rebalance counts once
// some group in view has one (blank for those whose count is unknown),
// gives way first on a narrow screen, and o sorts by it.
func TestOverviewRebalanceColumn(t *testing.T) {
	gs := overviewGroups()
	for i := range gs {
		switch gs[i].ID {
		case "order-workers":
			gs[i].Rebalances, gs[i].RebalancesKnown = 12, true
		case "audit":
			gs[i].Rebalances, gs[i].RebalancesKnown = 31, true
		}
	}
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: gs}}}, &watched{}, 120, 40)
	out := plain(a)
	if !strings.Contains(out, "REBAL") || !strings.Contains(rowOf(out, "audit"), " 31 ") || !strings.Contains(rowOf(out, "order-workers"), " 12 ") {
		t.Errorf("no REBAL column with audit's 31 and order-workers' 12:\n%s", out)
	}
	for range 2 { // lag age, rebalances
		a.Update(ovKey("o"))
	}
	if out := plain(a); !strings.Contains(out, "sort: rebalances") || firstRow(a) != "audit" {
		t.Errorf("sort by rebalances: first %q:\n%s", firstRow(a), out)
	}
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if out := plain(a); strings.Contains(out, "REBAL") {
		t.Errorf("at 80x24 REBAL/10m should give way first:\n%s", out)
	}
}

// The overview's filter takes a paste too, at the cursor.
func TestOverviewFilterPaste(t *testing.T) {
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, &watched{}, 120, 40)
	a.Update(ovKey("/"))
	a.Update(ovKey("g"))
	a.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	a.Update(tea.PasteMsg{Content: "laggin"})
	a.Update(ovKey("enter"))
	if out := plain(a); !strings.Contains(out, "Groups 1 of 7") || firstRow(a) != "order-workers" || !strings.Contains(out, `filter "lagging"`) {
		t.Errorf("g, home, pasted laggin: not only the lagging group:\n%s", out)
	}
}

// TestOverviewDefaultViewSharesThePipelinesRows: in the default view (by
// status, nothing filtered) the pane shows the pipeline's groups as they
// are, not a sorted copy of them each poll; groups judged in another
// order (a recording's) are still shown sorted, and a filter or another
// sort still gets its own rows.
func TestOverviewDefaultViewSharesThePipelinesRows(t *testing.T) {
	gs := overviewGroups()
	a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: gs}}}, &watched{}, 120, 40)
	o := a.overview
	if len(o.pane.rows) != len(gs) || &o.pane.rows[0] != &o.groups[0] {
		t.Fatalf("default view: the pane's rows are a copy of the page's %d groups", len(o.groups))
	}
	press(t, a, "o") // another sort: its own rows
	if &o.pane.rows[0] == &o.groups[0] {
		t.Fatal("sorted by another key, the pane shares the pipeline's rows")
	}
	for o.sort != model.GroupsByStatus {
		press(t, a, "o")
	}
	if o.sort != model.GroupsByStatus || &o.pane.rows[0] != &o.groups[0] {
		t.Fatalf("back to %v: the pane's rows are a copy", o.sort)
	}

	// Judged in reverse: shown sorted all the same.
	rev := slices.Clone(gs)
	slices.Reverse(rev)
	a, _ = overviewApp(t, &fakeOverview{results: []overviewResult{{groups: rev}}}, &watched{}, 120, 40)
	o = a.overview
	for i := range gs {
		if o.pane.rows[i].ID != gs[i].ID {
			t.Fatalf("row %d is %s, want %s (sorted by status)", i, o.pane.rows[i].ID, gs[i].ID)
		}
	}
}
