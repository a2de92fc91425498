package model

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// Reserve makes room for a topic's partitions once: the Parts filling
// them in order then allocate nothing, and what the observation holds is
// what it holds without Reserve.
func TestReserveMakesRoomOnce(t *testing.T) {
	var with, without Observation
	with.Reserve("orders", 5000)
	with.Reserve("orders", 10) // smaller: nothing moves
	with.Reserve("orders", 0)
	with.Reserve("huge", maxDense+1) // past the dense range: nothing
	fill := func(o *Observation) {
		for p := range int32(5000) {
			o.SetCommitted(TopicPartition{Topic: "orders", Partition: p}, int64(p))
		}
	}
	if allocs := testing.AllocsPerRun(1, func() { fill(&with) }); allocs != 0 {
		t.Fatalf("filling 5,000 reserved partitions allocated %.0f times", allocs)
	}
	fill(&without)
	if len(with.Topics) != 1 || !reflect.DeepEqual(with.Topics[0].Partitions, without.Topics[0].Partitions) {
		t.Fatalf("Reserve changed what the observation holds: %d topics", len(with.Topics))
	}
	if _, ok := with.topicIndex("huge"); ok {
		t.Fatal("a reserve past the dense range added its topic")
	}
}

// A cold snapshot of a large group grows its entries and the tracker's
// kept log ends once, not by append: a fresh builder over 20,000
// partitions makes a bounded number of allocations, whatever the size.
func TestColdSnapshotGrowsOnce(t *testing.T) {
	counts := map[int]float64{}
	for _, n := range []int{2_000, 20_000} {
		o := benchGroup(n)
		o.TakenAt = ht0
		counts[n] = testing.AllocsPerRun(3, func() {
			var sb SnapshotBuilder
			s := sb.Build(&o)
			var l lastEnds
			l.keep(s.Partitions)
		})
	}
	if counts[20_000] > counts[2_000] {
		t.Fatalf("a cold snapshot of 20,000 partitions allocates %.0f times, of 2,000 %.0f: something grows by append", counts[20_000], counts[2_000])
	}
}

// A OnePoll pipeline (--once) keeps no lanes, and judges its poll as any
// pipeline judges its first: the same snapshot, the same events.
func TestOnePollPipelineKeepsNoLanes(t *testing.T) {
	o := benchGroup(300)
	o.TakenAt = ht0
	opts := PipelineOptions{Group: "big"}
	one := opts
	one.OnePoll = true
	a, b := NewSnapshot(o), NewSnapshot(o)
	full, lite := NewPipeline(opts), NewPipeline(one)
	ea, eb := full.Observe(&a), lite.Observe(&b)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ea, eb) {
		t.Fatalf("OnePoll judged its poll otherwise:\n%+v\n%+v", ea, eb)
	}
	if lite.Lanes() != nil || full.Lanes() == nil {
		t.Fatal("OnePoll keeps lanes, or the full pipeline none")
	}
	if ev := lite.Failed(ht0.Add(time.Second), errors.New("broker gone")); len(ev) == 0 {
		t.Fatal("a failed poll gives no event without lanes")
	}
}
