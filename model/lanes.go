package model

import (
	"slices"
	"sort"
	"strconv"
	"time"
)

// Lane cell kinds: what is known of a partition's owner at one moment.
const (
	// LaneUnowned: the group was settled and no member owned the partition.
	LaneUnowned = -1
	// LaneRebalancing: the group was between generations, so the owner was
	// not known (coordinators report assignments only while Stable).
	LaneRebalancing = -2
	// LaneUnknown: polls failed (connection lost).
	LaneUnknown = -3
	// LaneNone: before the first observation.
	LaneNone = -4
)

// DefaultLaneHorizon is how much ownership history Lanes keeps.
const DefaultLaneHorizon = 10 * time.Minute

// maxLaneSamples bounds the change points kept, whatever the horizon, so a
// group that rebalances every poll for days still has flat memory.
const maxLaneSamples = 4096

// laneSample is the ownership from At until the next sample. Owners holds
// one entry per partition row known at the time (index into Lanes.owners,
// or a Lane* kind); rows added later read as LaneNone. A sample whose
// kind is not zero applies that kind to every row and has no Owners.
type laneSample struct {
	At     time.Time
	Kind   int
	Owners []int32
}

// Lanes is a bounded history of who owned each partition, sampled once per
// snapshot and stored only where ownership changed, so memory is flat over
// days and a steady group costs nothing per poll. The UI draws it as one
// lane per partition with time running left to right. Lanes is not safe for
// concurrent use.
type Lanes struct {
	horizon time.Duration

	rows   []TopicPartition // in order of discovery; row ids are stable
	sorted []int            // row ids in partition order (sortRows)

	owners   []string         // owner labels (client id, else short member id)
	ownerIdx map[string]int32 // label → index in owners
	// rowLabel and rowLabelIdx are each row's last owner label and its
	// index in owners (rowOwner).
	rowLabel    []string
	rowLabelIdx []int32

	samples []laneSample // oldest first; change points only
	last    time.Time    // time of the latest observation
	scratch []int32
	// seenIDs are the row ids of the last snapshot's partitions, in its
	// order: a poll's partitions are mostly the last one's, in the same
	// order, so they are matched by position first (findRows for the
	// others).
	seenIDs []int
	ids     []int
	members uint64 // memberSum of the last Stable snapshot
	// coop: the group was seen rebalancing cooperatively (Group.Cooperative
	// is read only while Stable; it holds from then on).
	coop bool
}

// NewLanes returns an empty history keeping horizon of it
// (DefaultLaneHorizon when horizon is not positive).
func NewLanes(horizon time.Duration) *Lanes {
	if horizon <= 0 {
		horizon = DefaultLaneHorizon
	}
	return &Lanes{horizon: horizon, ownerIdx: map[string]int32{}}
}

