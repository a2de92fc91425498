package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// R (rolling restart) and P (poison order) are in the help in demo mode,
// and neither in the help nor answering outside it.
func TestRollingAndPoisonKeysInDemoHelpOnly(t *testing.T) {
	for _, demo := range []bool{false, true} {
		a := stableApp(t, demo, 120, 40)
		if !demo {
			for _, k := range []string{"R", "P"} {
				if _, cmd := a.Update(keyPress(k)); cmd != nil {
					if msg := cmd(); msg != nil {
						t.Errorf("%s outside demo mode produced %T", k, msg)
					}
				}
			}
		}
		a.Update(keyPress("?"))
		help := plain(a)
		for _, want := range []string{"R restart all", "P poison"} {
			if got := strings.Contains(help, want); got != demo {
				t.Errorf("demo=%v: help shows %q: %v, want %v:\n%s", demo, want, got, demo, help)
			}
		}
	}
}

// While a rolling restart runs the ledger's second line says which
// consumer of how many, and the group is polled fast throughout; a stuck
// poison order is named there, and its owner's note counts the failures.
// R and P answer on the line under the ledger.
func TestRollingAndPoisonOnScreen(t *testing.T) {
	clk := testutil.NewClock(t0)
	fd := newFakeDemo()
	fd.rolling = model.DemoRollingRestart{Of: 2, Done: 1, Current: "consumer-b"}
	tp := model.TopicPartition{Topic: "orders", Partition: 1}
	fd.poison = model.DemoPoisonOrder{OrderID: "poison-000001", Partition: tp, Offset: 41}
	fd.consumers[0].PoisonTries, fd.consumers[0].PoisonPartition, fd.consumers[0].PoisonOffset = 12, tp, 41
	a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, 120, 40)
	focusMembers(t, a)
	out := plain(a)
	for _, want := range []string{"↻ rolling restart 2/2: consumer-b", "⊗ poison-000001 stuck at p1 offset 41 (P skips it)",
		"⊗ poison at p1 offset 41 · failed 12 times"} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	if !a.group.demo.fastPoll(t0.Add(10 * time.Minute)) {
		t.Error("not polling fast while the rolling restart runs")
	}
	press(t, a, "R")
	if out := plain(a); !strings.Contains(out, "rolling restart of 2 consumers: each restarted in turn") {
		t.Errorf("R: no answer under the ledger:\n%s", out)
	}
	press(t, a, "P")
	if out := plain(a); !strings.Contains(out, "poison-000001 on p1 at offset 41: its owner cannot process it") {
		t.Errorf("P: no answer under the ledger:\n%s", out)
	}
	press(t, a, "P")
	if out := plain(a); !strings.Contains(out, "poison-000001 skipped, as to a dead-letter topic") {
		t.Errorf("P again: no answer under the ledger:\n%s", out)
	}
}
