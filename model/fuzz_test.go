package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// fuzzStates weights Stable and the rebalancing states, and includes a
// group that is gone ("" and Dead) and a state kgwatch does not know.
var fuzzStates = []string{
	StateStable, StateStable, StateStable, StateEmpty, StatePreparingRebalance,
	StateCompletingRebalance, StateDead, "", StateAssigning, StateReconciling, "Unknown",
}

// fuzzTypes are the group types a fuzzed snapshot may have.
var fuzzTypes = []GroupType{"", TypeClassic, TypeConsumer, TypeShare}

// byteReader hands out the fuzz input a byte at a time, then zeros.
type byteReader struct {
	b []byte
}

func (r *byteReader) next() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// fuzzSnapshot builds a snapshot from the input: a state, a few members out
// of a pool of six (client ids collide, some are empty), random partitions
// of two topics, sometimes given to two members at once.
func fuzzSnapshot(r *byteReader, when time.Time) Snapshot {
	state := fuzzStates[int(r.next())%len(fuzzStates)]
	assignor := []string{"range", "cooperative-sticky", ""}[int(r.next())%3]
	o := Observation{
		TakenAt: when,
		Group:   Group{ID: "g", State: state, Assignor: assignor, Type: fuzzTypes[int(r.next())%len(fuzzTypes)]},
	}.With(Readings{
		Committed: map[TopicPartition]int64{},
	})
	broker := o.Group.Type == TypeConsumer || o.Group.Type == TypeShare
	if broker {
		o.Group.AssignmentEpoch = int32(r.next() % 3)
		o.Group.Epoch = o.Group.AssignmentEpoch
	} else {
		o.Group.Cooperative = r.next()%2 == 0
	}
	nOrders := int32(r.next()%6) + 1
	for p := range nOrders {
		if r.next()%2 == 0 {
			o.SetCommitted(TopicPartition{Topic: "orders", Partition: p}, 1)
		}
	}
	nMembers := int(r.next() % 5)
	for range nMembers {
		id := int(r.next() % 6)
		m := Member{
			MemberID: fmt.Sprintf("member-%d-%08d", id, id),
			ClientID: []string{"consumer-a", "consumer-b", ""}[id%3],
			Host:     "/10.0.0." + fmt.Sprint(id),
		}
		if id == 3 || id == 5 {
			// One static member under two member ids: a restart.
			m.InstanceID = "worker-static"
		}
		mask := r.next()
		for p := range nOrders {
			if mask&(1<<p) != 0 {
				m.Partitions = append(m.Partitions, TopicPartition{Topic: "orders", Partition: p})
			}
		}
		if mask&0x80 != 0 {
			m.Partitions = append(m.Partitions, TopicPartition{Topic: "pay", Partition: int32(mask>>6) & 1})
		}
		if o.Group.Type == TypeConsumer {
			m.MemberEpoch = int32(r.next() % 3)
			target := r.next()
			m.TargetPartitions = []TopicPartition{}
			for p := range nOrders {
				if target&(1<<p) != 0 {
					m.TargetPartitions = append(m.TargetPartitions, TopicPartition{Topic: "orders", Partition: p})
				}
			}
		}
		o.Members = append(o.Members, m)
	}
	return NewSnapshot(o)
}

func FuzzTracker(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 0, 0, 3, 0, 2, 0, 3, 2, 1, 5, 1, 7, 10, 4, 0, 1, 3, 0, 2, 1, 3, 2, 9, 5, 3, 6, 2, 40, 0, 2, 3, 0, 1, 0})
	f.Add([]byte{2, 9, 0, 3, 1, 1, 1, 2, 1, 3, 2, 2, 5, 4, 0, 1, 1, 1, 0, 0, 2, 200, 0, 0, 3, 0, 0, 0, 2, 3, 9, 9, 0, 1, 50, 2, 200, 3, 0, 0, 0})
	f.Add([]byte("a longer seed to walk through more states and members \x00\x01\x02\x03\x04\x05\x06\x07\x08\x09"))
	f.Fuzz(fuzzTracker)
}