// Observe records the owners in s at s.TakenAt. A classic group's owners
// are read only from a Stable snapshot: during a rebalance every
// partition's owner is unknown, which is what shows an eager rebalance as a
// gap across every lane. A consumer or share group's current owners are
// read in every state: a partition being handed over is unowned, and only
// for as long as it is. A share partition's label is its first owner's,
// with "+N" for the N others.
func (l *Lanes) Observe(s Snapshot) {
	at := s.TakenAt
	state := normState(s.Group.State)
	broker := s.Group.CoordinatorAssigned()
	// Owners are read only when the snapshot tells them; a poll then
	// walks its rows once, matching each to its lane row and reading its
	// owner in the same pass (a row is 392 bytes: a second walk over
	// 10,000 of them cost as much as the first).
	read := broker && s.Group.AssignmentsKnown() || !rebalancing(state) && state == StateStable
	owners := l.scratch[:0]
	if read {
		for range l.rows {
			owners = append(owners, LaneUnowned)
		}
	}
	ids := l.ids[:0]
	i := 0
	for ; i < len(s.Partitions); i++ { // by index: a row is 392 bytes
		p := &s.Partitions[i]
		if i >= len(l.seenIDs) || l.rows[l.seenIDs[i]] != p.TopicPartition {
			break
		}
		id := l.seenIDs[i]
		ids = append(ids, id)
		if read && p.Owned() {
			owners[id] = l.rowOwner(id, laneLabel(p))
		}
	}
	if i < len(s.Partitions) {
		ids = l.findRows(s.Partitions, i, ids)
		if read {
			for len(owners) < len(l.rows) {
				owners = append(owners, LaneUnowned)
			}
			for ; i < len(s.Partitions); i++ {
				if p := &s.Partitions[i]; p.Owned() {
					owners[ids[i]] = l.rowOwner(ids[i], laneLabel(p))
				}
			}
		}
	}
	l.ids, l.seenIDs = l.seenIDs[:0], ids
	switch {
	case read:
	case rebalancing(state):
		l.record(laneSample{At: at, Kind: LaneRebalancing})
		return
	default:
		l.record(laneSample{At: at, Kind: LaneUnowned})
		return
	}
	l.scratch = owners
	members := memberSum(s.Members)
	if n := len(l.samples); !broker && n > 0 && l.samples[n-1].Kind == 0 && l.samples[n-1].At.Before(at) &&
		(members != l.members || !slices.Equal(l.samples[n-1].Owners, owners)) {
		// Two Stable snapshots with other members or owners: a rebalance
		// began and ended between the polls. Its time is unknown; it is
		// drawn as a gap in the period of the snapshot that revealed it.
		l.record(laneSample{At: at.Add(-time.Nanosecond), Kind: LaneRebalancing})
	}
	l.members = members
	l.coop = l.coop || s.Group.Cooperative
	if l.coop && !broker {
		l.keepThroughRebalance(owners)
	}
	l.record(laneSample{At: at, Owners: owners})
}

// laneLabel is an owned row's lane label: its owner's client id, else its
// short member id, with "+N" for a share partition's N other owners.
func laneLabel(p *PartitionLag) string {
	label := p.ClientID
	if label == "" {
		label = ShortID(p.MemberID)
	}
	if len(p.Owners) > 1 {
		label += " +" + strconv.Itoa(len(p.Owners)-1)
	}
	return label
}

// memberSum identifies a member set whatever its order: the sum of the
// members' id hashes. A static member counts by its instance id, so its
// restart with a new member id (no rebalance) leaves the set unchanged.
func memberSum(ms []Member) uint64 {
	var sum uint64
	for _, m := range ms {
		id, prefix := m.MemberID, uint64(0)
		if m.InstanceID != "" {
			id, prefix = m.InstanceID, 1
		}
		h := uint64(14695981039346656037) // FNV-1a
		h = (h ^ prefix) * 1099511628211
		for i := 0; i < len(id); i++ {
			h = (h ^ uint64(id[i])) * 1099511628211
		}
		sum += h
	}
	return sum
}

// keepThroughRebalance rewrites the rebalance that ends with owners, when
// the last samples are one. A cooperative rebalance revokes only the
// partitions that move, and only once it ends (members keep consuming
// until their new assignment arrives). So a partition with the same owner
// before and after was owned throughout; one its owner gave up (unowned
// after: the revoke phase) was owned until the end; one unowned before
// (revoked in the previous phase) stayed unowned until its new owner got
// it. Only a partition moved from one owner to another without its revoke
// phase seen keeps the gap: when it was revoked is unknown.
func (l *Lanes) keepThroughRebalance(owners []int32) {
	k := len(l.samples)
	for k > 0 && l.samples[k-1].Kind == LaneRebalancing {
		k--
	}
	if k == len(l.samples) || k == 0 || l.samples[k-1].Kind != 0 {
		return
	}
	before := l.samples[k-1].Owners
	merged := make([]int32, len(owners))
	for r := range merged {
		merged[r] = LaneRebalancing
		if r >= len(before) {
			continue
		}
		switch b := before[r]; {
		case b >= 0 && (b == owners[r] || owners[r] == LaneUnowned):
			merged[r] = b
		case b == LaneUnowned:
			merged[r] = LaneUnowned
		}
	}
	l.samples[k] = laneSample{At: l.samples[k].At, Owners: merged}
	clear(l.samples[k+1:])
	l.samples = l.samples[:k+1]
}

