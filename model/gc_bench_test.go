package model

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkCollectHistory100k times one full collection with a group
// view's pipeline state of 100,000 partitions live (its History, Lanes,
// timeline and the snapshot it shows): the work a collection marks, which
// the heap budget makes happen every few seconds at that size.
func BenchmarkCollectHistory100k(b *testing.B) {
	o := benchGroup(100_000)
	p := NewPipeline(PipelineOptions{Group: "big"})
	var sb SnapshotBuilder
	at := ht0
	var s Snapshot
	for range 3 {
		at = at.Add(time.Second)
		advance(&o, at)
		s = sb.Build(&o)
		p.Observe(&s)
	}
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	b.StopTimer()
	runtime.KeepAlive(p)
	runtime.KeepAlive(&s)
}
