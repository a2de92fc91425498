package model

import "time"

// Demo consumer states, as DemoConsumer.State reports them.
const (
	DemoRunning  = "running"
	DemoStopping = "stopping" // stopping gracefully: finishing its order, then LeaveGroup
	DemoStopped  = "stopped"  // closed and left the group
	DemoKilled   = "killed"   // connections cut, no LeaveGroup: waiting for the session timeout
	DemoEvicted  = "evicted"  // killed, and the coordinator has dropped it
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
)

// DemoAction is one thing a demo key asks.
type DemoAction struct {
	Kind     DemoActionKind
	ClientID string  // the consumer, for member actions
	Rate     float64 // orders per second, for DemoRate
}

// DemoOutcome is what an action did: the consumer it started (DemoSpawn),
// whether a toggle is now on (DemoSlow, DemoPause, DemoHotKey).
type DemoOutcome struct {
	ClientID string
	On       bool
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
}