// Lost records that polls failed from at on: owners are unknown until the
// next Observe.
func (l *Lanes) Lost(at time.Time) {
	l.record(laneSample{At: at, Kind: LaneUnknown})
}

// rowOwner is owner(label) for row id, which remembers its last owner:
// a poll of the owners as they were costs a comparison a row, not a map
// lookup.
func (l *Lanes) rowOwner(id int, label string) int32 {
	for len(l.rowLabel) <= id {
		l.rowLabel = append(l.rowLabel, "")
		l.rowLabelIdx = append(l.rowLabelIdx, 0)
	}
	if l.rowLabel[id] != label || label == "" {
		l.rowLabel[id], l.rowLabelIdx[id] = label, l.owner(label)
	}
	return l.rowLabelIdx[id]
}

func (l *Lanes) owner(label string) int32 {
	if i, ok := l.ownerIdx[label]; ok {
		return i
	}
	i := int32(len(l.owners))
	l.owners = append(l.owners, label)
	l.ownerIdx[label] = i
	return i
}

// record appends s unless it says the same as the latest sample, then
// drops what fell out of the horizon. s.Owners is copied when kept.
func (l *Lanes) record(s laneSample) {
	if s.At.After(l.last) {
		l.last = s.At
	}
	if n := len(l.samples); n > 0 {
		prev := &l.samples[n-1]
		if s.At.Before(prev.At) {
			return // out of order: ownership history only moves forward
		}
		if prev.Kind == s.Kind && slices.Equal(prev.Owners, s.Owners) {
			return
		}
	}
	if s.Owners != nil {
		s.Owners = slices.Clone(s.Owners)
	}
	l.samples = append(l.samples, s)
	l.trim()
}

// trim drops samples that ended before the horizon, keeping the one in
// force at its start, and keeps at most maxLaneSamples.
func (l *Lanes) trim() {
	cut := l.last.Add(-l.horizon)
	drop := 0
	for drop+1 < len(l.samples) && !l.samples[drop+1].At.After(cut) {
		drop++
	}
	drop = max(drop, len(l.samples)-maxLaneSamples)
	if drop > 0 {
		n := copy(l.samples, l.samples[drop:])
		clear(l.samples[n:])
		l.samples = l.samples[:n]
	}
}

// Len returns the number of partition rows.
func (l *Lanes) Len() int { return len(l.rows) }

// Rows returns the partitions in partition order; the UI draws lanes in
// this order. Row i of the result is Row(i).
func (l *Lanes) Rows() []TopicPartition {
	l.sortRows()
	out := make([]TopicPartition, len(l.sorted))
	for i, r := range l.sorted {
		out[i] = l.rows[r]
	}
	return out
}

// Row returns the i-th partition in partition order.
func (l *Lanes) Row(i int) TopicPartition {
	l.sortRows()
	return l.rows[l.sorted[i]]
}

// findRows appends to ids the row ids of parts[from:], giving the
// partitions not seen before the next ones. Partitions sorted as
// NewSnapshot sorts them (the live and recorded ones) are matched against
// the rows in partition order in one walk; from the first out of order on
// (a snapshot made by hand), through a map made for this call. So Lanes
// keeps no map of its own (at 100,000 partitions it was 7.8 MB, and a
// copy of the last snapshot's partitions 2.4 MB more). New row ids are
// given in parts' order, as they always were.
func (l *Lanes) findRows(parts []PartitionLag, from int, ids []int) []int {
	l.sortRows()
	sorted, n := l.sorted, len(l.rows) // the rows before this call
	k := 0
	for i := from; i < len(parts); i++ {
		tp := parts[i].TopicPartition
		if i > from && !parts[i-1].Less(tp) {
			return l.findRowsByMap(parts, i, ids)
		}
		for k < len(sorted) && l.rows[sorted[k]].Less(tp) {
			k++
		}
		if k < len(sorted) && l.rows[sorted[k]] == tp {
			ids = append(ids, sorted[k])
			k++
			continue
		}
		ids = append(ids, len(l.rows))
		l.rows = append(l.rows, tp)
	}
	if len(l.rows) > n {
		// The new rows came in partition order: merged into sorted, not
		// sorted again at the next call.
		merged := make([]int, 0, len(l.rows))
		a, b := 0, n
		for a < n || b < len(l.rows) {
			if b == len(l.rows) || a < n && l.rows[sorted[a]].Less(l.rows[b]) {
				merged = append(merged, sorted[a])
				a++
			} else {
				merged = append(merged, b)
				b++
			}
		}
		l.sorted = merged
	}
	return ids
}

