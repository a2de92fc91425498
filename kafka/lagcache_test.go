package kafka

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// TestLagCacheKeepsStrayPartitionNumbers: the group poll's lag-age cache
// indexes partitions by number, so a broker naming partition -1 or
// 2,000,000,000 (in its metadata and commits) must neither cost a slice of
// two billion slots nor lose the record: a record read stays read while
// its partition waits on the same offset, whatever the number, and the cache forgets a partition
// once a poll no longer wants it. No broker is asked: every record wanted
// is in the cache, or has no leader in the metadata.
func TestLagCacheKeepsStrayPartitionNumbers(t *testing.T) {
	ts := time.Unix(1_700_000_000, 0)
	tps := []model.TopicPartition{{Topic: "t", Partition: -1}, {Topic: "t", Partition: 2_000_000_000}, {Topic: "t", Partition: 3}, {Topic: "u", Partition: maxSlot}}
	var w Watcher
	for i, tp := range tps {
		*w.lag.slot(tp) = lagSlot{s: stamp{offset: 5, ts: ts.Add(time.Duration(i) * time.Second).UnixMilli()}, has: true}
		w.lag.held = append(w.lag.held, tp)
	}
	if n := len(w.lag.topics["t"]); n != 4 {
		t.Fatalf("topic t's slice holds %d slots, want 4 (partitions 0-3)", n)
	}
	if n := len(w.lag.other); n != 3 {
		t.Fatalf("%d partitions kept outside the slices, want 3", n)
	}
	poll := func(committed int64) model.Observation {
		var obs model.Observation
		for _, tp := range tps {
			obs.SetCommitted(tp, committed)
			obs.SetOffsets(tp, model.PartitionOffsets{LogStart: 0, LogEnd: 10})
		}
		w.lagStamps(context.Background(), &obs)
		return obs
	}
	obs := poll(5)
	for i, tp := range tps {
		p := obs.Find(tp)
		if want := ts.Add(time.Duration(i) * time.Second); p == nil || !p.HasOldestTimestamp || !p.OldestTimestamp.Equal(want) {
			t.Errorf("%v: oldest timestamp %+v, want %v from the cache", tp, p, want)
		}
	}
	// The commits move to the log end: no lag, nothing wanted; the
	// records are forgotten, and a later lag at offset 5 is not answered
	// from them.
	poll(10)
	for _, tp := range tps {
		if sl := w.lag.slot(tp); sl.has || sl.misses != 0 {
			t.Errorf("%v: still cached after a poll that did not want it: %+v", tp, sl)
		}
	}
	obs = poll(5)
	for _, tp := range tps {
		if p := obs.Find(tp); p == nil || p.HasOldestTimestamp {
			t.Errorf("%v: a forgotten record answered: %+v", tp, p)
		}
	}
}

// TestSlotsReserve: reserve grows a topic's slice to the partitions asked
// at once and keeps what the slots held, also through the slice slot
// looked up last; a cold poll's lag ages and log starts then fill their
// slots without growing them one partition at a time (50,000 partitions
// grown by append allocated five times their size).
func TestSlotsReserve(t *testing.T) {
	var c slots[int]
	*c.slot(model.TopicPartition{Topic: "t", Partition: 2}) = 7
	c.reserve("t", 1000)
	if n := len(c.topics["t"]); n != 1000 {
		t.Fatalf("reserved 1000, the slice holds %d", n)
	}
	if v := *c.slot(model.TopicPartition{Topic: "t", Partition: 2}); v != 7 {
		t.Fatalf("partition 2 holds %d after reserve, want 7", v)
	}
	*c.slot(model.TopicPartition{Topic: "t", Partition: 999}) = 9
	if c.topics["t"][999] != 9 {
		t.Fatal("a slot written after reserve is not in the topic's slice")
	}
	c.reserve("t", 10) // smaller: nothing moves
	c.reserve("u", maxSlot+5)
	if n := len(c.topics["u"]); n != maxSlot {
		t.Fatalf("reserve past maxSlot holds %d slots, want %d", n, maxSlot)
	}
	if allocs := testing.AllocsPerRun(1, func() {
		for p := range int32(1000) {
			c.slot(model.TopicPartition{Topic: "t", Partition: p})
		}
	}); allocs != 0 {
		t.Fatalf("slots of reserved partitions allocated %.0f times", allocs)
	}

	// A cold lag-age pass over 5,000 lagging partitions whose records are
	// all cached but for none (no broker: none is read) grows the cache's
	// slice once.
	var w Watcher
	var obs model.Observation
	for p := range int32(5000) {
		tp := model.TopicPartition{Topic: "t", Partition: p}
		obs.SetCommitted(tp, 5)
		obs.SetOffsets(tp, model.PartitionOffsets{LogStart: 0, LogEnd: 10})
	}
	w.lagStamps(context.Background(), &obs)
	if n, c := len(w.lag.topics["t"]), cap(w.lag.topics["t"]); n != 5000 || c != 5000 {
		t.Fatalf("the lag cache's slice: %d slots in %d, want 5000 in 5000 (one allocation)", n, c)
	}
}

