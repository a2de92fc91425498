package kafka

import (
	"context"
	"fmt"
	"iter"
	"sort"
	"sync"

	kafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// Special ListOffsets timestamps.
const (
	earliest int64 = -2
	latest   int64 = -1
)

// listOffsets reads the log-start and log-end offsets of every partition of
// topics (logOffsetsFor). Failures are recorded per partition; moved
// reports that a leader answered it no longer leads a partition (the
// metadata is out of date).
//
// When no leader answered at all (every request failed: the brokers are
// unreachable or frozen), err says so and the poll fails as a whole: a
// snapshot of nothing but per-partition errors is an outage, not data,
// and an outage counts from the last poll that had answers.
//
// Log starts are read only where startCache.need says; the others come
// from the cache (w.starts).
func (w *Watcher) listOffsets(ctx context.Context, brokers map[int32]broker, topics []string, obs *model.Observation) (offsets map[model.TopicPartition]model.PartitionOffsets, moved bool, err error) {
	n := 0
	for _, t := range topics {
		if tm, ok := w.meta.topics[t]; ok {
			n += len(tm.partitions)
		}
	}
	all := func(yield func(model.TopicPartition) bool) {
		for _, t := range topics {
			tm, ok := w.meta.topics[t]
			if !ok {
				continue // not in metadata: the model says so per partition
			}
			for _, p := range tm.partitions {
				if !yield(model.TopicPartition{Topic: t, Partition: p.id}) {
					return
				}
			}
		}
	}
	now := w.now()
	needStart := func(tp model.TopicPartition) bool {
		if p := obs.Find(tp); p != nil && p.HasCommit {
			return w.starts.need(tp, now, p.Committed, true)
		}
		return w.starts.need(tp, now, model.NoOffset, false)
	}
	r := w.logOffsetsFor(ctx, brokers, all, n, needStart)
	w.starts.fill(r.offsets, w.starts.asked, now)
	if failed := len(r.failed); failed > 0 && failed == r.leaders {
		more := ""
		if failed > 1 {
			more = fmt.Sprintf(" (and %d more leaders)", failed-1)
		}
		return r.offsets, r.moved, fmt.Errorf("no partition leader answered: %s%s", r.failed[0], more)
	}
	return r.offsets, r.moved, nil
}

// logRead is what logOffsetsFor read.
type logRead struct {
	// offsets holds every partition asked: its offsets, or its Err.
	offsets map[model.TopicPartition]model.PartitionOffsets
	// moved: a leader answered that it no longer leads a partition.
	moved bool
	// leaders counts the leaders asked; failed says, for each that did
	// not answer, why (leaders in id order).
	leaders int
	failed  []string
}

// logOffsetsFor reads the log end of each partition of tps (n of them, a
// size hint) and the log start of those needStart says need it (nil:
// every one; the others keep model.NoOffset), from their leaders in the
// cached metadata: per leader, one ListOffsets (earliest) for the
// partitions that need their start, then one (latest) for all of them,
// leaders in parallel. Kafka refuses a partition listed twice in one
// request, hence two. Every partition of tps gets its offsets or an Err
// saying why not: the metadata does not know it or names no leader, its
// leader did not answer, or answered an error. A leader that did not
// answer, or answered that it no longer leads a partition, makes the
// metadata stale. tps in topic order keep the requests short (one entry
// per run of a topic).
func (w *Watcher) logOffsetsFor(ctx context.Context, brokers map[int32]broker, tps iter.Seq[model.TopicPartition], n int, needStart func(model.TopicPartition) bool) logRead {
	offsets := make(map[model.TopicPartition]model.PartitionOffsets, n)
	failed := func(tp model.TopicPartition, e string) {
		offsets[tp] = model.PartitionOffsets{LogStart: model.NoOffset, LogEnd: model.NoOffset, Err: e}
	}
	// ends and starts: the requests' partitions by leader. With needStart
	// nil both ask the same partitions: one slice serves both.
	ends := make(map[int32][]kmsg.ListOffsetsRequestTopic)
	starts := ends
	if needStart != nil {
		starts = make(map[int32][]kmsg.ListOffsetsRequestTopic)
	}
	var tm *topicMeta // the topic of the last partition, looked up once a run
	var tmName string
	tmOK := false
	for tp := range tps {
		if tm == nil || tmName != tp.Topic {
			tm, tmOK = w.meta.topics[tp.Topic]
			tmName = tp.Topic
		}
		if !tmOK {
			failed(tp, "topic not in metadata")
			continue
		}
		if tm.err != "" {
			failed(tp, tm.err)
			continue
		}
		p, ok := tm.partition(tp.Partition)
		switch {
		case !ok:
			failed(tp, "partition not in metadata")
			continue
		case p.err != "":
			failed(tp, p.err)
			continue
		}
		appendPartition(ends, p.leader, tp)
		if needStart != nil && needStart(tp) {
			appendPartition(starts, p.leader, tp)
		}
	}

	type result struct {
		leader     int32
		start, end *kmsg.ListOffsetsResponse
		err        error
	}
	results := make([]result, 0, len(ends))
	for leader := range ends {
		results = append(results, result{leader: leader})
	}
	sort.Slice(results, func(i, j int) bool { return results[i].leader < results[j].leader })
	var wg sync.WaitGroup
	for i := range results {
		r := &results[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rts := starts[r.leader]; len(rts) > 0 {
				if r.start, r.err = w.listOffsetsAt(ctx, r.leader, rts, earliest); r.err != nil {
					return
				}
			}
			r.end, r.err = w.listOffsetsAt(ctx, r.leader, ends[r.leader], latest)
		}()
	}
	wg.Wait()

	out := logRead{offsets: offsets, leaders: len(results)}
	for _, r := range results {
		if r.err != nil {
			addr := fmt.Sprint(r.leader)
			if b, ok := brokers[r.leader]; ok {
				addr = b.addr
			}
			e := fmt.Sprintf("log offsets from leader %s: %v", addr, r.err)
			out.failed = append(out.failed, e)
			for _, t := range ends[r.leader] {
				for _, p := range t.Partitions {
					failed(model.TopicPartition{Topic: t.Topic, Partition: p.Partition}, e)
				}
			}
			w.meta.stale = true
			continue
		}
		end := newAnswerIndex(r.end)
		var start *answerIndex
		if r.start != nil {
			start = newAnswerIndex(r.start)
		}
		// si, sj: where the partition asked its start sits in starts,
		// the partitions asked in the same order.
		si, sj := 0, -1
		srts := starts[r.leader]
		for ti, t := range ends[r.leader] {
			for pi, p := range t.Partitions {
				tp := model.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				po := model.PartitionOffsets{LogStart: model.NoOffset, LogEnd: model.NoOffset}
				s, okS := kmsg.ListOffsetsResponseTopicPartition{Offset: model.NoOffset}, true
				switch {
				case needStart == nil:
					s, okS = start.find(ti, pi, tp)
				case needStart(tp):
					if sj++; si < len(srts) && sj == len(srts[si].Partitions) {
						si, sj = si+1, 0
					}
					s, okS = start.find(si, sj, tp)
				}
				e, okE := end.find(ti, pi, tp)
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
						out.moved = true
					}
				default:
					po.LogStart, po.LogEnd = s.Offset, e.Offset
				}
				offsets[tp] = po
			}
		}
	}
	return out
}

