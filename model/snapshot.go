// Package model holds kgwatch's data and the pure logic over it: snapshots of
// a consumer group, lag arithmetic and sorting. It performs no I/O and reads
// no clock: time arrives as a value.
package model

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Group states as DescribeGroups reports them for classic groups.
const (
	StateStable              = "Stable"
	StateEmpty               = "Empty"
	StatePreparingRebalance  = "PreparingRebalance"
	StateCompletingRebalance = "CompletingRebalance"
	StateDead                = "Dead"
	// StateAssigning and StateReconciling are KIP-848 consumer groups
	// between target assignments: the same as a classic rebalance to
	// the reader.
	StateAssigning   = "Assigning"
	StateReconciling = "Reconciling"
	// StateUnknown is a group that every describe kgwatch speaks reports
	// as missing although it has committed offsets: a streams group
	// (KIP-1071), or one whose type the broker's APIs cannot describe.
	// Its lag is known; its members and state are not.
	StateUnknown = "Unknown"
	// StateNotReady is a KIP-1071 streams group not yet able to run.
	StateNotReady = "NotReady"
)

// Group types, as ListGroups v5 names them.
const (
	// TypeClassic groups rebalance with JoinGroup/SyncGroup; the members
	// (their leader) assign.
	TypeClassic = "classic"
	// TypeConsumer groups (KIP-848) are assigned by the coordinator:
	// members have epochs and reconcile towards a target assignment.
	TypeConsumer = "consumer"
	// TypeShare groups (KIP-932) may assign one partition to several
	// members; the broker tracks a share-partition start offset.
	TypeShare = "share"
	// TypeStreams groups (KIP-1071) are listed but not described yet.
	TypeStreams = "streams"
)

// NoOffset marks an offset that is unknown or was never committed.
const NoOffset int64 = -1

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// Less orders partitions by topic, then partition number.
func (tp TopicPartition) Less(o TopicPartition) bool {
	if tp.Topic != o.Topic {
		return tp.Topic < o.Topic
	}
	return tp.Partition < o.Partition
}

// Group describes a consumer group as its coordinator reports it.
type Group struct {
	ID    string
	State string
	// Type is one of TypeClassic, TypeConsumer, TypeShare, TypeStreams, as
	// the broker said (ListGroups v5, or the describe that answered); ""
	// when unknown (a group that does not exist).
	Type         string
	ProtocolType string
	// Assignor is the classic group's protocol (the assignor its members
	// chose), or the server assignor of a consumer or share group
	// ("uniform", "range", "simple").
	Assignor string
	// Coordinator is the host:port of the group's coordinator, when known.
	Coordinator string
	// Epoch is the group epoch and AssignmentEpoch the epoch of its target
	// assignment (consumer and share groups; 0 for classic groups). The
	// coordinator bumps Epoch when membership or subscriptions change,
	// then computes a new target: AssignmentEpoch catches up.
	Epoch           int32
	AssignmentEpoch int32
	// Generation is a classic group's generation as its members'
	// subscriptions tell it (ConsumerProtocolSubscription v2+: the
	// generation each joined from; the highest, plus one), read while
	// Stable, the only state DescribeGroups shows them in; 0 when
	// unknown (clients that send none, such as kafka-go and librdkafka,
	// or only new members). DescribeGroups itself gives none.
	Generation int32
	// Cooperative: a classic group whose members joined still owning
	// partitions (their ConsumerProtocolSubscription v1+ lists them):
	// incremental cooperative rebalancing, in two phases (revoke, then
	// assign). Eager members revoke everything before they join. Read
	// while Stable, the only state DescribeGroups shows metadata in.
	Cooperative bool
}

// AssignmentsKnown reports whether the members' assignments say who owns
// what. Consumer and share groups report current assignments in every
// state; classic coordinators report them only while Stable.
func (g Group) AssignmentsKnown() bool {
	if g.CoordinatorAssigned() {
		return g.Exists()
	}
	return g.State == StateStable
}

