package model

import (
	"testing"
	"time"
)

// BenchmarkUpdate10k is the whole model side of one poll of a
// 10,000-partition group at a 250 ms interval: NewSnapshot (lag), Annotate
// (statuses, rates, ETA, sparkline) and Tracker.Observe (timeline diff).
func BenchmarkUpdate10k(b *testing.B) {
	o := benchGroup(10_000)
	h := NewHistory(HistoryOptions{})
	tr := NewTracker("big", 1000)
	at := ht0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		b.StartTimer()
		s := NewSnapshot(o)
		h.Annotate(&s)
		tr.Observe(s)
	}
}
