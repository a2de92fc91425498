package model

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// snapView is what the differ keeps of one snapshot.
type snapView struct {
	at       time.Time
	state    string // normalized: a group that does not exist is Dead
	assignor string
	typ      GroupType
	known    bool // the members' assignments say who owns what
	coop     bool // a classic group seen rebalancing cooperatively
	// target is a consumer or share group's target assignment epoch.
	target     int32
	members    []Member
	byID       map[string]int // member id → index in members (last wins)
	byKey      map[string]int // memberKey → index in members (last wins)
	partitions []PartitionLag
	counts     map[string]int // partitions per topic in the snapshot
	owners     []owning       // see owned
}

func newSnapView(s Snapshot) *snapView {
	v := &snapView{
		at:         s.ObservedAt(),
		state:      normState(s.Group.State),
		assignor:   s.Group.Assignor,
		typ:        s.Group.Type,
		known:      s.Group.AssignmentsKnown(),
		coop:       s.Group.Cooperative,
		target:     s.Group.AssignmentEpoch,
		members:    s.Members,
		byID:       make(map[string]int, len(s.Members)),
		byKey:      make(map[string]int, len(s.Members)),
		partitions: s.Partitions,
		counts:     make(map[string]int),
	}
	for i, m := range s.Members {
		v.byID[m.MemberID] = i
		v.byKey[memberKey(m)] = i
	}
	rows := s.Partitions
	for i := 0; i < len(rows); { // rows are sorted by topic: count runs
		j := i + 1
		for j < len(rows) && rows[j].Topic == rows[i].Topic {
			j++
		}
		v.counts[rows[i].Topic] += j - i
		i = j
	}
	return v
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
	return e
}

func (d *differ) observe(s Snapshot) []Event {
	cur := newSnapView(s)
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
	d.commit(cur)
	return out
}

// rebalanceStart says how a rebalance came to be seen, for its
// rebalance_started.
type rebalanceStart struct {
	inferred bool   // it began and ended between two polls
	restored bool   // first seen right after an outage
	phase    string // PhaseAssign after a cooperative revoke phase (nextPhase)
	epoch    string // how the target assignment epoch moved (epochMove)
}

// open opens d.rb, first seen in progress now, from the owners of base
// (nil: unknown), and returns its rebalance_started. Seen first right
// after an outage, it may have begun at any time during it: its duration
// is unknown.
func (d *differ) open(b stamp, base *snapView, how rebalanceStart, causes []string) Event {
	d.rb = &openRebalance{at: b.at, timed: !how.restored, outage: how.restored, base: base}
	return rebalanceStarted(b, how, causes)
}

// rebalanceStarted is a rebalance's rebalance_started, with the members'
// comings and goings that set it off.
func rebalanceStarted(b stamp, how rebalanceStart, causes []string) Event {
	var what string
	switch {
	case how.inferred && how.phase == PhaseAssign:
		what = "assign phase of the cooperative rebalance happened between polls"
	case how.inferred:
		what = "rebalance happened between polls"
	case how.phase == PhaseAssign:
		what = "assign phase of the cooperative rebalance started"
	case how.restored:
		what = "rebalance in progress (it began while the connection was lost)"
	default:
		what = "rebalance started"
	}
	e := b.event(EventRebalanceStarted, startDetail(what+how.epoch, causes))
	e.Inferred, e.Phase = how.inferred, how.phase
	return e
}

// nextPhase is the phase of a classic group's next rebalance: the assign
// phase after a cooperative revoke phase, else none.
func (d *differ) nextPhase() string {
	if d.phase != nil {
		return PhaseAssign
	}
	return ""
}

// knownPartitions returns what a member (by memberKey) owned at the last
// snapshot whose owners are known (the last settled one for a classic
// group); ok is false when that is unknown (it joined since).
func (d *differ) knownPartitions(key string) (parts []TopicPartition, ok bool) {
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
}