// RebalanceGeneration is the number that moves by one with each
// rebalance: a consumer or share group's target assignment epoch, a
// classic group's Generation; 0 when unknown. RebalanceRate counts the
// rebalances no poll saw by it.
func (g Group) RebalanceGeneration() int32 {
	if g.CoordinatorAssigned() {
		return max(g.AssignmentEpoch, 0)
	}
	return max(g.Generation, 0)
}

// CoordinatorAssigned reports whether the coordinator assigns the group's
// partitions (consumer and share groups): it reports them in every state,
// with group and assignment epochs, and a rebalance is the target
// assignment's epoch moving, not a state.
func (g Group) CoordinatorAssigned() bool { return g.Type == TypeConsumer || g.Type == TypeShare }

// Exists reports whether the coordinator knows the group. A group that was
// never created, or was deleted, is reported as Dead.
func (g Group) Exists() bool { return g.State != "" && g.State != StateDead }

// Rebalancing reports whether the group is between generations (classic
// PreparingRebalance and CompletingRebalance; KIP-848 Assigning and
// Reconciling). It is the one rule: it drives fast polling, the timeline's
// rebalances and the "is rebalancing" words alike.
func (g Group) Rebalancing() bool {
	switch g.State {
	case StatePreparingRebalance, StateCompletingRebalance, StateAssigning, StateReconciling:
		return true
	}
	return false
}

// StateText says the group's state in kafka-consumer-groups' words.
func (g Group) StateText() string {
	switch g.State {
	case StateEmpty:
		return "has no active members"
	case StatePreparingRebalance, StateCompletingRebalance, StateAssigning, StateReconciling:
		return "is rebalancing"
	case StateDead, "":
		return "does not exist"
	case StateUnknown:
		switch g.Type { // a broker's word, named only when it is a known type
		case TypeStreams, TypeConsumer, TypeShare, TypeClassic:
			return "is a " + g.Type + " group kgwatch cannot describe: members unknown"
		}
		return "has commits but is not a classic group: members unknown"
	default:
		return g.State
	}
}

// Member is one member of a group and what it was assigned.
type Member struct {
	MemberID string
	// InstanceID is the member's group.instance.id (static membership),
	// empty for a dynamic member. A static member that restarts within the
	// session timeout comes back with a new MemberID and the same
	// InstanceID, keeps its partitions, and causes no rebalance.
	InstanceID string
	ClientID   string
	Host       string
	// Rack is the member's rack (consumer and share groups), "" when none.
	Rack string
	// Partitions is what the member owns now (a consumer group member's
	// current assignment).
	Partitions []TopicPartition
	// MemberEpoch is the epoch the member has reconciled to (consumer and
	// share groups; 0 for classic members). -2 is a static member that
	// left for now (a restart): it keeps its partitions until its session
	// times out or it comes back with the same InstanceID.
	MemberEpoch int32
	// TargetPartitions is what the coordinator wants a consumer group
	// member to own; nil for other groups.
	TargetPartitions []TopicPartition
	// SubscribedTopics and SubscribedRegex are what a consumer or share
	// group member subscribed to.
	SubscribedTopics []string
	SubscribedRegex  string
	// Reconciling: a consumer group member behind the target assignment
	// (its epoch below Group.AssignmentEpoch, or owning other partitions
	// than its target). Set by NewSnapshot.
	Reconciling bool
	// Lag is the sum of the lag of the member's partitions (a share
	// group's partition counts in each member it is assigned to).
	Lag int64
	// ConsumeRate sums the member's partitions' consume rates; filled by
	// History.Annotate.
	ConsumeRate Rate
	// InFlight: all of Lag is in flight (PartitionLag.InFlight); filled
	// by History.Annotate.
	InFlight bool
	// CommitDelay is how long before the snapshot one of its partitions'
	// commits last moved (known with CommitSeen); CommitEvery the
	// shortest of their cadences, how often this member commits (0: not
	// known yet). Filled by History.Annotate.
	CommitDelay time.Duration
	CommitSeen  bool
	CommitEvery time.Duration
}

// PartitionOffsets is what the partition's leader reports of its log.
type PartitionOffsets struct {
	LogStart int64
	LogEnd   int64
	// Err is set when the offsets could not be read; LogStart and LogEnd are
	// NoOffset then.
	Err string
}

