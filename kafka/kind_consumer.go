package kafka

import (
	"context"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// consumerKind reads consumer groups (KIP-848) with ConsumerGroupDescribe:
// members with epochs, current and target assignments; their commits are
// OffsetFetch's.
var consumerKind = groupKind{typ: model.TypeConsumer, protocolType: consumerProtocol, describe: describeConsumer,
	describeMany: describeConsumerMany}

// describeConsumer describes the watched group with ConsumerGroupDescribe,
// naming the topics its assignments give only by id.
func describeConsumer(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (bool, error) {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{w.cfg.Group}
	d, c, err := oneGroup(ctx, w, brokers, "describe consumer group", req, -1,
		func(r *kmsg.ConsumerGroupDescribeResponse) []kmsg.ConsumerGroupDescribeResponseGroup { return r.Groups },
		func(g kmsg.ConsumerGroupDescribeResponseGroup) int16 { return groupCode(g.ErrorCode) })
	if err != nil || d.ErrorCode != 0 {
		return false, err
	}
	ids := map[[16]byte]bool{}
	for _, m := range d.Members {
		unnamed(ids, m.Assignment.TopicPartitions)
		unnamed(ids, m.TargetAssignment.TopicPartitions)
	}
	if err := w.resolveTopicIDs(ctx, c, ids); err != nil && ctx.Err() != nil {
		return false, err
	}
	obs.Group.State, obs.Group.Type, obs.Group.ProtocolType = d.State, model.TypeConsumer, consumerProtocol
	obs.Group.Assignor, obs.Group.Epoch, obs.Group.AssignmentEpoch = d.AssignorName, d.Epoch, d.AssignmentEpoch
	obs.Members = consumerMembers(d, w.topicName)
	return true, nil
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
			SubscribedRegex:  nullable(m.SubscribedTopicRegex),
			InstanceID:       nullable(m.InstanceID), Rack: nullable(m.RackID),
		}
		if mm.TargetPartitions == nil {
			mm.TargetPartitions = []model.TopicPartition{}
		}
		mm.Protocol = memberProtocol(m.MemberType)
		out = append(out, mm)
	}
	return out
}

// nullable is a nullable string of the protocol (a member's instance id,
// its rack): "" when the broker sent null.
func nullable(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// describeConsumerMany describes the consumer groups at idx in one
// ConsumerGroupDescribe.
func describeConsumerMany(ctx context.Context, w *Watcher, b broker, reads []groupRead, idx []int) {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = groupIDs(reads, idx)
	askGroups(ctx, w, b, req, 0, -1, reads, idx, "describe",
		func(res *kmsg.ConsumerGroupDescribeResponse) []kmsg.ConsumerGroupDescribeResponseGroup {
			return res.Groups
		},
		func(g *kmsg.ConsumerGroupDescribeResponseGroup) string { return g.Group },
		func(r *groupRead, g *kmsg.ConsumerGroupDescribeResponseGroup) {
			if !describedOK(r, g.ErrorCode) {
				return
			}
			r.sum.State, r.sum.Members, r.sum.Generation = g.State, len(g.Members), g.AssignmentEpoch
			for _, m := range g.Members {
				r.assigned = append(r.assigned, m.Assignment.TopicPartitions)
				r.assignedBy = append(r.assignedBy, m.MemberID)
				r.targeted = append(r.targeted, m.TargetAssignment.TopicPartitions)
			}
		})
}

// memberProtocol names a ConsumerGroupDescribe v1 member's MemberType: 0
// a classic member (the group is being migrated online from the classic
// protocol, or stays mixed), 1 a consumer-protocol member; -1 (v0, or
// not told) is "".
func memberProtocol(t int8) string {
	switch t {
	case 0:
		return model.ProtocolClassic
	case 1:
		return model.ProtocolConsumer
	}
	return ""
}
