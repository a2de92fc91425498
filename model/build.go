package model

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// NewSnapshot computes lag for every partition that is owned or committed,
// per-member lag and the totals. Partitions are sorted by topic and number,
// members by client id then member id. The snapshot shares nothing with o
// that o's next poll may overwrite: o can be cleared and filled again.
func NewSnapshot(o Observation) Snapshot {
	scratch := entryScratchPool.Get().(*entryScratch)
	defer entryScratchPool.Put(scratch)
	return build(&o, nil, nil, scratch)
}

// SnapshotBuilder builds snapshots as NewSnapshot does, in one set of
// rows (Snapshot.Partitions) it reuses poll after poll, so a poll at
// 10,000 partitions leaves no rows to the collector and a page holds one
// set of them, not one shown and one being built (3.9 MB at 10,000
// partitions, 39 MB at 100,000).
//
// The ownership rule: a snapshot Build returns is valid until the next
// Build, which writes its rows again. So the snapshots are built on the
// goroutine that reads them (the TUI's page builds on its update loop,
// after the watcher's poll returned the observation), and nothing reads
// the last snapshot's rows once the next is built: a Pipeline keeps
// nothing of the rows it was fed (its Tracker keeps their keys, its
// History and Lanes their own states). Who keeps a snapshot longer (a
// mark to compare with, a replay's checkpoint, a recording's tap), or a
// pointer into its rows or the slice of them, keeps a Clone. Values
// copied out of a row (timeline events copy partitions, owners, strings)
// stay valid: only the rows' own storage is reused. The members and
// owners are new each time (events keep them); the oldest records are the
// observation's (its own copies, or a watcher's cache), pointed to and
// never written; a member's partitions and targets are the last
// snapshot's slice when they are the same, so no one may write into them.
//
// A SnapshotBuilder is not safe for concurrent use; its zero value is
// ready.
type SnapshotBuilder struct {
	rows []PartitionLag
	// prev is the last snapshot's members: a member's partitions (and
	// targets) equal to the ones it had then are that same slice, never
	// written after it is built, so a stable group's lists are not
	// copied each poll.
	prev    []Member
	scratch entryScratch
}

// Build returns o's snapshot, as NewSnapshot(*o), in the rows of the one
// it built before (see the ownership rule on SnapshotBuilder). o is not
// kept.
func (b *SnapshotBuilder) Build(o *Observation) Snapshot {
	s := build(o, b.rows, b.prev, &b.scratch)
	b.rows = s.Partitions
	b.prev = s.Members
	return s
}

// Clone returns a copy of s that shares no storage a SnapshotBuilder
// reuses: keep it past the builder's ownership rule.
func (s Snapshot) Clone() Snapshot {
	s.Partitions = slices.Clone(s.Partitions)
	return s
}