// Owner is one member a partition is assigned to.
type Owner struct {
	MemberID string
	ClientID string
	Host     string
}

// PartitionLag is one row of the partition table.
type PartitionLag struct {
	TopicPartition
	// MemberID, ClientID and Host name the owner (the first of Owners);
	// all empty when unowned.
	MemberID string
	ClientID string
	Host     string
	// Owners lists every member the partition is assigned to, ordered as
	// Snapshot.Members: at most one, except in share groups, where
	// several members may share a partition. Nil when unowned.
	Owners []Owner
	// PendingMemberID and PendingClientID name, in a consumer group, the
	// member whose target assignment holds the partition while no
	// member's current assignment does: it is being handed over to it.
	PendingMemberID string
	PendingClientID string
	// PrevOwner is, while a rebalance leaves the partition unowned, the
	// owner it had before (its client id, else its short member id), and
	// PrevMemberID that owner's member id; filled by History.Annotate.
	PrevOwner    string
	PrevMemberID string
	// Committed is the group's committed offset, NoOffset when none. For
	// a share group it is the share-partition start offset: every record
	// before it was delivered and acknowledged.
	Committed int64
	LogStart  int64
	LogEnd    int64
	// Lag is LogEnd-Committed, or LogEnd-LogStart when nothing was committed
	// (LagFromStart is then true). It is never negative. LagFromBroker: a
	// share group's lag as the broker counts it (DescribeShareGroupOffsets
	// v1: records from the start offset on not yet acknowledged), which
	// may be less than LogEnd-Committed.
	Lag           int64
	LagFromStart  bool
	LagFromBroker bool
	// Err is a per-partition failure (offsets or commit unreadable).
	Err string
	// LagAge is how long the oldest unprocessed record (the one at the
	// committed offset; with no commit, at log-start) has waited: TakenAt
	// minus its timestamp, 0 when Lag is 0. LagAgeKnown is false when no
	// timestamp could be read (LagAge is 0 then, not a guess). LagAgeGone
	// says the record was deleted (retention) before it was consumed.
	LagAge      time.Duration
	LagAgeKnown bool
	LagAgeGone  bool
	// LagMarkersOnly: the lag is only control records (transaction
	// markers after the last commit), no message: Lag counts them, as
	// Kafka's tools do, but the age is 0 and the partition OK.
	LagMarkersOnly bool
	// Oldest holds, for a partition with lag, the record it waits on
	// (the one whose timestamp gives LagAge), when it was read: one at
	// most (OldestRecord). A slice and not a pointer: the recording
	// (model/record) writes no pointers, and rows without lag, most of
	// them, stay as small.
	Oldest []OldestRecord

	// The fields below are filled by History.Annotate; zero until then.

	// Status is the partition's verdict.
	Status Status
	// ConsumeRate is committed offsets per second and ProduceRate log-end
	// offsets per second, over HistoryOptions.Window.
	ConsumeRate Rate
	ProduceRate Rate
	// CommitMovedAt is the snapshot time at which the committed offset was
	// last seen to change. Until a change is seen it is when the partition
	// was first seen and CommitMoveSeen is false ("unchanged since at least").
	CommitMovedAt  time.Time
	CommitMoveSeen bool
	// CommitDelay is how long before the snapshot the committed offset
	// last moved (known with CommitMoveSeen); CommitEvery how often its
	// commits come under its owner, as polls see them (the cadence its
	// allowance is made of), 0 until two of them have been seen.
	CommitDelay time.Duration
	CommitEvery time.Duration
	// StalledSince is when the current stretch of lag > 0 with no commit
	// progress began (a commit, or lag 0, ends it); zero when lag is 0.
	// STALLED once it is StallAfter old. StalledSinceExact is false when
	// the stretch began before the partition was first seen.
	StalledSince      time.Time
	StalledSinceExact bool
	// InFlight: the lag is only work in progress, nothing to look at: the
	// status is OK and the oldest unprocessed message (with no age known:
	// the lag without a commit) is younger than a few polls (at least
	// 5s). Such a partition is never the worst and sorts as having no lag.
	InFlight bool
}

