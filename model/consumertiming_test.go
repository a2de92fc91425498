package model

import (
	"strings"
	"testing"
	"time"
)

// A rebalance that began and ended between two polls is timed by the
// group's own consumers' reports (the demo's): from the first to act to
// the last assignment. Without reports its duration stays unknown.
func TestInferredRebalanceTimedByConsumers(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tp := func(p int32) TopicPartition { return TopicPartition{Topic: "orders", Partition: p} }
	snap := func(at time.Time, members ...Member) Snapshot {
		return NewSnapshot(Observation{
			TakenAt: at,
			Group:   Group{ID: "g", State: StateStable, ProtocolType: "consumer", Assignor: "range"},
			Members: members,
		}.With(Readings{
			Offsets: map[TopicPartition]PartitionOffsets{tp(0): {LogEnd: 5}, tp(1): {LogEnd: 5}, tp(2): {LogEnd: 5}},
		}))
	}
	a := func(ps ...int32) Member {
		m := Member{MemberID: "a-1", ClientID: "consumer-a", Host: "/h"}
		for _, p := range ps {
			m.Partitions = append(m.Partitions, tp(p))
		}
		return m
	}
	c := Member{MemberID: "c-1", ClientID: "consumer-c", Host: "/h", Partitions: []TopicPartition{tp(2)}}
	for _, reports := range []bool{true, false} {
		tr := NewTracker("g", 100)
		tr.Observe(snap(t0, a(0, 1, 2)))
		if reports {
			tr.Add(Event{Time: t0.Add(50 * time.Millisecond), Type: EventDemoSpawned, ClientID: "consumer-c"})
			tr.Add(Event{Time: t0.Add(150 * time.Millisecond), Type: EventDemoRevoked, ClientID: "consumer-a", Partitions: []TopicPartition{tp(0), tp(1), tp(2)}})
			tr.Add(Event{Time: t0.Add(170 * time.Millisecond), Type: EventDemoAssigned, ClientID: "consumer-a", Partitions: []TopicPartition{tp(0), tp(1)}})
			tr.Add(Event{Time: t0.Add(180 * time.Millisecond), Type: EventDemoAssigned, ClientID: "consumer-c", Partitions: []TopicPartition{tp(2)}})
		}
		var done *Event
		evs := tr.Observe(snap(t0.Add(300*time.Millisecond), a(0, 1), c))
		for i := range evs {
			if evs[i].Type == EventRebalanceCompleted {
				done = &evs[i]
			}
		}
		if done == nil || !done.Inferred {
			t.Fatalf("reports %v: no inferred rebalance_completed in %+v", reports, evs)
		}
		if !reports {
			if done.HasDuration || !strings.Contains(done.Detail, "duration unknown") {
				t.Errorf("no reports: %q, duration %v %v; want it unknown", done.Detail, done.Duration, done.HasDuration)
			}
			continue
		}
		if !done.HasDuration || done.Duration != 130*time.Millisecond || !strings.HasPrefix(done.Detail, "rebalance between polls took 0.13s (its consumers' clocks): ") {
			t.Errorf("with reports: %q, duration %v %v; want 130ms from the start to the last assignment", done.Detail, done.Duration, done.HasDuration)
		}
		// The timeline holds the timed event too.
		evs = tr.Timeline().Events()
		if last := evs[len(evs)-2]; last.Type != EventRebalanceCompleted && evs[len(evs)-1].Type != EventRebalanceCompleted {
			t.Errorf("timeline ends %v, %v", last.Type, evs[len(evs)-1].Type)
		}
		for _, e := range evs {
			if e.Type == EventRebalanceCompleted && !e.HasDuration {
				t.Errorf("timeline keeps the untimed event: %+v", e)
			}
		}
	}
}

