package model

import "time"

// EventType names a kind of timeline event. The string values are part of
// the `--events` JSON contract.
type EventType string

// Event types; eventSpecs (eventtypes.go) gives each its glyph, class
// and meaning.
const (
	EventWatchStarted       EventType = "watch_started"
	EventMemberJoined       EventType = "member_joined"
	EventMemberLeft         EventType = "member_left"
	EventStateChanged       EventType = "state_changed"
	EventRebalanceStarted   EventType = "rebalance_started"
	EventRebalanceCompleted EventType = "rebalance_completed"
	EventPartitionMoved     EventType = "partition_moved"
	EventGroupEmpty         EventType = "group_empty"
	EventGroupGone          EventType = "group_gone"
	EventPartitionsChanged  EventType = "partitions_changed"
	EventStatusChanged      EventType = "status_changed"
	EventConnectionLost     EventType = "connection_lost"
	EventConnectionRestored EventType = "connection_restored"
	// EventMemberReconciling: a consumer group member fell behind the
	// target assignment (its epoch, or its partitions); Partitions lists
	// those it is to receive or give up. EventMemberReconciled: it caught
	// up; Partitions lists what it owns.
	EventMemberReconciling EventType = "member_reconciling"
	EventMemberReconciled  EventType = "member_reconciled"
	// EventPollUnanswered: a poll has gone unanswered for UnansweredAfter
	// the interval; it opens an outage as connection_lost does.
	// EventPollAnswered: that poll's answer came, and no poll failed
	// meanwhile (else the outage ends with connection_restored).
	EventPollUnanswered EventType = "poll_unanswered"
	EventPollAnswered   EventType = "poll_answered"
	// EventClusterChanged: the cluster id changed between two polls
	// (another cluster answers on the same addresses); the watch starts
	// afresh. EventLogEndBackwards: partitions' log ends went backwards
	// (a topic deleted and recreated, or another cluster).
	EventClusterChanged  EventType = "cluster_changed"
	EventLogEndBackwards EventType = "log_end_backwards"
	// EventRebalanceStorm: the last 10 minutes counted more rebalances
	// than --max-rebalances (RebalanceStorm); EventRebalanceStormEnded:
	// no more than it again.
	EventRebalanceStorm      EventType = "rebalance_storm"
	EventRebalanceStormEnded EventType = "rebalance_storm_ended"
	// EventDeployStarted: a member was replaced (same client id or
	// instance id, a new member id), the first of a run (deploy.go).
	// EventDeployCompleted: no replacement came for DeploySpan, or every
	// member was replaced; Deploy says what the run cost.
	EventDeployStarted   EventType = "deploy_started"
	EventDeployCompleted EventType = "deploy_completed"
	// EventGroupTypeChanged: the group's type changed under the same
	// name: a classic group converted to a consumer group when a
	// consumer-protocol member joined (online migration), back to classic
	// when its last consumer-protocol member left (diffkind.go).
	// EventMemberProtocolChanged: a member now speaks the other protocol
	// (the same member id or instance id, or a member of the same client
	// id leaving under one protocol as another joins under the other).
	EventGroupTypeChanged      EventType = "group_type_changed"
	EventMemberProtocolChanged EventType = "member_protocol_changed"
	// EventTaskMoved: a streams group's task (active, standby or warm-up)
	// moved from one member to another (difftasks.go).
	EventTaskMoved EventType = "task_moved"

	EventDemoSpawned      EventType = "demo_spawned"
	EventDemoAssigned     EventType = "demo_assigned"
	EventDemoRevoked      EventType = "demo_revoked"
	EventDemoStopped      EventType = "demo_stopped"
	EventDemoKilled       EventType = "demo_killed"
	EventDemoEvicted      EventType = "demo_evicted"
	EventDemoCommitFailed EventType = "demo_commit_failed"
	EventDemoDuplicate    EventType = "demo_duplicate"
	// EventDemoLost: an order committed past (--commit before) whose
	// consumer died before processing it: at-most-once lost it.
	EventDemoLost EventType = "demo_lost"
	// EventDemoRestarted: a demo consumer closed as a process restart
	// does and started again with the same client id (and instance id).
	EventDemoRestarted EventType = "demo_restarted"
	// EventDemoPoison: a demo consumer failed on a poison order (first
	// time, per group); EventDemoPoisonSkipped: it committed past the
	// poison once skipped, as a dead-letter topic would take it.
	EventDemoPoison        EventType = "demo_poison"
	EventDemoPoisonSkipped EventType = "demo_poison_skipped"
	// EventDemoRebalanceClocked: the demo's coordinator dated a rebalance
	// of its group: Duration from when the group left Stable or a member
	// asked to join to when every member had its assignment (the event's
	// Time). State is StateEmpty when the group was empty as it began.
	EventDemoRebalanceClocked EventType = "demo_rebalance_clocked"
)

// Phases of a cooperative (incremental) classic rebalance: the revoke
// phase ends with the moving partitions given up; the assign phase, one
// generation later, gives them to their new owners.
const (
	PhaseRevoke = "revoke"
	PhaseAssign = "assign"
)

// Move is one partition changing owner. From or To is empty when the
// partition was unowned on that side.
type Move struct {
	TopicPartition
	From string `json:"from"`
	To   string `json:"to"`
}

// Event is one entry of the rebalance timeline.
type Event struct {
	Time  time.Time
	Type  EventType
	Group string
	// MemberID, ClientID and Host name the member the event is about;
	// InstanceID is its group.instance.id when it is a static member.
	MemberID   string
	ClientID   string
	Host       string
	InstanceID string
	Partitions []TopicPartition
	// From and To are client ids, for a single move.
	From string
	To   string
	// Moves lists the partitions that changed owner (rebalance_completed).
	Moves []Move
	// Duration is how long the thing took; HasDuration says whether it is
	// known (an inferred rebalance's duration is not).
	Duration    time.Duration
	HasDuration bool
	// MinDuration, when HasMinDuration, is the least the thing can have
	// lasted, Duration the most: a connection_restored's polls failed
	// from the first failed poll's start to the last failure (MinDuration),
	// within the last good poll to the first good one after (Duration).
	MinDuration    time.Duration
	HasMinDuration bool
	State          string
	Inferred       bool
	// Phase is PhaseRevoke or PhaseAssign on the rebalance_started and
	// rebalance_completed of a cooperative rebalance's two phases; "" for
	// others.
	Phase string
	// Deploy is the run of replacements a deploy_started or
	// deploy_completed tells of; zero (Kind "") on other events.
	Deploy Deploy
	// Protocol is the protocol of the member the event names
	// (ProtocolClassic, ProtocolConsumer), "" when not told;
	// FromProtocol the one it spoke before (member_protocol_changed).
	Protocol     string
	FromProtocol string
	// FromType and ToType are a group_type_changed's types.
	FromType, ToType GroupType
	// Task, TaskKind (TaskActive, TaskStandby, TaskWarmup) and TaskWas
	// are a task_moved's: the task, the kind it moved as, and the kind
	// its new owner held it as before ("" none; TaskWarmup: a warm-up
	// became active).
	Task     TaskID
	TaskKind string
	TaskWas  string
	// Detail is a human sentence.
	Detail string
	// Rebalances is the group's rebalance counts at the event's poll, on
	// the types whose spec has FieldRebalances (rebalance_completed,
	// rebalance_storm, rebalance_storm_ended); zero on others.
	Rebalances RebalanceStats
}
