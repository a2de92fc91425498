package ui

import (
	"strings"
	"testing"
	"time"

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
