package kafka

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// groupKind is how the watcher reads one type of group (its capabilities
// are model.Kind's): each lives in a file of its own, kind_<type>.go, and
// has an entry in groupKinds. Adding a type is that file, that entry and
// the type's model.Kind.
type groupKind struct {
	typ model.GroupType
	// protocolType is the protocol type the kind's groups have, as Apache
	// Kafka lists them; "" to take what ListGroups lists.
	protocolType string
	// describe describes the watched group as one of this kind into
	// obs.Group and obs.Members: its state, assignor, epochs or
	// generation, members and their assignments. found is false when the
	// coordinator knows no group of this kind by the name (the answer's
	// GROUP_ID_NOT_FOUND, or a state that says so); an *UnsupportedError
	// or kafka.UnsupportedVersion says the broker does not run the kind.
	describe func(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (found bool, err error)
	// confirm, when set, is asked after describe found a group not yet
	// known to be of this kind: it returns the type the group has, which
	// another kind's describe may have read into obs (nil: the kind's).
	confirm func(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (model.GroupType, error)
	// fetchCommitted fills obs.Committed and obs.CommitErrs (and what else
	// the kind's offsets tell); nil: OffsetFetch, as for classic groups.
	fetchCommitted func(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (broker, error)
	// describeMany describes, for the overview, the groups of this kind
	// at idx that coordinator b listed, in one request: each read's
	// state, member count, generation or assignment epoch and what its
	// members own (or Err, or state Dead when gone since listed).
	describeMany func(ctx context.Context, w *Watcher, b broker, reads []groupRead, idx []int)
	// fetchManyCommitted reads, for the overview, the committed offsets
	// of the groups at idx (and what else the kind's offsets tell); nil:
	// OffsetFetch, batched with the other kinds' groups.
	fetchManyCommitted func(ctx context.Context, w *Watcher, b broker, reads []groupRead, idx []int)
}

// groupKinds lists the kinds the watcher describes, in the order in which
// a group of unknown type is described: classic DescribeGroups first (a
// classic group, the most common, is read with one describe), then the
// type-specific describes. Each says when the group is not one of its
// type: DescribeGroups, for a group of another type, answers Dead (Apache
// Kafka 4: from v6 with GROUP_ID_NOT_FOUND, "… is not a classic group";
// kfake: a live state and no members, see classicAnswer), the others
// GROUP_ID_NOT_FOUND ("Group … is not a consumer group"), or the broker
// does not speak it: then the next is asked. A type listed but in none of
// them (a streams group on a broker without StreamsGroupDescribe, a type
// newer than kgwatch) is shown from ListGroups and its commits
// (Watcher.listedAs).
var groupKinds = []groupKind{classicKind, consumerKind, shareKind, streamsKind}

// kindOf returns the reader of groups of type t; ok is false for a type
// the watcher cannot describe.
func kindOf(t model.GroupType) (k groupKind, ok bool) {
	for _, k := range groupKinds {
		if k.typ == t {
			return k, true
		}
	}
	return groupKind{}, false
}

// listedKind is the reader the overview describes a listed group of type
// t with: its kind's, or classic DescribeGroups for a type kgwatch does
// not describe or a broker too old to name one (ListGroups before v5).
func listedKind(t model.GroupType) groupKind {
	if k, ok := kindOf(t); ok {
		return k
	}
	return classicKind
}

// detectOrder is groupKinds with the kind of type first (the one last
// learned: a steady poll sends one describe), the others after in their
// order.
func detectOrder(first model.GroupType) []groupKind {
	k, ok := kindOf(first)
	if !ok {
		return groupKinds
	}
	out := make([]groupKind, 0, len(groupKinds))
	out = append(out, k)
	for _, o := range groupKinds {
		if o.typ != first {
			out = append(out, o)
		}
	}
	return out
}

// listedProtocolType is the protocol type of a listed group as Apache
// Kafka lists it: its ConsumerGroup and ShareGroup list "consumer" and
// "share" (asListedGroup); a broker that lists "" for a group it types
// consumer or share (kfake does for consumer) is read the same way.
func listedProtocolType(lg kmsg.ListGroupsResponseGroup) string {
	if lg.ProtocolType == "" {
		if k, ok := kindOf(model.GroupType(lg.GroupType)); ok {
			return k.protocolType
		}
	}
	return lg.ProtocolType
}
