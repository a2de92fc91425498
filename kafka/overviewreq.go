package kafka

import (
	"context"
	"fmt"
	"sync"

	kafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// The overview's requests to one coordinator, for many groups at once:
// the describes of each group type, their commits and a share group's
// start offsets. Each answer is handed out to the groups it names
// (askGroups); what one group lacks is that group's Err.

// offsetFetchParallel bounds the OffsetFetch requests in flight per
// coordinator when it is too old (before v8) to take many groups in one.
const offsetFetchParallel = 8

// offsetFetchBatch is the most groups asked in one OffsetFetch (v8+).
const offsetFetchBatch = 500

// askGroups sends req, which names the groups at idx, to b (at a version
// from minV to maxV, as sendKmsg) and hands each group its part of the
// answer: groups lists the answer's groups, id names one. A group gets
// why on its Err (after what: "describe", "commits") when the request
// failed or the answer leaves it out.
func askGroups[R kmsg.Response, G any](ctx context.Context, w *Watcher, b broker, req kmsg.Request, minV, maxV int16, reads []groupRead, idx []int, what string,
	groups func(R) []G, id func(*G) string, take func(*groupRead, *G)) {
	res, err := w.sendKmsg(ctx, b.id, req, minV, maxV)
	if err != nil {
		for _, i := range idx {
			reads[i].sum.Err = joinText(reads[i].sum.Err, what+": "+err.Error())
		}
		return
	}
	gs := groups(res.(R))
	byID := make(map[string]*G, len(gs))
	for k := range gs {
		byID[id(&gs[k])] = &gs[k]
	}
	for _, i := range idx {
		r := &reads[i]
		g, ok := byID[r.sum.ID]
		if !ok {
			r.sum.Err = joinText(r.sum.Err, what+": group missing from the coordinator's answer")
			continue
		}
		take(r, g)
	}
}

// groupIDs returns the ids of the groups at idx.
func groupIDs(reads []groupRead, idx []int) []string {
	ids := make([]string, len(idx))
	for k, i := range idx {
		ids[k] = reads[i].sum.ID
	}
	return ids
}

// describeClassic describes the classic groups at idx in one
// DescribeGroups.
func (o *OverviewWatcher) describeClassic(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = groupIDs(reads, idx)
	askGroups(ctx, o.w, b, req, 0, -1, reads, idx, "describe",
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

// describeConsumer describes the consumer groups at idx in one
// ConsumerGroupDescribe.
func (o *OverviewWatcher) describeConsumer(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = groupIDs(reads, idx)
	askGroups(ctx, o.w, b, req, 0, -1, reads, idx, "describe",
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

// describeShare describes the share groups at idx in one
// ShareGroupDescribe.
func (o *OverviewWatcher) describeShare(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = groupIDs(reads, idx)
	askGroups(ctx, o.w, b, req, 0, -1, reads, idx, "describe",
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

// describedOK records on r what a type-specific describe's error code
// said, and reports whether the answer is a description.
func describedOK(r *groupRead, code int16) bool {
	switch {
	case kafka.Error(code) == kafka.GroupIdNotFound:
		r.sum.State = model.StateDead // gone since it was listed
	case code != 0:
		r.sum.Err = joinText(r.sum.Err, "describe: "+errText(code))
	default:
		return true
	}
	return false
}

// fetchCommits reads the committed offsets of the groups at idx: one
// OffsetFetch per offsetFetchBatch groups when the broker speaks v8, else
// one per group (perGroup), offsetFetchParallel at a time.
func (o *OverviewWatcher) fetchCommits(ctx context.Context, b broker, reads []groupRead, idx []int) (perGroup bool) {
	w := o.w
	if len(idx) == 0 {
		return false
	}
	if w.vers.supports(b.id, 9, 8) {
		for from := 0; from < len(idx); from += offsetFetchBatch {
			batch := idx[from:min(from+offsetFetchBatch, len(idx))]
			askGroups(ctx, w, b, offsetFetch(groupIDs(reads, batch)...), 8, maxOffsetFetch, reads, batch, "commits",
				func(res *kmsg.OffsetFetchResponse) []kmsg.OffsetFetchResponseGroup { return res.Groups },
				func(g *kmsg.OffsetFetchResponseGroup) string { return g.Group },
				func(r *groupRead, g *kmsg.OffsetFetchResponseGroup) { takeCommits(r, *g) })
		}
		return false
	}
	sem := make(chan struct{}, offsetFetchParallel)
	var wg sync.WaitGroup
	for _, i := range idx {
		r := &reads[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res, err := w.sendKmsg(ctx, b.id, offsetFetch(r.sum.ID), 0, maxOffsetFetch)
			if err != nil {
				r.sum.Err = joinText(r.sum.Err, "commits: "+err.Error())
				return
			}
			if gs := offsetGroups(res.(*kmsg.OffsetFetchResponse), r.sum.ID); len(gs) == 1 {
				takeCommits(r, gs[0])
			}
		}()
	}
	wg.Wait()
	return true
}

// takeCommits records one group's OffsetFetch answer on r.
func takeCommits(r *groupRead, g kmsg.OffsetFetchResponseGroup) {
	if code := g.ErrorCode; code != 0 && kafka.Error(code) != kafka.GroupIdNotFound {
		r.sum.Err = joinText(r.sum.Err, "commits: "+errText(code))
		return
	}
	var cerrs map[model.TopicPartition]string
	r.committed, cerrs = committed(g)
	if len(cerrs) > 0 {
		r.sum.Err = joinText(r.sum.Err, fmt.Sprintf("commits of %s unreadable", model.Count(len(cerrs), "partition")))
	}
}

// fetchShareStarts reads the share groups at idx's start offsets and lag
// in one DescribeShareGroupOffsets.
func (o *OverviewWatcher) fetchShareStarts(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	w := o.w
	req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	for _, id := range groupIDs(reads, idx) {
		rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
		rg.GroupID = id
		req.Groups = append(req.Groups, rg)
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
			var errs map[model.TopicPartition]string
			r.committed, r.shareLag, errs = shareOffsets(*g, w.topicName) // no id is learned meanwhile
			if len(errs) > 0 {
				r.sum.Err = joinText(r.sum.Err, fmt.Sprintf("start offsets of %s unreadable", model.Count(len(errs), "partition")))
			}
		})
}
