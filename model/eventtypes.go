package model

// EventClass is what kind of news an event is; the UI colours it by its
// class, and its glyph says the same without colour.
type EventClass int

// Event classes.
const (
	ClassInfo   EventClass = iota // the watch itself, state changes
	ClassGood                     // a member joined, a rebalance completed, a recovery
	ClassBad                      // a member left, a connection lost, a commit failed
	ClassChange                   // a rebalance started, a status changed
	ClassMove                     // partitions moved or were assigned
)

// EventFields are the optional JSON fields (`--events`) that every event
// of a type carries, even empty. Member fields (member_id, client_id, host)
// appear on any event that names a member, duration_ms on any whose
// duration is known, partitions on any that lists some.
type EventFields uint8

// Optional JSON fields an event type always carries.
const (
	// FieldPartitions: partitions, [] when none.
	FieldPartitions EventFields = 1 << iota
	// FieldFromTo: from and to (client ids of one move; "" is unowned).
	FieldFromTo
	// FieldMoves: moves, [] when none.
	FieldMoves
	// FieldRebalances: the group's rebalance counts (JSONRebalances:
	// rebalances_1m, rebalances_10m, rebalances_1h, stopped_ms_10m …).
	FieldRebalances
	// FieldDeploy: deploy, the run of replacements (model.Deploy).
	FieldDeploy
	// FieldProtocol: protocol and from_protocol (a member's protocols).
	FieldProtocol
	// FieldGroupType: from_type and to_type (the group's types).
	FieldGroupType
	// FieldTask: task, task_kind and task_was ("" none).
	FieldTask
)

// EventSpec is what every event of one type has in common: its glyph and
// class on screen, a sentence saying what it means, and its JSON fields.
type EventSpec struct {
	Type EventType
	// Glyph is one terminal cell, outside Unicode's East Asian Ambiguous
	// class, with no emoji presentation.
	Glyph  string
	Class  EventClass
	Fields EventFields
	// Means says what the event means, for help and documentation.
	Means string
}