// completeClassic closes the classic rebalance d.rb at the settled view
// cur. A cooperative group rebalances in two phases: the first ends with
// the partitions that move revoked (unowned, their owners still members)
// and is reported as the revoke phase; the next rebalance, the assign
// phase, reports the moves from the owners before the first.
func (d *differ) completeClassic(b stamp, cur *snapView, inferred bool) []Event {
	rb := d.rb
	coop := d.coop || cur.coop // commit folded rb.base's into d.coop
	if coop && d.phase == nil && cur.state == StateStable && rb.base != nil && revokedOnly(rb.base, cur) {
		d.phase = rb
		c := completion{inferred: inferred, phase: PhaseRevoke}
		if !inferred && rb.timed {
			c.took, c.timed = nonNegative(cur.at.Sub(rb.at)), true
		}
		return rebalanceCompleted(b, rb.base, cur, c, coop)
	}
	switch {
	case d.phase == nil && inferred:
		return rebalanceCompleted(b, rb.base, cur, d.endedBetweenPolls(cur.at), coop)
	case d.phase == nil:
		return rebalanceCompleted(b, rb.base, cur, ended(rb, cur.at), coop)
	}
	first := d.phase // the revoke phase: the rebalance began with it
	c := completion{inferred: inferred, phase: PhaseAssign}
	switch {
	case first.timed && rb.timed && !inferred:
		c.took, c.timed = nonNegative(cur.at.Sub(first.at)), true
		c.lead = "assign phase took " + Elapsed(nonNegative(cur.at.Sub(rb.at))) +
			"; cooperative rebalance took " + Elapsed(c.took)
	case inferred && first.timed:
		c.lead = "assign phase between polls; the cooperative rebalance began " +
			Elapsed(nonNegative(cur.at.Sub(first.at))) + " before"
	default:
		c.lead = "assign phase of a cooperative rebalance completed, duration unknown"
	}
	d.phase = nil
	return rebalanceCompleted(b, first.base, cur, c, coop)
}

// completion is how a rebalance_completed begins: whether the rebalance
// was only inferred, which phase of a cooperative one it is, how long it
// took when that is known, and the words its sentence begins with (the
// revoke phase's are revokeDetail's).
type completion struct {
	inferred bool
	phase    string
	took     time.Duration
	timed    bool
	lead     string
}

// ended is the completion of a whole rebalance seen in progress, rb,
// completed at at.
func ended(rb *openRebalance, at time.Time) completion {
	switch {
	case rb.timed:
		took := nonNegative(at.Sub(rb.at))
		return completion{took: took, timed: true, lead: "rebalance took " + Elapsed(took)}
	case rb.outage:
		return completion{lead: "rebalance completed, duration unknown (the connection was lost meanwhile)"}
	}
	return completion{lead: "rebalance completed (it began before the watch started)"}
}

// endedBetweenPolls is the completion of a whole rebalance inferred
// between two polls, the second at at: timed by its consumers' reports
// when they give it a duration.
func (d *differ) endedBetweenPolls(at time.Time) completion {
	if took, ok := consumerSpan(d.consumers, at); ok {
		return completion{inferred: true, took: took, timed: true,
			lead: "rebalance between polls took " + Elapsed(took) + " (its consumers' clocks)"}
	}
	return completion{inferred: true, lead: "rebalance between polls, duration unknown"}
}

// revokedOnly reports whether cur, after a rebalance from base, has
// partitions that members still in the group gave up and nobody owns yet:
// a cooperative revoke phase.
func revokedOnly(base, cur *snapView) bool {
	moves, _ := diffOwners(base, cur)
	for _, m := range moves {
		if m.To != "" || m.fromID == "" {
			continue
		}
		if i, ok := base.byID[m.fromID]; ok {
			if _, stays := cur.byKey[memberKey(base.members[i])]; stays {
				return true
			}
		}
	}
	return false
}

// rebalanceCompleted closes a rebalance at cur, from the owners of base
// (nil: unknown): rebalance_completed, then one partition_moved per
// partition whose owner changed (none for a revoke phase: they wait for
// the assign phase). incremental: the rebalance leaves the partitions that
// stay alone (cooperative or coordinator-assigned).
func rebalanceCompleted(b stamp, base, cur *snapView, c completion, incremental bool) []Event {
	e := b.event(EventRebalanceCompleted, "")
	e.Inferred, e.Phase = c.inferred, c.phase
	e.Duration, e.HasDuration = c.took, c.timed
	multi := cur.multiTopic()
	var (
		moves []ownerMove
		kept  []TopicPartition
	)
	if base != nil {
		multi = multi || base.multiTopic()
		moves, kept = diffOwners(base, cur)
		if incremental {
			// A cooperative (or coordinator-assigned) rebalance leaves
			// the partitions that stay alone.
			kept = nil
		}
	}
	if len(kept) > 0 {
		if cap(kept) > 2*len(kept) {
			kept = slices.Clone(kept) // the ring keeps it: drop the spare room
		}
		e.Partitions = kept
	}
	if len(moves) > 0 {
		e.Moves = make([]Move, len(moves))
		for i, m := range moves {
			e.Moves[i] = m.Move
		}
	}
	if c.phase == PhaseRevoke {
		e.Detail = revokeDetail(e, multi)
		return []Event{e} // partition_moved waits for the assign phase
	}
	e.Detail = c.lead + ": " + completedSummary(base, cur, moves, kept)
	if len(moves) > MaxMoveEvents {
		// A rebalance of a large group would flush the whole timeline with
		// one event per partition; rebalance_completed lists every move.
		e.Detail += fmt.Sprintf("; %d partition_moved events not listed one by one (see moves)", len(moves))
		return []Event{e}
	}
	out := make([]Event, 0, 1+len(moves))
	out = append(out, e)
	tps := make([]TopicPartition, len(moves)) // one array for all the events
	for i, m := range moves {
		tps[i] = m.TopicPartition
		pe := b.event(EventPartitionMoved, moveDetail(m, multi))
		pe.Inferred = c.inferred
		pe.Partitions = tps[i : i+1 : i+1]
		pe.From, pe.To = m.From, m.To
		out = append(out, pe)
	}
	return out
}

