package model

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
	// StateNotReady is a KIP-1071 streams group not yet able to run
	// (its internal topics are missing or misconfigured).
	StateNotReady = "NotReady"
)

// Group describes a consumer group as its coordinator reports it.
type Group struct {
	ID    string
	State string
	// Type is the group's type as the broker said (ListGroups v5, or the
	// describe that answered); "" when unknown (a group that does not
	// exist). What it can show is its Kind.
	Type         GroupType
	ProtocolType string
	// Assignor is the classic group's protocol (the assignor its members
	// chose), or the server assignor of a consumer or share group
	// ("uniform", "range", "simple").
	Assignor string
	// Coordinator is the host:port of the group's coordinator, when known;
	// CoordinatorID its broker id then.
	Coordinator   string
	CoordinatorID int32
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
	// TopologyEpoch and Topology are a streams group's (KIP-1071): the
	// epoch of the topology its members run and its subtopologies; 0 and
	// nil for other groups, and nil before a member has sent one.
	TopologyEpoch int32
	Topology      []Subtopology
}

// ClassicMembers counts the members still speaking the classic protocol
// (Member.Protocol) in a group of another type: a consumer group being
// migrated online holds both until its last classic member is gone.
func ClassicMembers(members []Member) int {
	n := 0
	for _, m := range members {
		if m.Protocol == ProtocolClassic {
			n++
		}
	}
	return n
}

// AssignmentsKnown reports whether the members' assignments say who owns
// what. Groups the coordinator assigns report current assignments in every
// state; classic coordinators report them only while Stable.
func (g Group) AssignmentsKnown() bool {
	if g.CoordinatorAssigned() {
		return g.Exists() && g.State != StateUnknown // Unknown: not described
	}
	return g.State == StateStable
}

// RebalanceGeneration is the number that moves by one with each
// rebalance: the target assignment epoch of a group the coordinator
// assigns, a classic group's Generation; 0 when unknown. RebalanceRate counts the
// rebalances no poll saw by it.
func (g Group) RebalanceGeneration() int32 {
	if g.CoordinatorAssigned() {
		return max(g.AssignmentEpoch, 0)
	}
	return max(g.Generation, 0)
}

// CoordinatorAssigned reports whether the coordinator assigns the group's
// partitions (Kind.CoordinatorAssigned): it reports them in every state,
// with group and assignment epochs, and a rebalance is the target
// assignment's epoch moving, not a state.
func (g Group) CoordinatorAssigned() bool { return g.Kind().CoordinatorAssigned }

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
	case StateNotReady:
		return "is not ready: its internal topics are missing or misconfigured"
	case StateUnknown:
		if g.Type.Known() { // a broker's word, named only when it is a known type
			return "is a " + string(g.Type) + " group kgwatch cannot describe: members unknown"
		}
		return "has commits but is not a classic group: members unknown"
	default:
		return g.State
	}
}
