package model

import (
	"fmt"
	"testing"
	"time"
)

// benchGroup is a group of n partitions over 3 topics and 30 members, as
// one poll would observe it.
func benchGroup(n int) Observation {
	o := Observation{
		Group: Group{ID: "big", State: StateStable},
	}
	for m := 0; m < 30; m++ {
		id := fmt.Sprintf("consumer-%02d", m)
		o.Members = append(o.Members, Member{MemberID: id + "-0000-1111", ClientID: id, Host: "/10.0.0.1"})
	}
	for i := 0; i < n; i++ {
		tp := TopicPartition{Topic: fmt.Sprintf("topic-%d", i%3), Partition: int32(i / 3)}
		o.SetCommitted(tp, int64(1000+i))
		o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: int64(2000 + i)})
		m := &o.Members[i%30]
		m.Partitions = append(m.Partitions, tp)
	}
	return o
}

// advance moves every partition on: log end +3, committed +2 (a third of
// the partitions do not commit, so they stall).
func advance(o *Observation, at time.Time) {
	o.TakenAt = at
	for tp, p := range o.All() {
		if !p.HasCommit {
			continue
		}
		if tp.Partition%3 != 0 {
			p.Committed += 2
		}
		p.Offsets.LogEnd += 3
	}
}

func BenchmarkNewSnapshot10k(b *testing.B) {
	o := benchGroup(10_000)
	o.TakenAt = ht0
	b.ReportAllocs()
	for b.Loop() {
		NewSnapshot(o)
	}
}

// BenchmarkBuildSnapshot10k is NewSnapshot10k as the live path builds
// snapshots: one SnapshotBuilder, its rows reused poll after poll, the
// observation moving on between builds.
func BenchmarkBuildSnapshot10k(b *testing.B) {
	o := benchGroup(10_000)
	var sb SnapshotBuilder
	at := ht0
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		sb.Build(&o)
	}
}

// BenchmarkAnnotate10k is the per-poll model cost of statuses, rates, ETA
// and events for 10,000 partitions, the snapshot already built.
func BenchmarkAnnotate10k(b *testing.B) {
	o := benchGroup(10_000)
	h := NewHistory(HistoryOptions{})
	const polls = 64
	snaps := make([]Snapshot, polls)
	for i := range snaps {
		advance(&o, ht0.Add(time.Duration(i)*time.Second))
		snaps[i] = NewSnapshot(o)
	}
	at := ht0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s := snaps[i%polls]
		if i%polls == 0 {
			h = NewHistory(HistoryOptions{}) // offsets restart: restart history too
		}
		s.TakenAt = at
		h.Annotate(&s)
		at = at.Add(250 * time.Millisecond)
		i++
	}
}

// BenchmarkPoll10k is NewSnapshot plus Annotate: what the watcher adds to
// every poll of a 10,000-partition group.
func BenchmarkPoll10k(b *testing.B) {
	o, next := benchPolls(b, 10_000)
	h := NewHistory(HistoryOptions{})
	for b.Loop() {
		next()
		b.StartTimer()
		s := NewSnapshot(*o)
		h.Annotate(&s)
	}
}

func BenchmarkSortPartitions10k(b *testing.B) {
	s := NewSnapshot(benchGroup(10_000))
	rows := make([]*PartitionLag, len(s.Partitions))
	b.ReportAllocs()
	for b.Loop() {
		for i := range s.Partitions {
			rows[i] = &s.Partitions[i]
		}
		SortPartitions(rows, SortByLag)
	}
}

func BenchmarkFilterPartitions10k(b *testing.B) {
	s := NewSnapshot(benchGroup(10_000))
	b.ReportAllocs()
	for b.Loop() {
		AppendFiltered(nil, s.Partitions, "CONSUMER-07", true)
	}
}
