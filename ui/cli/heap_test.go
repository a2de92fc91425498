package cli

import (
	"fmt"
	"runtime/debug"
	"testing"
	"time"
)

const mb = 1 << 20

// TestGCPercent: heaps under the headroom keep Go's default; larger ones
// grow by the headroom, or by HeadroomSeconds of allocation when that is
// more; never by less than a quarter of themselves.
func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		live, rate uint64
		want       int
	}{
		{0, 0, 100},
		{22 * mb, 7 * mb, 100},     // 10,000 partitions at 250 ms
		{30 * mb, 10 * mb, 100},    // 5,000 groups
		{32 * mb, 1 * mb, 100},     // at the headroom
		{64 * mb, 1 * mb, 50},      // twice it
		{170 * mb, 17 * mb, 25},    // 100,000 partitions at 1 s: a quarter
		{170 * mb, 50 * mb, 58},    // allocating fast: 2 s of it
		{170 * mb, 100 * mb, 100},  // faster still: GOGC=100 is the most
		{1024 * mb, 16 * mb, 25},   // far past it: a quarter
		{1024 * mb, 200 * mb, 39},  // unless it allocates 2 s of more
		{1 << 40, 0, minGCPercent}, // no overflow
	} {
		if got := GCPercent(c.live, c.rate); got != c.want {
			t.Errorf("GCPercent(%d MB live, %d MB/s) = %d, want %d", c.live/mb, c.rate/mb, got, c.want)
		}
	}
}

// TestHeapBudgetFollowsTheHeap reads a heap on a simulated clock, at
// several reading intervals, as it grows from small to large, holds,
// bursts and shrinks: GOGC stays 100 while the heap is small, reaches
// GCPercent of the large heap and the steady rate, is not set again
// while the heap breathes by a few percent, is back within 30 readings
// of a burst of allocation, and is back at 100 once the heap is small
// again.
func TestHeapBudgetFollowsTheHeap(t *testing.T) {
	for _, every := range []time.Duration{500 * time.Millisecond, time.Second, 3 * time.Second} {
		t.Run(every.String(), func(t *testing.T) {
			var b heapBudget
			at := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
			var allocs uint64
			sets := 0
			percent := 100
			step := func(live, rate uint64) {
				at = at.Add(every)
				allocs += uint64(float64(rate) * every.Seconds())
				if p, ok := b.observe(at, live, allocs); ok {
					sets++
					percent = p
				}
			}
			for range 20 {
				step(22*mb, 7*mb)
			}
			if percent != 100 || sets != 0 {
				t.Fatalf("small heap: GOGC %d after %d sets, want 100 and none", percent, sets)
			}
			for range 40 {
				step(170*mb, 16*mb)
			}
			want := GCPercent(170*mb, 16*mb)
			if d := percent - want; d > 5 || d < -5 {
				t.Fatalf("large heap: GOGC %d, want %d±5", percent, want)
			}
			sets = 0
			for i := range 40 { // breathing by 3%
				step(uint64(165+10*(i%2))*mb, 16*mb)
			}
			if sets != 0 {
				t.Fatalf("a heap breathing by 3%% set GOGC %d times", sets)
			}
			at = at.Add(every)
			allocs += 400 * mb // one burst: the heap may grow more for it
			if p, ok := b.observe(at, 170*mb, allocs); ok {
				percent = p
			}
			for range 30 {
				step(170*mb, 16*mb)
			}
			if d := percent - want; d > 5 || d < -5 {
				t.Fatalf("30 readings after a burst: GOGC %d, want back at %d±5", percent, want)
			}
			for range 40 {
				step(20*mb, 5*mb)
			}
			if percent != 100 {
				t.Fatalf("small again: GOGC %d, want 100", percent)
			}
		})
	}
}

// TestHeapBudgetLeavesUsersSettings: with GOGC or GOMEMLIMIT set, the
// collector is the user's.
func TestHeapBudgetLeavesUsersSettings(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			if !budgeted() {
				t.Fatal("neither set: not budgeted")
			}
			t.Setenv(env, fmt.Sprint(map[string]string{"GOGC": "200", "GOMEMLIMIT": "1GiB"}[env]))
			if budgeted() {
				t.Fatalf("%s set: budgeted", env)
			}
			HeapBudget()() // starts nothing, stops
		})
	}
}

// budgetedAt readies a test of the budget: neither GOGC nor GOMEMLIMIT
// set, GOGC at percent, put back as it was when the test ends.
func budgetedAt(t *testing.T, percent int) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	was := debug.SetGCPercent(percent)
	t.Cleanup(func() { debug.SetGCPercent(was) })
}

// TestHeapBudgetStopPutsGOGCBack: stop waits for the budget's last
// reading and puts back the GOGC there was, whether it came before the
// first reading or after some, and may be called twice.
func TestHeapBudgetStopPutsGOGCBack(t *testing.T) {
	budgetedAt(t, 137)
	for _, wait := range []time.Duration{0, 3 * budgetEvery / 2} {
		stop := HeapBudget()
		time.Sleep(wait) // readings or none: the result is the same
		stop()
		stop()
		if got := debug.SetGCPercent(137); got != 137 {
			t.Fatalf("stopped after %s: GOGC %d, want the 137 there was", wait, got)
		}
	}
}

// TestHeapBudgetsStartedTogether: two budgets stopped in either order
// leave the GOGC there was before the first.
func TestHeapBudgetsStartedTogether(t *testing.T) {
	budgetedAt(t, 137)
	for _, firstStopsFirst := range []bool{true, false} {
		a, b := HeapBudget(), HeapBudget()
		if firstStopsFirst {
			a()
			b()
		} else {
			b()
			a()
		}
		if got := debug.SetGCPercent(137); got != 137 {
			t.Fatalf("first stops first %v: GOGC %d, want the 137 there was", firstStopsFirst, got)
		}
	}
}
