package kafka

import (
	"cmp"
	"context"
	"net"
	"slices"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// streamsKind reads streams groups (KIP-1071) with StreamsGroupDescribe:
// the topology, members with epochs, process ids and their active,
// standby and warm-up tasks, current and target; their commits are
// OffsetFetch's (the application id is the group id).
var streamsKind = groupKind{typ: model.TypeStreams, protocolType: streamsProtocol, describe: describeStreams,
	describeMany: describeStreamsMany}

// streamsProtocol is the protocol type Apache Kafka lists streams groups
// with (StreamsGroup.protocolType).
const streamsProtocol = "streams"

// maxStreamsDescribe is the highest StreamsGroupDescribe version kgwatch
// sends: v1 (Kafka 4.2) adds the topology description, which it does not
// ask for.
const maxStreamsDescribe = 1

// describeStreams describes the watched group with StreamsGroupDescribe.
func describeStreams(ctx context.Context, w *Watcher, brokers map[int32]broker, obs *model.Observation) (bool, error) {
	req := kmsg.NewPtrStreamsGroupDescribeRequest()
	req.Groups = []string{w.cfg.Group}
	d, _, err := oneGroup(ctx, w, brokers, "describe streams group", req, maxStreamsDescribe,
		func(r *kmsg.StreamsGroupDescribeResponse) []kmsg.StreamsGroupDescribeResponseGroup { return r.Groups },
		func(g kmsg.StreamsGroupDescribeResponseGroup) int16 { return groupCode(g.ErrorCode) })
	if err != nil || d.ErrorCode != 0 || d.State == "" || d.State == model.StateDead {
		return false, err
	}
	obs.Group.State, obs.Group.Type, obs.Group.ProtocolType = d.State, model.TypeStreams, streamsProtocol
	obs.Group.Epoch, obs.Group.AssignmentEpoch = d.Epoch, d.AssignmentEpoch
	obs.Group.TopologyEpoch, obs.Group.Topology = streamsTopology(d.Topology)
	obs.Members = streamsMembers(d, obs.Group.Topology)
	return true, nil
}

// streamsTopology is a StreamsGroupDescribe topology as the model keeps
// it: its epoch and subtopologies, sorted by id (nil: no member has sent
// a topology yet).
func streamsTopology(t *kmsg.StreamsGroupDescribeResponseGroupTopology) (int32, []model.Subtopology) {
	if t == nil {
		return 0, nil
	}
	out := make([]model.Subtopology, 0, len(t.Subtopologies))
	for _, s := range t.Subtopologies {
		out = append(out, model.Subtopology{
			ID: s.SubtopologyID, SourceTopics: slices.Clone(s.SourceTopics),
			RepartitionSourceTopics: topicInfoNames(s.RepartitionSourceTopics),
			RepartitionSinkTopics:   slices.Clone(s.RepartitionSinkTopics),
			ChangelogTopics:         topicInfoNames(s.StateChangelogTopics),
		})
	}
	slices.SortFunc(out, func(a, b model.Subtopology) int { return cmp.Compare(a.ID, b.ID) })
	return t.Epoch, out
}

func topicInfoNames(ts []kmsg.TopicInfo) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.Topic)
	}
	return out
}

