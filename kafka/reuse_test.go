package kafka

import (
	"context"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// TestReusedSnapshotsKeepTheirRule polls a group whose commits move
// between polls with a watcher that reuses rows: the snapshot a page
// shows is read on another goroutine while the next polls run (-race
// sees a write into it), stays as returned for model.KeptSnapshots more
// polls, and the polls after that do reuse its rows.
func TestReusedSnapshotsKeepTheirRule(t *testing.T) {
	tc := newTestCluster(t, false)
	tc.createTopic(t, "orders", 4)
	for p := range 4 {
		tc.produce(t, "orders", p, 50, time.Now())
	}
	commitAt := func(off int64) {
		tc.commit(t, "reusers", "orders", map[int]int64{0: off, 1: off, 2: off, 3: off})
	}
	commitAt(1)
	w := newTestWatcher(t, tc, "reusers")
	w.ReuseSnapshots()
	poll := func() model.Snapshot {
		t.Helper()
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	kept := poll()
	if len(kept.Partitions) != 4 || kept.TotalLag != 4*49 {
		t.Fatalf("first poll: %d rows, lag %d", len(kept.Partitions), kept.TotalLag)
	}
	want := slices.Clone(kept.Partitions)
	var wg sync.WaitGroup
	var seen int64
	wg.Go(func() { // the page, rendering what it shows
		for range 50 {
			for _, r := range kept.Partitions {
				seen += r.Committed
			}
		}
	})
	var later []model.Snapshot
	for i := range model.KeptSnapshots {
		commitAt(int64(2 + i))
		later = append(later, poll())
	}
	wg.Wait()
	if seen == 0 || !reflect.DeepEqual(kept.Partitions, want) {
		t.Fatalf("the kept snapshot changed within %d polls:\n%+v\nwant\n%+v", model.KeptSnapshots, kept.Partitions, want)
	}
	if c := later[len(later)-1].Partitions[0].Committed; c != int64(1+model.KeptSnapshots) {
		t.Fatalf("last poll committed %d, want %d", c, 1+model.KeptSnapshots)
	}
	commitAt(10)
	if next := poll(); &next.Partitions[0] != &kept.Partitions[0] || next.Partitions[0].Committed != 10 {
		t.Errorf("poll %d did not reuse the first poll's rows (committed %d)", model.KeptSnapshots+2, next.Partitions[0].Committed)
	}
}
