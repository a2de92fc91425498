// Package model holds kgwatch's data and the pure logic over it: snapshots of
// a consumer group, lag arithmetic and sorting. It performs no I/O and reads
// no clock: time arrives as a value.
package model

import (
	"cmp"
	"strings"
	"time"
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

// CompareTP orders partitions by topic, then partition number, as
// TopicPartition.Less does (for slices.SortFunc).
func CompareTP(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
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
	// Protocol is the protocol the member speaks, as ConsumerGroupDescribe
	// v1 (MemberType) or StreamsGroupDescribe (IsClassic) tells it:
	// ProtocolClassic for a classic member of a group being migrated
	// online, ProtocolConsumer for a consumer-protocol member; "" when
	// not told (classic and share groups, ConsumerGroupDescribe v0).
	Protocol string
	// ProcessID, TopologyEpoch and Endpoint are a streams group member's
	// (KIP-1071): the Kafka Streams instance it runs in (one process id
	// for all its threads), the topology epoch it runs and its
	// application.server endpoint ("host:port", "" when none).
	ProcessID     string
	TopologyEpoch int32
	Endpoint      string
	// Tasks are a streams member's current tasks, TargetTasks those the
	// coordinator wants it to run; zero for other groups. Its active
	// tasks give it Partitions (the source topics' partitions they
	// read), its target active tasks TargetPartitions.
	Tasks       Tasks
	TargetTasks Tasks
	// OwnedPartitions is what a classic member said it owned as it
	// joined (known with OwnedKnown: its consumer protocol subscription
	// v1+, KIP-429): a cooperative member keeps them through the join.
	OwnedPartitions []TopicPartition
	OwnedKnown      bool
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

// Member protocols (Member.Protocol).
const (
	ProtocolClassic  = "classic"
	ProtocolConsumer = "consumer"
)

// TaskID names a Kafka Streams task: a subtopology and a partition
// number; the task reads that partition of each of the subtopology's
// source topics.
type TaskID struct {
	Subtopology string `json:"subtopology"`
	Partition   int32  `json:"partition"`
}

// CompareTask orders tasks by subtopology, then partition (for
// slices.SortFunc).
func CompareTask(a, b TaskID) int {
	if c := strings.Compare(a.Subtopology, b.Subtopology); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// Tasks are a streams member's tasks by kind, each sorted by
// subtopology, then partition.
type Tasks struct {
	// Active tasks process records; Standby tasks keep a replica of an
	// active task's state; Warmup tasks are standbys catching up before
	// they become active.
	Active  []TaskID
	Standby []TaskID
	Warmup  []TaskID
}

// Empty reports whether there are no tasks at all.
func (t Tasks) Empty() bool { return len(t.Active)+len(t.Standby)+len(t.Warmup) == 0 }

// Subtopology is one subtopology of a streams group's topology, as
// StreamsGroupDescribe tells it: the topics its tasks read (source and
// repartition source topics), write for repartitioning and keep state in.
type Subtopology struct {
	ID                      string
	SourceTopics            []string
	RepartitionSourceTopics []string
	RepartitionSinkTopics   []string
	ChangelogTopics         []string
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
	// LeaderEpoch is the committed offset's leader epoch (OffsetFetch),
	// known with LeaderEpochKnown.
	LeaderEpoch      int32
	LeaderEpochKnown bool
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
	// TakenAt is when the poll began reading, CompletedAt when its last
	// answer came (zero: not known); the snapshot takes both.
	TakenAt     time.Time
	CompletedAt time.Time
	Brokers     []string
	// ClusterID is the id the cluster's metadata gave; "" when unknown
	// (Metadata before v2).
	ClusterID string
	Group     Group
	Members   []Member
	// Topics holds what the poll read of each partition (commits, their
	// errors, log offsets, the records lagging partitions wait on), by
	// topic, sorted by name: NewSnapshot walks them without hashing. Put
	// values in with Part or the Set methods (With for map literals).
	Topics []TopicObservation
}

// Snapshot is the state of one group at one instant.
//
// Who owns it: one NewSnapshot returns is its holder's. One a
// SnapshotBuilder returns (the TUI's page builds them from its watcher's
// observations) has rows the builder writes again at its next Build: the
// page shows it until then, and a Pipeline keeps nothing of its rows;
// whoever keeps it, or a pointer into its Partitions, longer keeps a
// Clone. Fields copied out of it (timeline events) and its Members,
// Owners and Oldest are never reused; its members' partition lists may be
// the next snapshot's too, and are never written.
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