// streamsMembers turns a StreamsGroupDescribe group's members into model
// members. A member's active tasks give it Partitions: task (S, p) reads
// partition p of each of subtopology S's source and repartition source
// topics (Kafka Streams' partition grouper), so those are what it owns;
// its target active tasks give TargetPartitions. Standby and warm-up
// tasks own no partition.
func streamsMembers(g kmsg.StreamsGroupDescribeResponseGroup, topology []model.Subtopology) []model.Member {
	inputs := make(map[string][]string, len(topology))
	for _, s := range topology {
		inputs[s.ID] = append(slices.Clone(s.SourceTopics), s.RepartitionSourceTopics...)
	}
	out := make([]model.Member, 0, len(g.Members))
	for _, m := range g.Members {
		mm := model.Member{
			MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost, MemberEpoch: m.MemberEpoch,
			ProcessID: m.ProcessID, TopologyEpoch: m.TopologyEpoch,
			Tasks: streamsTasks(m.Assignment), TargetTasks: streamsTasks(m.TargetAssignment),
		}
		mm.Partitions = taskPartitions(mm.Tasks.Active, inputs)
		mm.TargetPartitions = taskPartitions(mm.TargetTasks.Active, inputs)
		if mm.TargetPartitions == nil {
			mm.TargetPartitions = []model.TopicPartition{}
		}
		mm.InstanceID, mm.Rack = nullable(m.InstanceID), nullable(m.RackID)
		if e := m.UserEndpoint; e != nil && e.Host != "" {
			mm.Endpoint = net.JoinHostPort(e.Host, strconv.Itoa(int(e.Port)))
		}
		if m.IsClassic {
			mm.Protocol = model.ProtocolClassic
		}
		out = append(out, mm)
	}
	return out
}

// streamsTasks is a StreamsGroupDescribe assignment by kind, each sorted.
func streamsTasks(a kmsg.StreamsAssignment) model.Tasks {
	return model.Tasks{Active: taskIDs(a.ActiveTasks), Standby: taskIDs(a.StandbyTasks), Warmup: taskIDs(a.WarmupTasks)}
}

func taskIDs(ts []kmsg.TaskIDs) []model.TaskID {
	var out []model.TaskID
	for _, t := range ts {
		for _, p := range t.Partitions {
			out = append(out, model.TaskID{Subtopology: t.SubtopologyID, Partition: p})
		}
	}
	slices.SortFunc(out, model.CompareTask)
	return slices.Compact(out)
}

// taskPartitions is the input partitions of tasks, given each
// subtopology's input topics; a task of a subtopology the topology does
// not name owns none.
func taskPartitions(tasks []model.TaskID, inputs map[string][]string) []model.TopicPartition {
	var out []model.TopicPartition
	for _, t := range tasks {
		for _, topic := range inputs[t.Subtopology] {
			out = append(out, model.TopicPartition{Topic: topic, Partition: t.Partition})
		}
	}
	slices.SortFunc(out, model.CompareTP)
	return slices.Compact(out)
}

// describeStreamsMany describes the streams groups at idx in one
// StreamsGroupDescribe; each member owns the source partitions of its
// active tasks, as in the group view (streamsMembers). A coordinator that
// does not speak it (Kafka before 4.1) leaves the groups as listed.
func describeStreamsMany(ctx context.Context, w *Watcher, b broker, reads []groupRead, idx []int) {
	if !w.vers.supports(b.id, int16(kmsg.StreamsGroupDescribe), 0) {
		return
	}
	req := kmsg.NewPtrStreamsGroupDescribeRequest()
	req.Groups = groupIDs(reads, idx)
	askGroups(ctx, w, b, req, 0, maxStreamsDescribe, reads, idx, "describe",
		func(res *kmsg.StreamsGroupDescribeResponse) []kmsg.StreamsGroupDescribeResponseGroup {
			return res.Groups
		},
		func(g *kmsg.StreamsGroupDescribeResponseGroup) string { return g.Group },
		func(r *groupRead, g *kmsg.StreamsGroupDescribeResponseGroup) {
			if !describedOK(r, g.ErrorCode) {
				return
			}
			r.sum.State, r.sum.Members, r.sum.Generation = g.State, len(g.Members), g.AssignmentEpoch
			_, topology := streamsTopology(g.Topology)
			for _, m := range streamsMembers(*g, topology) {
				for _, tp := range m.Partitions {
					r.own(tp, m.MemberID)
				}
				for _, tp := range m.TargetPartitions {
					r.target(tp) // in a target only: being handed over
				}
			}
		})
}
