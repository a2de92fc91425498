package ui

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The UI's own work, without the pipeline's: a poll handed to the panes
// (rows filtered and ordered, members, header, layout), and one frame.
// The pipeline's share is BenchmarkApply10kSortFilter minus BenchmarkShow10k.

// cpuTime is the CPU time the process has used: on a shared machine the
// benchmarks' wall-clock ns/op count the other processes' time too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs op b.N times and reports its CPU time per op (ms), each op
// being n of what the benchmark measures.
func loop(b *testing.B, n int, op func()) {
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N*n)/1e6, "cpu-ms/op")
}

// benchShow takes one n-partition poll the pipeline has already observed,
// sorted by lag age, only lag on, filtered to a third of the rows.
func benchShow(b *testing.B, n int) {
	a, _ := buildState(b, []pollResult{{snap: bigSnapshot(n)}}, 120, 40)
	typeKeys(a, "o", "l", "/", "events-1", "enter")
	snap := a.group.st.Snap
	loop(b, 1, func() {
		a.group.showSnapshot(snap, false)
		a.group.relayout()
	})
}

func BenchmarkShow10k(b *testing.B)  { benchShow(b, 10_000) }
func BenchmarkShow100k(b *testing.B) { benchShow(b, 100_000) }

// BenchmarkApply100kSortFilter is BenchmarkApply10kSortFilter at 100,000
// partitions: pipeline and UI.
func BenchmarkApply100kSortFilter(b *testing.B) {
	a, _ := buildState(b, []pollResult{{snap: bigSnapshot(100_000)}}, 120, 40)
	typeKeys(a, "o", "l", "/", "events-1", "enter")
	snap := bigSnapshot(100_000)
	loop(b, 1, func() {
		a.group.applySnapshot(snap)
		a.group.relayout()
	})
}

// BenchmarkView100k renders one frame of a 100,000-partition group, the
// table rendered anew (as after a poll or a key that moved it).
func BenchmarkView100k(b *testing.B) {
	a, _ := buildState(b, []pollResult{{snap: bigSnapshot(100_000)}}, 120, 40)
	a.Update(keyPress("pgdown"))
	loop(b, 1, func() {
		a.group.table.frame = tableFrame{}
		_ = a.View()
	})
}

// BenchmarkTick100k takes a message that changes nothing on screen but
// the clock (a poll in flight's once-a-second tick) at 100,000
// partitions, and renders the frame: layout, header, the table's last
// frame.
func BenchmarkTick100k(b *testing.B) {
	a, _ := buildState(b, []pollResult{{snap: bigSnapshot(100_000)}}, 120, 40)
	a.Update(keyPress("pgdown"))
	loop(b, 1, func() {
		a.Update(staleTick(a))
		_ = a.View()
	})
}

// BenchmarkKey100k answers one key at 100,000 partitions, as the program
// does: Update, then View (cpu-ms/op is per key). The keys cycle, so each finds the table as the
// one before left it: the cursor moving, a page down and back up, to the
// end and home, the sort key changing (a new order), the only-lag
// toggle, a letter typed into the filter and the filter applied.
func BenchmarkKey100k(b *testing.B) {
	for _, k := range []struct {
		name string
		keys []tea.Msg
	}{
		{"j", []tea.Msg{keyPress("j")}},
		{"pgdown_pgup", []tea.Msg{keyPress("pgdown"), keyPress("pgup")}},
		{"end_home", []tea.Msg{keyPress("end"), keyPress("home")}},
		{"sort", []tea.Msg{keyPress("o")}},
		{"only_lag", []tea.Msg{keyPress("l")}},
		{"filter_typing", []tea.Msg{keyPress("e")}},
		{"filter_apply", []tea.Msg{keyPress("/"), keyPress("1"), tea.KeyPressMsg{Code: tea.KeyEnter}}},
	} {
		b.Run(k.name, func(b *testing.B) {
			a, _ := buildState(b, []pollResult{{snap: bigSnapshot(100_000)}}, 120, 40)
			a.Update(keyPress("j"))
			if k.name == "filter_typing" {
				typeKeys(a, "/")
			}
			loop(b, len(k.keys), func() {
				for _, m := range k.keys {
					a.Update(m)
					_ = a.View()
				}
			})
			if k.name == "filter_typing" && len(a.group.rows.draft()) < 1 {
				b.Fatal(fmt.Sprintf("the filter took no key: %q", a.group.rows.draft()))
			}
		})
	}
}
