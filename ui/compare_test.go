package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// compareSnap is one compared group at a poll: who owns p0–p2.
func compareSnap(group string, at time.Duration, state string, owners ...string) model.Snapshot {
	const topic = "order-rebalancing"
	obs := model.Observation{
		TakenAt: t0.Add(at),
		Brokers: testBrokers,
		Group: model.Group{ID: group, State: state, Type: model.TypeClassic, Assignor: "range",
			Cooperative: strings.HasSuffix(group, "coop")},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{},
		Offsets:   map[model.TopicPartition]model.PartitionOffsets{},
	})
	idx := map[string]int{}
	for p, o := range owners {
		t := tp(topic, int32(p))
		obs.SetCommitted(t, 100)
		obs.SetOffsets(t, model.PartitionOffsets{LogStart: 0, LogEnd: 101})
		if o == "" {
			continue
		}
		i, ok := idx[o]
		if !ok {
			i = len(obs.Members)
			idx[o] = i
			obs.Members = append(obs.Members, model.Member{MemberID: o + "-id", ClientID: o, Host: "/127.0.0.1"})
		}
		if state == model.StateStable {
			obs.Members[i].Partitions = append(obs.Members[i].Partitions, t)
		}
	}
	return model.NewSnapshot(obs)
}

// compareApp runs an eager and a cooperative group through the same
// scale-out: consumer-c joins at 20s. The eager group stops every
// partition for the rebalance, the cooperative one only the one that
// moves (p2, consumer-b → consumer-c).
func compareApp(t *testing.T, w, h int) (*App, *fakeDemo, *clock) {
	t.Helper()
	clk := testutil.NewClock(t0)
	var eager, coop []pollResult
	for s := time.Duration(0); s <= 40*time.Second; s += 2 * time.Second {
		switch {
		case s < 20*time.Second:
			eager = append(eager, pollResult{snap: compareSnap("order-workers-range", s, model.StateStable, "consumer-a", "consumer-a", "consumer-b")})
			coop = append(coop, pollResult{snap: compareSnap("order-workers-coop", s, model.StateStable, "consumer-a", "consumer-b", "consumer-b")})
		case s < 26*time.Second:
			eager = append(eager, pollResult{snap: compareSnap("order-workers-range", s, model.StatePreparingRebalance, "consumer-a", "consumer-b", "consumer-c")})
			// Cooperative: a rebalance to revoke p2 (the others kept), the
			// revoke phase's generation, then one to assign it.
			state, p2 := model.StatePreparingRebalance, "consumer-b"
			if s == 22*time.Second {
				state, p2 = model.StateStable, ""
			}
			coop = append(coop, pollResult{snap: compareSnap("order-workers-coop", s, state, "consumer-a", "consumer-b", p2)})
		default:
			eager = append(eager, pollResult{snap: compareSnap("order-workers-range", s, model.StateStable, "consumer-a", "consumer-b", "consumer-c")})
			coop = append(coop, pollResult{snap: compareSnap("order-workers-coop", s, model.StateStable, "consumer-a", "consumer-b", "consumer-c")})
		}
	}
	fd := newFakeDemo()
	fd.ledgers = map[string]model.Ledger{
		"order-workers-range": {Produced: 200, Processed: 199, InFlight: 1},
		"order-workers-coop":  {Produced: 200, Processed: 200},
	}
	srcE, srcC := &fakeSource{results: eager}, &fakeSource{results: coop}
	a := NewCompare([]CompareGroup{
		{Watch: Watch{Group: "order-workers-range", Source: srcE}, Label: "range (eager)"},
		{Watch: Watch{Group: "order-workers-coop", Source: srcC}, Label: "cooperative-sticky"},
	}, fd, testDemoSettings, nil, Options{Brokers: testBrokers, Interval: 2 * time.Second, Timeout: time.Second, Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	runImmediate(t, a, a.Init())
	for i := 1; i < len(eager); i++ {
		clk.Set(eager[i].snap.TakenAt)
		for _, p := range a.compare.pages {
			runImmediate(t, a, p.pollNow())
		}
	}
	clk.Set(clk.Now().Add(1500 * time.Millisecond))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, fd, clk
}

func TestCompareGolden(t *testing.T) {
	for _, sz := range [][2]int{{160, 50}, {120, 40}, {80, 24}, {40, 10}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			a, _, _ := compareApp(t, sz[0], sz[1])
			out := plain(a)
			checkFits(t, out, sz[0], sz[1])
			golden.RequireEqual(t, out)
		})
	}
}