// findRowsByMap is findRows for partitions in any order.
func (l *Lanes) findRowsByMap(parts []PartitionLag, from int, ids []int) []int {
	idx := make(map[TopicPartition]int, len(l.rows))
	for id, tp := range l.rows {
		idx[tp] = id
	}
	for i := from; i < len(parts); i++ {
		tp := parts[i].TopicPartition
		id, ok := idx[tp]
		if !ok {
			id = len(l.rows)
			idx[tp] = id
			l.rows = append(l.rows, tp)
		}
		ids = append(ids, id)
	}
	return ids
}

// sortRows makes sorted the row ids in partition order; rows are only
// ever added, so it is up to date when it has them all.
func (l *Lanes) sortRows() {
	if len(l.sorted) == len(l.rows) {
		return
	}
	l.sorted = make([]int, len(l.rows))
	for i := range l.sorted {
		l.sorted[i] = i
	}
	sort.Slice(l.sorted, func(i, j int) bool { return l.rows[l.sorted[i]].Less(l.rows[l.sorted[j]]) })
}

// Owners returns the owner labels; OwnerAt's non-negative results index
// it.
func (l *Lanes) Owners() []string { return l.owners }

// Column is the ownership in force at one moment, for reading many rows at
// that moment without searching again.
type Column struct {
	l *Lanes
	s *laneSample // nil: before anything was observed
}

// At returns the ownership in force at t: that of the latest sample not
// after t.
func (l *Lanes) At(t time.Time) Column {
	i := sort.Search(len(l.samples), func(i int) bool { return l.samples[i].At.After(t) })
	if i == 0 {
		return Column{l: l}
	}
	return Column{l: l, s: &l.samples[i-1]}
}

// Owner returns the owner of the i-th row in partition order at the
// column's moment: an index into Owners, or one of LaneUnowned,
// LaneRebalancing, LaneUnknown, LaneNone.
func (c Column) Owner(i int) int {
	if c.s == nil {
		return LaneNone
	}
	if c.s.Kind != 0 {
		return c.s.Kind
	}
	c.l.sortRows()
	r := c.l.sorted[i]
	if r >= len(c.s.Owners) {
		return LaneNone // the partition was not seen yet
	}
	return int(c.s.Owners[r])
}

// Lane fills out with the owners of the i-th row in partition order over
// len(out) consecutive periods of length step, the first starting at from.
// A period shows what matters most that happened in it, so a rebalance
// shorter than a period still shows: LaneRebalancing, then LaneUnknown, then
// LaneUnowned, then the owner at the period's end. Its cost is one search
// plus one step per period and per change point.
func (l *Lanes) Lane(i int, from time.Time, step time.Duration, out []int) {
	l.sortRows()
	r := l.sorted[i]
	k := sort.Search(len(l.samples), func(j int) bool { return l.samples[j].At.After(from) }) - 1
	start := from
	for c := range out {
		end := start.Add(step)
		for k+1 < len(l.samples) && !l.samples[k+1].At.After(start) {
			k++ // begins exactly at the period's start
		}
		start = end
		best := l.ownerIn(k, r)
		for k+1 < len(l.samples) && l.samples[k+1].At.Before(end) {
			k++
			if v := l.ownerIn(k, r); laneRank(v) >= laneRank(best) {
				best = v
			}
		}
		out[c] = best
	}
}