// A poll between a consumer's start and its join (the group still Stable
// as before) does not lose the start: the rebalance it sets off is timed
// from it.
func TestInferredRebalanceTimedFromAStartBeforeAPoll(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tp := func(p int32) TopicPartition { return TopicPartition{Topic: "orders", Partition: p} }
	snap := func(at time.Time, members ...Member) Snapshot {
		return NewSnapshot(Observation{
			TakenAt: at,
			Group:   Group{ID: "g", State: StateStable, ProtocolType: "consumer", Assignor: "range"},
			Members: members,
		}.With(Readings{
			Offsets: map[TopicPartition]PartitionOffsets{tp(0): {LogEnd: 5}, tp(1): {LogEnd: 5}},
		}))
	}
	a := Member{MemberID: "a-1", ClientID: "consumer-a", Partitions: []TopicPartition{tp(0), tp(1)}}
	a0 := Member{MemberID: "a-1", ClientID: "consumer-a", Partitions: []TopicPartition{tp(0)}}
	b := Member{MemberID: "b-1", ClientID: "consumer-b", Partitions: []TopicPartition{tp(1)}}
	tr := NewTracker("g", 100)
	tr.Observe(snap(t0, a))
	tr.Add(Event{Time: t0.Add(100 * time.Millisecond), Type: EventDemoSpawned, ClientID: "consumer-b"})
	tr.Observe(snap(t0.Add(200*time.Millisecond), a)) // b not joined yet
	tr.Add(Event{Time: t0.Add(390 * time.Millisecond), Type: EventDemoRevoked, ClientID: "consumer-a"})
	tr.Add(Event{Time: t0.Add(400 * time.Millisecond), Type: EventDemoAssigned, ClientID: "consumer-b"})
	for _, e := range tr.Observe(snap(t0.Add(500*time.Millisecond), a0, b)) {
		if e.Type == EventRebalanceCompleted {
			if !e.HasDuration || e.Duration != 300*time.Millisecond {
				t.Fatalf("%q: duration %v %v; want 300ms, from consumer-b's start", e.Detail, e.Duration, e.HasDuration)
			}
			return
		}
	}
	t.Fatal("no rebalance_completed")
}

// Consumers that started and were given their partitions before the watch
// began set off nothing later: a spawn 6s on is timed from its own start
// (it was timed from theirs: 6.11s).
func TestConsumerStartsBeforeTheWatchTimeNothingLater(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tp := func(p int32) TopicPartition { return TopicPartition{Topic: "orders", Partition: p} }
	snap := func(at time.Time, members ...Member) Snapshot {
		return NewSnapshot(Observation{
			TakenAt: at,
			Group:   Group{ID: "g", State: StateStable, ProtocolType: "consumer", Assignor: "range"},
			Members: members,
		}.With(Readings{
			Offsets: map[TopicPartition]PartitionOffsets{tp(0): {LogEnd: 5}, tp(1): {LogEnd: 5}},
		}))
	}
	m := func(id string, ps ...int32) Member {
		mm := Member{MemberID: id + "-1", ClientID: id, Host: "/h"}
		for _, p := range ps {
			mm.Partitions = append(mm.Partitions, tp(p))
		}
		return mm
	}
	tr := NewTracker("g", 100)
	tr.Add(Event{Time: t0, Type: EventDemoSpawned, ClientID: "consumer-a"})
	tr.Add(Event{Time: t0.Add(10 * time.Millisecond), Type: EventDemoSpawned, ClientID: "consumer-b"})
	tr.Add(Event{Time: t0.Add(400 * time.Millisecond), Type: EventDemoAssigned, ClientID: "consumer-a", Partitions: []TopicPartition{tp(0), tp(1)}})
	tr.Observe(snap(t0.Add(time.Second), m("consumer-a", 0, 1)))
	tr.Add(Event{Time: t0.Add(6 * time.Second), Type: EventDemoSpawned, ClientID: "consumer-c"})
	tr.Add(Event{Time: t0.Add(6100 * time.Millisecond), Type: EventDemoAssigned, ClientID: "consumer-c", Partitions: []TopicPartition{tp(1)}})
	tr.Add(Event{Time: t0.Add(6110 * time.Millisecond), Type: EventDemoAssigned, ClientID: "consumer-a", Partitions: []TopicPartition{tp(0)}})
	for _, e := range tr.Observe(snap(t0.Add(6200*time.Millisecond), m("consumer-a", 0), m("consumer-c", 1))) {
		if e.Type == EventRebalanceCompleted && (!e.HasDuration || e.Duration != 110*time.Millisecond) {
			t.Errorf("the spawn's rebalance: %q (%v), want 110ms from consumer-c's start", e.Detail, e.Duration)
		}
	}
}
