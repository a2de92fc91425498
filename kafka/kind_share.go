package kafka

import (
	"context"
	"fmt"
	kafka "github.com/segmentio/kafka-go"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// shareKind reads share groups (KIP-932) with ShareGroupDescribe, and
// their share-partition start offsets and lag with
// DescribeShareGroupOffsets.
var shareKind = groupKind{typ: model.TypeShare, protocolType: shareProtocol, describe: describeShare, fetchCommitted: fetchShareOffsets,
	describeMany: describeShareMany, fetchManyCommitted: fetchShareStartsMany}

// shareProtocol is the protocol type Apache Kafka lists share groups with.
const shareProtocol = "share"

// describeShare describes the watched group with ShareGroupDescribe,
// naming the topics its assignments give only by id.
func describeShare(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (bool, error) {
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = []string{w.cfg.Group}
	d, c, err := oneGroup(ctx, w, brokers, "describe share group", req, -1,
		func(r *kmsg.ShareGroupDescribeResponse) []kmsg.ShareGroupDescribeResponseGroup { return r.Groups },
		func(g kmsg.ShareGroupDescribeResponseGroup) int16 { return groupCode(g.ErrorCode) })
	if err != nil || d.ErrorCode != 0 {
		return false, err
	}
	ids := map[[16]byte]bool{}
	for _, m := range d.Members {
		unnamed(ids, shareAssignment(m.Assignment.TopicPartitions))
	}
	if err := w.resolveTopicIDs(ctx, c, ids); err != nil && ctx.Err() != nil {
		return false, err
	}
	obs.Group.State, obs.Group.Type, obs.Group.ProtocolType = d.GroupState, model.TypeShare, shareProtocol
	obs.Group.Assignor, obs.Group.Epoch, obs.Group.AssignmentEpoch = d.Assignor, d.GroupEpoch, d.AssignmentEpoch
	obs.Members = shareMembers(d, w.topicName)
	return true, nil
}

// fetchShareOffsets fills obs's commits with the share-partition start
// offsets (a share group's committed offsets), its share lags with the
// broker's lag and its commit errors, from DescribeShareGroupOffsets.
func fetchShareOffsets(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (broker, error) {
	req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
	rg.GroupID = w.cfg.Group // nil Topics: every topic the group has state for
	req.Groups = []kmsg.DescribeShareGroupOffsetsRequestGroup{rg}
	sg, c, err := oneGroup(ctx, w, brokers, "describe share group offsets", req, -1,
		func(r *kmsg.DescribeShareGroupOffsetsResponse) []kmsg.DescribeShareGroupOffsetsResponseGroup {
			return r.Groups
		},
		func(g kmsg.DescribeShareGroupOffsetsResponseGroup) int16 { return groupCode(g.ErrorCode) })
	if err != nil {
		return c, err
	}
	eachShareOffset(sg, w.topicName, func(tp model.TopicPartition, p *kmsg.DescribeShareGroupOffsetsResponseGroupTopicPartition) {
		switch {
		case p.ErrorCode != 0:
			obs.SetCommitErr(tp, partErrText("share start offset", p.ErrorCode))
		case p.StartOffset >= 0:
			obs.SetCommitted(tp, p.StartOffset)
			obs.SetShareLag(tp, p.Lag)
		}
	})
	return c, nil
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

// shareOffsets turns a DescribeShareGroupOffsets group into start offsets
// (the committed offsets of a share group), the broker's lag and
// per-partition errors.
func shareOffsets(g kmsg.DescribeShareGroupOffsetsResponseGroup, name func([16]byte) string) (parts []model.OverviewPart, errs map[model.TopicPartition]string) {
	eachShareOffset(g, name, func(tp model.TopicPartition, p *kmsg.DescribeShareGroupOffsetsResponseGroupTopicPartition) {
		switch {
		case p.ErrorCode != 0:
			partErr(&errs, tp, "share start offset", p.ErrorCode)
		case p.StartOffset >= 0:
			parts = append(parts, model.OverviewPart{TopicPartition: tp, Committed: p.StartOffset, HasCommit: true, ShareLag: p.Lag, HasShareLag: true})
		}
	})
	return parts, errs
}

// eachShareOffset calls f for each partition of a DescribeShareGroupOffsets
// group, its topic named.
func eachShareOffset(g kmsg.DescribeShareGroupOffsetsResponseGroup, name func([16]byte) string,
	f func(tp model.TopicPartition, p *kmsg.DescribeShareGroupOffsetsResponseGroupTopicPartition)) {
	for _, t := range g.Topics {
		topic := topicNamed(t.Topic, t.TopicID, name)
		for i := range t.Partitions {
			f(model.TopicPartition{Topic: topic, Partition: t.Partitions[i].Partition}, &t.Partitions[i])
		}
	}
}

// describeShareMany describes the share groups at idx in one
// ShareGroupDescribe.
func describeShareMany(ctx context.Context, w *Watcher, b broker, reads []groupRead, idx []int) {
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = groupIDs(reads, idx)
	askGroups(ctx, w, b, req, 0, -1, reads, idx, "describe",
		func(res *kmsg.ShareGroupDescribeResponse) []kmsg.ShareGroupDescribeResponseGroup { return res.Groups },
		func(g *kmsg.ShareGroupDescribeResponseGroup) string { return g.GroupID },
		func(r *groupRead, g *kmsg.ShareGroupDescribeResponseGroup) {
			if !describedOK(r, g.ErrorCode) {
				return
			}
			r.sum.State, r.sum.Members, r.sum.Generation = g.GroupState, len(g.Members), g.AssignmentEpoch
			for _, m := range g.Members {
				r.assigned = append(r.assigned, shareAssignment(m.Assignment.TopicPartitions))
				r.assignedBy = append(r.assignedBy, m.MemberID)
			}
		})
}

// fetchShareStartsMany reads the share groups at idx's start offsets and lag
// in one DescribeShareGroupOffsets.
func fetchShareStartsMany(ctx context.Context, w *Watcher, b broker, reads []groupRead, idx []int) {
	req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	for _, id := range groupIDs(reads, idx) {
		rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
		rg.GroupID = id
		req.Groups = append(req.Groups, rg)
	}
	for _, i := range idx {
		reads[i].commitsUnread = true // until an answer is taken
	}
	askGroups(ctx, w, b, req, 0, -1, reads, idx, "start offsets",
		func(res *kmsg.DescribeShareGroupOffsetsResponse) []kmsg.DescribeShareGroupOffsetsResponseGroup {
			return res.Groups
		},
		func(g *kmsg.DescribeShareGroupOffsetsResponseGroup) string { return g.GroupID },
		func(r *groupRead, g *kmsg.DescribeShareGroupOffsetsResponseGroup) {
			if g.ErrorCode != 0 && kafka.Error(g.ErrorCode) != kafka.GroupIdNotFound {
				r.sum.Err = joinText(r.sum.Err, "start offsets: "+errText(g.ErrorCode))
				return
			}
			r.commitsUnread = false
			var errs map[model.TopicPartition]string
			r.commits, errs = shareOffsets(*g, w.topicName) // no id is learned meanwhile
			if len(errs) > 0 {
				r.sum.Err = joinText(r.sum.Err, fmt.Sprintf("start offsets of %s unreadable", model.Count(len(errs), "partition")))
			}
		})
}
