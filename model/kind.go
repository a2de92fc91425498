package model

// GroupType is a group's type as ListGroups v5 names it ("classic",
// "consumer", "share", "streams"), or as the describe that answered says;
// "" when unknown (a group that does not exist, or a broker that lists no
// types). What a type can show is its Kind: code asks the kind, never the
// type's name.
type GroupType string

// Group types, as ListGroups v5 names them. Each has one entry in kinds.
const (
	// TypeClassic groups rebalance with JoinGroup/SyncGroup; the members
	// (their leader) assign.
	TypeClassic GroupType = "classic"
	// TypeConsumer groups (KIP-848) are assigned by the coordinator:
	// members have epochs and reconcile towards a target assignment.
	TypeConsumer GroupType = "consumer"
	// TypeShare groups (KIP-932) may assign one partition to several
	// members; the broker tracks a share-partition start offset.
	TypeShare GroupType = "share"
	// TypeStreams groups (KIP-1071) run Kafka Streams applications: the
	// coordinator assigns tasks (active, standby, warm-up) to members,
	// which reconcile towards their targets as consumer groups do.
	TypeStreams GroupType = "streams"
)

// RebalanceStyle is what a rebalance of a kind of group looks like to a
// poll.
type RebalanceStyle int

const (
	// RebalanceUnknown: kgwatch does not know how the group rebalances
	// (a type it cannot describe, or no type known).
	RebalanceUnknown RebalanceStyle = iota
	// RebalanceGeneration: the group moves from generation to generation
	// through PreparingRebalance and CompletingRebalance; its members
	// assign, eagerly (revoking everything first) or cooperatively (in
	// two phases: revoke, then assign), as Group.Cooperative says. A
	// generation no poll saw is inferred from the states.
	RebalanceGeneration
	// RebalanceReconcile: the coordinator moves a target assignment
	// epoch, and each member reconciles towards its target; the
	// rebalance completes once every member has.
	RebalanceReconcile
	// RebalanceReassign: the coordinator moves the assignment epoch and
	// the members take their new assignments with no reconciliation to
	// watch: a reassignment is seen between two polls.
	RebalanceReassign
)

// Kind declares what one type of group can show: how its assignments,
// rebalances, epochs and partitions are read and what the screens call it.
// Adding a group type is one entry in kinds (and its reader in package
// kafka).
type Kind struct {
	Type GroupType
	// Label is the word the overview's TYPE column shows; "" for the type
	// a group is unless told (classic), so the column stays empty for a
	// cluster of classic groups.
	Label string
	// Title is how the group header names the type ("" : it does not).
	Title string
	// Described: kgwatch reads the type's members and state; a type
	// that is only listed shows its offsets, its members unknown.
	Described bool
	// CoordinatorAssigned: the coordinator assigns the group's
	// partitions and reports its members' current assignments in every
	// state, with group and member epochs; a rebalance is an epoch
	// moving, not a state. Otherwise assignments are known only while
	// the group is Stable.
	CoordinatorAssigned bool
	// TargetAssignment: each member has a target assignment besides its
	// current one (Member.TargetPartitions), so a member can be behind
	// it (Member.Reconciling) and a partition pending to its next owner.
	TargetAssignment bool
	// SharedPartitions: one partition may be assigned to several members
	// at once, and its committed offset is a share-partition start
	// offset.
	SharedPartitions bool
	// Rebalance is what a rebalance looks like.
	Rebalance RebalanceStyle
	// AssignorLabel is how the header introduces the group's assignor
	// ("" : it does not show it).
	AssignorLabel string
}

// kinds declares every group type kgwatch knows, in ListGroups' names.
var kinds = [...]Kind{
	{Type: TypeClassic, Described: true, Rebalance: RebalanceGeneration, AssignorLabel: "assignor "},
	{Type: TypeConsumer, Label: string(TypeConsumer), Title: "consumer protocol (KIP-848)", Described: true,
		CoordinatorAssigned: true, TargetAssignment: true, Rebalance: RebalanceReconcile, AssignorLabel: "server assignor "},
	{Type: TypeShare, Label: string(TypeShare), Title: "share group (KIP-932)", Described: true,
		CoordinatorAssigned: true, SharedPartitions: true, Rebalance: RebalanceReassign},
	{Type: TypeStreams, Label: string(TypeStreams), Title: "streams group (KIP-1071)", Described: true,
		CoordinatorAssigned: true, TargetAssignment: true, Rebalance: RebalanceReconcile},
}

// Kinds returns every known group type's kind.
func Kinds() []Kind { return kinds[:] }

// Kind returns the type's kind. No type ("") is read as classic, as
// brokers before ListGroups v5 list every group and as DescribeGroups
// describes a group of no other type. A type kgwatch does not know (a
// broker's newer word) is a kind that can show nothing but its name.
func (t GroupType) Kind() Kind {
	if t == "" {
		t = TypeClassic
	}
	for _, k := range kinds {
		if k.Type == t {
			return k
		}
	}
	return Kind{Type: t, Label: string(t)}
}

// Known reports whether t is a type kgwatch knows; "" is not.
func (t GroupType) Known() bool {
	for _, k := range kinds {
		if k.Type == t {
			return true
		}
	}
	return false
}

// Kind returns the kind of the group's type.
func (g Group) Kind() Kind { return g.Type.Kind() }
