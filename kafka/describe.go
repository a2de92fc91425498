package kafka

import (
	"context"
	"errors"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

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
	for _, kind := range detectOrder(w.kind) {
		found, err := kind.describe(ctx, w, brokers, obs)
		var ue *UnsupportedError
		switch {
		case errors.As(err, &ue) || errors.Is(err, kafka.UnsupportedVersion):
			continue // the broker does not run this type of group
		case err != nil:
			w.kind = ""
			return err
		case found && kind.confirm != nil && w.kind != kind.typ:
			typ, err := kind.confirm(ctx, w, brokers, obs)
			w.kind = typ
			return err
		case found:
			w.kind = kind.typ
			return nil
		}
	}
	w.kind = ""
	obs.Group.State = model.StateDead
	obs.Group.Type, obs.Group.ProtocolType, obs.Group.Assignor = "", "", ""
	obs.Members = nil
	return nil
}

// groupCode returns a describe answer's error code for the watched group,
// 0 for "no such group of this type" (a snapshot, not an error).
func groupCode(code int16) int16 {
	if kafka.Error(code) == kafka.GroupIdNotFound {
		return 0
	}
	return code
}

// fetchCommitted fills obs's commits and their errors: OffsetFetch, or
// for a share group DescribeShareGroupOffsets (start offsets and the
// broker's lag).
func (w *Watcher) fetchCommitted(ctx context.Context, brokers map[int32]broker, obs *model.Observation) (broker, error) {
	g := w.cfg.Group
	dead := obs.Group.State == model.StateDead
	if k, ok := kindOf(obs.Group.Type); ok && k.fetchCommitted != nil {
		return k.fetchCommitted(ctx, w, brokers, obs)
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
	fillCommitted(og, obs, &w.commits)
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

// fillCommitted puts one group's OffsetFetch answer in obs, in place:
// committed offsets, their leader epochs and per-partition errors.
func fillCommitted(g kmsg.OffsetFetchResponseGroup, obs *model.Observation, sc *commitStage) {
	for i := range g.Topics {
		t := &g.Topics[i]
		obs.Reserve(t.Topic, len(t.Partitions))
		if len(t.Partitions) < stageFrom || !sc.fill(t, obs) {
			fillTopicCommits(t, obs)
		}
	}
}

// fillTopicCommits is fillCommitted of one topic, in the answer's order.
func fillTopicCommits(t *kmsg.OffsetFetchResponseGroupTopic, obs *model.Observation) {
	for i := range t.Partitions {
		p := &t.Partitions[i]
		tp := model.TopicPartition{Topic: t.Topic, Partition: p.Partition}
		switch {
		case p.ErrorCode != 0:
			obs.SetCommitErr(tp, partErrText("committed offset", p.ErrorCode))
		case p.Offset >= 0:
			po := obs.Part(tp)
			po.HasCommit, po.Committed = true, p.Offset
			if p.LeaderEpoch >= 0 {
				// OffsetFetch v5+; -1, none, is left out.
				po.LeaderEpochKnown, po.LeaderEpoch = true, p.LeaderEpoch
			}
		}
	}
}

// stageFrom is the fewest partitions of a topic that commitStage fills.
const stageFrom = 256

// commitStage is fillCommitted's scratch, kept by the watcher. A broker
// answers OffsetFetch in no order (Kafka and kfake answer a fetch of all
// commits from a map), so writing each commit straight into the
// observation's 208-byte slot is a cache miss a partition: 2 ms a poll at
// 10,000 partitions. A large topic's commits are put first in this small
// array by partition number (16 bytes each: 160 KB at 10,000, in the
// cache), then copied into the slots in order.
type commitStage struct {
	slots []stagedCommit
}

type stagedCommit struct {
	offset          int64
	epoch           int32
	set, epochKnown bool
}

// fill fills obs with t's commits through the stage, and reports false,
// having filled nothing, when t's partition numbers do not suit it
// (negative, or far more slots than partitions).
func (sc *commitStage) fill(t *kmsg.OffsetFetchResponseGroupTopic, obs *model.Observation) bool {
	top := int32(-1)
	for i := range t.Partitions {
		p := t.Partitions[i].Partition
		if p < 0 {
			return false
		}
		top = max(top, p)
	}
	if int(top) >= 2*len(t.Partitions)+1024 {
		return false
	}
	n := int(top) + 1
	if cap(sc.slots) < n {
		sc.slots = make([]stagedCommit, n)
	}
	slots := sc.slots[:n]
	clear(slots)
	for i := range t.Partitions {
		p := &t.Partitions[i]
		switch {
		case p.ErrorCode != 0:
			obs.SetCommitErr(model.TopicPartition{Topic: t.Topic, Partition: p.Partition}, partErrText("committed offset", p.ErrorCode))
		case p.Offset >= 0:
			s := &slots[p.Partition]
			s.offset, s.set = p.Offset, true
			if p.LeaderEpoch >= 0 { // as Part's slot keeps one an earlier duplicate gave
				s.epoch, s.epochKnown = p.LeaderEpoch, true
			}
		}
	}
	parts := obsSlots{obs: obs}
	for q := range slots {
		s := &slots[q]
		if !s.set {
			continue
		}
		po := parts.part(model.TopicPartition{Topic: t.Topic, Partition: int32(q)})
		po.HasCommit, po.Committed = true, s.offset
		if s.epochKnown {
			po.LeaderEpochKnown, po.LeaderEpoch = true, s.epoch
		}
	}
	return true
}

// committed turns one group's OffsetFetch answer into committed offsets and
// per-partition errors.
func committed(g kmsg.OffsetFetchResponseGroup) ([]model.OverviewPart, map[model.TopicPartition]string) {
	n := 0
	for _, t := range g.Topics {
		n += len(t.Partitions)
	}
	parts := make([]model.OverviewPart, 0, n)
	var errs map[model.TopicPartition]string
	eachCommit(g, func(tp model.TopicPartition, p *kmsg.OffsetFetchResponseGroupTopicPartition) {
		switch {
		case p.ErrorCode != 0:
			partErr(&errs, tp, "committed offset", p.ErrorCode)
			parts = append(parts, model.OverviewPart{TopicPartition: tp, CommitUnread: true})
		case p.Offset >= 0:
			parts = append(parts, model.OverviewPart{TopicPartition: tp, Committed: p.Offset, HasCommit: true})
		}
	})
	return parts, errs
}

// eachCommit calls f for each partition of an OffsetFetch group.
func eachCommit(g kmsg.OffsetFetchResponseGroup, f func(tp model.TopicPartition, p *kmsg.OffsetFetchResponseGroupTopicPartition)) {
	for _, t := range g.Topics {
		for i := range t.Partitions {
			f(model.TopicPartition{Topic: t.Topic, Partition: t.Partitions[i].Partition}, &t.Partitions[i])
		}
	}
}

// partErr records in *errs (made on the first) that what could not be
// read for tp, and the broker's reason.
func partErr(errs *map[model.TopicPartition]string, tp model.TopicPartition, what string, code int16) {
	if *errs == nil {
		*errs = make(map[model.TopicPartition]string)
	}
	(*errs)[tp] = partErrText(what, code)
}

// partErrText says that what could not be read, and the broker's reason.
func partErrText(what string, code int16) string { return what + ": " + errText(code) }

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
			g.Type, g.ProtocolType = model.GroupType(lg.GroupType), listedProtocolType(lg)
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
