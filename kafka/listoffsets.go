package kafka

import (
	"context"
	"fmt"
	"iter"
	"slices"
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
// topics (logOffsetsFor), in topic order then the metadata's partition
// order. Failures are recorded per partition; r.moved reports that a
// leader answered it no longer leads a partition (the metadata is out of
// date).
//
// When no leader answered at all (every request failed: the brokers are
// unreachable or frozen), err says so and the poll fails as a whole: a
// snapshot of nothing but per-partition errors is an outage, not data,
// and an outage counts from the last poll that had answers.
//
// Log starts are read only where startCache.need says; the others come
// from the cache (w.starts). r is the watcher's until its next
// logOffsetsFor.
func (w *Watcher) listOffsets(ctx context.Context, brokers map[int32]broker, topics []string, obs *model.Observation) (r logRead, err error) {
	n := 0
	for _, t := range topics {
		if tm, ok := w.meta.topics[t]; ok {
			n += len(tm.partitions)
			if tm.dense {
				w.starts.reserve(t, len(tm.partitions))
			}
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
	slots := obsSlots{obs: obs}
	needStart := func(tp model.TopicPartition) bool {
		if p := slots.find(tp); p != nil && p.HasCommit {
			return w.starts.need(tp, now, p.Committed, true)
		}
		return w.starts.need(tp, now, model.NoOffset, false)
	}
	r = w.logOffsetsFor(ctx, brokers, all, n, needStart)
	w.starts.fill(r.tps, r.offsets, now)
	if failed := len(r.failed); failed > 0 && failed == r.leaders {
		more := ""
		if failed > 1 {
			more = fmt.Sprintf(" (and %d more leaders)", failed-1)
		}
		return r, fmt.Errorf("no partition leader answered: %s%s", r.failed[0], more)
	}
	return r, nil
}

// logRead is what logOffsetsFor read. Its slices are the watcher's
// (logScratch): they hold until its next logOffsetsFor.
type logRead struct {
	// tps are the partitions asked, in the order given; offsets[i] is
	// tps[i]'s offsets, or its Err.
	tps     []model.TopicPartition
	offsets []model.PartitionOffsets
	// moved: a leader answered that it no longer leads a partition.
	moved bool
	// leaders counts the leaders asked; failed says, for each that did
	// not answer, why (leaders in id order).
	leaders int
	failed  []string
}

// logScratch holds logOffsetsFor's buffers from one read to the next
// (the watcher reads one at a time, under its lock): at 10,000 partitions a
// map of the answers and the requests grown by appending were most of a
// poll's garbage. The requests themselves are made new each read, at
// their size: the transport may still be writing one whose wait timed
// out.
type logScratch struct {
	tps     []model.TopicPartition
	offsets []model.PartitionOffsets
	// ask and start say, per partition of tps, the index in asks of its
	// leader's (-1: none asked, its Err is set) and whether its start is
	// asked. asks holds a part per leader asked (a few: looked up by a
	// scan, the last one first).
	ask   []int32
	start []bool
	asks  []*logAsk
}

// logAsk is one leader's part of a read: its requests, the positions in
// tps of the partitions they ask (in request order), its answers.
type logAsk struct {
	leader             int32
	nEnd, nStart       int // partitions asked
	endRuns, startRuns int // runs of a topic
	lastEnd, lastStart string
	pos                []int
	ends, starts       []kmsg.ListOffsetsRequestTopic
	endRes, startRes   *kmsg.ListOffsetsResponse
	err                error
	// endBuf and startBuf are the requests' arrays, kept for the next
	// read once an answer has come (the request was written by then):
	// at 10,000 partitions making them afresh was 7% of the TUI's
	// allocation.
	endBuf, startBuf listOffsetsBuf
}

// listOffsetsBuf is the backing arrays of a request's topics and their
// partitions.
type listOffsetsBuf struct {
	topics []kmsg.ListOffsetsRequestTopic
	parts  []kmsg.ListOffsetsRequestTopicPartition
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
// per run of a topic). needStart is asked once per partition.
func (w *Watcher) logOffsetsFor(ctx context.Context, brokers map[int32]broker, tps iter.Seq[model.TopicPartition], n int, needStart func(model.TopicPartition) bool) logRead {
	sc := &w.logBuf
	sc.tps, sc.offsets = slices.Grow(sc.tps[:0], n), slices.Grow(sc.offsets[:0], n)
	sc.ask, sc.start = slices.Grow(sc.ask[:0], n), slices.Grow(sc.start[:0], n)
	for _, a := range sc.asks {
		*a = logAsk{leader: a.leader, pos: a.pos[:0], endBuf: a.endBuf, startBuf: a.startBuf}
	}
	last := -1
	askOf := func(leader int32) int {
		if last >= 0 && sc.asks[last].leader == leader {
			return last
		}
		last = slices.IndexFunc(sc.asks, func(a *logAsk) bool { return a.leader == leader })
		if last < 0 {
			last = len(sc.asks)
			sc.asks = append(sc.asks, &logAsk{leader: leader})
		}
		return last
	}
	failedPO := func(e string) model.PartitionOffsets {
		return model.PartitionOffsets{LogStart: model.NoOffset, LogEnd: model.NoOffset, Err: e}
	}
	none := model.PartitionOffsets{LogStart: model.NoOffset, LogEnd: model.NoOffset}
	// First the partitions' leaders, and how many each leader is asked in
	// how many runs of a topic, so each request is made at its size.
	var tm *topicMeta // the topic of the last partition, looked up once a run
	var tmName string
	tmOK := false
	for tp := range tps {
		if tm == nil || tmName != tp.Topic {
			tm, tmOK = w.meta.topics[tp.Topic]
			tmName = tp.Topic
		}
		po, ask, start := none, int32(-1), false
		switch p, ok := tm.partitionOf(tmOK, tp.Partition); {
		case !tmOK:
			po = failedPO("topic not in metadata")
		case tm.err != "":
			po = failedPO(tm.err)
		case !ok:
			po = failedPO("partition not in metadata")
		case p.err != "":
			po = failedPO(p.err)
		default:
			start = needStart == nil || needStart(tp)
			ask = int32(askOf(p.leader))
			a := sc.asks[ask]
			a.nEnd++
			if a.nEnd == 1 || a.lastEnd != tp.Topic {
				a.endRuns++
				a.lastEnd = tp.Topic
			}
			if start {
				a.nStart++
				if a.nStart == 1 || a.lastStart != tp.Topic {
					a.startRuns++
					a.lastStart = tp.Topic
				}
			}
		}
		sc.tps = append(sc.tps, tp)
		sc.offsets = append(sc.offsets, po)
		sc.ask = append(sc.ask, ask)
		sc.start = append(sc.start, start)
	}

	// The requests, in the order of tps.
	asks := make([]*logAsk, 0, len(sc.asks))
	for _, a := range sc.asks {
		if a.nEnd == 0 {
			continue // a leader no longer asked (dropped below)
		}
		a.ends = a.endBuf.topicsFor(a.endRuns, a.nEnd)
		if a.nStart > 0 {
			a.starts = a.startBuf.topicsFor(a.startRuns, a.nStart)
		}
		asks = append(asks, a)
	}
	sort.Slice(asks, func(i, j int) bool { return asks[i].leader < asks[j].leader })
	for i, ask := range sc.ask {
		if ask < 0 {
			continue
		}
		a := sc.asks[ask]
		tp := sc.tps[i]
		a.ends = addListOffsets(a.ends, tp, latest)
		if sc.start[i] {
			a.starts = addListOffsets(a.starts, tp, earliest)
		}
		a.pos = append(a.pos, i)
	}

	var wg sync.WaitGroup
	for _, a := range asks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a.nStart > 0 {
				if a.startRes, a.err = w.listOffsetsAt(ctx, a.leader, a.starts); a.err != nil {
					return
				}
			}
			a.endRes, a.err = w.listOffsetsAt(ctx, a.leader, a.ends)
		}()
	}
	wg.Wait()

	out := logRead{tps: sc.tps, offsets: sc.offsets, leaders: len(asks)}
	for _, a := range asks {
		if a.err != nil {
			addr := fmt.Sprint(a.leader)
			if b, ok := brokers[a.leader]; ok {
				addr = b.addr
			}
			e := fmt.Sprintf("log offsets from leader %s: %v", addr, a.err)
			out.failed = append(out.failed, e)
			for _, i := range a.pos {
				sc.offsets[i] = failedPO(e)
			}
			w.meta.stale = true
			continue
		}
		end := newAnswerIndex(a.endRes)
		var start *answerIndex
		if a.startRes != nil {
			start = newAnswerIndex(a.startRes)
		}
		// k: the partition's place in the leader's positions; (ti, pi) in
		// its latest request, (si, sj) in its earliest, both asked in
		// the same order.
		k, si, sj := 0, 0, -1
		for ti, t := range a.ends {
			for pi, p := range t.Partitions {
				i := a.pos[k]
				k++
				tp := model.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				po := none
				s, okS := kmsg.ListOffsetsResponseTopicPartition{Offset: model.NoOffset}, true
				if sc.start[i] {
					if sj++; si < len(a.starts) && sj == len(a.starts[si].Partitions) {
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
				sc.offsets[i] = po
			}
		}
		a.ends, a.starts, a.endRes, a.startRes = nil, nil, nil, nil // held no longer than the read
	}
	for _, a := range asks {
		if a.err != nil {
			// The request may not have been written when the read gave
			// up on it: its arrays are not the next one's.
			a.endBuf, a.startBuf = listOffsetsBuf{}, listOffsetsBuf{}
		}
	}
	sc.asks = slices.DeleteFunc(sc.asks, func(a *logAsk) bool { return a.nEnd == 0 })
	return out
}

// topicsFor makes a request's topics for runs runs of a topic and n
// partitions, all in one backing array (addListOffsets fills them): b's
// arrays, grown (and kept in b) when they are too small.
func (b *listOffsetsBuf) topicsFor(runs, n int) []kmsg.ListOffsetsRequestTopic {
	if cap(b.topics) < runs {
		b.topics = make([]kmsg.ListOffsetsRequestTopic, 0, runs)
	}
	if cap(b.parts) < n {
		b.parts = make([]kmsg.ListOffsetsRequestTopicPartition, 0, n)
	}
	rts := b.topics[:0]
	if runs > 0 {
		rts = append(rts, kmsg.ListOffsetsRequestTopic{Partitions: b.parts[:0]})
	}
	return rts
}

// addListOffsets adds tp, at timestamp ts, to a request's topics made by
// topicsFor: to its last topic when it is tp's, else to the
// next, whose partitions follow the last's in the same backing array.
func addListOffsets(rts []kmsg.ListOffsetsRequestTopic, tp model.TopicPartition, ts int64) []kmsg.ListOffsetsRequestTopic {
	last := &rts[len(rts)-1]
	if len(last.Partitions) > 0 && last.Topic != tp.Topic {
		rest := last.Partitions[len(last.Partitions):]
		last.Partitions = last.Partitions[:len(last.Partitions):len(last.Partitions)]
		rts = append(rts, kmsg.ListOffsetsRequestTopic{Partitions: rest})
		last = &rts[len(rts)-1]
	}
	last.Topic = tp.Topic
	last.Partitions = append(last.Partitions, kmsg.ListOffsetsRequestTopicPartition{Partition: tp.Partition, CurrentLeaderEpoch: -1, Timestamp: ts})
	return rts
}

// partitionOf is partition for a topic found (ok) in the metadata.
func (tm *topicMeta) partitionOf(ok bool, p int32) (partitionMeta, bool) {
	if !ok || tm.err != "" {
		return partitionMeta{}, false
	}
	return tm.partition(p)
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

// listOffsetsAt sends one ListOffsets request for all of rts (their
// timestamps set) to leader, at v1 or above (v0 answers in its own shape;
// Kafka 4 refuses it).
func (w *Watcher) listOffsetsAt(ctx context.Context, leader int32, rts []kmsg.ListOffsetsRequestTopic) (*kmsg.ListOffsetsResponse, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	req.Topics = rts
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
