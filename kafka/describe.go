package kafka

import (
	"context"
	"errors"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// detectOrder is the order in which a group of unknown type is described:
// the type-specific describes first, then classic DescribeGroups, as
// librdkafka does. Each answers GROUP_ID_NOT_FOUND for a group of another
// type (Apache Kafka 4: "Group … is not a consumer group"; DescribeGroups
// v6 "… is not a classic group", below v6 state Dead and no error), or the
// broker does not speak it: then the next is asked.
var detectOrder = []string{model.TypeConsumer, model.TypeShare, model.TypeClassic}

// maxOffsetFetch is the highest OffsetFetch version kgwatch sends: v10
// (Kafka 4.2) names topics by id only.
const maxOffsetFetch = 9

// describeGroup fills obs.Group and obs.Members from the describe of the
// group's type. The type learned is cached: a steady poll sends one
// describe. It is asked again, type by type, when that describe says the
// group is gone (it may come back as another type) or fails. A group no
// describe knows is Dead; so is one whose type was listed (w.listed), with
// no request sent: its commits tell the poll whether it is still there.
func (w *Watcher) describeGroup(ctx context.Context, brokers map[int32]broker, obs *model.Observation) error {
	if w.listed {
		obs.Group.State = model.StateDead
		return nil
	}
	order := detectOrder
	if w.kind != "" {
		order = append([]string{w.kind}, without(detectOrder, w.kind)...)
	}
	for _, kind := range order {
		found, err := w.describeAs(ctx, brokers, kind, obs)
		var ue *UnsupportedError
		switch {
		case errors.As(err, &ue) || errors.Is(err, kafka.UnsupportedVersion):
			continue // the broker does not run this type of group
		case err != nil:
			w.kind = ""
			return err
		case found:
			w.kind = kind
			return nil
		}
	}
	w.kind = ""
	obs.Group.State = model.StateDead
	obs.Group.Type, obs.Group.ProtocolType, obs.Group.Assignor = "", "", ""
	obs.Members = nil
	return nil
}

func without(kinds []string, k string) []string {
	out := make([]string, 0, len(kinds))
	for _, x := range kinds {
		if x != k {
			out = append(out, x)
		}
	}
	return out
}

// groupCode returns a describe answer's error code for the watched group,
// 0 for "no such group of this type" (a snapshot, not an error).
func groupCode(code int16) int16 {
	if kafka.Error(code) == kafka.GroupIdNotFound {
		return 0
	}
	return code
}

// describeAs describes the group as one of kind. found is false when the
// coordinator knows no such group of that kind.
func (w *Watcher) describeAs(ctx context.Context, brokers map[int32]broker, kind string, obs *model.Observation) (found bool, err error) {
	g := w.cfg.Group
	switch kind {
	case model.TypeConsumer:
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{g}
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
		obs.Group.State, obs.Group.Type, obs.Group.ProtocolType = d.State, model.TypeConsumer, "consumer"
		obs.Group.Assignor, obs.Group.Epoch, obs.Group.AssignmentEpoch = d.AssignorName, d.Epoch, d.AssignmentEpoch
		obs.Members = consumerMembers(d, w.topicName)
		return true, nil

	case model.TypeShare:
		req := kmsg.NewPtrShareGroupDescribeRequest()
		req.GroupIDs = []string{g}
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
		obs.Group.State, obs.Group.Type, obs.Group.ProtocolType = d.GroupState, model.TypeShare, "share"
		obs.Group.Assignor, obs.Group.Epoch, obs.Group.AssignmentEpoch = d.Assignor, d.GroupEpoch, d.AssignmentEpoch
		obs.Members = shareMembers(d, w.topicName)
		return true, nil

	default:
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{g}
		d, _, err := oneGroup(ctx, w, brokers, "describe group", req, -1,
			func(r *kmsg.DescribeGroupsResponse) []kmsg.DescribeGroupsResponseGroup { return r.Groups },
			func(g kmsg.DescribeGroupsResponseGroup) int16 { return groupCode(g.ErrorCode) })
		if err != nil || d.ErrorCode != 0 || d.State == "" || d.State == model.StateDead {
			return false, err
		}
		obs.Group.State, obs.Group.Type, obs.Group.ProtocolType = d.State, model.TypeClassic, d.ProtocolType
		obs.Group.Assignor = d.Protocol
		obs.Members, obs.Group.Cooperative = classicMembers(d)
		obs.Group.Generation = classicGeneration(d)
		return true, nil
	}
}

// fetchCommitted fills obs.Committed and obs.CommitErrs: OffsetFetch, or
// for a share group DescribeShareGroupOffsets (start offsets and the
// broker's lag, in obs.ShareLag).
func (w *Watcher) fetchCommitted(ctx context.Context, brokers map[int32]broker, obs *model.Observation) (broker, error) {
	g := w.cfg.Group
	dead := obs.Group.State == model.StateDead
	if obs.Group.Type == model.TypeShare {
		req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
		rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
		rg.GroupID = g // nil Topics: every topic the group has state for
		req.Groups = []kmsg.DescribeShareGroupOffsetsRequestGroup{rg}
		sg, c, err := oneGroup(ctx, w, brokers, "describe share group offsets", req, -1,
			func(r *kmsg.DescribeShareGroupOffsetsResponse) []kmsg.DescribeShareGroupOffsetsResponseGroup {
				return r.Groups
			},
			func(g kmsg.DescribeShareGroupOffsetsResponseGroup) int16 { return groupCode(g.ErrorCode) })
		if err != nil {
			return c, err
		}
		obs.Committed, obs.ShareLag, obs.CommitErrs = shareOffsets(sg, w.topicName)
		return c, nil
	}
	og, c, err := oneGroup(ctx, w, brokers, "fetch committed offsets", offsetFetch(g), maxOffsetFetch,
		func(r *kmsg.OffsetFetchResponse) []kmsg.OffsetFetchResponseGroup { return offsetGroups(r, g) },
		func(og kmsg.OffsetFetchResponseGroup) int16 {
			if code := og.ErrorCode; !(dead && kafka.Error(code) == kafka.GroupIdNotFound) {
				return code
			}
			return 0 // no such group: no commits
		})
	if err != nil {
		return c, err
	}
	obs.Committed, obs.CommitErrs = committed(og)
	return c, nil
}

// oneGroup sends req, a request about the watched group, to its
// coordinator (toCoordinator) at a version up to maxVersion (-1: the
// broker's highest), and returns the one group the answer holds. An answer
// holding not exactly one group is GROUP_ID_NOT_FOUND; code reads the
// group's error code, 0 to take the answer as it is.
func oneGroup[R kmsg.Response, G any](ctx context.Context, w *Watcher, brokers map[int32]broker, what string,
	req kmsg.Request, maxVersion int16, groups func(R) []G, code func(G) int16) (G, broker, error) {
	res, c, err := w.toCoordinator(ctx, brokers, what,
		func(to route) protocol.Message { return w.kmsg(req, 0, maxVersion, to) },
		func(m protocol.Message) int16 {
			gs := groups(m.(*kmsgResponse).res.(R))
			if len(gs) != 1 {
				return int16(kafka.GroupIdNotFound)
			}
			return code(gs[0])
		})
	if err != nil {
		var none G
		return none, c, err
	}
	return groups(res.(*kmsgResponse).res.(R))[0], c, nil
}

// offsetFetch asks for every committed offset of groups: in the Groups
// array from v8 on, in the top-level fields before (one group then). kmsg
// writes the fields of the version it sends.
func offsetFetch(groups ...string) *kmsg.OffsetFetchRequest {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = groups[0] // nil Topics: all partitions (v2+)
	for _, g := range groups {
		rg := kmsg.NewOffsetFetchRequestGroup()
		rg.Group = g
		req.Groups = append(req.Groups, rg)
	}
	return req
}

// offsetGroups returns an OffsetFetch response's groups; a response before
// v8 is the one group asked for.
func offsetGroups(r *kmsg.OffsetFetchResponse, group string) []kmsg.OffsetFetchResponseGroup {
	if r.GetVersion() >= 8 {
		return r.Groups
	}
	g := kmsg.OffsetFetchResponseGroup{Group: group, ErrorCode: r.ErrorCode, Topics: make([]kmsg.OffsetFetchResponseGroupTopic, len(r.Topics))}
	for i, t := range r.Topics {
		gt := kmsg.OffsetFetchResponseGroupTopic{Topic: t.Topic, Partitions: make([]kmsg.OffsetFetchResponseGroupTopicPartition, len(t.Partitions))}
		for j, p := range t.Partitions {
			gt.Partitions[j] = kmsg.OffsetFetchResponseGroupTopicPartition{Partition: p.Partition, Offset: p.Offset, ErrorCode: p.ErrorCode}
		}
		g.Topics[i] = gt
	}
	return []kmsg.OffsetFetchResponseGroup{g}
}

// committed turns one group's OffsetFetch answer into committed offsets and
// per-partition errors.
func committed(g kmsg.OffsetFetchResponseGroup) (map[model.TopicPartition]int64, map[model.TopicPartition]string) {
	n := 0
	for _, t := range g.Topics {
		n += len(t.Partitions)
	}
	offsets := make(map[model.TopicPartition]int64, n)
	var errs map[model.TopicPartition]string
	for _, t := range g.Topics {
		for _, p := range t.Partitions {
			tp := model.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if p.ErrorCode != 0 {
				if errs == nil {
					errs = make(map[model.TopicPartition]string)
				}
				errs[tp] = "committed offset: " + errText(p.ErrorCode)
				continue
			}
			if p.Offset >= 0 {
				offsets[tp] = p.Offset
			}
		}
	}
	return offsets, errs
}

// shareOffsets turns a DescribeShareGroupOffsets group into start offsets
// (the committed offsets of a share group), the broker's lag and
// per-partition errors.
func shareOffsets(g kmsg.DescribeShareGroupOffsetsResponseGroup, name func([16]byte) string) (start, lag map[model.TopicPartition]int64, errs map[model.TopicPartition]string) {
	start = make(map[model.TopicPartition]int64)
	lag = make(map[model.TopicPartition]int64)
	for _, t := range g.Topics {
		topic := topicNamed(t.Topic, t.TopicID, name)
		for _, p := range t.Partitions {
			tp := model.TopicPartition{Topic: topic, Partition: p.Partition}
			if p.ErrorCode != 0 {
				if errs == nil {
					errs = make(map[model.TopicPartition]string)
				}
				errs[tp] = "share start offset: " + errText(p.ErrorCode)
				continue
			}
			if p.StartOffset >= 0 {
				start[tp] = p.StartOffset
				lag[tp] = p.Lag
			}
		}
	}
	return start, lag, errs
}

// listedAs looks the group up in its coordinator's ListGroups (v5 names
// types) and, when listed, takes its type and protocol type from there: a
// streams group is listed, and described by an API kgwatch does not speak
// yet. A type listed is remembered (w.listed), so later polls send no
// describe and no ListGroups for it.
func (w *Watcher) listedAs(ctx context.Context, coord broker, g *model.Group) {
	req := kmsg.NewPtrListGroupsRequest()
	res, err := w.sendKmsg(ctx, coord.id, req, 0, -1)
	if err != nil {
		return
	}
	for _, lg := range res.(*kmsg.ListGroupsResponse).Groups {
		if lg.Group == g.ID {
			g.Type, g.ProtocolType = lg.GroupType, listedProtocolType(lg)
			if g.Type != "" { // below v5 groups are listed untyped
				w.kind, w.listed, w.listedProtocol = g.Type, true, g.ProtocolType
			}
			return
		}
	}
}

// forgetListed forgets a type learned from ListGroups: the next poll
// detects the group's type afresh.
func (w *Watcher) forgetListed() {
	if w.listed {
		w.kind, w.listed, w.listedProtocol = "", false, ""
	}
}

// listedProtocolType is the protocol type of a listed group as Apache
// Kafka lists it: its ConsumerGroup and ShareGroup list "consumer" and
// "share" (asListedGroup); a broker that lists "" for a group it types
// consumer or share (kfake does for consumer) is read the same way.
func listedProtocolType(lg kmsg.ListGroupsResponseGroup) string {
	if lg.ProtocolType == "" {
		switch lg.GroupType {
		case model.TypeConsumer:
			return "consumer"
		case model.TypeShare:
			return "share"
		}
	}
	return lg.ProtocolType
}
