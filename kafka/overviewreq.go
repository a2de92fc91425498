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

// offsetFetchMany is offsetFetch of the groups at idx (v8+: every
// partition of each), its groups allocated once: at 5,000 groups the
// request grown by append cost ~0.9 MB a poll.
func offsetFetchMany(reads []groupRead, idx []int) *kmsg.OffsetFetchRequest {
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Groups = make([]kmsg.OffsetFetchRequestGroup, len(idx))
	for k, i := range idx {
		req.Groups[k] = kmsg.NewOffsetFetchRequestGroup()
		req.Groups[k].Group = reads[i].sum.ID
	}
	req.Group = req.Groups[0].Group
	return req
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
	for _, i := range idx {
		reads[i].commitsUnread = true // until an answer is taken
	}
	if w.vers.supports(b.id, 9, 8) {
		for from := 0; from < len(idx); from += offsetFetchBatch {
			batch := idx[from:min(from+offsetFetchBatch, len(idx))]
			askGroups(ctx, w, b, offsetFetchMany(reads, batch), 8, maxOffsetFetch, reads, batch, "commits",
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
	r.commitsUnread = false
	var cerrs map[model.TopicPartition]string
	r.commits, cerrs = committed(g)
	if len(cerrs) > 0 {
		r.sum.Err = joinText(r.sum.Err, fmt.Sprintf("commits of %s unreadable", model.Count(len(cerrs), "partition")))
	}
}
