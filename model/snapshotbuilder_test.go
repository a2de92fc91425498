package model

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// deepCopy copies what a SnapshotBuilder could reuse of s, and what s
// refers to, so a later change to s's storage shows.
func deepCopy(s Snapshot) Snapshot {
	s.Partitions = slices.Clone(s.Partitions)
	s.Members = slices.Clone(s.Members)
	for i := range s.Members {
		s.Members[i].Partitions = slices.Clone(s.Members[i].Partitions)
	}
	return s
}

// TestSnapshotBuilderKeepsWhatTheRuleKeeps: the builder builds each
// snapshot in the rows of the last (one set of rows), a Clone stays as
// built after any number of builds, and a build gives what NewSnapshot
// gives.
func TestSnapshotBuilderKeepsWhatTheRuleKeeps(t *testing.T) {
	o := benchGroup(300)
	o.TakenAt = ht0
	var b SnapshotBuilder
	kept := b.Build(&o)
	want := deepCopy(kept)
	clone := kept.Clone()
	for i := range 3 {
		advance(&o, ht0.Add(time.Duration(i+1)*time.Second))
		next := b.Build(&o)
		if &next.Partitions[0] != &kept.Partitions[0] {
			t.Fatalf("build %d did not reuse the rows", i+2)
		}
		if !reflect.DeepEqual(clone, want) {
			t.Fatalf("after %d more builds the clone changed", i+1)
		}
		if fresh := NewSnapshot(o); !reflect.DeepEqual(next, fresh) {
			t.Fatalf("builder and NewSnapshot differ:\n%+v\n%+v", next.Partitions[:2], fresh.Partitions[:2])
		}
	}
}

// TestPartSlotsInAnyOrder: an answer naming its partitions in any order
// (a map's) keeps them indexed by number; numbers no topic has (negative,
// far past the rest) are kept too, sorted, without a slot per number in
// between.
func TestPartSlotsInAnyOrder(t *testing.T) {
	var o Observation
	for _, p := range []int32{4999, 0, 17, 2500, 4998, 1} {
		o.SetCommitted(TopicPartition{"t", p}, int64(p))
	}
	ps := o.Topics[0].Partitions
	if len(ps) != 5000 || ps[4999].Partition != 4999 || ps[2500].Committed != 2500 || !ps[17].HasCommit || ps[16].HasCommit {
		t.Fatalf("slots: %d, want 5000 indexed by number", len(ps))
	}
	o.SetCommitted(TopicPartition{"t", 2_000_000_000}, 1)
	o.SetCommitted(TopicPartition{"t", -3}, 2)
	ps = o.Topics[0].Partitions
	if len(ps) != 5002 || ps[0].Partition != -3 || ps[5001].Partition != 2_000_000_000 {
		t.Fatalf("slots: %d, first %d, last %d", len(ps), ps[0].Partition, ps[len(ps)-1].Partition)
	}
	for _, p := range []int32{-3, 0, 1, 17, 4999, 2_000_000_000} {
		if f := o.Find(TopicPartition{"t", p}); f == nil || !f.HasCommit || f.Partition != p {
			t.Errorf("partition %d not found", p)
		}
	}
	if o.Find(TopicPartition{"t", 5000}) != nil || o.Find(TopicPartition{"u", 0}) != nil {
		t.Error("found a partition never put in")
	}
	n := 0
	for range o.All() {
		n++
	}
	if n != 8 {
		t.Errorf("All yields %d partitions, want the 8 put in", n)
	}
}

// TestPartSlotsOfALargeTopicInAnyOrder: a topic of 100,000 partitions
// whose answer names a high partition first (OffsetFetch answers in no
// order) is kept indexed by number from the start, not by insertion,
// which made a poll of it quadratic (30 s).
func TestPartSlotsOfALargeTopicInAnyOrder(t *testing.T) {
	const n = 100_000
	var o Observation
	o.SetCommitted(TopicPartition{"t", n - 1}, n-1)
	if got := len(o.Topics[0].Partitions); got != n {
		t.Fatalf("after partition %d: %d slots, want %d indexed by number", n-1, got, n)
	}
	for _, p := range rand.Perm(n - 1) {
		o.SetCommitted(TopicPartition{"t", int32(p)}, int64(p))
	}
	for p, s := range o.Topics[0].Partitions {
		if s.Partition != int32(p) || !s.HasCommit || s.Committed != int64(p) {
			t.Fatalf("slot %d holds partition %d (commit %v %d)", p, s.Partition, s.HasCommit, s.Committed)
		}
	}
}