// fuzzTracker feeds a tracker a sequence of snapshots, outages and outside
// events decoded from data, and checks the timeline's invariants.
func fuzzTracker(t *testing.T, data []byte) {
	const capacity = 8
	r := &byteReader{b: data}
	tr := NewTracker("g", capacity)
	clock := tl0
	var (
		prev        map[string]bool // member ids of the previous snapshot
		lastTime    time.Time
		revokedAt   = map[time.Time]bool{} // when rounds revoked partitions
		open        bool                   // a non-inferred rebalance is in progress
		started     bool
		observed    int
		totalEvents int
	)
	check := func(batch []Event) {
		totalEvents += len(batch)
		for i, e := range batch {
			switch {
			case e.Type == EventPartitionMoved && e.Time.Before(lastTime):
				// A cooperative move is dated by its revoke phase, a
				// round before the one that reports it.
				if !revokedAt[e.Time] {
					t.Fatalf("partition_moved at %v, before the event before it (%v) and no revoke phase's time", e.Time, lastTime)
				}
			case e.Time.Before(lastTime):
				t.Fatalf("%s at %v before an earlier event at %v", e.Type, e.Time, lastTime)
			default:
				lastTime = e.Time
			}
			if e.Type == EventRebalanceCompleted && e.Phase != "" && len(e.Partitions) > 0 {
				revokedAt[e.Time] = true // a round that revoked partitions
			}
			if e.Duration < 0 {
				t.Fatalf("%s has negative duration %v", e.Type, e.Duration)
			}
			if e.Inferred && e.HasDuration {
				t.Fatalf("inferred %s has a duration", e.Type)
			}
			if b, err := MarshalEventJSON(e); err != nil || !json.Valid(b) {
				t.Fatalf("marshal %s: %s, %v", e.Type, b, err)
			}
			switch e.Type {
			case EventRebalanceStarted:
				if e.Inferred {
					if i+1 >= len(batch) || batch[i+1].Type != EventRebalanceCompleted || !batch[i+1].Inferred {
						t.Fatalf("inferred rebalance_started not followed by its completion")
					}
					break
				}
				if open {
					t.Fatalf("rebalance_started while one is in progress")
				}
				open = true
			case EventRebalanceCompleted:
				if !e.Inferred {
					if !open {
						t.Fatalf("rebalance_completed with none in progress")
					}
					open = false
				}
			case EventPartitionMoved:
				if len(e.Partitions) != 1 || (e.From == "" && e.To == "") {
					t.Fatalf("partition_moved %+v", e)
				}
			}
		}
	}
	for len(r.b) > 0 && observed < 64 {
		op := r.next() % 8
		clock = clock.Add(time.Duration(r.next()) * 10 * time.Millisecond)
		switch op {
		case 0:
			check(tr.ConnectionLost(clock, errors.New("refused")))
		case 1:
			e := Event{Time: clock, Type: EventDemoKilled, ClientID: "consumer-a"}
			tr.Add(e)
			lastTime = clock
			totalEvents++
		default:
			s := fuzzSnapshot(r, clock)
			batch := tr.Observe(s)
			observed++
			cur := map[string]bool{}
			for _, m := range s.Members {
				cur[m.MemberID] = true
			}
			for _, e := range batch {
				switch e.Type {
				case EventWatchStarted:
					if started {
						t.Fatal("second watch_started")
					}
					started = true
					open = rebalancing(normState(s.Group.State))
					if s.Group.Type == TypeConsumer || s.Group.Type == TypeShare {
						for _, m := range s.Members {
							open = open || m.Reconciling
						}
					}
				case EventMemberLeft:
					if !prev[e.MemberID] || cur[e.MemberID] {
						t.Fatalf("member_left %s: in previous %v, in current %v", e.MemberID, prev[e.MemberID], cur[e.MemberID])
					}
				case EventMemberJoined:
					if prev[e.MemberID] || !cur[e.MemberID] {
						t.Fatalf("member_joined %s: in previous %v, in current %v", e.MemberID, prev[e.MemberID], cur[e.MemberID])
					}
				}
			}
			check(batch)
			if !started {
				t.Fatal("first snapshot gave no watch_started")
			}
			prev = cur
		}
		tl := tr.Timeline()
		if n := tl.Len(); n != min(totalEvents, capacity) {
			t.Fatalf("ring holds %d events after %d, bound %d", n, totalEvents, capacity)
		}
		evs := tl.Events()
		for i := 1; i < len(evs); i++ {
			if evs[i].Time.Before(evs[i-1].Time) {
				t.Fatalf("timeline out of order at %d: %v after %v", i, evs[i].Time, evs[i-1].Time)
			}
		}
	}
}
