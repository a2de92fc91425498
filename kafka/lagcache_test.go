package kafka

import (
	"context"
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
		*w.lag.slot(tp) = lagSlot{s: stamp{offset: 5, ts: ts.Add(time.Duration(i) * time.Second)}, has: true}
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
