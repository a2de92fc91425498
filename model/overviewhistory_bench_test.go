package model

import (
	"fmt"
	"testing"
	"time"
)

// benchOverview is a poll of 1,000 groups on one 6-partition topic, every
// group committed with lag (the records' times read), at t0+at.
func benchOverview(at time.Duration, groups int) *OverviewObservation {
	o := &OverviewObservation{TakenAt: ht0.Add(at), Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
	end := int64(1000 + at/time.Millisecond)
	for p := int32(0); p < 6; p++ {
		tp := TopicPartition{Topic: "orders", Partition: p}
		o.Offsets[tp] = PartitionOffsets{LogStart: NoOffset, LogEnd: end}
	}
	for i := 0; i < groups; i++ {
		g := OverviewGroup{Summary: GroupSummary{ID: fmt.Sprintf("group-%04d", i), State: StateStable, Type: TypeClassic, Members: 2},
			Parts: make([]OverviewPart, 0, 6)}
		for p := int32(0); p < 6; p++ {
			tp := TopicPartition{Topic: "orders", Partition: p}
			c := end - int64(i%50)
			g.Parts = append(g.Parts, OverviewPart{TopicPartition: tp, Committed: c, HasCommit: true, Assigned: true, Owned: true})
			o.Records[RecordAt{tp, c}] = RecordStamp{Time: ht0}
		}
		o.Groups = append(o.Groups, g)
	}
	return o
}

// benchWarm measures one poll of 1,000 groups of 6 partitions through
// observe, warmed by four polls.
func benchWarm(b *testing.B, observe func(*OverviewObservation) []GroupSummary) {
	benchWarmN(b, 1000, observe)
}

// benchWarmN is benchWarm with n groups.
func benchWarmN(b *testing.B, n int, observe func(*OverviewObservation) []GroupSummary) {
	polls := make([]*OverviewObservation, 8)
	for i := range polls {
		polls[i] = benchOverview(time.Duration(i)*time.Second, n)
	}
	for _, o := range polls[:4] {
		observe(o)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o := polls[i%len(polls)]
		o.TakenAt = ht0.Add(time.Duration(10+i) * time.Second)
		if gs := observe(o); len(gs) != n {
			b.Fatal(len(gs))
		}
	}
}

// BenchmarkOverviewObserve1000 is one poll through a warm
// OverviewHistory.
func BenchmarkOverviewObserve1000(b *testing.B) {
	benchWarm(b, NewOverviewHistory(HistoryOptions{}).Observe)
}

// BenchmarkOverviewObserve5000 is one poll of 5,000 groups (30,000
// partition tracks, more than a cache holds) through a warm
// OverviewHistory.
func BenchmarkOverviewObserve5000(b *testing.B) {
	benchWarmN(b, 5000, NewOverviewHistory(HistoryOptions{}).Observe)
}

// BenchmarkOverviewObserveCold1000 is the first poll (--once).
func BenchmarkOverviewObserveCold1000(b *testing.B) {
	o := benchOverview(0, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if gs := NewOverviewHistory(HistoryOptions{}).Observe(o); len(gs) != 1000 {
			b.Fatal(len(gs))
		}
	}
}

// BenchmarkOverviewPipeline1000 is one poll through a warm
// OverviewPipeline: judged and sorted, as the overview page takes each
// poll.
func BenchmarkOverviewPipeline1000(b *testing.B) {
	benchWarm(b, NewOverviewPipeline(OverviewPipelineOptions{}).Observe)
}

// BenchmarkOverviewOldestRecords5000 is what a poll of 5,000 groups (6
// partitions each, all but one in 50 lagging) asks of the records before
// it is judged: the records their lag ages need, once each (294).
func BenchmarkOverviewOldestRecords5000(b *testing.B) {
	o := benchOverview(time.Second, 5000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ats := o.OldestRecords(); len(ats) != 294 {
			b.Fatal(len(ats))
		}
	}
}

// One group of n partitions over 10 topics, owned by m members, every commit
// moving each poll (so every partition has its own cadence).
func ownedOverviewPoll(at time.Duration, n, m int) *OverviewObservation {
	o := &OverviewObservation{TakenAt: ht0.Add(at), Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
	end := int64(1000 + 10*at/time.Second)
	g := OverviewGroup{Summary: GroupSummary{ID: "big", State: StateStable, Type: TypeClassic, Members: m}}
	for i := 0; i < n; i++ {
		tp := TopicPartition{Topic: fmt.Sprintf("t%d", i%10), Partition: int32(i / 10)}
		o.Offsets[tp] = PartitionOffsets{LogStart: 0, LogEnd: end}
		g.Parts = append(g.Parts, OverviewPart{TopicPartition: tp, Committed: end - 5, HasCommit: true},
			OverviewPart{TopicPartition: tp, Owner: fmt.Sprintf("member-%05d", i%m), Assigned: true, Owned: true})
		o.Records[RecordAt{tp, end - 5}] = RecordStamp{Time: ht0.Add(at - time.Second)}
	}
	g.Parts = OverviewParts(g.Parts)
	o.Groups = []OverviewGroup{g}
	return o
}

func benchOwnedOverview(b *testing.B, n, m int) {
	h := NewOverviewHistory(HistoryOptions{})
	polls := make([]*OverviewObservation, 4)
	for i := range polls {
		polls[i] = ownedOverviewPoll(time.Duration(i)*time.Second, n, m)
	}
	i := 0
	poll := func() {
		o := polls[i%4]
		o.TakenAt = ht0.Add(time.Duration(i) * time.Second)
		h.Observe(o)
		i++
	}
	for range 6 {
		poll()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		poll()
	}
}

// BenchmarkOverviewOwned* are one group whose rows name their owners (the
// owner cadences a handover reads: a search of 2,000 owners a row cost
// 25 ms a poll, 10,000 owners 228 ms, before the entries were hinted and
// hashed).
func BenchmarkOverviewOwned20kParts20Members(b *testing.B)   { benchOwnedOverview(b, 20000, 20) }
func BenchmarkOverviewOwned20kParts2000Members(b *testing.B) { benchOwnedOverview(b, 20000, 2000) }
func BenchmarkOverviewOwned100kParts10kMembers(b *testing.B) { benchOwnedOverview(b, 100000, 10000) }
