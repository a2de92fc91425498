package model

import (
	"fmt"
	"time"
)

// snapView is what the differ keeps of one snapshot. It keeps none of the
// snapshot's rows: the rows of the TUI's snapshots are built again in
// place for the next poll (SnapshotBuilder), while the differ reads a
// view polls later (a rebalance's base, the last settled one). What it
// reads of them is taken when the view is made: the partitions' keys and
// their count per topic. The owners are read off the members, whose lists
// are never written (Snapshot).
type snapView struct {
	at       time.Time
	state    string // normalized: a group that does not exist is Dead
	assignor string
	typ      GroupType
	known    bool // the members' assignments say who owns what
	coop     bool // a classic group seen rebalancing cooperatively
	// target is a consumer or share group's target assignment epoch.
	target  int32
	members []Member
	byID    map[string]int    // member id → index in members (last wins)
	byKey   map[memberRef]int // memberKey → index in members (last wins)
	// keys are the snapshot's partitions in its rows' order, and counts
	// how many of them each topic has: both those of the view before
	// when the partitions are the same, so a poll of a group as it was
	// copies neither. Never written.
	keys   []TopicPartition
	counts map[string]int
	owners []owning // see owned
}

// rowCount is how many partition rows the view's snapshot had.
func (v *snapView) rowCount() int { return len(v.keys) }

// eachKey calls f with each of the view's partitions, in the rows' order.
func (v *snapView) eachKey(f func(TopicPartition)) {
	for _, tp := range v.keys {
		f(tp)
	}
}

// newSnapView is the view of s; prev, the view before it (nil: none),
// lends its keys and counts when s has the same partitions.
func newSnapView(s Snapshot, prev *snapView) *snapView {
	v := &snapView{
		at:       s.ObservedAt(),
		state:    normState(s.Group.State),
		assignor: s.Group.Assignor,
		typ:      s.Group.Type,
		known:    s.Group.AssignmentsKnown(),
		coop:     s.Group.Cooperative,
		target:   s.Group.AssignmentEpoch,
		members:  spokenMembers(s),
		byID:     make(map[string]int, len(s.Members)),
		byKey:    make(map[memberRef]int, len(s.Members)),
	}
	for i, m := range s.Members {
		v.byID[m.MemberID] = i
		v.byKey[memberKey(m)] = i
	}
	var was []TopicPartition
	if prev != nil {
		was = prev.keys
	}
	if keys, same := rowKeys(s.Partitions, was); same {
		v.keys, v.counts = was, prev.counts
	} else {
		v.keys, v.counts = keys, topicCounts(keys)
	}
	return v
}

// rowKeys returns the keys of rows, in order: was, and same, when they
// are the keys was holds (one walk of the rows, no copy), else a new
// slice.
func rowKeys(rows []PartitionLag, was []TopicPartition) (keys []TopicPartition, same bool) {
	i := 0
	if len(rows) == len(was) && was != nil {
		for i < len(rows) && rows[i].TopicPartition == was[i] {
			i++
		}
		if i == len(rows) {
			return was, true
		}
	}
	keys = make([]TopicPartition, len(rows))
	copy(keys, was[:i])
	for ; i < len(rows); i++ {
		keys[i] = rows[i].TopicPartition
	}
	return keys, false
}

// topicCounts counts the partitions of each topic in keys.
func topicCounts(keys []TopicPartition) map[string]int {
	counts := make(map[string]int)
	for i := 0; i < len(keys); { // rows are sorted by topic: count runs
		j := i + 1
		for j < len(keys) && keys[j].Topic == keys[i].Topic {
			j++
		}
		counts[keys[i].Topic] += j - i
		i = j
	}
	return counts
}

// assigned reports whether the view's member assignments are meaningful.
// Classic coordinators report assignments only while the group is Stable;
// consumer and share groups' current assignments always are.
func (v *snapView) assigned() bool { return v.known }

// brokerAssigned reports whether the coordinator assigns (consumer and
// share groups): owners are known at every poll, and a rebalance is an
// epoch moving, not a state.
func (v *snapView) brokerAssigned() bool { return Group{Type: v.typ}.CoordinatorAssigned() }

// reconciling reports whether some member is behind the target.
func (v *snapView) reconciling() bool {
	for _, m := range v.members {
		if m.Reconciling {
			return true
		}
	}
	return false
}

func (v *snapView) multiTopic() bool { return len(v.counts) > 1 }

// openRebalance is a rebalance seen in progress.
type openRebalance struct {
	at     time.Time // time of the first snapshot that showed it
	timed  bool      // its start is known and no outage hid its end
	outage bool      // the connection was lost while it ran
	base   *snapView // the settled view before it; nil when unknown
}

