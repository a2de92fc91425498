package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// orderRows is n rows whose lags take few values (ties everywhere, broken
// by topic and partition), in the layout a snapshot has, then sorted,
// reversed or shuffled.
func orderRows(r *rand.Rand, n int, layout string) []*model.PartitionLag {
	rows := make([]model.PartitionLag, n)
	for i := range rows {
		rows[i] = model.PartitionLag{TopicPartition: tp(fmt.Sprintf("t%d", i%3), int32(i/3)), Lag: int64(r.IntN(5))}
	}
	ptrs := rowPtrs(rows)
	cmp := model.ComparePartitions(model.SortByLag)
	switch layout {
	case "sorted":
		slices.SortFunc(ptrs, cmp)
	case "reversed":
		slices.SortFunc(ptrs, func(a, b *model.PartitionLag) int { return cmp(b, a) })
	case "shuffled":
		r.Shuffle(n, func(i, j int) { ptrs[i], ptrs[j] = ptrs[j], ptrs[i] })
	}
	return ptrs
}

// Whatever ranges are asked for, in whatever order, the rows asked for are
// the rows a full sort puts there, and the placed range keeps its
// invariant.
func TestOrderPlacesWhatASortPlaces(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 19))
		n := []int{0, 1, 5, 17, 200, 3000, 12000}[seed%7]
		layout := []string{"as made", "sorted", "reversed", "shuffled"}[seed%4]
		rows := orderRows(r, n, layout)
		cmp := model.ComparePartitions(model.SortByLag)
		want := slices.Clone(rows)
		slices.SortFunc(want, cmp)
		o := &order{}
		o.reset(rows, cmp)
		for range 30 {
			a := r.IntN(n + 1)
			b := min(n, a+r.IntN(60))
			switch r.IntN(5) {
			case 0: // next to the placed rows
				a = max(0, o.hi-r.IntN(3))
				b = min(n, a+r.IntN(60))
			case 1: // far from both ends (introselect, not a heap)
				a = n/3 + r.IntN(n/3+1)
				b = min(n, a+r.IntN(60))
			}
			o.place(a, b)
			for i := a; i < b; i++ {
				if rows[i] != want[i] {
					t.Fatalf("seed %d n %d %s: place(%d, %d): row %d is %v, a sort puts %v there", seed, n, layout, a, b, i, rows[i].TopicPartition, want[i].TopicPartition)
				}
			}
			if a < b && (o.lo > a || o.hi < b) {
				t.Fatalf("seed %d: place(%d, %d) left [%d, %d) placed", seed, a, b, o.lo, o.hi)
			}
			for i := o.lo; i < o.hi; i++ {
				if rows[i] != want[i] {
					t.Fatalf("seed %d: row %d of the placed [%d, %d) is out of place", seed, i, o.lo, o.hi)
				}
			}
			checkSides(t, rows, want, o, cmp)
		}
		for range min(n, 20) {
			p := want[r.IntN(n)]
			if got := o.placeRow(slices.Index(rows, p)); want[got] != p || rows[got] != p {
				t.Fatalf("seed %d: placeRow of %v = %d, a sort puts it at %d", seed, p.TopicPartition, got, slices.Index(want, p))
			}
			checkSides(t, rows, want, o, cmp)
		}
	}
}

// checkSides fails unless every row outside o's placed range is on its
// side of it.
func checkSides(t *testing.T, rows, want []*model.PartitionLag, o *order, cmp func(a, b *model.PartitionLag) int) {
	t.Helper()
	if o.lo == o.hi {
		return
	}
	for i, p := range rows {
		if i < o.lo && cmp(p, want[o.lo]) >= 0 || i >= o.hi && cmp(p, want[o.hi-1]) <= 0 {
			t.Fatalf("row %d, %v, is on the wrong side of the placed [%d, %d)", i, p.TopicPartition, o.lo, o.hi)
		}
	}
}

