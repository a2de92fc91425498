package kafka

import (
	"encoding/hex"
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

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
	out = make([]model.Member, 0, len(g.Members))
	consumer := g.ProtocolType == "consumer" || g.ProtocolType == ""
	for _, m := range g.Members {
		mm := model.Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
		if m.InstanceID != nil {
			mm.InstanceID = *m.InstanceID
		}
		if consumer {
			if parts, err := decodeAssignment(m.MemberAssignment); err == nil {
				mm.Partitions = parts
			}
			if meta, err := decodeSubscription(m.ProtocolMetadata); err == nil && meta != nil {
				mm.SubscribedTopics = meta.Topics
				for _, o := range meta.OwnedPartitions {
					cooperative = cooperative || len(o.Partitions) > 0
				}
			}
		}
		out = append(out, mm)
	}
	return out, cooperative
}

// classicGeneration is a classic group's generation as its members'
// subscriptions tell it (model.Group.Generation): each member's
// ConsumerProtocolSubscription v2+ carries the generation it joined from,
// so the highest of them, plus one, is the generation they joined into.
// 0 when none says (clients that send v0 or v1, such as kafka-go; only
// new members, which send -1; or not Stable, when DescribeGroups gives
// no subscriptions). DescribeGroups itself reports no generation.
func classicGeneration(g kmsg.DescribeGroupsResponseGroup) int32 {
	if g.State != model.StateStable || (g.ProtocolType != "consumer" && g.ProtocolType != "") {
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
	if len(b) == 0 {
		return nil, nil
	}
	var a kmsg.ConsumerMemberAssignment
	if err := a.ReadFrom(b); err != nil {
		return nil, err
	}
	if a.Version < 0 {
		return nil, errNegativeVersion
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
	if len(b) == 0 {
		return nil, nil
	}
	var m kmsg.ConsumerMemberMetadata
	if err := m.ReadFrom(b); err != nil {
		return nil, err
	}
	if m.Version < 0 {
		return nil, errNegativeVersion
	}
	return &m, nil
}

// consumerMembers turns a ConsumerGroupDescribe group's members into model
// members: current assignment as Partitions, target as TargetPartitions.
// name resolves topic ids the response gave no name for.
func consumerMembers(g kmsg.ConsumerGroupDescribeResponseGroup, name func([16]byte) string) []model.Member {
	out := make([]model.Member, 0, len(g.Members))
	for _, m := range g.Members {
		mm := model.Member{
			MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, MemberEpoch: m.MemberEpoch,
			Partitions:       assigned(m.Assignment.TopicPartitions, name),
			TargetPartitions: assigned(m.TargetAssignment.TopicPartitions, name),
			SubscribedTopics: m.SubscribedTopics,
		}
		if mm.TargetPartitions == nil {
			mm.TargetPartitions = []model.TopicPartition{}
		}
		if m.InstanceID != nil {
			mm.InstanceID = *m.InstanceID
		}
		if m.RackID != nil {
			mm.Rack = *m.RackID
		}
		if m.SubscribedTopicRegex != nil {
			mm.SubscribedRegex = *m.SubscribedTopicRegex
		}
		out = append(out, mm)
	}
	return out
}

// shareMembers turns a ShareGroupDescribe group's members into model
// members.
func shareMembers(g kmsg.ShareGroupDescribeResponseGroup, name func([16]byte) string) []model.Member {
	out := make([]model.Member, 0, len(g.Members))
	for _, m := range g.Members {
		mm := model.Member{
			MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, MemberEpoch: m.MemberEpoch,
			Partitions:       assigned(shareAssignment(m.Assignment.TopicPartitions), name),
			SubscribedTopics: m.SubscribedTopicNames,
		}
		if m.RackID != nil {
			mm.Rack = *m.RackID
		}
		out = append(out, mm)
	}
	return out
}

// shareAssignment is a share member's assignment as the consumer group
// type (ConsumerGroupDescribe's) spells it: the two have the same fields.
func shareAssignment(tps []kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition) []kmsg.AssignmentTopicPartition {
	out := make([]kmsg.AssignmentTopicPartition, len(tps))
	for i, t := range tps {
		out[i] = kmsg.AssignmentTopicPartition(t)
	}
	return out
}

// assigned lists an assignment's partitions, sorted, topics named by
// topicNamed.
func assigned(tps []kmsg.AssignmentTopicPartition, name func([16]byte) string) []model.TopicPartition {
	var out []model.TopicPartition
	for _, t := range tps {
		topic := topicNamed(t.Topic, t.TopicID, name)
		for _, p := range t.Partitions {
			out = append(out, model.TopicPartition{Topic: topic, Partition: p})
		}
	}
	slices.SortFunc(out, model.CompareTP)
	return slices.Compact(out)
}

// unnamed returns the topic ids of tps given without a name.
func unnamed(ids map[[16]byte]bool, tps []kmsg.AssignmentTopicPartition) {
	for _, t := range tps {
		if t.Topic == "" {
			ids[t.TopicID] = true
		}
	}
}

// topicNamed is the name of a topic an answer gave as topic (its name, ""
// when it gave only the id) and id: that name, else the one name knows
// for the id, else, for a topic deleted since, the id itself.
func topicNamed(topic string, id [16]byte, name func([16]byte) string) string {
	if topic != "" {
		return topic
	}
	if topic = name(id); topic != "" {
		return topic
	}
	return topicIDText(id)
}

// topicIDText shows a topic id no name is known for.
func topicIDText(id [16]byte) string { return "topic-id:" + hex.EncodeToString(id[:]) }