// differ is the state a Tracker keeps between snapshots.
type differ struct {
	group   string
	last    *snapView // previous snapshot; nil before the first
	settled *snapView // last snapshot in Stable, Empty or Dead: owners before a rebalance
	stable  *snapView // last Stable snapshot: partition counts
	rb      *openRebalance
	// phase is a cooperative rebalance whose revoke phase completed: its
	// assign phase is to come (a member that gave partitions up rejoins
	// at once; the next rebalance to complete is that phase).
	phase *openRebalance
	// revoked holds the partitions the revoke phase took from members
	// that stay, until the round that gives them a new owner reports
	// their moves (completedWith).
	revoked map[TopicPartition]revocation
	// coop: the group was seen rebalancing cooperatively (its members'
	// subscriptions say so only while Stable; it holds from then on).
	coop bool
	lost bool
	// failedFrom is when the first failed poll of an outage began,
	// failedTo when its last failure was seen: the polls failed for at
	// least failedTo-failedFrom.
	failedFrom, failedTo time.Time
	// goodAt is when the last good poll completed: an outage runs from it
	// to the first good poll after it.
	goodAt time.Time
	// consumers holds the reports of the group's own consumers (the
	// demo's, Tracker.Add), which time a rebalance the polls only infer:
	// revocations and assignments since the last snapshot, and the
	// starts, stops and restarts that set a rebalance off since the last
	// one completed (a poll may come between a consumer's start and its
	// join). Tracker.Observe prunes them.
	consumers []Event
	// clocks are the coordinator's dates of rebalances not yet completed
	// (rebalanceclock.go).
	clocks []coordinatorClock
	// tasks is who last held each streams task (difftasks.go).
	tasks taskLedger
}

func (d *differ) prime(v *snapView) {
	if rebalancing(v.state) || (v.brokerAssigned() && v.reconciling()) {
		d.rb = &openRebalance{at: v.at}
	}
	d.commit(v)
}

func (d *differ) commit(v *snapView) {
	d.last, d.goodAt = v, v.at
	d.coop = d.coop || v.coop
	switch v.state {
	case StateStable:
		d.settled = v
		if d.phase == nil {
			// Between a cooperative rebalance's phases the revoked
			// partitions are nobody's: the partition counts wait for
			// the assign phase.
			d.stable = v
		}
	case StateEmpty, StateDead:
		d.settled = v
	}
}

// stamp gives the events of one observation their time, group and state.
type stamp struct {
	group string
	at    time.Time
	state string
}

func (b stamp) event(t EventType, detail string) Event {
	return Event{Time: b.at, Type: t, Group: b.group, State: b.state, Detail: detail}
}

// memberEvent is an event about member m, with its ids and host.
func (b stamp) memberEvent(t EventType, m Member) Event {
	e := b.event(t, "")
	e.MemberID, e.ClientID, e.Host, e.InstanceID = m.MemberID, m.ClientID, m.Host, m.InstanceID
	e.Protocol = m.Protocol
	return e
}

