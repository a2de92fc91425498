package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// Right after n the group rebalances and the worst row (p2) shows its last owner,
// dimmed: X kills that owner rather than refusing the row as ownerless.
func TestDemoKeysActOnTheOwnerTheRowShows(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		clk := testutil.NewClock(t0)
		src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}, {snap: rebalancingSnapshot()}}}
		fd := newFakeDemo()
		a := demoApp(t, src, fd, clk, sz[0], sz[1])
		clk.Set(t0.Add(time.Second))
		runImmediate(t, a, a.group.pollNow())
		p, ok := a.group.table.Selected()
		if !ok || p.Owned() || p.PrevOwner != "consumer-b" {
			t.Fatalf("%dx%d: selected row %+v, want an unowned one last owned by consumer-b (the worst row, first)", sz[0], sz[1], p)
		}
		out := plain(a)
		checkFits(t, out, sz[0], sz[1])
		if !strings.Contains(out, "X kills consumer-b (order-rebalancing/p2's last owner)") {
			t.Errorf("%dx%d: the target line does not name the row's last owner:\n%s", sz[0], sz[1], out)
		}
		press(t, a, "X")
		if calls := fd.Calls(); len(calls) != 1 || calls[0] != "Kill consumer-b" {
			t.Fatalf("%dx%d: demo calls %q, want [Kill consumer-b]", sz[0], sz[1], calls)
		}
		if out := plain(a); strings.Contains(out, "has no owner") || !strings.Contains(out, "consumer-b killed") {
			t.Errorf("%dx%d: X on the dimmed owner's row did not kill it:\n%s", sz[0], sz[1], out)
		}
	}
}

// The consumer-protocol demo says where the session timeout and the
// heartbeats live: on the broker, with its values; the classic one keeps
// "session timeout 10s", the consumers' own.
func TestConsumerProtocolDemoNamesTheBrokersTimeouts(t *testing.T) {
	set := testDemoSettings
	set.BrokerHeartbeat = 700 * time.Millisecond
	for _, sz := range []struct {
		w, h int
		want string
	}{
		{120, 40, "on the broker: group.consumer.session.timeout.ms 10s · group.consumer.heartbeat.interval.ms 700ms"},
		{80, 24, "broker: session timeout 10s · heartbeat 700ms"},
	} {
		clk := testutil.NewClock(t0)
		fd := newFakeDemo()
		a := New(Watch{Group: "order-workers", Source: &fakeSource{results: []pollResult{{snap: reconcilingSnapshot()}}}, Demo: fd, DemoSettings: set},
			Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now})
		a.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		runImmediate(t, a, a.Init())
		out := plain(a)
		checkFits(t, out, sz.w, sz.h)
		if !strings.Contains(out, sz.want) || strings.Contains(out, "· session timeout 10s") {
			t.Errorf("%dx%d: the ledger does not put the session timeout on the broker (want %q):\n%s", sz.w, sz.h, sz.want, out)
		}
		focusMembers(t, a)
		press(t, a, "X")
		if out := plain(a); !strings.Contains(out, "the broker evicts it after 10s") {
			t.Errorf("%dx%d: X does not say the broker evicts:\n%s", sz.w, sz.h, out)
		}
	}
	// The classic demo: the consumers' session timeout, as before.
	a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, newFakeDemo(), testutil.NewClock(t0), 120, 40)
	if out := plain(a); !strings.Contains(out, "session timeout 10s") || strings.Contains(out, "group.consumer") {
		t.Errorf("classic demo: want the consumers' session timeout, no broker config:\n%s", out)
	}
}

// Orders an outside member processed read as processed outside the demo,
// never as lost.
func TestLedgerShowsOrdersProcessedOutside(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		fd := newFakeDemo()
		fd.ledger = model.Ledger{Produced: 1234, Processed: 1200, Outside: 30, InFlight: 4}
		a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, testutil.NewClock(t0), sz[0], sz[1])
		out := plain(a)
		checkFits(t, out, sz[0], sz[1])
		want := map[int]string{120: "processed 1,200 · outside the demo 30", 80: "outside 30"}[sz[0]]
		if !strings.Contains(out, want) || strings.Contains(out, "✗ lost") {
			t.Errorf("%dx%d: want %q in the ledger, nothing lost:\n%s", sz[0], sz[1], want, out)
		}
	}
}