// build is NewSnapshot, its rows in reuse (cleared first) when it has
// room for them, its members' lists those of prev where they are the same.
func build(o *Observation, reuse []PartitionLag, prev []Member, scratch *entryScratch) Snapshot {
	s := Snapshot{TakenAt: o.TakenAt, CompletedAt: o.CompletedAt, Brokers: o.Brokers, ClusterID: o.ClusterID, Group: o.Group}

	members := make([]Member, len(o.Members))
	copy(members, o.Members)
	slices.SortStableFunc(members, func(a, b Member) int {
		if c := strings.Compare(a.ClientID, b.ClientID); c != 0 {
			return c
		}
		return strings.Compare(a.MemberID, b.MemberID)
	})

	// entries lists every partition to show once: committed ones carry
	// their offset, owned ones their first owner's index (-1: unowned),
	// targeted ones (consumer groups) the index of a member whose target
	// holds them; shared holds the further owners of partitions assigned
	// to several members (share groups). Partitions are found and sorted
	// by an integer key (topic, partition), never by their strings: at
	// 10,000 partitions a map keyed by TopicPartition and a sort comparing
	// names were most of the cost.
	targets := scratch.lists[:0]
	for i := range members {
		members[i].Lag = 0
		if t := members[i].TargetPartitions; t != nil {
			from := len(targets)
			targets = append(targets, t...)
			target := targets[from:]
			slices.SortFunc(target, CompareTP)
			target = slices.Compact(target)
			targets = targets[:from+len(target)]
			members[i].TargetPartitions = target
		}
	}
	scratch.lists = targets
	settle(members, prev, func(m *Member) *[]TopicPartition { return &m.TargetPartitions })
	entries := collectEntries(o.Topics, members, scratch)
	// Each member's partitions, in the same order, from the sorted
	// entries: made in scratch, then settled (events keep them).
	for i := range members {
		members[i].Partitions = nil
	}
	count := grown(&scratch.count, len(members))
	clear(count)
	nShared := 0
	for k := range entries {
		e := &entries[k]
		if e.owner >= 0 {
			count[e.owner]++
		}
		for _, j := range e.sharedOwners() {
			count[j]++
			nShared++
		}
	}
	parts := grown(&scratch.parts, len(entries)+nShared)[:0]
	for i, n := range count {
		members[i].Partitions = parts[len(parts) : len(parts) : len(parts)+n]
		parts = parts[:len(parts)+n]
	}
	for k := range entries {
		e := &entries[k]
		if e.owner >= 0 {
			members[e.owner].Partitions = append(members[e.owner].Partitions, e.tp)
		}
		for _, j := range e.sharedOwners() {
			members[j].Partitions = append(members[j].Partitions, e.tp)
		}
	}
	settle(members, prev, func(m *Member) *[]TopicPartition { return &m.Partitions })
	if o.Group.Kind().TargetAssignment {
		for i := range members {
			m := &members[i]
			// A negative epoch is a static member gone for now (it left
			// with epoch -2 and keeps its partitions until its session
			// times out): it is not reconciling.
			m.Reconciling = m.MemberEpoch >= 0 &&
				(m.MemberEpoch < o.Group.AssignmentEpoch || !slices.Equal(m.Partitions, m.TargetPartitions))
		}
	}

	// Rows are filled in place: they are large, and copying them costs more
	// than the lookups. A partition with one owner takes its Owners from
	// one array of every member's; shared ones (share groups) share
	// another.
	var rows []PartitionLag
	if cap(reuse) >= len(entries) {
		rows = reuse[:len(entries)] // each row is cleared as it is filled
	} else {
		rows = make([]PartitionLag, len(entries))
	}
	alone := make([]Owner, len(members))
	for i, m := range members {
		alone[i] = Owner{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.Host}
	}
	var owners []Owner
	if nShared > 0 {
		owners = make([]Owner, 0, nShared+len(entries))
	}
	var none PartitionObservation // what a partition nothing was read of gives
	var topic *TopicObservation   // the entries' current topic in o
	for k := range entries {
		en := &entries[k]
		tp, i := en.tp, int(en.owner)
		if topic == nil || topic.Topic != tp.Topic {
			topic = nil
			if t, ok := o.topicIndex(tp.Topic); ok {
				topic = &o.Topics[t]
			}
		}
		po := &none
		if topic != nil {
			if p := topic.find(tp.Partition); p != nil {
				po = p
			}
		}
		row := &rows[k]
		*row = PartitionLag{TopicPartition: tp}
		row.Committed, row.LogStart, row.LogEnd = en.committed, NoOffset, NoOffset
		if i >= 0 {
			row.MemberID, row.ClientID, row.Host = members[i].MemberID, members[i].ClientID, members[i].Host
			if en.shared == nil {
				row.Owners = alone[i : i+1 : i+1]
			} else {
				from := len(owners)
				owners = append(owners, alone[i])
				for _, j := range en.sharedOwners() {
					owners = append(owners, alone[j])
				}
				row.Owners = owners[from:len(owners):len(owners)]
			}
		} else if en.pending >= 0 {
			row.PendingMemberID, row.PendingClientID = members[en.pending].MemberID, members[en.pending].ClientID
		}
		if po.LeaderEpochKnown {
			row.LeaderEpoch, row.LeaderEpochKnown = po.LeaderEpoch, true
		}
		commitUnread := po.CommitUnread
		if commitUnread {
			row.Err = po.CommitErr
		}
		if po.HasOffsets {
			row.LogStart, row.LogEnd = po.Offsets.LogStart, po.Offsets.LogEnd
			if po.Offsets.Err != "" {
				row.Err = joinErr(row.Err, po.Offsets.Err)
			}
		} else if row.Err == "" {
			row.Err = "no offsets: partition not found in metadata"
		}
		if bad := impossibleOffsets(row.Committed, row.LogStart, row.LogEnd); bad != "" {
			// A broker's numbers that no log can have: shown as an
			// error, never as lag.
			row.Err = joinErr(row.Err, bad)
			row.Committed, row.LogStart, row.LogEnd = max(row.Committed, NoOffset), NoOffset, NoOffset
		}
		row.Lag, row.LagFromStart = Lag(row.Committed, row.LogStart, row.LogEnd)
		if commitUnread {
			// No commit read is not no commit: the lag is unknown, not
			// the whole log, and adds nothing to the totals.
			row.Lag, row.LagFromStart = 0, false
		}
		if po.HasShareLag && po.ShareLag >= 0 && row.LogEnd >= 0 {
			row.Lag, row.LagFromBroker = po.ShareLag, true
		}
		if row.LogEnd >= 0 && row.Committed > row.LogEnd {
			// Lag 0 would say all is well; the consumer will get
			// OFFSET_OUT_OF_RANGE and reset by auto.offset.reset.
			row.Err = joinErr(row.Err, "committed offset "+strconv.FormatInt(row.Committed, 10)+
				" is past log-end "+strconv.FormatInt(row.LogEnd, 10)+" (log truncated or topic recreated?)")
		}
		row.LagMarkersOnly = row.Lag > 0 && po.OldestMarkerOnly
		row.LagAge, row.LagAgeKnown, row.LagAgeGone = lagAge(row, o.TakenAt, po.OldestTimestamp, po.HasOldestTimestamp, po.OldestGone)
		if commitUnread {
			row.LagAge, row.LagAgeKnown, row.LagAgeGone = 0, false, false
		}
		if po.oldest != nil && row.Lag > 0 && !commitUnread && !row.LagMarkersOnly {
			row.Oldest = unsafe.Slice(po.oldest, 1) // never written (PartitionObservation.oldest)
		}

		s.TotalLag = AddLag(s.TotalLag, row.Lag)
		s.MaxLag = max(s.MaxLag, row.Lag)
		if row.LagAgeKnown && (!s.MaxLagAgeKnown || row.LagAge > s.MaxLagAge) {
			s.MaxLagAge, s.MaxLagAgeKnown = row.LagAge, true
		}
		if i >= 0 {
			members[i].Lag = AddLag(members[i].Lag, row.Lag)
		}
		for _, j := range en.sharedOwners() {
			members[j].Lag = AddLag(members[j].Lag, row.Lag)
		}
	}
	s.Members = members
	s.Partitions = rows
	return s
}