func (d *differ) observe(s Snapshot) []Event {
	cur := newSnapView(s, d.last)
	if d.group == "" {
		d.group = s.Group.ID
	}
	b := stamp{group: d.group, at: cur.at, state: cur.state}
	var out []Event
	restored := d.lost
	if d.lost {
		d.lost = false
		e := b.event(EventConnectionRestored, "")
		from := d.goodAt
		if from.IsZero() {
			// No good poll before it: from the first failed poll's start.
			from = d.failedFrom
		}
		e.Duration, e.HasDuration = nonNegative(cur.at.Sub(from)), true
		e.MinDuration, e.HasMinDuration = min(nonNegative(d.failedTo.Sub(d.failedFrom)), e.Duration), true
		e.Detail = "connection restored after " + outageSpan(e.MinDuration, e.Duration)
		if d.goodAt.IsZero() {
			e.Detail = "connected after " + outageSpan(e.MinDuration, e.Duration) + " of failed attempts"
		}
		out = append(out, e)
		if d.rb != nil {
			d.rb.timed, d.rb.outage = false, true
		}
	}
	if d.last == nil {
		out = append(out, b.event(EventWatchStarted, watchDetail(d.group, cur)))
		d.prime(cur)
		return out
	}
	prev := d.last

	// Membership, by member id: a member that rejoins after being evicted
	// gets a new id, and is a leave plus a join. A static member is known by
	// its instance id: restarted, it has a new member id but is the same
	// member, and the coordinator does not rebalance.
	var causes []string
	for i, m := range prev.members {
		k := memberKey(m)
		if _, ok := cur.byKey[k]; ok || prev.byKey[k] != i {
			continue
		}
		e := b.memberEvent(EventMemberLeft, m)
		owned := ""
		if parts, ok := d.knownPartitions(k); ok {
			e.Partitions, owned = parts, "it owned"
		}
		e.Detail = memberDetail(m, "left", owned, e.Partitions, prev.multiTopic())
		out = append(out, e)
		causes = append(causes, memberLabel(m)+" left")
	}
	for i, m := range cur.members {
		k := memberKey(m)
		if cur.byKey[k] != i {
			continue
		}
		if j, ok := prev.byKey[k]; ok {
			_, was := prev.byID[m.MemberID]
			if old := prev.members[j].MemberID; old != m.MemberID && !was {
				e := b.memberEvent(EventMemberJoined, m)
				e.Detail = fmt.Sprintf("%s rejoined as static member %q with a new member id (was %s): same member, no rebalance",
					memberLabel(m), m.InstanceID, ShortID(old))
				out = append(out, e)
			}
			continue
		}
		e := b.memberEvent(EventMemberJoined, m)
		if cur.assigned() && len(m.Partitions) == 0 && len(m.TargetPartitions) > 0 {
			e.Detail = memberDetail(m, "joined", "it is to receive", m.TargetPartitions, cur.multiTopic())
		} else if cur.assigned() {
			e.Partitions = m.Partitions
			e.Detail = memberDetail(m, "joined", "it owns", e.Partitions, cur.multiTopic())
		} else {
			e.Detail = memberDetail(m, "joined", "", nil, false)
		}
		out = append(out, e)
		causes = append(causes, memberLabel(m)+" joined")
	}
	out = append(out, kindEvents(b, prev, cur)...)

	if prev.state != cur.state {
		out = append(out, b.event(EventStateChanged, prev.state+" → "+cur.state))
	}

	switch {
	case cur.brokerAssigned():
		out = append(out, d.brokerRebalance(b, prev, cur, causes, restored)...)
	case rebalancing(cur.state):
		if d.rb == nil {
			out = append(out, d.open(b, d.settled, rebalanceStart{restored: restored, phase: d.nextPhase()}, causes))
		}
	case settledState(cur.state) && d.rb != nil:
		out = append(out, d.completeClassic(b, cur, false)...)
		d.rb = nil
	case cur.state == StateStable && d.settled != nil &&
		(d.settled.state != StateStable || !sameAssignment(d.settled, cur)):
		// Two settled snapshots apart, and a Stable one with other members
		// or owners: a rebalance began and ended between the polls.
		out = append(out, rebalanceStarted(b, rebalanceStart{inferred: true, phase: d.nextPhase()}, causes))
		d.rb = &openRebalance{at: cur.at, base: d.settled}
		out = append(out, d.completeClassic(b, cur, true)...)
		d.rb = nil
	}

	if cur.state == StateEmpty && prev.state != StateEmpty && groupExists(prev.state) {
		out = append(out, b.event(EventGroupEmpty, d.group+" has no active members"))
	}
	if !groupExists(cur.state) && groupExists(prev.state) {
		out = append(out, b.event(EventGroupGone, d.group+" no longer exists"))
	}
	if cur.state == StateStable && d.stable != nil && d.phase == nil {
		out = append(out, partitionsChanged(b, d.stable, cur)...)
	}
	out = append(out, d.taskEvents(b, prev, cur)...)
	d.commit(cur)
	return out
}

// memberRef identifies a member across snapshots (memberKey): a static
// member by its group.instance.id, else by its member id. It is a value:
// making one costs no allocation.
type memberRef struct {
	static bool // id is the group.instance.id
	id     string
}

// memberKey identifies a member across snapshots: its group.instance.id
// when it is a static member, else its member id.
func memberKey(m Member) memberRef {
	if m.InstanceID != "" {
		return memberRef{static: true, id: m.InstanceID}
	}
	return memberRef{id: m.MemberID}
}

func normState(s string) string {
	if s == "" {
		return StateDead
	}
	return s
}

func groupExists(state string) bool { return Group{State: state}.Exists() }

func rebalancing(state string) bool { return Group{State: state}.Rebalancing() }

// settled states have no rebalance in progress; Stable is the only one
// with owners.
func settledState(state string) bool {
	return state == StateStable || state == StateEmpty || state == StateDead
}

func nonNegative(d time.Duration) time.Duration { return max(d, 0) }

// outageSpan writes an outage's length as the bounds it is known within,
// "10.0s–10.6s", or one length when they read the same.
func outageSpan(least, most time.Duration) string {
	lo, hi := Elapsed(least), Elapsed(most)
	if lo == hi {
		return hi
	}
	return lo + "–" + hi
}
