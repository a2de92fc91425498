package kafka

import (
	"bytes"
	"context"
	"errors"
	kafka "github.com/segmentio/kafka-go"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// classicKind reads classic groups (JoinGroup/SyncGroup) with
// DescribeGroups; their commits are OffsetFetch's.
var classicKind = groupKind{typ: model.TypeClassic, describe: describeClassic, confirm: confirmClassic,
	describeMany: describeClassicMany}

// consumerProtocol is the protocol type of a group whose members speak
// Kafka's consumer protocol: a classic group of consumers (their
// assignments and subscriptions are ConsumerProtocol bytes), and what a
// consumer group (KIP-848) is listed with.
const consumerProtocol = "consumer"

// speaksConsumerProtocol reports whether a classic group of protocol type
// pt carries consumer-protocol assignments and subscriptions: "consumer",
// or "" (a group no member has joined yet says none).
func speaksConsumerProtocol(pt string) bool { return pt == consumerProtocol || pt == "" }

// describeClassic describes the watched group with DescribeGroups. An
// answer that cannot be a classic group's (classicAnswer) is no such
// classic group.
func describeClassic(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (bool, error) {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{w.cfg.Group}
	d, _, err := oneGroup(ctx, w, brokers, "describe group", req, -1,
		func(r *kmsg.DescribeGroupsResponse) []kmsg.DescribeGroupsResponseGroup { return r.Groups },
		func(g kmsg.DescribeGroupsResponseGroup) int16 { return groupCode(g.ErrorCode) })
	if err != nil || !classicAnswer(d) {
		return false, err
	}
	obs.Group.State, obs.Group.Type, obs.Group.ProtocolType = d.State, model.TypeClassic, d.ProtocolType
	obs.Group.Assignor = d.Protocol
	obs.Members, obs.Group.Cooperative = w.members.classicMembers(d)
	obs.Group.Generation = classicGeneration(d)
	return true, nil
}

// classicAnswer reports whether a DescribeGroups answer can be a classic
// group's. Not GROUP_ID_NOT_FOUND or another error, not Dead or no state
// (Apache Kafka 4's answer for a group of another type), not a state but
// Empty with no members (kfake's for a consumer group: its live state; a
// classic group has members in every state but Empty), not a protocol
// type only another kind's groups have (share, streams).
func classicAnswer(d kmsg.DescribeGroupsResponseGroup) bool {
	switch {
	case d.ErrorCode != 0, d.State == "", d.State == model.StateDead:
		return false
	case d.State != model.StateEmpty && len(d.Members) == 0:
		return false
	}
	return d.ProtocolType != shareProtocol && d.ProtocolType != streamsProtocol
}

// confirmClassic tells an Empty group with no members, which DescribeGroups
// read as a classic group the watcher did not know as one, from an empty
// consumer group, for which kfake answers the same (Apache Kafka 4 answers
// Dead): ConsumerGroupDescribe is asked, and a group it knows is read as
// its. A classic group with members, or one known classic, costs no
// request more.
func confirmClassic(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (model.GroupType, error) {
	if obs.Group.State != model.StateEmpty || len(obs.Members) > 0 {
		return model.TypeClassic, nil
	}
	found, err := describeConsumer(ctx, w, brokers, obs)
	var ue *UnsupportedError
	switch {
	case errors.As(err, &ue) || errors.Is(err, kafka.UnsupportedVersion):
		return model.TypeClassic, nil
	case err != nil:
		return "", err
	case found:
		return model.TypeConsumer, nil
	}
	return model.TypeClassic, nil
}

// classicMembers turns a DescribeGroups group's members into model members.
// Assignments and subscriptions are decoded (with kmsg's consumer protocol
// codecs) only for the consumer protocol; a member whose assignment is
// empty (the group is rebalancing: coordinators send none then) or
// undecodable is listed with no partitions.
//
// cooperative reports whether some member joined still owning partitions
// (its ConsumerProtocolSubscription v1+ lists them): eager members revoke
// everything before they join, cooperative ones keep what they are not
// asked to give up, so the group rebalances incrementally.
func classicMembers(g kmsg.DescribeGroupsResponseGroup) (out []model.Member, cooperative bool) {
	return (*memberCache)(nil).classicMembers(g)
}

// memberCache keeps the members the watcher's last describe decoded, with
// the bytes they were decoded from: a member whose assignment and
// subscription are the same bytes again (every poll of a settled group)
// is not decoded again, and its partition lists are the last poll's, which
// nothing writes (model.Snapshot's rule). At 10,000 partitions decoding
// them was 7% of the TUI's allocation. A nil cache decodes all.
type memberCache struct {
	last, next map[string]decodedMember
}

type decodedMember struct {
	assignment, metadata []byte // copies: kmsg's may alias its answer
	member               model.Member
	cooperative          bool
}

func (c *memberCache) classicMembers(g kmsg.DescribeGroupsResponseGroup) (out []model.Member, cooperative bool) {
	out = make([]model.Member, 0, len(g.Members))
	consumer := speaksConsumerProtocol(g.ProtocolType)
	if c != nil {
		if c.next == nil {
			c.next = make(map[string]decodedMember, len(g.Members))
		}
		clear(c.next)
	}
	for _, m := range g.Members {
		var mm model.Member
		coop := false
		d, found := c.find(m.MemberID, m.MemberAssignment, m.ProtocolMetadata)
		switch {
		case found && consumer:
			mm, coop = d.member, d.cooperative
		case consumer:
			mm, coop = decodeMember(m)
			d.assignment, d.metadata = slices.Clone(m.MemberAssignment), slices.Clone(m.ProtocolMetadata)
		}
		mm.MemberID, mm.ClientID, mm.Host, mm.InstanceID = m.MemberID, m.ClientID, m.ClientHost, ""
		if m.InstanceID != nil {
			mm.InstanceID = *m.InstanceID
		}
		if c != nil && consumer {
			d.member, d.cooperative = mm, coop
			c.next[m.MemberID] = d // the bytes copied once, when decoded
		}
		cooperative = cooperative || coop
		out = append(out, mm)
	}
	if c != nil {
		c.last, c.next = c.next, c.last
	}
	return out, cooperative
}

// find returns the member id decoded last time from the same bytes.
func (c *memberCache) find(id string, assignment, metadata []byte) (decodedMember, bool) {
	if c == nil {
		return decodedMember{}, false
	}
	d, ok := c.last[id]
	if !ok || !bytes.Equal(d.assignment, assignment) || !bytes.Equal(d.metadata, metadata) {
		return decodedMember{}, false
	}
	return d, true
}

// decodeMember decodes a consumer-protocol member's assignment and
// subscription; cooperative says it joined still owning partitions.
func decodeMember(m kmsg.DescribeGroupsResponseGroupMember) (mm model.Member, cooperative bool) {
	if parts, err := decodeAssignment(m.MemberAssignment); err == nil {
		mm.Partitions = parts
	}
	if meta, err := decodeSubscription(m.ProtocolMetadata); err == nil && meta != nil {
		mm.SubscribedTopics = meta.Topics
		for _, o := range meta.OwnedPartitions {
			cooperative = cooperative || len(o.Partitions) > 0
			for _, p := range o.Partitions {
				mm.OwnedPartitions = append(mm.OwnedPartitions, model.TopicPartition{Topic: o.Topic, Partition: p})
			}
		}
		// v1+ says what the member owned as it joined (KIP-429);
		// v0 cannot.
		mm.OwnedKnown = meta.Version >= 1
		slices.SortFunc(mm.OwnedPartitions, model.CompareTP)
	}
	return mm, cooperative
}

// classicGeneration is a classic group's generation as its members'
// subscriptions tell it (model.Group.Generation): each member's
// ConsumerProtocolSubscription v2+ carries the generation it joined from,
// so the highest of them, plus one, is the generation they joined into.
// 0 when none says (clients that send v0 or v1, such as kafka-go; only
// new members, which send -1; or not Stable, when DescribeGroups gives
// no subscriptions). DescribeGroups itself reports no generation.
func classicGeneration(g kmsg.DescribeGroupsResponseGroup) int32 {
	if g.State != model.StateStable || !speaksConsumerProtocol(g.ProtocolType) {
		return 0
	}
	from := int32(-1)
	for _, m := range g.Members {
		if meta, err := decodeSubscription(m.ProtocolMetadata); err == nil && meta != nil && meta.Version >= 2 {
			from = max(from, meta.Generation)
		}
	}
	return max(from+1, 0)
}

var errNegativeVersion = errors.New("consumer protocol: negative version")

// decodeAssignment decodes a ConsumerProtocolAssignment (any version); nil
// bytes are no assignment.
func decodeAssignment(b []byte) ([]model.TopicPartition, error) {
	a, err := decodeConsumerProtocol(b, func(a *kmsg.ConsumerMemberAssignment) int16 { return a.Version })
	if a == nil {
		return nil, err
	}
	n := 0
	for _, t := range a.Topics {
		n += len(t.Partitions)
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]model.TopicPartition, 0, n)
	for _, t := range a.Topics {
		for _, p := range t.Partitions {
			out = append(out, model.TopicPartition{Topic: t.Topic, Partition: p})
		}
	}
	if !slices.IsSortedFunc(out, model.CompareTP) {
		slices.SortFunc(out, model.CompareTP)
	}
	return out, nil
}

// decodeSubscription decodes a ConsumerProtocolSubscription; nil bytes
// give nil.
func decodeSubscription(b []byte) (*kmsg.ConsumerMemberMetadata, error) {
	return decodeConsumerProtocol(b, func(m *kmsg.ConsumerMemberMetadata) int16 { return m.Version })
}

// decodeConsumerProtocol decodes a consumer-protocol message (an
// assignment or a subscription, any version) into a T; nil bytes give
// nil, and so does an error.
func decodeConsumerProtocol[T any, P interface {
	*T
	ReadFrom([]byte) error
}](b []byte, version func(P) int16) (P, error) {
	if len(b) == 0 {
		return nil, nil
	}
	m := P(new(T))
	if err := m.ReadFrom(b); err != nil {
		return nil, err
	}
	if version(m) < 0 {
		return nil, errNegativeVersion
	}
	return m, nil
}

// describeClassicMany describes the classic groups at idx in one
// DescribeGroups.
func describeClassicMany(ctx context.Context, w *Watcher, b broker, reads []groupRead, idx []int) {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = groupIDs(reads, idx)
	askGroups(ctx, w, b, req, 0, -1, reads, idx, "describe",
		func(res *kmsg.DescribeGroupsResponse) []kmsg.DescribeGroupsResponseGroup { return res.Groups },
		func(g *kmsg.DescribeGroupsResponseGroup) string { return g.Group },
		func(r *groupRead, g *kmsg.DescribeGroupsResponseGroup) {
			switch {
			case kafka.Error(g.ErrorCode) == kafka.GroupIdNotFound || (g.ErrorCode == 0 && (g.State == "" || g.State == model.StateDead)):
				r.sum.State = model.StateDead
				return
			case g.ErrorCode != 0:
				r.sum.Err = joinText(r.sum.Err, "describe: "+errText(g.ErrorCode))
				return
			}
			r.sum.State = g.State
			if r.sum.Type == "" {
				r.sum.Type = model.TypeClassic
			}
			if g.ProtocolType != "" {
				r.sum.ProtocolType = g.ProtocolType
			}
			// Members and what they own, read as classicMembers does;
			// of their subscriptions only the generation they tell.
			r.sum.Members = len(g.Members)
			r.sum.Generation = classicGeneration(*g)
			if g.ProtocolType != "consumer" && g.ProtocolType != "" {
				return
			}
			for _, m := range g.Members {
				parts, err := decodeAssignment(m.MemberAssignment)
				if err != nil {
					continue // undecodable: no partitions, as in the group view
				}
				for _, tp := range parts {
					r.own(tp, m.MemberID)
				}
			}
		})
}