// nextPoll is the poll after prev, at: a random part of the partitions
// produce and commit, some lose their commit (lag from the log start),
// some their owner, some ages grow, with few lag values so that ties are
// everywhere.
func nextPoll(r *rand.Rand, prev model.Snapshot, at time.Time) model.Snapshot {
	s := prev
	s.TakenAt, s.CompletedAt = at, at
	s.Partitions = slices.Clone(prev.Partitions)
	for i := range s.Partitions {
		p := &s.Partitions[i]
		switch r.IntN(12) {
		case 0:
			p.LogEnd += int64(r.IntN(4))
		case 1:
			p.Committed = min(p.LogEnd, p.Committed+int64(r.IntN(3)))
		case 2:
			p.LogEnd += 500
		case 3:
			p.MemberID, p.ClientID, p.Host, p.Owners = "", "", "", nil
		case 4:
			p.Committed, p.LagFromStart = model.NoOffset, true
		default:
			continue
		}
		if p.LagFromStart {
			p.Lag = p.LogEnd - p.LogStart
		} else {
			p.Lag = max(0, p.LogEnd-p.Committed)
		}
	}
	return s
}

// The table orders only the rows it shows and renders again only when what
// it shows changed, and the header sums a snapshot once; this drives them through random polls, sorts, filters and
// scrolling and clock ticks, beside a table that sorts every row and
// renders every frame (as it did before), and wants the same screen at
// every step.
func TestLazyOrderShowsWhatAFullSortShows(t *testing.T) {
	keys := []string{"j", "k", "j", "pgdown", "pgdown", "pgup", "end", "home", "o", "l", "tab", "tab", "G", "g"}
	filters := [][]string{{"/", "events-1", "enter"}, {"/", "worker-03", "enter"}, {"/", "lag", "enter"}, {"esc"}}
	sizes := [][2]int{{120, 40}, {80, 24}, {100, 60}}
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 1900))
		n := 1500 + r.IntN(2500)
		sz := sizes[seed%3]
		clk := testutil.NewClock(t0)
		snap := bigSnapshot(n)
		src := &fakeSource{results: []pollResult{{snap: snap}}}
		lazy, full := testApp(t, src, clk, sz[0], sz[1]), testApp(t, src, clk, sz[0], sz[1])
		full.group.rows.sortAll = true
		full.group.refreshRows()
		full.group.relayout()
		both := func(msg tea.Msg) {
			lazy.Update(msg)
			full.Update(msg)
		}
		var steps []string
		for step := range 120 {
			var what string
			switch k := r.IntN(12); {
			case k >= 10: // the clock moves on, nothing else: the frame may be the last
				clk.Set(clk.Now().Add(time.Duration(500+r.IntN(45_000)) * time.Millisecond))
				for _, a := range []*App{lazy, full} {
					a.Update(staleTick(a))
				}
				what = "tick"
			case k < 3:
				clk.Set(clk.Now().Add(time.Second))
				snap = nextPoll(r, snap, clk.Now())
				for _, a := range []*App{lazy, full} {
					a.group.poll.polling = true
					a.Update(answerOf(a, a.group.poll.seq, snap))
				}
				what = "poll"
			case k < 4:
				f := filters[r.IntN(len(filters))]
				for _, a := range []*App{lazy, full} {
					typeKeys(a, f...)
				}
				what = strings.Join(f, " ")
			default:
				what = keys[r.IntN(len(keys))]
				for range 1 + r.IntN(3) {
					both(keyPress(what))
				}
			}
			steps = append(steps, what)
			full.group.table.frame = tableFrame{} // rendered anew every time
			full.group.members.frame = membersFrame{}
			if got, want := plain(lazy), plain(full); got != want {
				t.Fatalf("seed %d, %d partitions, %dx%d, step %d after %v: the lazily sorted table shows\n%s\nwhere a full sort shows\n%s",
					seed, n, sz[0], sz[1], step, steps, got, want)
			}
			// The header sums each snapshot once: what it shows is what
			// a header that sums it now shows.
			h := lazy.group.header
			st := lazy.group.st
			st.snapSeq = 0
			h.SetState(st)
			if got, want := lazy.group.headerText, h.View(); got != want {
				t.Fatalf("seed %d step %d after %v: the header shows\n%s\nwhere one summing this poll shows\n%s", seed, step, steps, got, want)
			}
			if a, b := lazy.group.table, full.group.table; a.sc != b.sc {
				t.Fatalf("seed %d step %d after %v: cursor and window %+v, a full sort's %+v", seed, step, steps, a.sc, b.sc)
			}
		}
	}
}
