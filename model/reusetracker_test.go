package model

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestTrackerKeepsNoReusedRows: the tracker reads a rebalance's base (the
// last settled snapshot) polls after it was taken, when it completes; with
// the live path's SnapshotBuilder those polls reuse the base's rows. The
// events must be those of snapshots built afresh, for classic and
// consumer groups, and for rebalances lasting from one to several polls.
func TestTrackerKeepsNoReusedRows(t *testing.T) {
	for _, typ := range []GroupType{TypeClassic, TypeConsumer} {
		for polls := 1; polls <= 2*KeptSnapshots+2; polls++ {
			t.Run(fmt.Sprintf("%s/%d-polls", typ, polls), func(t *testing.T) {
				fresh, reused := NewTracker("g", 0), NewTracker("g", 0)
				var b SnapshotBuilder
				var got, want []Event
				for _, o := range rebalanceObservations(typ, polls) {
					want = append(want, fresh.Observe(NewSnapshot(o))...)
					got = append(got, reused.Observe(b.Build(&o))...)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("events from reused rows differ:\n got %s\nwant %s", details(got), details(want))
				}
				moved := false
				for _, e := range want {
					moved = moved || e.Type == EventRebalanceCompleted && len(e.Moves) == 4
				}
				if !moved {
					t.Fatalf("no rebalance with 4 moves: the test proves nothing: %+v", want)
				}
			})
		}
	}
}

// rebalanceObservations is a group of 8 partitions, a and b owning 4 each
// for three polls, then b leaving: polls polls of rebalancing (classic:
// no owners; consumer: b still holding its partitions while a
// reconciles), then a owning all 8 for three polls.
func rebalanceObservations(typ GroupType, polls int) []Observation {
	at := ht0
	var out []Observation
	poll := func(state string, epoch int32, owners ...[]int32) {
		at = at.Add(time.Second)
		o := Observation{TakenAt: at, Group: Group{ID: "g", State: state, Type: typ, ProtocolType: "consumer", AssignmentEpoch: epoch}}
		if typ == TypeClassic {
			o.Group.Assignor = "range"
		}
		for i, name := range []string{"a", "b"} {
			if i >= len(owners) {
				break
			}
			m := Member{MemberID: name + "-id", ClientID: name, MemberEpoch: epoch}
			for _, p := range owners[i] {
				m.Partitions = append(m.Partitions, TopicPartition{Topic: "orders", Partition: p})
			}
			if typ == TypeConsumer {
				m.TargetPartitions = m.Partitions
			}
			o.Members = append(o.Members, m)
		}
		for p := range int32(8) {
			tp := TopicPartition{Topic: "orders", Partition: p}
			o.SetCommitted(tp, 100+int64(p))
			o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 110 + int64(p)})
		}
		out = append(out, o)
	}
	lo, hi, all := []int32{0, 1, 2, 3}, []int32{4, 5, 6, 7}, []int32{0, 1, 2, 3, 4, 5, 6, 7}
	for range 3 {
		poll(StateStable, 1, lo, hi)
	}
	for range polls {
		if typ == TypeClassic {
			poll(StatePreparingRebalance, 1, nil)
		} else {
			poll(StateReconciling, 2, lo, hi)
			last := &out[len(out)-1]
			last.Members[0].TargetPartitions = nil
			for _, p := range all {
				last.Members[0].TargetPartitions = append(last.Members[0].TargetPartitions, TopicPartition{Topic: "orders", Partition: p})
			}
			last.Members[1].TargetPartitions = []TopicPartition{}
		}
	}
	for range 3 {
		poll(StateStable, 2, all)
	}
	return out
}
