package model

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// bigSnapshot is a Stable group reading 10,000 partitions of one topic with
// the given number of members, range-assigned.
func bigSnapshot(members int) Snapshot {
	const partitions = 10_000
	o := Observation{
		TakenAt: tl0,
		Group:   Group{ID: "big", State: StateStable, Assignor: "range"},
	}
	per := (partitions + members - 1) / members
	for i := range members {
		m := Member{MemberID: fmt.Sprintf("consumer-%02d-0a1b2c3d", i), ClientID: fmt.Sprintf("consumer-%02d", i), Host: "/10.0.0.1"}
		for p := i * per; p < min((i+1)*per, partitions); p++ {
			m.Partitions = append(m.Partitions, TopicPartition{Topic: "orders", Partition: int32(p)})
		}
		o.Members = append(o.Members, m)
	}
	for p := range int32(partitions) {
		tp := TopicPartition{Topic: "orders", Partition: p}
		o.SetCommitted(tp, 100)
		o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 200})
	}
	return NewSnapshot(o)
}

// BenchmarkTrackerObserve10k is the per-poll cost for a 10,000-partition
// group that does not change: the common case.
func BenchmarkTrackerObserve10k(b *testing.B) {
	s := bigSnapshot(10)
	tr := NewTracker("big", 0)
	tr.Observe(s)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		s.TakenAt = tl0.Add(time.Duration(i) * time.Second)
		if evs := tr.Observe(s); len(evs) != 0 {
			b.Fatalf("unchanged snapshot gave %d events", len(evs))
		}
	}
}

// BenchmarkTrackerObserve10kRebalance alternates between 10 and 11
// members, so every poll is an inferred rebalance that moves thousands of
// partitions: the worst case.
func BenchmarkTrackerObserve10kRebalance(b *testing.B) {
	snaps := []Snapshot{bigSnapshot(10), bigSnapshot(11)}
	tr := NewTracker("big", 0)
	tr.Observe(snaps[0])
	b.ReportAllocs()
	i, events := 0, 0
	for b.Loop() {
		i++
		s := snaps[i%2]
		s.TakenAt = tl0.Add(time.Duration(i) * time.Second)
		events += len(tr.Observe(s))
	}
	b.ReportMetric(float64(events)/float64(i), "events/op")
}

// BenchmarkTimeline100k pushes 100,000 events through a 1,000-event ring
// and reports the live heap afterwards.
func BenchmarkTimeline100k(b *testing.B) {
	var heap uint64
	for b.Loop() {
		tl := NewTimeline(1000)
		for i := range 100_000 {
			tl.Add(Event{Time: tl0.Add(time.Duration(i) * time.Millisecond), Type: EventPartitionMoved, Group: "g",
				Partitions: []TopicPartition{{Topic: "orders", Partition: int32(i % 64)}},
				From:       "consumer-a", To: "consumer-b", Detail: "p1: consumer-a → consumer-b"})
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapAlloc
		runtime.KeepAlive(tl)
		b.StartTimer()
	}
	b.ReportMetric(float64(heap), "heap-bytes")
}
