package kafka

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// TestObserveBuildsAsPoll polls a group whose commits move between polls
// as the TUI's page does: the watcher observes, and the page builds each
// snapshot later, on its own goroutine, in the rows of the last one
// (model.SnapshotBuilder). An observation must stay as read until the
// next Observe (built then, it is the snapshot built at once), each
// build reuses the rows, and each shows its own poll's commits.
func TestObserveBuildsAsPoll(t *testing.T) {
	tc := newTestCluster(t, false)
	tc.createTopic(t, "orders", 4)
	for p := range 4 {
		tc.produce(t, "orders", p, 50, time.Now())
	}
	w := newTestWatcher(t, tc, "reusers")
	var b model.SnapshotBuilder
	var first *model.PartitionLag
	for i := range 4 {
		off := int64(1 + i)
		tc.commit(t, "reusers", "orders", map[int]int64{0: off, 1: off, 2: off, 3: off})
		obs, err := w.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if obs.CompletedAt.Before(obs.TakenAt) {
			t.Fatalf("poll %d completed at %v, before it began at %v", i, obs.CompletedAt, obs.TakenAt)
		}
		want := model.NewSnapshot(obs)
		done := make(chan model.Snapshot)
		go func() { done <- b.Build(&obs) }() // the page's goroutine
		got := <-done
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("poll %d built later differs:\n got %+v\nwant %+v", i, got, want)
		}
		if got.TotalLag != 4*(50-off) || got.CompletedAt != obs.CompletedAt {
			t.Fatalf("poll %d: lag %d completed %v, want %d and %v", i, got.TotalLag, got.CompletedAt, 4*(50-off), obs.CompletedAt)
		}
		if first == nil {
			first = &got.Partitions[0]
		} else if &got.Partitions[0] != first {
			t.Fatalf("poll %d did not reuse the first poll's rows", i)
		}
	}
}
