package model

import "time"

// Demo consumer states, as DemoConsumer.State reports them.
const (
	DemoRunning  = "running"
	DemoStopping = "stopping" // stopping gracefully: finishing its order, then LeaveGroup
	DemoStopped  = "stopped"  // closed and left the group
	DemoKilled   = "killed"   // connections cut, no LeaveGroup: waiting for the session timeout
	DemoEvicted  = "evicted"  // killed, and the coordinator has dropped it
	// DemoRestarting: closed as a process restart closes (a static member
	// sends no leave), about to start again with the same client id and
	// instance id.
	DemoRestarting = "restarting"
)

// Phases of the order a demo consumer has in hand, as
// DemoConsumer.PendingPhase reports them: the window a kill can land in.
const (
	// DemoPhaseProcessing: working on the order, nothing committed yet
	// (--commit after); PendingUntil is when the work ends.
	DemoPhaseProcessing = "processing"
	// DemoPhaseProcessed: processed, its commit waits out --commit-delay
	// until PendingUntil: a kill now makes the order be processed again.
	DemoPhaseProcessed = "processed"
	// DemoPhaseCommitted: committed first (--commit before), processing
	// ends at PendingUntil: a kill now loses the order.
	DemoPhaseCommitted = "committed"
)

// DemoConsumer describes one consumer the demo started: what only the demo
// knows about it (its state, whether it is slow, when it was killed), to
// set beside what the group's coordinator says.
type DemoConsumer struct {
	ClientID string
	// MemberID is the member id of the current generation; empty while the
	// consumer is not in the group.
	MemberID string
	State    string
	Slow     bool
	// KilledAt is when the consumer was killed (zero if it was not).
	KilledAt time.Time
	// EvictedAt is when the demo saw the coordinator drop the killed
	// member (zero until then).
	EvictedAt time.Time
	// StoppedAt is when a graceful stop completed (zero until then).
	StoppedAt time.Time
	// Assigned lists the partitions of the current generation.
	Assigned []TopicPartition

	// Group is the consumer group the consumer is in (compare mode runs
	// several, each with its own consumer-a, consumer-b, …).
	Group string
	// InstanceID is the group.instance.id of a static member, "" for a
	// dynamic one.
	InstanceID string
	// Generation is the group generation (classic) or the member epoch
	// (consumer protocol) of the last assignment; -1 before any.
	Generation int32
	// Restarts counts the restarts; RestartedAt is when the last one
	// started the consumer again.
	Restarts    int
	RestartedAt time.Time

	// PendingOrder is the order the consumer has in hand ("" when idle),
	// at PendingOffset of PendingPartition; PendingPhase (DemoPhase…) says
	// where it is, PendingUntil when that phase ends — so the screen can
	// show "order-000009 processed, commit in 1.4s".
	PendingOrder     string
	PendingPartition TopicPartition
	PendingOffset    int64
	PendingPhase     string
	PendingUntil     time.Time

	// PoisonTries counts the times the consumer failed on the poison
	// order it is stuck on (0: it is not); PoisonPartition and
	// PoisonOffset say where that order is.
	PoisonTries     int
	PoisonPartition TopicPartition
	PoisonOffset    int64
}

// DemoActionKind names what a demo key asks of the demo.
type DemoActionKind string

// Demo actions. Member actions name a consumer (DemoAction.ClientID).
const (
	DemoSpawn   DemoActionKind = "spawn"   // start one more consumer
	DemoStop    DemoActionKind = "stop"    // graceful: finish the order, commit, LeaveGroup
	DemoKill    DemoActionKind = "kill"    // abrupt: connections cut, no LeaveGroup
	DemoRestart DemoActionKind = "restart" // close as a process restart does, start again with the same ids
	DemoSlow    DemoActionKind = "slow"    // toggle slow processing
	DemoPause   DemoActionKind = "pause"   // toggle the producer
	DemoRate    DemoActionKind = "rate"    // set the producer's rate (DemoAction.Rate)
	DemoHotKey  DemoActionKind = "hot"     // toggle the hot key
	// DemoRolling restarts every consumer in turn, each once back in the
	// group before the next, as a rolling deploy does.
	DemoRolling DemoActionKind = "rolling"
	// DemoPoison produces a poison order, one no consumer can process;
	// with one stuck, it skips it instead, as a dead-letter topic would.
	DemoPoison DemoActionKind = "poison"
)

// DemoAction is one thing a demo key asks.
type DemoAction struct {
	Kind     DemoActionKind
	ClientID string  // the consumer, for member actions
	Rate     float64 // orders per second, for DemoRate
}

// DemoOutcome is what an action did: the consumer it started (DemoSpawn),
// whether a toggle is now on (DemoSlow, DemoPause, DemoHotKey; DemoPoison:
// a poison order produced, not one skipped), how many consumers a rolling
// restart restarts (Count), the poison order's place (DemoPoison).
type DemoOutcome struct {
	ClientID string
	On       bool
	Count    int
	Poison   DemoPoisonOrder
}

// DemoPoisonOrder is a poison order: its id and where it is.
type DemoPoisonOrder struct {
	OrderID   string
	Partition TopicPartition
	Offset    int64
}

// DemoRollingRestart is a rolling restart in progress: Done of Of
// consumers restarted, Current the one restarting now.
type DemoRollingRestart struct {
	Of, Done int
	Current  string
}

// DemoStatus is one read of a running demo: its consumers, the producer
// and, when asked for (it costs more), the ledger.
type DemoStatus struct {
	Consumers []DemoConsumer
	Ledger    Ledger
	HasLedger bool
	Rate      float64
	Paused    bool
	HotKey    bool
	// Ledgers, in compare mode, holds each group's ledger (each group
	// consumes every order), with the ledger; nil otherwise.
	Ledgers map[string]Ledger
	// Rolling is the rolling restart in progress (Of 0: none).
	Rolling DemoRollingRestart
	// Poison is the poison order not yet skipped ("" OrderID: none).
	Poison DemoPoisonOrder
}