// CountsFromStart reports whether the row's lag counts from the log start
// (nothing committed, log offsets known): marked "*" wherever it is shown.
func (p *PartitionLag) CountsFromStart() bool { return p.LagFromStart && p.LogEnd >= 0 }

// LagFromStart reports whether some of the total lag counts from the log
// start: a row CountsFromStart. The total is marked "*" then, as the
// overview marks a group's.
func (s *Snapshot) LagFromStart() bool {
	for i := range s.Partitions {
		if s.Partitions[i].CountsFromStart() {
			return true
		}
	}
	return false
}

// Owned reports whether a member of the group owns the partition.
func (p PartitionLag) Owned() bool { return p.MemberID != "" }

// Observation is the raw material of a snapshot: what one poll read from
// the brokers, before any arithmetic.
type Observation struct {
	TakenAt time.Time
	Brokers []string
	// ClusterID is the id the cluster's metadata gave; "" when unknown
	// (Metadata before v2).
	ClusterID string
	Group     Group
	Members   []Member
	// Committed maps each partition with a commit to its committed offset.
	Committed map[TopicPartition]int64
	// CommitErrs holds per-partition OffsetFetch errors.
	CommitErrs map[TopicPartition]string
	// ShareLag holds a share group's lag per partition as the broker
	// reports it; absent or negative where it gives none.
	ShareLag map[TopicPartition]int64
	// Offsets maps each partition of the group's topics to its log offsets.
	Offsets map[TopicPartition]PartitionOffsets
	// OldestTimestamp maps partitions with lag to the timestamp of the
	// record at the committed offset (no commit: at log-start).
	OldestTimestamp map[TopicPartition]time.Time
	// OldestGone holds partitions whose record at the committed offset was
	// deleted before it was read.
	OldestGone map[TopicPartition]bool
	// OldestMarkerOnly holds partitions with lag in which only control
	// records (transaction commit or abort markers) follow the committed
	// offset: no message waits.
	OldestMarkerOnly map[TopicPartition]bool
	// OldestRecords maps partitions with lag to what was read of the
	// record at the committed offset (no commit: at log-start), from the
	// same fetch as its timestamp: key, headers and sizes, never its value.
	OldestRecords map[TopicPartition]OldestRecord
}

// Snapshot is the state of one group at one instant.
type Snapshot struct {
	// TakenAt is when the poll began reading (lag ages are measured from
	// it); CompletedAt when its last answer came, zero when not known.
	TakenAt     time.Time
	CompletedAt time.Time
	Brokers     []string
	// ClusterID is the id of the cluster that answered ("" when
	// unknown): another id on the same addresses is another cluster.
	ClusterID  string
	Group      Group
	Members    []Member
	Partitions []PartitionLag
	TotalLag   int64
	MaxLag     int64
	// MaxLagAge is the largest known LagAge; MaxLagAgeKnown is false when
	// no partition's age is known.
	MaxLagAge      time.Duration
	MaxLagAgeKnown bool

	// The fields below are filled by History.Annotate; zero until then.

	// Status is the worst partition status.
	Status Status
	// ConsumeRate and ProduceRate are the group's committed offsets and
	// log ends per second, from their sums over the rates window; unknown
	// until most partitions have been watched for half of it.
	ConsumeRate Rate
	ProduceRate Rate
	// ETA is how long until total lag reaches zero at the current rates;
	// ETAKnown only when lag > 0 and consumption outpaces production by a
	// margin (5%, 0.5/s) while total lag fell across the window.
	ETA      time.Duration
	ETAKnown bool
	// FallingBehind: lag > 0, production outpaces consumption by a margin
	// and total lag grew across the window; it holds while the gap stays
	// above half the margin, so it does not flap. FallingBehindKnown: the
	// group's rates were measured (and no commit went back), so
	// FallingBehind is a verdict, not a default; JSON writes null without.
	FallingBehind      bool
	FallingBehindKnown bool
	// WorstPartition is the partition to look at first (worst status, then
	// oldest lag, then largest lag); HasWorst is false when every partition
	// is OK with no lag or only lag in flight (PartitionLag.InFlight).
	WorstPartition TopicPartition
	HasWorst       bool
	// TotalLagHistory is total lag over the last minutes, oldest first, one
	// point per HistoryOptions.SparkEvery (for a sparkline).
	TotalLagHistory []int64

	// Rebalances counts the group's rebalances over the last minute, ten
	// minutes and hour, up to this poll (Pipeline.Observe fills it).
	Rebalances RebalanceStats
}

