package kafka

import (
	"context"
	"fmt"
	"sort"
	"sync"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol/listoffsets"

	"github.com/kgwatch/kgwatch/model"
)

// Special ListOffsets timestamps.
const (
	earliest int64 = -2
	latest   int64 = -1
)

// leaderPartitions groups the partitions of topics by leader, in the
// request shape. Partitions that cannot be asked (no leader, topic error)
// get their error in offsets.
func (w *Watcher) leaderPartitions(topics []string, offsets map[model.TopicPartition]model.PartitionOffsets) map[int32][]listoffsets.RequestTopic {
	byLeader := make(map[int32][]listoffsets.RequestTopic)
	for _, t := range topics {
		tm, ok := w.meta.topics[t]
		if !ok {
			continue // not in metadata: the model says so per partition
		}
		for _, p := range tm.partitions {
			tp := model.TopicPartition{Topic: t, Partition: p.id}
			if e := tm.err + p.err; e != "" {
				offsets[tp] = model.PartitionOffsets{LogStart: model.NoOffset, LogEnd: model.NoOffset, Err: e}
				continue
			}
			rts := byLeader[p.leader]
			if n := len(rts); n == 0 || rts[n-1].Topic != t {
				rts = append(rts, listoffsets.RequestTopic{Topic: t})
			}
			last := &rts[len(rts)-1]
			last.Partitions = append(last.Partitions, listoffsets.RequestPartition{Partition: p.id, CurrentLeaderEpoch: -1})
			byLeader[p.leader] = rts
		}
	}
	return byLeader
}

