package kafka

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// logOffsets reads the log offsets the groups' lag needs
// (logOffsetsFor): the log end of every partition a group committed or is
// assigned, and the log start of those some group is assigned without a
// commit (the others keep model.NoOffset). Partitions it could not read
// have an Err; the reasons are returned as text, each naming a partition
// it concerns.
func (o *OverviewWatcher) logOffsets(ctx context.Context, brokers map[int32]broker, groups []model.OverviewGroup) (map[model.TopicPartition]model.PartitionOffsets, string) {
	w := o.w
	union := make(map[model.TopicPartition]int64)
	starts := make(map[model.TopicPartition]bool)
	for _, g := range groups {
		for i := range g.Parts {
			if p := &g.Parts[i]; p.HasCommit {
				union[p.TopicPartition] = p.Committed
			}
		}
		for i := range g.Parts {
			switch p := &g.Parts[i]; {
			case p.HasCommit:
			case p.Assigned && !p.CommitUnread:
				union[p.TopicPartition] = model.NoOffset
				starts[p.TopicPartition] = true
			case p.Assigned || p.CommitUnread:
				// Its commit unread: its log end, as the group view
				// reads it, and no log start (its lag is unknown).
				if _, ok := union[p.TopicPartition]; !ok {
					union[p.TopicPartition] = model.NoOffset
				}
			}
		}
	}
	if len(union) == 0 {
		return nil, ""
	}
	var obs model.Observation
	for tp, c := range union {
		obs.SetCommitted(tp, c)
	}
	topics := groupTopics(obs)
	if w.meta.needsRefresh(topics, &obs, time.Now()) {
		if err := w.refreshMetadata(ctx, brokers[sortedKeys(brokers)[0]], topics); err != nil {
			return nil, err.Error()
		}
	}

	tps := make([]model.TopicPartition, 0, len(union))
	for tp := range union {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool { return tps[i].Less(tps[j]) })
	r := w.logOffsetsFor(ctx, brokers, slices.Values(tps), len(tps), func(tp model.TopicPartition) bool { return starts[tp] })
	offsets := make(map[model.TopicPartition]model.PartitionOffsets, len(r.tps))
	for i, tp := range r.tps {
		offsets[tp] = r.offsets[i]
	}
	return offsets, logProblems(tps, offsets)
}

// logProblems names the reasons some of tps's offsets could not be read,
// once each, with the first partition it concerns: "orders/1: partition
// has no leader", "orders/0 and 2 more partitions: log offsets from
// leader …".
func logProblems(tps []model.TopicPartition, offsets map[model.TopicPartition]model.PartitionOffsets) string {
	type problem struct {
		first model.TopicPartition
		n     int
	}
	var order []string
	var problems map[string]*problem
	for _, tp := range tps {
		e := offsets[tp].Err
		if e == "" {
			continue
		}
		if p, ok := problems[e]; ok {
			p.n++
			continue
		}
		if problems == nil {
			problems = make(map[string]*problem)
		}
		problems[e] = &problem{first: tp, n: 1}
		order = append(order, e)
	}
	texts := make([]string, len(order))
	for i, e := range order {
		p := problems[e]
		at := fmt.Sprintf("%s/%d", p.first.Topic, p.first.Partition)
		if p.n > 1 {
			at += " and " + model.Count(p.n-1, "more partition")
		}
		texts[i] = at + ": " + e
	}
	return strings.Join(texts, "; ")
}
