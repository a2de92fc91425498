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
	o := benchGroup(10_000)
	var sb SnapshotBuilder
	h := NewHistory(HistoryOptions{})
	tr := NewTracker("big", 1000)
	at := ht0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		b.StartTimer()
		s := sb.Build(&o)
		h.Annotate(&s)
		tr.Observe(s)
	}
}

// BenchmarkLanesObserve10k times Lanes.Observe on a steady group of
// 10,000 partitions: the owners are those of the last poll, so nothing is
// recorded and the cost is the walk over the snapshot's rows.
func BenchmarkLanesObserve10k(b *testing.B) {
	o := benchGroup(10_000)
	var sb SnapshotBuilder
	l := NewLanes(0)
	at := ht0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		s := sb.Build(&o)
		b.StartTimer()
		l.Observe(s)
	}
}
