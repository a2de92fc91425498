package model

import (
	"testing"
	"time"
	"unsafe"
)

// BenchmarkPipelineObserve10k is the model's per-poll cost after
// NewSnapshot in the steady state: a 10,000-partition group at a 250 ms
// interval, past its first minute (a third of its partitions STALLED, the
// rings full), fed to Pipeline.Observe (Annotate, lanes, timeline diff,
// deploys). The snapshots are built with the timer stopped.
func BenchmarkPipelineObserve10k(b *testing.B) {
	o := benchGroup(10_000)
	p := NewPipeline(PipelineOptions{Group: "big", Interval: 250 * time.Millisecond})
	at := ht0
	poll := func() []Event {
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		s := NewSnapshot(o)
		return p.Observe(&s)
	}
	for range 4 * 60 { // a minute of polls: stalls declared, rings full
		poll()
	}
	events := 0
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		s := NewSnapshot(o)
		b.StartTimer()
		events += len(p.Observe(&s))
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
	b.ReportMetric(float64(historyBytesPerPartition()), "B/partition")
}

// historyBytesPerPartition is what History keeps per partition: its key,
// its state and the state's ring of samples.
func historyBytesPerPartition() uintptr {
	return unsafe.Sizeof(TopicPartition{}) + unsafe.Sizeof(partState{})
}