// settle moves the lists list(m) of members out of the scratch storage
// they were made in: a member's list equal to the one of the member at
// the same place in prev (same id) is prev's slice, the others are copied
// into one new array. Lists are never written once settled: snapshots
// and events share them.
func settle(members, prev []Member, list func(*Member) *[]TopicPartition) {
	shared := func(i int) bool { // members[i]'s list is prev's
		if i >= len(prev) || prev[i].MemberID != members[i].MemberID {
			return false
		}
		was, l := *list(&prev[i]), *list(&members[i])
		if was == nil || !slices.Equal(was, l) {
			return false
		}
		*list(&members[i]) = was
		return true
	}
	fresh := 0
	var copyOf []bool
	for i := range members {
		if *list(&members[i]) == nil || shared(i) {
			continue
		}
		if copyOf == nil {
			copyOf = make([]bool, len(members))
		}
		copyOf[i] = true
		fresh += len(*list(&members[i]))
	}
	if copyOf == nil {
		return
	}
	all := make([]TopicPartition, 0, fresh)
	for i, c := range copyOf {
		if c {
			l := list(&members[i])
			from := len(all)
			all = append(all, *l...)
			*l = all[from:len(all):len(all)]
		}
	}
}

// entry is one partition to show: its committed offset (NoOffset: none),