// listOffsets reads the log-start and log-end offsets of every partition of
// topics: two ListOffsets requests (earliest, latest) per leader, leaders in
// parallel. Kafka refuses a partition listed twice in one request, hence
// two. Failures are recorded per partition; moved reports that a leader
// answered it no longer leads a partition (the metadata is out of date).
//
// When no leader answered at all (every request failed: the brokers are
// unreachable or frozen), err says so and the poll fails as a whole: a
// snapshot of nothing but per-partition errors is an outage, not data,
// and an outage counts from the last poll that had answers.
func (w *Watcher) listOffsets(ctx context.Context, brokers map[int32]broker, topics []string) (offsets map[model.TopicPartition]model.PartitionOffsets, moved bool, err error) {
	n := 0
	for _, t := range topics {
		if tm, ok := w.meta.topics[t]; ok {
			n += len(tm.partitions)
		}
	}
	offsets = make(map[model.TopicPartition]model.PartitionOffsets, n)
	byLeader := w.leaderPartitions(topics, offsets)

	type result struct {
		leader          int32
		start, end      *listoffsets.Response
		err             error
		refreshMetadata bool
	}
	results := make([]result, 0, len(byLeader))
	for leader := range byLeader {
		results = append(results, result{leader: leader})
	}
	sort.Slice(results, func(i, j int) bool { return results[i].leader < results[j].leader })

	var wg sync.WaitGroup
	for i := range results {
		r := &results[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			rts := byLeader[r.leader]
			r.start, r.err = w.listOffsetsAt(ctx, r.leader, rts, earliest)
			if r.err == nil {
				r.end, r.err = w.listOffsetsAt(ctx, r.leader, rts, latest)
			}
		}()
	}
	wg.Wait()

	failed := 0
	var firstErr string
	for _, r := range results {
		if r.err != nil {
			failed++
			addr := fmt.Sprint(r.leader)
			if b, ok := brokers[r.leader]; ok {
				addr = b.addr
			}
			e := fmt.Sprintf("log offsets from leader %s: %v", addr, r.err)
			if firstErr == "" {
				firstErr = e
			}
			for _, t := range byLeader[r.leader] {
				for _, p := range t.Partitions {
					offsets[model.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = model.PartitionOffsets{LogStart: model.NoOffset, LogEnd: model.NoOffset, Err: e}
				}
			}
			w.meta.stale = true
			continue
		}
		start, end := newAnswerIndex(r.start), newAnswerIndex(r.end)
		for ti, t := range byLeader[r.leader] {
			for pi, p := range t.Partitions {
				tp := model.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				s, okS := start.find(ti, pi, tp)
				e, okE := end.find(ti, pi, tp)
				po := model.PartitionOffsets{LogStart: model.NoOffset, LogEnd: model.NoOffset}
				switch {
				case !okS || !okE:
					po.Err = "log offsets: partition missing from the leader's answer"
				case s.ErrorCode != 0 || e.ErrorCode != 0:
					code := s.ErrorCode
					if code == 0 {
						code = e.ErrorCode
					}
					po.Err = "log offsets: " + errText(code)
					if leaderMoved(code) {
						w.meta.stale = true
						moved = true
					}
				default:
					po.LogStart, po.LogEnd = s.Offset, e.Offset
				}
				offsets[tp] = po
			}
		}
	}
	if failed > 0 && failed == len(results) {
		more := ""
		if failed > 1 {
			more = fmt.Sprintf(" (and %d more leaders)", failed-1)
		}
		return offsets, moved, fmt.Errorf("no partition leader answered: %s%s", firstErr, more)
	}
	return offsets, moved, nil
}

// listOffsetsAt sends one ListOffsets request for all of rts to leader.
func (w *Watcher) listOffsetsAt(ctx context.Context, leader int32, rts []listoffsets.RequestTopic, ts int64) (*listoffsets.Response, error) {
	topics := make([]listoffsets.RequestTopic, len(rts))
	for i, t := range rts {
		parts := make([]listoffsets.RequestPartition, len(t.Partitions))
		for j, p := range t.Partitions {
			p.Timestamp = ts
			parts[j] = p
		}
		topics[i] = listoffsets.RequestTopic{Topic: t.Topic, Partitions: parts}
	}
	res, err := w.roundTrip(ctx, &listOffsetsRequest{ReplicaID: -1, Topics: topics, route: route{leader}})
	if err != nil {
		return nil, err
	}
	return res.(*listoffsets.Response), nil
}

// answerIndex finds a partition in a ListOffsets answer. Brokers answer
// in the order asked, so the partition asked at (topic i, partition j) is
// looked for there first; a map of the answer is built only for one that
// is not (at 10,000 partitions a map per answer was a tenth of a poll).
type answerIndex struct {
	r   *listoffsets.Response
	idx map[model.TopicPartition]listoffsets.ResponsePartition
}

func newAnswerIndex(r *listoffsets.Response) *answerIndex { return &answerIndex{r: r} }

// find returns the answer for tp, asked as topic ti's partition pi.
func (a *answerIndex) find(ti, pi int, tp model.TopicPartition) (listoffsets.ResponsePartition, bool) {
	if ti < len(a.r.Topics) && a.r.Topics[ti].Topic == tp.Topic {
		if ps := a.r.Topics[ti].Partitions; pi < len(ps) && ps[pi].Partition == tp.Partition {
			return ps[pi], true
		}
	}
	if a.idx == nil {
		n := 0
		for _, t := range a.r.Topics {
			n += len(t.Partitions)
		}
		a.idx = make(map[model.TopicPartition]listoffsets.ResponsePartition, n)
		for _, t := range a.r.Topics {
			for _, p := range t.Partitions {
				a.idx[model.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p
			}
		}
	}
	p, ok := a.idx[tp]
	return p, ok
}

// leaderMoved reports whether an error code means the metadata is out of
// date.
func leaderMoved(code int16) bool {
	switch kafka.Error(code) {
	case kafka.NotLeaderForPartition, kafka.LeaderNotAvailable, kafka.UnknownTopicOrPartition,
		kafka.FencedLeaderEpoch, kafka.UnknownLeaderEpoch, kafka.KafkaStorageError, kafka.BrokerNotAvailable:
		return true
	}
	return false
}