// The eager group's rebalance stopped every partition, the cooperative
// one's only the partition that moved; each line says so.
func TestCompareShowsWhatEachRebalanceStopped(t *testing.T) {
	a, fd, _ := compareApp(t, 160, 50)
	out := plain(a)
	for _, want := range []string{
		// Eager: every partition stopped for the whole rebalance (3 × 6s);
		// cooperative: only p2, from its revoke to its assignment.
		"order-workers-range · range (eager) · ● Stable · rebalance 6.00s: stopped 3 partitions for 18.0s in all, longest 6.00s",
		"order-workers-coop · cooperative-sticky · ● Stable · rebalance 6.00s: stopped 1 partition for 4.00s in all, longest 4.00s",
		"processed 199", "processed 200",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare view lacks %q:\n%s", want, out)
		}
	}
	// One key, one action: the demo applies it to the same consumer in
	// every group; the keys name it and where.
	if !strings.Contains(out, "X kills consumer-a (owns p0 in order-workers-range; acts in every group)") {
		t.Errorf("the hint does not name the target in every group:\n%s", out)
	}
	press(t, a, "X")
	press(t, a, "n")
	if calls := fd.Calls(); len(calls) != 2 || calls[0] != "Kill consumer-a" || calls[1] != "Spawn" {
		t.Errorf("demo calls %q, want one kill of consumer-a and one spawn", calls)
	}
	// tab goes to the next group; q asks once.
	a.Update(keyPress("tab"))
	if a.compare.focus != 1 {
		t.Errorf("tab left the focus on group %d", a.compare.focus)
	}
	if _, cmd := a.Update(keyPress("q")); cmd != nil || !strings.Contains(plain(a), "press q or ctrl+c again to quit") {
		t.Errorf("q quit the compare demo at once:\n%s", plain(a))
	}
}

// A rebalance begun and ended between two polls, with no consumer's
// report to time it, is said to be one ("rebalance between polls"), not
// "rebalance ?" (eager: every partition stopped, the moved one and the two kept).
func TestCompareSaysARebalanceBetweenPolls(t *testing.T) {
	clk := testutil.NewClock(t0)
	var moved, still []pollResult
	for s := time.Duration(0); s <= 6*time.Second; s += 2 * time.Second {
		owners := []string{"consumer-a", "consumer-a", "consumer-b"}
		if s >= 4*time.Second {
			owners = []string{"consumer-a", "consumer-b", "consumer-b"}
		}
		moved = append(moved, pollResult{snap: compareSnap("order-workers-range", s, model.StateStable, owners...)})
		still = append(still, pollResult{snap: compareSnap("order-workers-coop", s, model.StateStable, "consumer-a", "consumer-b", "consumer-b")})
	}
	a := NewCompare([]CompareGroup{
		{Watch: Watch{Group: "order-workers-range", Source: &fakeSource{results: moved}}, Label: "range (eager)"},
		{Watch: Watch{Group: "order-workers-coop", Source: &fakeSource{results: still}}, Label: "cooperative-sticky"},
	}, newFakeDemo(), testDemoSettings, nil, Options{Brokers: testBrokers, Interval: 2 * time.Second, Timeout: time.Second, Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	runImmediate(t, a, a.Init())
	for i := 1; i < len(moved); i++ {
		clk.Set(moved[i].snap.TakenAt)
		for _, p := range a.compare.pages {
			runImmediate(t, a, p.pollNow())
		}
	}
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	out := plain(a)
	if !strings.Contains(out, "order-workers-range · range (eager) · ● Stable · rebalance between polls: 3 partitions stopped") || strings.Contains(out, "rebalance ?") {
		t.Errorf("the rebalance between polls is not said:\n%s", out)
	}
}

// On an 80x24 projector, three groups: each group's line with its
// rebalance cost and its lanes, the ledger, the line naming what X hits
// and the key help all show; the legends and blank lines give way first.
func TestCompareThreeGroupsAt80x24(t *testing.T) {
	clk := testutil.NewClock(t0)
	groups := []string{"order-workers-range", "order-workers-coop", "order-workers-848"}
	results := make([][]pollResult, len(groups))
	for s := time.Duration(0); s <= 10*time.Second; s += 2 * time.Second {
		for i, g := range groups {
			state, owners := model.StateStable, []string{"consumer-a", "consumer-a", "consumer-b"}
			switch {
			case s == 4*time.Second:
				state = model.StatePreparingRebalance
			case s > 4*time.Second:
				owners = []string{"consumer-a", "consumer-b", "consumer-b"}
			}
			results[i] = append(results[i], pollResult{snap: compareSnap(g, s, state, owners...)})
		}
	}
	var cgs []CompareGroup
	for i, g := range groups {
		cgs = append(cgs, CompareGroup{Watch: Watch{Group: g, Source: &fakeSource{results: results[i]}}, Label: [...]string{"range (eager)", "cooperative-sticky", "KIP-848 uniform"}[i]})
	}
	fd := newFakeDemo()
	a := NewCompare(cgs, fd, testDemoSettings, nil, Options{Brokers: testBrokers, Interval: 2 * time.Second, Timeout: time.Second, Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	runImmediate(t, a, a.Init())
	for i := 1; i < len(results[0]); i++ {
		clk.Set(results[0][i].snap.TakenAt)
		for _, p := range a.compare.pages {
			runImmediate(t, a, p.pollNow())
		}
	}
	a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	out := plain(a)
	checkFits(t, out, 80, 24)
	for _, want := range []string{
		"■ order-workers-range · range (eager) · stop 6.00s in all, max 2.00s",
		"□ order-workers-coop · cooperative-sticky · stop 2.00s in all, max 2.00s",
		"□ order-workers-848 · KIP-848 uniform · stop 6.00s in all, max 2.00s",
		"◆ Ledger",
		"X kills consumer-a (owns p0 in order-workers-range",
		"q quit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("80x24 compare view lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, " p2 "); n != 3 {
		t.Errorf("%d p2 lanes, want one per group:\n%s", n, out)
	}
}
