package model

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// knownPartitions returns what a member (by memberKey) owned at the last
// snapshot whose owners are known (the last settled one for a classic
// group); ok is false when that is unknown (it joined since).
func (d *differ) knownPartitions(key memberRef) (parts []TopicPartition, ok bool) {
	v := d.settled
	if d.last != nil && d.last.brokerAssigned() && d.last.assigned() {
		v = d.last
	}
	if v == nil || !v.assigned() {
		return nil, false
	}
	if i, ok := v.byKey[key]; ok {
		return v.members[i].Partitions, true
	}
	return nil, false
}

// ownerMove is a Move with the member ids behind its client ids.
type ownerMove struct {
	Move
	fromID, toID string
	// at is when the partition left its owner, when that was a round
	// before this one (a cooperative revoke phase), inferred whether that
	// round was; zero otherwise.
	at       time.Time
	inferred bool
}

// MaxMoveEvents is the most partition_moved events one rebalance emits; a
// rebalance that moves more is reported by its rebalance_completed alone,
// whose Moves lists every partition, so the timeline keeps its history.
const MaxMoveEvents = 64

// diffOwners compares who owned each partition in base and in cur (nobody,
// where a view's assignments are not meaningful). It returns the partitions
// whose owner changed and those owned by the same member in both, sorted.
func diffOwners(base, cur *snapView) (moves []ownerMove, kept []TopicPartition) {
	before, after := base.owned(), cur.owned()
	moves = make([]ownerMove, 0, max(len(before), len(after))/2)
	kept = make([]TopicPartition, 0, min(len(before), len(after)))
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || (i < len(before) && before[i].tp.Less(after[j].tp)):
			from := base.members[before[i].m]
			moves = append(moves, ownerMove{Move: Move{TopicPartition: before[i].tp, From: memberLabel(from)}, fromID: from.MemberID})
			i++
		case i == len(before) || after[j].tp.Less(before[i].tp):
			to := cur.members[after[j].m]
			moves = append(moves, ownerMove{Move: Move{TopicPartition: after[j].tp, To: memberLabel(to)}, toID: to.MemberID})
			j++
		default:
			from, to := base.members[before[i].m], cur.members[after[j].m]
			if memberKey(from) == memberKey(to) {
				kept = append(kept, before[i].tp)
			} else {
				moves = append(moves, ownerMove{
					Move:   Move{TopicPartition: before[i].tp, From: memberLabel(from), To: memberLabel(to)},
					fromID: from.MemberID, toID: to.MemberID,
				})
			}
			i++
			j++
		}
	}
	return moves, kept
}

// owning is one owned partition and the index of its owner in members.
type owning struct {
	tp TopicPartition
	m  int
}

// owned returns the view's owned partitions sorted, computed once, from
// its members' partitions (a partition two members list is the last
// one's, as is a member id two members have). It is read when a rebalance
// completes, not at every poll.
func (v *snapView) owned() []owning {
	if v.owners != nil || !v.assigned() {
		return v.owners
	}
	n := 0
	for _, m := range v.members {
		n += len(m.Partitions)
	}
	idx := make(map[TopicPartition]int, n)
	for i, m := range v.members {
		if v.byID[m.MemberID] != i {
			continue // a duplicate member id: the last one counts
		}
		for _, tp := range m.Partitions {
			idx[tp] = i
		}
	}
	out := make([]owning, 0, len(idx))
	for tp, m := range idx {
		out = append(out, owning{tp, m})
	}
	slices.SortFunc(out, func(a, b owning) int { return CompareTP(a.tp, b.tp) })
	v.owners = out
	return out
}

// sameAssignment reports whether two views have the same members owning the
// same partitions.
func sameAssignment(a, b *snapView) bool {
	if len(a.byKey) != len(b.byKey) {
		return false
	}
	for k, i := range a.byKey {
		j, ok := b.byKey[k]
		if !ok || !samePartitions(a.members[i].Partitions, b.members[j].Partitions) {
			return false
		}
	}
	return true
}

func samePartitions(x, y []TopicPartition) bool {
	if len(x) != len(y) {
		return false
	}
	if len(x) > 0 && &x[0] == &y[0] {
		// One list (a member's partitions as they were are the last
		// snapshot's slice, SnapshotBuilder): the same partitions.
		return true
	}
	i := 0
	for i < len(x) && x[i] == y[i] {
		i++
	}
	if i == len(x) {
		return true
	}
	// Same length, different order or content: compare as multisets.
	left := make(map[TopicPartition]int, len(x)-i)
	for _, tp := range x[i:] {
		left[tp]++
	}
	for _, tp := range y[i:] {
		if left[tp] == 0 {
			return false
		}
		left[tp]--
	}
	return true
}

// partitionsChanged reports topics whose partition count differs between
// two Stable snapshots. Stable snapshots own every partition of the topics
// the group reads, so their partition sets are complete; a topic present in
// only one of them was subscribed or dropped, not resized.
func partitionsChanged(b stamp, before, after *snapView) []Event {
	var topics []string
	for topic, n := range after.counts {
		if m, ok := before.counts[topic]; ok && m != n {
			topics = append(topics, topic)
		}
	}
	sort.Strings(topics)
	out := make([]Event, 0, len(topics))
	for _, topic := range topics {
		e := b.event(EventPartitionsChanged, fmt.Sprintf("%s: %d → %d partitions", topic, before.counts[topic], after.counts[topic]))
		// Partitions lists the ones added (or gone).
		was := make(map[int32]bool, before.counts[topic])
		before.eachKey(func(tp TopicPartition) {
			if tp.Topic == topic {
				was[tp.Partition] = true
			}
		})
		after.eachKey(func(tp TopicPartition) {
			if tp.Topic != topic {
				return
			}
			if was[tp.Partition] {
				delete(was, tp.Partition)
			} else {
				e.Partitions = append(e.Partitions, tp)
			}
		})
		for p := range was {
			e.Partitions = append(e.Partitions, TopicPartition{Topic: topic, Partition: p})
		}
		sort.Slice(e.Partitions, func(i, j int) bool { return e.Partitions[i].Less(e.Partitions[j]) })
		out = append(out, e)
	}
	return out
}