// completedSummary says what a rebalance from base (nil: unknown) to cur
// did: "1 partition moved, 2 stopped, kept by their owner; consumer-c
// owns no partitions".
func completedSummary(base, cur *snapView, moves []ownerMove, kept []TopicPartition) string {
	var summary []string
	if base == nil {
		summary = append(summary, "moves unknown")
	} else {
		var moved, gained, lost int
		for _, m := range moves {
			switch {
			case m.From == "":
				gained++
			case m.To == "":
				lost++
			default:
				moved++
			}
		}
		if moved > 0 {
			summary = append(summary, Count(moved, "partition")+" moved")
		}
		if gained > 0 {
			summary = append(summary, Count(gained, "partition")+" newly assigned")
		}
		if lost > 0 {
			summary = append(summary, Count(lost, "partition")+" left unowned")
		}
		if len(moves) == 0 {
			summary = append(summary, "no partitions moved")
		}
		if len(kept) > 0 {
			summary = append(summary, strconv.Itoa(len(kept))+" stopped, kept by their owner")
		}
	}
	detail := strings.Join(summary, ", ")
	if cur.assigned() {
		var idle []string
		for _, m := range cur.members {
			if len(m.Partitions) == 0 {
				idle = append(idle, memberLabel(m))
			}
		}
		switch len(idle) {
		case 0:
		case 1:
			detail += "; " + idle[0] + " owns no partitions"
		default:
			detail += "; " + listNames(idle) + " own no partitions"
		}
	} else if cur.state == StateEmpty {
		detail += "; the group is empty"
	}
	return detail
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

// owned returns the view's owned partitions sorted, computed once. It reads
// them off the partition rows, which NewSnapshot sorts and fills from the
// members; a snapshot built otherwise is read from its members.
func (v *snapView) owned() []owning {
	if v.owners != nil || !v.assigned() {
		return v.owners
	}
	n := 0
	for _, m := range v.members {
		n += len(m.Partitions)
	}
	out := make([]owning, 0, n)
	ok := true
	for i, r := range v.partitions {
		if i > 0 && !v.partitions[i-1].Less(r.TopicPartition) {
			ok = false
			break
		}
		if r.MemberID == "" {
			continue
		}
		m, known := v.byID[r.MemberID]
		if !known {
			ok = false
			break
		}
		out = append(out, owning{r.TopicPartition, m})
	}
	if !ok || len(out) != n {
		// Rows missing, unsorted, or a partition given to two members
		// (the last one counts).
		idx := make(map[TopicPartition]int, n)
		for i, m := range v.members {
			if v.byID[m.MemberID] != i {
				continue // a duplicate member id: the last one counts
			}
			for _, tp := range m.Partitions {
				idx[tp] = i
			}
		}
		out = out[:0]
		for tp, m := range idx {
			out = append(out, owning{tp, m})
		}
		slices.SortFunc(out, func(a, b owning) int { return CompareTP(a.tp, b.tp) })
	}
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
		for _, p := range before.partitions {
			if p.Topic == topic {
				was[p.Partition] = true
			}
		}
		for _, p := range after.partitions {
			if p.Topic != topic {
				continue
			}
			if was[p.Partition] {
				delete(was, p.Partition)
			} else {
				e.Partitions = append(e.Partitions, p.TopicPartition)
			}
		}
		for p := range was {
			e.Partitions = append(e.Partitions, TopicPartition{Topic: topic, Partition: p})
		}
		sort.Slice(e.Partitions, func(i, j int) bool { return e.Partitions[i].Less(e.Partitions[j]) })
		out = append(out, e)
	}
	return out
}

// memberKey identifies a member across snapshots: its group.instance.id
// when it is a static member, else its member id.
func memberKey(m Member) string {
	if m.InstanceID != "" {
		return "instance:" + m.InstanceID
	}
	return "member:" + m.MemberID
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
