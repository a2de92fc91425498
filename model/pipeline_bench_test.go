package model

import (
	"testing"
	"time"
	"unsafe"
)

// BenchmarkPipelineObserve10k is the model's per-poll cost after
// NewSnapshot in the steady state: a 10,000-partition group at a 250 ms
// interval, past its first minute (a third of its partitions STALLED, the
// rings full, every partition's offsets moving), fed to Pipeline.Observe
// (Annotate, lanes, timeline diff, deploys). The snapshots are built with
// the timer stopped.
func BenchmarkPipelineObserve10k(b *testing.B) { benchPipeline(b, advance) }

// BenchmarkPipelineObserve10kCaughtUp is BenchmarkPipelineObserve10k for
// a group that keeps up: every partition's commit follows its log end,
// so there is no lag to judge.
func BenchmarkPipelineObserve10kCaughtUp(b *testing.B) {
	benchPipeline(b, func(o *Observation, at time.Time) {
		o.TakenAt = at
		for _, p := range o.All() {
			if p.HasCommit {
				p.Offsets.LogEnd += 3
				p.Committed = p.Offsets.LogEnd
			}
		}
	})
}

func benchPipeline(b *testing.B, advance func(*Observation, time.Time)) {
	o := benchGroup(10_000)
	p := NewPipeline(PipelineOptions{Group: "big", Interval: 250 * time.Millisecond})
	at := ht0
	for range 4 * 60 { // a minute of polls: stalls declared, rings full
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		s := NewSnapshot(o)
		p.Observe(&s)
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

// historyBytesPerPartition is what History keeps per partition: its key
// and its state, which holds its ring of samples.
func historyBytesPerPartition() uintptr {
	return unsafe.Sizeof(TopicPartition{}) + unsafe.Sizeof(partState{})
}
