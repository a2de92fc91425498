package model

import (
	"testing"
	"time"
)

// BenchmarkUpdate10k is the whole model side of one poll of a
// 10,000-partition group at a 250 ms interval: NewSnapshot (lag), Annotate
// (statuses, rates, ETA, sparkline) and Tracker.Observe (timeline diff).
// The snapshots are built as the TUI's watcher builds them, by one
// SnapshotBuilder reusing their rows.
func BenchmarkUpdate10k(b *testing.B) {
	o, next := benchPolls(b, 10_000)
	var sb SnapshotBuilder
	h := NewHistory(HistoryOptions{})
	tr := NewTracker("big", 1000)
	for b.Loop() {
		next()
		b.StartTimer()
		s := sb.Build(o)
		h.Annotate(&s)
		tr.Observe(s)
	}
}

// BenchmarkLanesObserve10k times Lanes.Observe on a steady group of
// 10,000 partitions: the owners are those of the last poll, so nothing is
// recorded and the cost is the walk over the snapshot's rows.
func BenchmarkLanesObserve10k(b *testing.B) {
	o, next := benchPolls(b, 10_000)
	var sb SnapshotBuilder
	l := NewLanes(0)
	for b.Loop() {
		next()
		s := sb.Build(o)
		b.StartTimer()
		l.Observe(s)
	}
}

// benchPolls returns a group of n partitions and next, which moves it on
// by one 250 ms poll with the timer stopped: the caller starts it again.
func benchPolls(b *testing.B, n int) (*Observation, func()) {
	o := benchGroup(n)
	at := ht0
	b.ReportAllocs()
	return &o, func() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
	}
}
