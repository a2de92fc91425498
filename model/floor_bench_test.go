package model

import (
	"testing"
	"time"
)

// BenchmarkFloorBuild10k is a floor for BenchmarkUpdate10k: one walk of a
// 10,000-partition observation that only copies each partition's offsets
// into its row (reused, as SnapshotBuilder does) and computes the lag. No
// design of the poll can touch less: the observation must be read and
// the rows written.
func BenchmarkFloorBuild10k(b *testing.B) {
	o := benchGroup(10_000)
	var rows [2][]PartitionLag
	for k := range rows {
		rows[k] = make([]PartitionLag, 10_000)
	}
	at := ht0
	b.ReportAllocs()
	next := 0
	for b.Loop() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		b.StartTimer()
		floorBuild(&o, rows[next])
		next ^= 1
	}
}

// BenchmarkFloorUpdate10k adds to BenchmarkFloorBuild10k the one walk the
// history needs at least: each row read again beside its partition's
// state, a few of both written (no verdict, no rates).
func BenchmarkFloorUpdate10k(b *testing.B) {
	o := benchGroup(10_000)
	var rows [2][]PartitionLag
	for k := range rows {
		rows[k] = make([]PartitionLag, 10_000)
	}
	states := make([]partState, 10_000)
	at := ht0
	b.ReportAllocs()
	next := 0
	for b.Loop() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		b.StartTimer()
		rs := rows[next]
		floorBuild(&o, rs)
		now := at.UnixNano()
		for i := range rs {
			p, st := &rs[i], &states[i]
			prev := st.hist.newest()
			if p.Committed != prev.committed {
				st.movedAt = now
			}
			st.hist.pushSpaced(sample{t: now, committed: p.Committed, logEnd: p.LogEnd}, int64(time.Second))
			st.status, p.Status = codeOf(StatusOK), StatusOK
			p.CommitMovedAt = time.Unix(0, st.movedAt)
			p.ConsumeRate = Rate{PerSec: float64(p.Committed - st.hist.at(0).committed), Known: true}
		}
		next ^= 1
	}
}

func floorBuild(o *Observation, rows []PartitionLag) {
	k := 0
	for t := range o.Topics {
		topic := &o.Topics[t]
		for j := range topic.Partitions {
			po := &topic.Partitions[j]
			if k == len(rows) {
				return
			}
			row := &rows[k]
			*row = PartitionLag{TopicPartition: TopicPartition{Topic: topic.Topic, Partition: po.Partition}}
			row.Committed, row.LogStart, row.LogEnd = po.Committed, po.Offsets.LogStart, po.Offsets.LogEnd
			row.Lag, row.LagFromStart = Lag(row.Committed, row.LogStart, row.LogEnd)
			k++
		}
	}
}
