package model

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestTrackerKeepsNoReusedRows: the tracker reads the last snapshot when
// the next comes, and a rebalance's base (the last settled snapshot) polls
// after it was taken, when it completes; with the live path's
// SnapshotBuilder each build writes the last snapshot's rows again. The
// events must be those of snapshots built afresh, for classic and
// consumer groups, and for rebalances lasting from one to several polls.
func TestTrackerKeepsNoReusedRows(t *testing.T) {
	for _, typ := range []GroupType{TypeClassic, TypeConsumer} {
		for polls := 1; polls <= 4; polls++ {
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

// TestPipelineKeepsNoRows feeds two pipelines the same polls, one as
// snapshots built afresh, the other as the TUI's page builds them, in one
// set of rows written again at every poll: the annotated snapshots, the
// events, the timeline and the ownership lanes must be the same. The
// polls rebalance the group (classic and consumer) over one to three
// polls, then between two polls with members that stay (the last
// snapshot's owners are read after the next is built), grow it, then
// shrink it (its partition count changes in the rows it had), stalling a
// third of its partitions throughout.
func TestPipelineKeepsNoRows(t *testing.T) {
	for _, typ := range []GroupType{TypeClassic, TypeConsumer} {
		for polls := 1; polls <= 3; polls++ {
			t.Run(fmt.Sprintf("%s/%d-polls", typ, polls), func(t *testing.T) {
				obs := append(rebalanceObservations(typ, polls), laterObservations(typ)...)
				fresh := NewPipeline(PipelineOptions{Group: "g"})
				reused := NewPipeline(PipelineOptions{Group: "g"})
				var b SnapshotBuilder
				var rows *PartitionLag
				reuses, kinds := 0, map[EventType]bool{}
				for i := range obs {
					want := NewSnapshot(obs[i])
					wantEv := fresh.Observe(&want)
					got := b.Build(&obs[i])
					if rows != nil && &got.Partitions[0] == rows {
						reuses++
					}
					rows = &got.Partitions[0]
					gotEv := reused.Observe(&got)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("poll %d: annotated snapshots differ:\n got %+v\nwant %+v", i, got.Partitions, want.Partitions)
					}
					if !reflect.DeepEqual(gotEv, wantEv) {
						t.Fatalf("poll %d: events differ:\n got %s\nwant %s", i, details(gotEv), details(wantEv))
					}
					for _, e := range wantEv {
						kinds[e.Type] = true
					}
				}
				if reuses < len(obs)-2 {
					t.Fatalf("the builder reused its rows %d times in %d polls", reuses, len(obs))
				}
				for _, k := range []EventType{EventRebalanceCompleted, EventPartitionMoved, EventPartitionsChanged, EventStatusChanged} {
					if !kinds[k] {
						t.Fatalf("no %s: the test proves less than it says", k)
					}
				}
				if g, w := reused.Timeline().Events(), fresh.Timeline().Events(); !reflect.DeepEqual(g, w) {
					t.Fatalf("timelines differ:\n got %s\nwant %s", details(g), details(w))
				}
				gl, wl := reused.Lanes(), fresh.Lanes()
				if !reflect.DeepEqual(gl.Rows(), wl.Rows()) || !reflect.DeepEqual(gl.Owners(), wl.Owners()) {
					t.Fatalf("lanes differ:\n got %v %v\nwant %v %v", gl.Rows(), gl.Owners(), wl.Rows(), wl.Owners())
				}
				from := obs[0].TakenAt
				for i := range wl.Len() {
					g, w := make([]int, 40), make([]int, 40)
					gl.Lane(i, from, time.Second, g)
					wl.Lane(i, from, time.Second, w)
					if !reflect.DeepEqual(g, w) {
						t.Fatalf("lane %d differs:\n got %v\nwant %v", i, g, w)
					}
				}
			})
		}
	}
}

// laterObservations follow rebalanceObservations: b back, owning 5 of 10
// partitions (a rebalance between polls that grows the rows); then b and
// a swapping partitions 4 and 5 between two polls (a rebalance whose
// members all stay); then orders/9 replaced by payments/0 (as many rows,
// other partitions); then partition 9 gone (9 rows, in the rows of 10).
// A third of the partitions never commit, so they stall.
func laterObservations(typ GroupType) []Observation {
	at := ht0.Add(time.Hour)
	var out []Observation
	// orders has parts partitions; with payments, its partition 9 is
	// payments/0 instead (as many rows, other keys).
	payments := false
	key := func(p int32) TopicPartition {
		if payments && p == 9 {
			return TopicPartition{Topic: "payments", Partition: 0}
		}
		return TopicPartition{Topic: "orders", Partition: p}
	}
	poll := func(epoch int32, parts int32, owners ...[]int32) {
		at = at.Add(5 * time.Second)
		o := Observation{TakenAt: at, Group: Group{ID: "g", State: StateStable, Type: typ, ProtocolType: "consumer", AssignmentEpoch: epoch}}
		if typ == TypeClassic {
			o.Group.Assignor = "range"
		}
		for i, name := range []string{"a", "b"} {
			m := Member{MemberID: name + "-id", ClientID: name, MemberEpoch: epoch}
			for _, p := range owners[i] {
				m.Partitions = append(m.Partitions, key(p))
			}
			if typ == TypeConsumer {
				m.TargetPartitions = m.Partitions
			}
			o.Members = append(o.Members, m)
		}
		for p := range parts {
			tp := key(p)
			if p%3 != 0 {
				o.SetCommitted(tp, 100+int64(p)+int64(len(out)))
			} else {
				o.SetCommitted(tp, 100)
			}
			o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 110 + int64(p) + 2*int64(len(out))})
		}
		out = append(out, o)
	}
	for range 3 {
		poll(3, 10, []int32{0, 1, 2, 3, 4}, []int32{5, 6, 7, 8, 9})
	}
	for range 3 {
		poll(4, 10, []int32{0, 1, 2, 3, 5}, []int32{4, 6, 7, 8, 9})
	}
	payments = true
	for range 3 {
		poll(5, 10, []int32{0, 1, 2, 3, 5}, []int32{4, 6, 7, 8, 9})
	}
	payments = false
	for range 3 {
		poll(6, 9, []int32{0, 1, 2, 3, 5}, []int32{4, 6, 7, 8})
	}
	return out
}
