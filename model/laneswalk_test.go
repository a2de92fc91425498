package model

import (
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"
)

// refLanesObserve is Lanes.Observe as it was before it read the owners in
// the walk that finds the row ids: a walk for the ids, then one for the
// owners. TestLanesObserveInOneWalk holds the one walk to it.
func refLanesObserve(l *Lanes, s Snapshot) {
	at := s.TakenAt
	ids := l.ids[:0]
	for i := range s.Partitions {
		tp := s.Partitions[i].TopicPartition
		if i < len(l.seen) && l.seen[i] == tp {
			ids = append(ids, l.seenIDs[i])
			continue
		}
		id, ok := l.rowIdx[tp]
		if !ok {
			id = len(l.rows)
			l.rowIdx[tp] = id
			l.rows = append(l.rows, tp)
			l.sorted = nil
		}
		ids = append(ids, id)
		if i < len(l.seen) {
			l.seen[i] = tp
		} else {
			l.seen = append(l.seen, tp)
		}
	}
	l.seen = l.seen[:len(s.Partitions)]
	l.ids, l.seenIDs = l.seenIDs[:0], ids
	state := normState(s.Group.State)
	broker := s.Group.CoordinatorAssigned()
	switch {
	case broker && s.Group.AssignmentsKnown():
	case rebalancing(state):
		l.record(laneSample{At: at, Kind: LaneRebalancing})
		return
	case state != StateStable:
		l.record(laneSample{At: at, Kind: LaneUnowned})
		return
	}
	owners := l.scratch[:0]
	for range l.rows {
		owners = append(owners, LaneUnowned)
	}
	for i := range s.Partitions {
		p := &s.Partitions[i]
		if !p.Owned() {
			continue
		}
		label := p.ClientID
		if label == "" {
			label = ShortID(p.MemberID)
		}
		if len(p.Owners) > 1 {
			label += " +" + strconv.Itoa(len(p.Owners)-1)
		}
		owners[ids[i]] = l.rowOwner(ids[i], label)
	}
	l.scratch = owners
	members := memberSum(s.Members)
	if n := len(l.samples); !broker && n > 0 && l.samples[n-1].Kind == 0 && l.samples[n-1].At.Before(at) &&
		(members != l.members || !slices.Equal(l.samples[n-1].Owners, owners)) {
		l.record(laneSample{At: at.Add(-time.Nanosecond), Kind: LaneRebalancing})
	}
	l.members = members
	l.coop = l.coop || s.Group.Cooperative
	if l.coop && !broker {
		l.keepThroughRebalance(owners)
	}
	l.record(laneSample{At: at, Owners: owners})
}

// Lanes.Observe reads the owners in the walk that finds the row ids: over
// random polls (partitions coming and going, owners moving, rebalances,
// empty groups) of classic, consumer-protocol and share groups in every
// state, cooperative or not, with owners shared and client ids missing,
// it leaves the lanes exactly as the two walks did.
func TestLanesObserveInOneWalk(t *testing.T) {
	types := []GroupType{TypeClassic, TypeConsumer, TypeShare, ""}
	states := []string{StateStable, StateStable, StateStable, StatePreparingRebalance, StateCompletingRebalance,
		StateEmpty, StateDead, StateUnknown, StateAssigning, StateReconciling, ""}
	read, kinds := 0, map[int]int{}
	for seed := range uint64(25) {
		polls := newRandomPolls(seed)
		rng := polls.rng
		l, ref := NewLanes(time.Minute), NewLanes(time.Minute)
		gt := types[seed%uint64(len(types))]
		for poll := range 300 {
			o := polls.next()
			s := NewSnapshot(o)
			s.Group.Type = gt
			if rng.IntN(3) == 0 {
				s.Group.State = states[rng.IntN(len(states))]
			}
			s.Group.Cooperative = rng.IntN(4) == 0
			for i := range s.Partitions {
				p := &s.Partitions[i]
				switch rng.IntN(8) {
				case 0:
					p.ClientID = ""
				case 1:
					if p.Owned() {
						p.Owners = append(slices.Clone(p.Owners), Owner{MemberID: "extra"})
					}
				}
			}
			refLanesObserve(ref, s)
			l.Observe(s)
			if !reflect.DeepEqual(l, ref) {
				t.Fatalf("seed %d poll %d (%s %s): lanes differ:\n%+v\n%+v", seed, poll, gt, s.Group.State, l, ref)
			}
			if n := len(l.samples); n > 0 {
				kinds[l.samples[n-1].Kind]++
				if l.samples[n-1].Owners != nil {
					read++
				}
			}
		}
	}
	if read == 0 || kinds[LaneRebalancing] == 0 || kinds[LaneUnowned] == 0 {
		t.Fatalf("the polls did not reach every path: %d with owners read, kinds %v", read, kinds)
	}
}

// BenchmarkLanesObserve10k is Lanes.Observe's share of a poll of a
// 10,000-partition stable group at 250 ms, as Pipeline.Observe runs it;
// BenchmarkLanesObserve10kTwoWalks is the same with the two walks of
// before (refLanesObserve), for comparison.
func BenchmarkLanesObserve10k(b *testing.B) { benchLanes(b, (*Lanes).Observe) }

func BenchmarkLanesObserve10kTwoWalks(b *testing.B) { benchLanes(b, refLanesObserve) }

func benchLanes(b *testing.B, observe func(*Lanes, Snapshot)) {
	o := benchGroup(10_000)
	var sb SnapshotBuilder
	l := NewLanes(0)
	at := ht0
	for range 8 {
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		observe(l, sb.Build(&o))
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		at = at.Add(250 * time.Millisecond)
		advance(&o, at)
		s := sb.Build(&o)
		b.StartTimer()
		observe(l, s)
	}
}