// LagAge returns how long a partition's oldest unprocessed record has
// waited at takenAt, given the timestamp of the record at the committed
// offset (or log-start) when one was read (hasTS), and whether that record
// is gone. A partition with no lag has age 0; unreadable offsets, a gone
// record or no timestamp give no age (known false). A timestamp after
// takenAt (clock skew) gives 0. The age is whole milliseconds: Kafka's
// timestamps are, and what is finer is the poll's clock, not the record's
// wait (it would make every age differ from the last poll's in digits no
// one reads, and a recording pay for them).
func LagAge(p PartitionLag, takenAt, ts time.Time, hasTS, gone bool) (age time.Duration, known, isGone bool) {
	return lagAge(&p, takenAt, ts, hasTS, gone)
}

// lagAge is LagAge without the copy of the row (344 bytes, each row of
// each poll).
func lagAge(p *PartitionLag, takenAt, ts time.Time, hasTS, gone bool) (age time.Duration, known, isGone bool) {
	if p.LogEnd < 0 {
		return 0, false, false
	}
	if p.Lag == 0 || p.LagMarkersOnly {
		return 0, true, false
	}
	if gone || (p.Committed >= 0 && p.LogStart >= 0 && p.Committed < p.LogStart) {
		return 0, false, true
	}
	if !hasTS {
		return 0, false, false
	}
	return max(takenAt.Sub(ts), 0).Truncate(time.Millisecond), true, false
}

// AddLag adds two lags (never negative), saturating at math.MaxInt64: a
// broker answering offsets near the int64 limit must not make a total
// smaller than one of its parts.
func AddLag(a, b int64) int64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxInt64
}

// impossibleOffsets says what is wrong with offsets no partition can have
// (a negative offset other than NoOffset, a log end before the log start),
// "" when they are possible.
func impossibleOffsets(committed, logStart, logEnd int64) string {
	switch {
	case committed < NoOffset:
		return "impossible committed offset " + strconv.FormatInt(committed, 10)
	case logStart < NoOffset || logEnd < NoOffset:
		return "impossible log offsets: log-start " + strconv.FormatInt(logStart, 10) + ", log-end " + strconv.FormatInt(logEnd, 10)
	case logStart >= 0 && logEnd >= 0 && logEnd < logStart:
		return "impossible log offsets: log-end " + strconv.FormatInt(logEnd, 10) + " is below log-start " + strconv.FormatInt(logStart, 10)
	}
	return ""
}

// Lag returns how many messages a partition is behind. With a commit it is
// logEnd-committed; with none it counts from logStart and fromStart is true
// (a consumer with auto.offset.reset=earliest would read all of it). Unknown
// offsets give zero lag. Lag is never negative.
func Lag(committed, logStart, logEnd int64) (lag int64, fromStart bool) {
	if logEnd < 0 {
		return 0, committed < 0
	}
	if committed < 0 {
		if logStart < 0 {
			return 0, true
		}
		return max(logEnd-logStart, 0), true
	}
	return max(logEnd-committed, 0), false
}

// ShortID shortens a member id for display: client id prefixes are dropped
// and the tail of the generated UUID kept, its last 8 characters. The id is
// made Printable first, so the tail is what a terminal would show of the
// whole id, and never cuts a character in two.
func ShortID(memberID string) string {
	s := Printable(memberID)
	n := 0
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if n++; n == 8 {
			return s[i:]
		}
	}
	return s
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