func (l *Lanes) ownerIn(k, r int) int {
	if k < 0 {
		return LaneNone
	}
	s := &l.samples[k]
	if s.Kind != 0 {
		return s.Kind
	}
	if r >= len(s.Owners) {
		return LaneNone
	}
	return int(s.Owners[r])
}

// laneRank orders what a period shows: gaps over owners.
func laneRank(v int) int {
	switch v {
	case LaneRebalancing:
		return 4
	case LaneUnknown:
		return 3
	case LaneUnowned:
		return 2
	case LaneNone:
		return 0
	}
	return 1
}

// Since returns the time of the oldest ownership the history holds (the
// start of the watch until the horizon trims it); ok is false before the
// first observation.
func (l *Lanes) Since() (time.Time, bool) {
	if len(l.samples) == 0 {
		return time.Time{}, false
	}
	return l.samples[0].At, true
}

// Pause is what a rebalance cost the partitions: how long they could not
// be consumed, summed over the partitions (partition-time), and the
// longest time any one of them could not.
type Pause struct {
	Sum, Longest time.Duration
	// Partitions is how many partitions stopped.
	Partitions int
}

// Paused returns the time each partition was rebalancing or unowned
// between from and to, summed over the partitions, and the longest such
// run of one partition. A partition is counted only once it was owned at
// or after from's sample, so partitions nobody reads (more partitions
// than the group has ever had owners for) do not count; a partition still
// paused at to counts up to to.
func (l *Lanes) Paused(from, to time.Time) Pause {
	var p Pause
	if !to.After(from) || len(l.samples) == 0 {
		return p
	}
	l.sortRows()
	k := sort.Search(len(l.samples), func(i int) bool { return l.samples[i].At.After(from) }) - 1
	for r := range l.rows {
		run := time.Duration(0)
		owned, stopped := false, false
		for j := max(k, 0); j < len(l.samples); j++ {
			s := l.samples[j]
			if !s.At.Before(to) {
				break
			}
			start, end := s.At, to
			if start.Before(from) {
				start = from
			}
			if j+1 < len(l.samples) && l.samples[j+1].At.Before(to) {
				end = l.samples[j+1].At
			}
			v := l.ownerIn(j, r)
			switch {
			case v >= 0:
				owned = true
				p.Longest = max(p.Longest, run)
				run = 0
			case v == LaneRebalancing || v == LaneUnowned || v == LaneUnknown:
				if owned || v == LaneRebalancing {
					d := end.Sub(start)
					stopped = stopped || d > 0
					p.Sum += d
					run += d
				}
			}
		}
		p.Longest = max(p.Longest, run)
		if stopped {
			p.Partitions++
		}
	}
	return p
}

// ConsumerPause is what a rebalance cost by its consumers' own reports
// (the demo's demo_revoked and demo_assigned, events oldest first): each
// partition revoked at or after from and assigned again by to was not
// consumed in between. Partitions that never stopped (kept by a
// cooperative rebalance) cost nothing. ok is false when no partition was
// both revoked and assigned in the window, so the reports say nothing.
func ConsumerPause(events []Event, from, to time.Time) (p Pause, ok bool) {
	revoked := map[TopicPartition]time.Time{}
	for _, e := range events {
		if e.Time.Before(from) || e.Time.After(to) {
			continue
		}
		switch e.Type {
		case EventDemoRevoked:
			for _, tp := range e.Partitions {
				if _, pending := revoked[tp]; !pending {
					revoked[tp] = e.Time
				}
			}
		case EventDemoAssigned:
			for _, tp := range e.Partitions {
				at, pending := revoked[tp]
				if !pending {
					continue
				}
				delete(revoked, tp)
				d := e.Time.Sub(at)
				p.Partitions++
				p.Sum += d
				p.Longest = max(p.Longest, d)
				ok = true
			}
		}
	}
	return p, ok
}
