package model

import (
	"fmt"
	"slices"
	"strings"
)

// brokerRebalance reports the rebalances of a group the coordinator
// assigns (Kind.CoordinatorAssigned). Their owners are known at every
// poll, and a rebalance is the target assignment moving, not a state: it
// starts when the target assignment epoch moves (or a member is seen
// behind the target), each member reports member_reconciling and
// member_reconciled, and it completes once every member has reconciled,
// with the partitions that moved since it started.
func (d *differ) brokerRebalance(b stamp, prev, cur *snapView, causes []string, restored bool) []Event {
	if cur.typ.Kind().Rebalance == RebalanceReassign {
		return d.shareReassigned(b, prev, cur, causes)
	}
	moved := prev.brokerAssigned() && cur.target != prev.target
	behind := cur.reconciling() || cur.state == StateAssigning
	reconciling, reconciled := reconcileEvents(b, prev, cur)
	var out []Event
	switch {
	case d.rb == nil && behind:
		var base *snapView
		if prev.assigned() {
			base = prev
		}
		out = append(out, d.open(b, base, rebalanceStart{restored: restored, epoch: epochMove(prev, cur)}, causes))
		out = append(out, reconciling...)
		return out
	case d.rb == nil && moved:
		// The target moved and every member reached it between two
		// polls.
		out = append(out, reconciled...)
		out = append(out, rebalanceStarted(b, rebalanceStart{inferred: true, epoch: epochMove(prev, cur)}, causes))
		c, base := d.coordinatorTimed(d.endedBetweenPolls(cur.at), prev, cur.at)
		return append(out, rebalanceCompleted(b, base, cur, c, true)...)
	case d.rb == nil:
		return reconciled // a member caught up on its own (none behind before)
	}
	out = append(out, reconciling...)
	out = append(out, reconciled...)
	if !behind {
		c, base := d.coordinatorTimed(ended(d.rb, cur.at), d.rb.base, cur.at)
		out = append(out, rebalanceCompleted(b, base, cur, c, true)...)
		d.rb = nil
	}
	return out
}

// epochMove says how the target assignment epoch moved, "" when it did
// not.
func epochMove(prev, cur *snapView) string {
	if !prev.brokerAssigned() || prev.target == cur.target {
		return ""
	}
	return fmt.Sprintf(" (target assignment epoch %d → %d)", prev.target, cur.target)
}

// reconcileEvents compares each member's reconciliation in prev and cur:
// member_reconciling for one that fell behind (or joined behind, or whose
// target changed while it was behind), member_reconciled for one that
// caught up.
func reconcileEvents(b stamp, prev, cur *snapView) (reconciling, reconciled []Event) {
	multi := cur.multiTopic()
	for i, m := range cur.members {
		k := memberKey(m)
		if cur.byKey[k] != i {
			continue
		}
		was, retarget := false, false
		if j, ok := prev.byKey[k]; ok && prev.brokerAssigned() {
			was = prev.members[j].Reconciling
			retarget = was && !slices.Equal(prev.members[j].TargetPartitions, m.TargetPartitions)
		}
		switch {
		case m.Reconciling && (!was || retarget):
			// Fell behind, or its target moved again while it was.
			e := b.memberEvent(EventMemberReconciling, m)
			receive, give := diffParts(m.TargetPartitions, m.Partitions), diffParts(m.Partitions, m.TargetPartitions)
			e.Partitions = append(slices.Clone(receive), give...)
			slices.SortFunc(e.Partitions, CompareTP)
			var todo []string
			if len(receive) > 0 {
				todo = append(todo, "to receive "+PartitionList(receive, multi))
			}
			if len(give) > 0 {
				todo = append(todo, "to give up "+PartitionList(give, multi))
			}
			if m.MemberEpoch < cur.target {
				todo = append(todo, fmt.Sprintf("at epoch %d", m.MemberEpoch))
			}
			e.Detail = fmt.Sprintf("%s reconciling towards assignment epoch %d", memberLabel(m), cur.target)
			if len(todo) > 0 {
				e.Detail += ": " + strings.Join(todo, ", ")
			}
			reconciling = append(reconciling, e)
		case !m.Reconciling && was:
			e := b.memberEvent(EventMemberReconciled, m)
			e.Partitions = m.Partitions
			e.Detail = fmt.Sprintf("%s reconciled at epoch %d", memberLabel(m), m.MemberEpoch)
			if len(m.Partitions) == 0 {
				e.Detail += "; it owns no partitions"
			} else {
				e.Detail += "; it owns " + PartitionList(m.Partitions, multi)
			}
			reconciled = append(reconciled, e)
		}
	}
	return reconciling, reconciled
}

// diffParts returns the sorted partitions of a that b lacks. NewSnapshot
// sorts a member's partitions and target: one merge pass; a snapshot
// built otherwise is searched and sorted.
func diffParts(a, b []TopicPartition) []TopicPartition {
	var out []TopicPartition
	if !slices.IsSortedFunc(a, CompareTP) || !slices.IsSortedFunc(b, CompareTP) {
		for _, tp := range a {
			if !slices.Contains(b, tp) {
				out = append(out, tp)
			}
		}
		slices.SortFunc(out, CompareTP)
		return out
	}
	j := 0
	for _, tp := range a {
		for j < len(b) && CompareTP(b[j], tp) < 0 {
			j++
		}
		if j == len(b) || b[j] != tp {
			out = append(out, tp)
		}
	}
	return out
}

// shareReassigned reports a share group's assignment epoch moving: the
// coordinator hands out partitions at once (several members may share
// one), so it is one rebalance between polls, with each member's
// partitions, and no partition moves: a shared partition does not move
// from one owner to another.
func (d *differ) shareReassigned(b stamp, prev, cur *snapView, causes []string) []Event {
	if d.rb != nil {
		// Open from before the group was known as a share group: it is
		// settled now.
		d.rb = nil
		e := b.event(EventRebalanceCompleted, "rebalance completed (the group is a share group)")
		return []Event{e}
	}
	if !prev.brokerAssigned() || prev.target == cur.target {
		return nil
	}
	e := b.event(EventRebalanceStarted, startDetail("share group reassigned between polls"+epochMove(prev, cur), causes))
	e.Inferred = true
	done := b.event(EventRebalanceCompleted, "")
	done.Inferred = true
	var owns []string
	for _, m := range cur.members {
		if len(m.Partitions) > 0 {
			owns = append(owns, memberLabel(m)+" "+PartitionList(m.Partitions, cur.multiTopic()))
		}
	}
	done.Detail = fmt.Sprintf("share group assignment epoch %d", cur.target)
	if len(owns) > 0 {
		done.Detail += ": " + listNames(owns)
	} else {
		done.Detail += ": no partitions assigned"
	}
	return []Event{e, done}
}