// appendPartition adds tp to leader's request: to its last topic when it
// is tp's, else to a new one.
func appendPartition(byLeader map[int32][]kmsg.ListOffsetsRequestTopic, leader int32, tp model.TopicPartition) {
	rts := byLeader[leader]
	if n := len(rts); n == 0 || rts[n-1].Topic != tp.Topic {
		rts = append(rts, kmsg.ListOffsetsRequestTopic{Topic: tp.Topic})
	}
	last := &rts[len(rts)-1]
	last.Partitions = append(last.Partitions, kmsg.ListOffsetsRequestTopicPartition{Partition: tp.Partition, CurrentLeaderEpoch: -1})
	byLeader[leader] = rts
}

// partition returns the metadata of partition p.
func (tm *topicMeta) partition(p int32) (partitionMeta, bool) {
	// Partitions are usually listed in order; fall back to a scan.
	if i := int(p); i >= 0 && i < len(tm.partitions) && tm.partitions[i].id == p {
		return tm.partitions[i], true
	}
	for _, pm := range tm.partitions {
		if pm.id == p {
			return pm, true
		}
	}
	return partitionMeta{}, false
}

// listOffsetsAt sends one ListOffsets request for all of rts to leader,
// at v1 or above (v0 answers in its own shape; Kafka 4 refuses it).
func (w *Watcher) listOffsetsAt(ctx context.Context, leader int32, rts []kmsg.ListOffsetsRequestTopic, ts int64) (*kmsg.ListOffsetsResponse, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	req.Topics = make([]kmsg.ListOffsetsRequestTopic, len(rts))
	for i, t := range rts {
		parts := make([]kmsg.ListOffsetsRequestTopicPartition, len(t.Partitions))
		for j, p := range t.Partitions {
			p.Timestamp = ts
			parts[j] = p
		}
		req.Topics[i] = kmsg.ListOffsetsRequestTopic{Topic: t.Topic, Partitions: parts}
	}
	res, err := w.sendKmsg(ctx, leader, req, 1, -1)
	if err != nil {
		return nil, err
	}
	return res.(*kmsg.ListOffsetsResponse), nil
}

// answerIndex finds a partition in a ListOffsets answer. Brokers answer
// in the order asked, so the partition asked at (topic i, partition j) is
// looked for there first; a map of the answer is built only for one that
// is not (at 10,000 partitions a map per answer was a tenth of a poll).
type answerIndex struct {
	r   *kmsg.ListOffsetsResponse
	idx map[model.TopicPartition]kmsg.ListOffsetsResponseTopicPartition
}

func newAnswerIndex(r *kmsg.ListOffsetsResponse) *answerIndex { return &answerIndex{r: r} }

// find returns the answer for tp, asked as topic ti's partition pi.
func (a *answerIndex) find(ti, pi int, tp model.TopicPartition) (kmsg.ListOffsetsResponseTopicPartition, bool) {
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
		a.idx = make(map[model.TopicPartition]kmsg.ListOffsetsResponseTopicPartition, n)
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