// eventSpecs is the registry of event types: adding a type is one entry
// here, plus the code that emits it.
var eventSpecs = []EventSpec{
	{EventWatchStarted, "◉", ClassInfo, 0, "the watch began; the group as found (its members are not 'joined')"},
	{EventMemberJoined, "+", ClassGood, 0, "a member joined the group"},
	{EventMemberLeft, "×", ClassBad, 0, "a member left the group or was evicted; partitions: what it owned"},
	{EventStateChanged, "~", ClassInfo, 0, "the group's state changed (state: the new one)"},
	{EventRebalanceStarted, "◐", ClassChange, 0, "a rebalance began"},
	{EventRebalanceCompleted, "✓", ClassGood, FieldPartitions | FieldMoves | FieldRebalances,
		"a rebalance ended; moves: every partition that changed owner; partitions: those revoked and given back to the same owner (a cooperative revoke phase: those revoked, moved by the next round); rebalances_1m, rebalances_10m, rebalances_1h …: the group's rebalances up to this one"},
	{EventPartitionMoved, "→", ClassMove, FieldPartitions | FieldFromTo, "one partition changed owner (from, to)"},
	{EventGroupEmpty, "○", ClassChange, 0, "the group has no active members"},
	{EventGroupGone, "∅", ClassBad, 0, "the group no longer exists"},
	{EventPartitionsChanged, "#", ClassChange, FieldPartitions, "a topic the group reads gained or lost partitions (partitions: those added or gone)"},
	{EventStatusChanged, "△", ClassChange, FieldPartitions, "partitions got a new status (state: the status)"},
	{EventConnectionLost, "⚠", ClassBad, 0, "polls began to fail (time: when the failure was seen)"},
	{EventConnectionRestored, "↺", ClassGood, 0, "a poll succeeded again; duration: from the last good poll to this one, the most the outage lasted; min duration: from the first failed poll's start to the last failure, the least"},
	{EventPollUnanswered, "⋯", ClassBad, 0, "a poll has gone unanswered for three poll intervals (at least 3s): the data on screen is that old and growing; duration: how long the poll had waited. It opens an outage as connection_lost does: a failure of that poll adds no connection_lost"},
	{EventPollAnswered, "↵", ClassGood, 0, "the unanswered poll was answered, no poll having failed meanwhile; duration: how long it went unanswered (after a failure, connection_restored ends the outage instead)"},
	{EventClusterChanged, "⚑", ClassBad, 0, "the cluster id changed between two polls: another cluster answers on the same addresses; the watch starts afresh (a watch_started follows, and nothing is diffed against the old cluster)"},
	{EventLogEndBackwards, "↧", ClassBad, FieldPartitions, "partitions' log end offsets went backwards (the topic was deleted and recreated, or another cluster answers); partitions: those"},
	{EventRebalanceStorm, "≋", ClassBad, FieldRebalances, "the last 10 minutes counted more rebalances than --max-rebalances: a storm (a crash-looping member, a rolling deploy without graceful shutdown, evictions), not a one-off"},
	{EventRebalanceStormEnded, "∿", ClassGood, FieldRebalances, "the last 10 minutes count no more rebalances than --max-rebalances again"},
	{EventDeployStarted, "⇉", ClassChange, FieldDeploy,
		"a member was replaced (same client id or group.instance.id, a new member id): a restart or rolling deploy began; deploy: what it is so far"},
	{EventDeployCompleted, "⇥", ClassInfo, FieldDeploy,
		"no member was replaced for 2 minutes after the last replacement (or every member was, several, and the group is Stable): the restart, rolling deploy or restart loop is over; deploy: members replaced, replacements, rebalances and their stopped time; duration: first replacement to last"},
	{EventMemberReconciling, "⇄", ClassChange, 0, "a consumer group member fell behind its target assignment (epoch or partitions); partitions: those it is to receive or give up"},
	{EventMemberReconciled, "⇌", ClassGood, 0, "a consumer group member reached its target assignment; partitions: what it owns"},

	{EventGroupTypeChanged, "⇅", ClassChange, FieldGroupType,
		"the group's type changed under its name (from_type, to_type): a classic group became a consumer group when its first consumer-protocol member joined (online migration), and a classic group again when its last one left"},
	{EventMemberProtocolChanged, "⇋", ClassChange, FieldProtocol,
		"a member rejoined speaking the other protocol (protocol, from_protocol): the same member or instance id, or the same client id leaving under one as it joins under the other"},
	{EventTaskMoved, "↝", ClassMove, FieldFromTo | FieldTask,
		"a streams task moved between members (from, to: client ids; \"\" is unassigned); task_kind: active, standby or warmup; task_was: what the new owner held it as (warmup: a warm-up became active)"},

	{EventDemoSpawned, "»", ClassGood, 0, "demo: a consumer was started"},
	{EventDemoAssigned, "⇢", ClassMove, 0, "demo: a consumer was given partitions"},
	{EventDemoRevoked, "⇠", ClassMove, 0, "demo: partitions were taken from a consumer"},
	{EventDemoStopped, "-", ClassChange, 0, "demo: a consumer stopped gracefully (LeaveGroup sent)"},
	{EventDemoKilled, "✗", ClassBad, 0, "demo: a consumer was killed (connections cut, no LeaveGroup)"},
	{EventDemoEvicted, "⊘", ClassBad, 0, "demo: the coordinator evicted a killed consumer; duration: since the kill"},
	{EventDemoCommitFailed, "!", ClassBad, 0, "demo: a commit was refused (a rebalance took the partition)"},
	{EventDemoDuplicate, "≡", ClassChange, 0, "demo: an order was processed more than once"},
	{EventDemoLost, "⊖", ClassBad, FieldPartitions, "demo: an order committed past (commit before) whose consumer died before processing it; partitions: where it was"},
	{EventDemoPoison, "⊗", ClassBad, 0, "demo: a consumer cannot process a poison order and retries it, committing nothing past it; partitions: where it is"},
	{EventDemoPoisonSkipped, "⇲", ClassGood, 0, "demo: a consumer skipped the poison order (as to a dead-letter topic) and committed past it; partitions: where it was"},
	{EventDemoRestarted, "↻", ClassChange, 0, "demo: a consumer closed as a process restart does and started again (same client id and instance id); duration: how long it was down"},
	{EventDemoRebalanceClocked, "◔", ClassInfo, 0, "demo: the embedded coordinator's own dates for a rebalance: duration from when the group left Stable or a member asked to join to when every member had its assignment (time); the rebalance_completed it belongs to takes that duration"},
}

// EventTypes returns every event type's spec, in the registry's order: the
// group's events first, the demo's last.
func EventTypes() []EventSpec { return append([]EventSpec(nil), eventSpecs...) }

// Spec returns the type's spec; ok is false for a type not registered.
func (t EventType) Spec() (spec EventSpec, ok bool) {
	for _, s := range eventSpecs {
		if s.Type == t {
			return s, true
		}
	}
	return EventSpec{Type: t, Glyph: "?", Class: ClassInfo}, false
}
