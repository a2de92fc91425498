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