// lagStamps lists the owned partitions without a commit through a bit set
// in the observation's order; it wants what looking each member's
// partitions up in the observation wanted: random groups with partitions
// owned twice, numbers negative and past the slices, owned partitions the
// observation lacks, commits below the log start.
func TestLagStampsOwnedAsLookedUp(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type key = model.TopicPartition // wanted (the offset and log end follow from the observation)
	for trial := 0; trial < 100; trial++ {
		seed := r.Uint64()
		// make builds the trial's observation, the same each call.
		make := func() model.Observation {
			r := rand.New(rand.NewPCG(seed, 7))
			var obs model.Observation
			var all []model.TopicPartition
			for _, topic := range []string{"a", "b"} {
				n := 1 + r.IntN(300)
				for p := range int32(n) {
					all = append(all, model.TopicPartition{Topic: topic, Partition: p})
				}
			}
			all = append(all, model.TopicPartition{Topic: "a", Partition: -1}, model.TopicPartition{Topic: "b", Partition: maxSlot + 3})
			for _, tp := range all {
				if r.IntN(3) > 0 {
					obs.SetCommitted(tp, int64(r.IntN(8)))
				}
				if r.IntN(8) > 0 {
					obs.SetOffsets(tp, model.PartitionOffsets{LogStart: int64(r.IntN(3)), LogEnd: int64(r.IntN(10))})
				}
			}
			for m := 0; m < 3; m++ {
				var ps []model.TopicPartition
				for _, tp := range all {
					if r.IntN(3) == 0 {
						ps = append(ps, tp)
					}
				}
				ps = append(ps, model.TopicPartition{Topic: "c", Partition: 1}) // not in the observation
				r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
				obs.Members = append(obs.Members, model.Member{MemberID: "m", Partitions: ps})
			}
			return obs
		}
		obs := make()
		// The old way, on a copy: each member's partition looked up.
		ref := make()
		wantSet := map[key]bool{}
		want := func(tp model.TopicPartition, p *model.PartitionObservation, at int64, committed bool) {
			if p == nil || !p.HasOffsets || p.Offsets.Err != "" {
				return
			}
			if !committed {
				at = p.Offsets.LogStart
			}
			switch {
			case at >= p.Offsets.LogEnd:
				return
			case at < p.Offsets.LogStart:
				p.OldestGone = true
				return
			}
			wantSet[tp] = true
		}
		for tp, p := range ref.All() {
			if p.HasCommit {
				want(tp, p, p.Committed, true)
			}
		}
		for _, m := range ref.Members {
			for _, tp := range m.Partitions {
				if p := ref.Find(tp); p == nil || !p.HasCommit {
					want(tp, p, 0, false)
				}
			}
		}

		var w Watcher
		w.lagStamps(context.Background(), &obs)
		got := map[key]bool{}
		for _, tp := range w.lag.held { // what it wanted, kept past the poll
			got[tp] = true
		}
		if !reflect.DeepEqual(got, wantSet) {
			t.Fatalf("trial %d: wanted %d partitions, looking them up wanted %d", trial, len(got), len(wantSet))
		}
		for tp, p := range ref.All() {
			if q := obs.Find(tp); q == nil || q.OldestGone != p.OldestGone {
				t.Fatalf("trial %d: %v gone %v, looked up %v", trial, tp, q != nil && q.OldestGone, p.OldestGone)
			}
		}
	}
}