// ObservedAt is when the snapshot was seen: the completion of the poll
// that read it, or its start when that is not known. Timeline events are
// dated by it: a group's change, or its coming back after an outage, is
// known only once the poll that shows it has answered.
func (s Snapshot) ObservedAt() time.Time {
	if s.CompletedAt.IsZero() {
		return s.TakenAt
	}
	return s.CompletedAt
}

// NewSnapshot computes lag for every partition that is owned or committed,
// per-member lag and the totals. Partitions are sorted by topic and number,
// members by client id then member id.
func NewSnapshot(o Observation) Snapshot {
	s := Snapshot{TakenAt: o.TakenAt, Brokers: o.Brokers, ClusterID: o.ClusterID, Group: o.Group}

	members := make([]Member, len(o.Members))
	copy(members, o.Members)
	sort.SliceStable(members, func(a, b int) bool {
		if members[a].ClientID != members[b].ClientID {
			return members[a].ClientID < members[b].ClientID
		}
		return members[a].MemberID < members[b].MemberID
	})

	// entries lists every partition to show once: committed ones carry
	// their offset, owned ones their first owner's index (-1: unowned),
	// targeted ones (consumer groups) the index of a member whose target
	// holds them; shared holds the further owners of partitions assigned
	// to several members (share groups). Partitions are found and sorted
	// by an integer key (topic, partition), never by their strings: at
	// 10,000 partitions a map keyed by TopicPartition and a sort comparing
	// names were most of the cost.
	for i := range members {
		members[i].Lag = 0
		if members[i].TargetPartitions != nil {
			target := slices.Clone(members[i].TargetPartitions)
			slices.SortFunc(target, CompareTP)
			members[i].TargetPartitions = slices.Compact(target)
		}
	}
	scratch := entryScratchPool.Get().(*entryScratch)
	defer entryScratchPool.Put(scratch)
	entries := collectEntries(o.Committed, members, scratch)
	// Each member's partitions, in the same order, from the sorted entries.
	for i := range members {
		members[i].Partitions = make([]TopicPartition, 0, len(members[i].Partitions))
	}
	nShared := 0
	for _, e := range entries {
		if e.owner >= 0 {
			members[e.owner].Partitions = append(members[e.owner].Partitions, e.tp)
		}
		for _, j := range e.sharedOwners() {
			members[j].Partitions = append(members[j].Partitions, e.tp)
			nShared++
		}
	}
	if o.Group.Type == TypeConsumer {
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
	rows := make([]PartitionLag, len(entries))
	alone := make([]Owner, len(members))
	for i, m := range members {
		alone[i] = Owner{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.Host}
	}
	var olds []OldestRecord // the rows' Oldest, one array
	if len(o.OldestRecords) > 0 {
		olds = make([]OldestRecord, 0, len(o.OldestRecords))
	}
	var owners []Owner
	if nShared > 0 {
		owners = make([]Owner, 0, nShared+len(entries))
	}
	for k, en := range entries {
		tp, i := en.tp, int(en.owner)
		row := &rows[k]
		row.TopicPartition = tp
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
		e, commitUnread := o.CommitErrs[tp]
		if commitUnread {
			row.Err = e
		}
		if off, ok := o.Offsets[tp]; ok {
			row.LogStart, row.LogEnd = off.LogStart, off.LogEnd
			if off.Err != "" {
				row.Err = joinErr(row.Err, off.Err)
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
		if l, ok := o.ShareLag[tp]; ok && l >= 0 && row.LogEnd >= 0 {
			row.Lag, row.LagFromBroker = l, true
		}
		if row.LogEnd >= 0 && row.Committed > row.LogEnd {
			// Lag 0 would say all is well; the consumer will get
			// OFFSET_OUT_OF_RANGE and reset by auto.offset.reset.
			row.Err = joinErr(row.Err, "committed offset "+strconv.FormatInt(row.Committed, 10)+
				" is past log-end "+strconv.FormatInt(row.LogEnd, 10)+" (log truncated or topic recreated?)")
		}
		row.LagMarkersOnly = row.Lag > 0 && o.OldestMarkerOnly[tp]
		ts, hasTS := o.OldestTimestamp[tp]
		row.LagAge, row.LagAgeKnown, row.LagAgeGone = LagAge(*row, o.TakenAt, ts, hasTS, o.OldestGone[tp])
		if commitUnread {
			row.LagAge, row.LagAgeKnown, row.LagAgeGone = 0, false, false
		}
		if r, ok := o.OldestRecords[tp]; ok && row.Lag > 0 && !commitUnread && !row.LagMarkersOnly && len(olds) < cap(olds) {
			olds = append(olds, r)
			row.Oldest = olds[len(olds)-1 : len(olds) : len(olds)]
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

// entry is one partition to show: its committed offset (NoOffset: none),
// its first owner's index in the members (-1: unowned) and further owners
// (share groups), and a member whose target assignment holds it (-1:
// none). key orders entries: topic rank in the high 32 bits, partition in
// the low.
type entry struct {
	key       uint64
	tp        TopicPartition
	owner     int32
	pending   int32
	committed int64
	// shared is nil but in share groups: a pointer keeps the entries
	// small, and they are copied twice.
	shared *[]int
}

// sharedOwners returns the further owners of e.
func (e *entry) sharedOwners() []int {
	if e.shared == nil {
		return nil
	}
	return *e.shared
}

// collectEntries lists every partition committed, owned or targeted once,
// sorted by topic then partition. Kafka numbers a topic's partitions 0 to
// n-1, so a partition is found by its slot, base[topic] + partition, and
// walking the slots yields them sorted: no map, no sort. Numbers too
// sparse for slots (or negative) fall back to a map and a sort, both on
// integer keys.
//
// The entries returned live in scratch, until its next use.
func collectEntries(committed map[TopicPartition]int64, members []Member, scratch *entryScratch) []entry {
	owned := 0
	for _, m := range members {
		owned += len(m.Partitions) + len(m.TargetPartitions)
	}
	// raw holds every mention in turn: commits, then owners, then
	// targets, each keyed by the topic's discovery number for now.
	raw := scratch.raw[:0]
	if need := len(committed) + owned; cap(raw) < need {
		raw = make([]entry, 0, need)
	}
	defer func() { scratch.raw = raw[:0] }()
	var topics topicRanks
	var top []int64 // highest partition per discovery number
	dense := true
	note := func(tp TopicPartition) uint64 {
		k := topics.key(tp)
		id := int(k >> 32)
		for len(top) <= id {
			top = append(top, -1)
		}
		top[id] = max(top[id], int64(tp.Partition))
		dense = dense && tp.Partition >= 0
		return k
	}
	for tp, c := range committed {
		raw = append(raw, entry{key: note(tp), tp: tp, owner: -1, pending: -1, committed: c})
	}
	for i := range members {
		for _, tp := range members[i].Partitions {
			raw = append(raw, entry{key: note(tp), tp: tp, owner: int32(i), pending: -1, committed: NoOffset})
		}
	}
	for i := range members {
		for _, tp := range members[i].TargetPartitions {
			raw = append(raw, entry{key: note(tp), tp: tp, owner: -1, pending: int32(i), committed: NoOffset})
		}
	}
	rank := topics.ranks()
	for k := range raw {
		raw[k].key = uint64(rank[raw[k].key>>32])<<32 | raw[k].key&0xffffffff
	}

	// merge folds a mention into the entry found for its partition.
	merge := func(e *entry, m entry) {
		switch {
		case m.owner >= 0:
			switch {
			case e.owner < 0:
				e.owner = m.owner
			case e.owner != m.owner && !slices.Contains(e.sharedOwners(), int(m.owner)):
				if e.shared == nil {
					e.shared = new([]int)
				}
				*e.shared = append(*e.shared, int(m.owner))
			}
		case m.pending >= 0:
			if e.pending < 0 {
				e.pending = m.pending
			}
		}
	}

	slots := int64(0)
	for _, t := range top {
		slots += t + 1
	}
	if dense && slots <= 2*int64(len(raw))+1024 {
		base := make([]int64, len(top)+1)
		byRank := make([]int64, len(top)) // partitions per rank
		for id, t := range top {
			byRank[rank[id]] = t + 1
		}
		for r, n := range byRank {
			base[r+1] = base[r] + n
		}
		// at holds, per slot, the first mention of its partition, into
		// which the later ones fold.
		at := make([]int32, slots)
		for k := range at {
			at[k] = -1
		}
		n := 0
		for k := range raw {
			slot := base[raw[k].key>>32] + int64(raw[k].tp.Partition)
			if first := at[slot]; first >= 0 {
				merge(&raw[first], raw[k])
				continue
			}
			at[slot] = int32(k)
			n++
		}
		entries := scratch.entries[:0]
		if cap(entries) < n {
			entries = make([]entry, 0, n)
		}
		defer func() { scratch.entries = entries[:0] }()
		for _, k := range at {
			if k >= 0 {
				entries = append(entries, raw[k])
			}
		}
		return entries
	}
	index := make(map[uint64]int, len(raw))
	entries := make([]entry, 0, len(raw))
	for _, m := range raw {
		if k, ok := index[m.key]; ok {
			merge(&entries[k], m)
			continue
		}
		index[m.key] = len(entries)
		entries = append(entries, m)
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
	return entries
}

// entryScratch holds collectEntries' slices between snapshots: at 10,000
// partitions they are 1.6 MB a poll the collector would otherwise take
// back, while the rows (which snapshots keep) are 3.4 MB.
type entryScratch struct {
	raw, entries []entry
}

var entryScratchPool = sync.Pool{New: func() any { return new(entryScratch) }}

// topicRanks numbers topics in the order they are first seen and then
// ranks them by name, so partitions can sort on integers.
type topicRanks struct {
	names []string
	ids   map[string]uint32
	last  string
	lastI uint32
}

// key returns the partition's provisional key: the topic's discovery
// number in the high 32 bits, the partition in the low.
func (t *topicRanks) key(tp TopicPartition) uint64 {
	if len(t.names) == 0 || tp.Topic != t.last {
		// A few topics are found by a scan: their names are mostly the
		// same strings (one per topic in an answer), compared by pointer
		// first, and a group's partitions come in random topic order.
		if len(t.names) <= 8 {
			for id, name := range t.names {
				if name == tp.Topic {
					t.last, t.lastI = name, uint32(id)
					return uint64(id)<<32 | partitionKey(tp.Partition)
				}
			}
		}
		if t.ids == nil {
			t.ids = make(map[string]uint32)
		}
		id, ok := t.ids[tp.Topic]
		if !ok {
			id = uint32(len(t.names))
			t.ids[tp.Topic] = id
			t.names = append(t.names, tp.Topic)
		}
		t.last, t.lastI = tp.Topic, id
	}
	return uint64(t.lastI)<<32 | partitionKey(tp.Partition)
}

// partitionKey is a partition number as the low half of a key: sign bit
// flipped, so keys order negative numbers (a broken broker's) first, as
// CompareTP does.
func partitionKey(p int32) uint64 { return uint64(uint32(p) ^ 1<<31) }

// ranks maps each discovery number to the topic's rank by name.
func (t *topicRanks) ranks() []uint32 {
	order := make([]uint32, len(t.names))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(t.names[a], t.names[b]) })
	rank := make([]uint32, len(t.names))
	for r, id := range order {
		rank[id] = uint32(r)
	}
	return rank
}

// CompareTP orders partitions by topic, then partition number, as
// TopicPartition.Less does (for slices.SortFunc).
func CompareTP(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

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
