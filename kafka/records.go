package kafka

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/segmentio/kafka-go/protocol/fetch"

	"github.com/kgwatch/kgwatch/model"
)

// Fetch budget for lag-age reads. The start of one batch per partition is
// enough: it holds the record at the fetch offset. Kafka cuts a batch larger
// than the partition budget short (only the first partition of a response
// gets a whole batch); a cut batch still gives the record when it lies in
// the part that came. The total budget bounds memory. Partitions left
// without their record are read on a later poll, first in line.
const (
	fetchPartitionMaxBytes = 64 << 10
	fetchMaxBytes          = 8 << 20
)

// stamp is what was read of the record at one offset of a partition.
type stamp struct {
	offset int64
	ts     time.Time // zero when gone, markers or without timestamp
	gone   bool
	// markers: from offset to end (the high watermark then) the log holds
	// only control records (transaction markers), no message. It holds
	// while the log does not grow past end.
	markers bool
	end     int64
}

// stampCache remembers, per partition, the record last read, so a
// partition whose committed offset did not move is not fetched again.
type stampCache struct {
	byTP map[model.TopicPartition]stamp
	// misses counts consecutive polls in which a partition's read brought
	// nothing back (budget spent, batch too large); they go first next time.
	misses map[model.TopicPartition]int
}

// want is one record to read: partition tp at offset.
type want struct {
	tp     model.TopicPartition
	offset int64
	misses int
}

// lagStamps fills obs.OldestTimestamp and obs.OldestGone: for each
// partition with lag, the timestamp of the record at the committed offset
// (no commit: at log-start). Records already read at the same offset come
// from the cache; the others are fetched, one request per leader.
func (w *Watcher) lagStamps(ctx context.Context, obs *model.Observation) {
	c := &w.stamps
	if c.byTP == nil {
		c.byTP = make(map[model.TopicPartition]stamp)
		c.misses = make(map[model.TopicPartition]int)
	}
	obs.OldestTimestamp = make(map[model.TopicPartition]time.Time)
	obs.OldestGone = make(map[model.TopicPartition]bool)
	obs.OldestMarkerOnly = make(map[model.TopicPartition]bool)

	rows := make(map[model.TopicPartition]struct{}, len(obs.Committed))
	for tp := range obs.Committed {
		rows[tp] = struct{}{}
	}
	for _, m := range obs.Members {
		for _, tp := range m.Partitions {
			rows[tp] = struct{}{}
		}
	}

	byLeader := make(map[int32][]want)
	for tp := range rows {
		off, ok := obs.Offsets[tp]
		if !ok || off.Err != "" {
			continue
		}
		at := off.LogStart
		if committed, ok := obs.Committed[tp]; ok {
			at = committed
		}
		switch {
		case at >= off.LogEnd:
			continue // no lag: age 0, nothing to read
		case at < off.LogStart:
			obs.OldestGone[tp] = true // deleted before it was consumed
			continue
		}
		if s, ok := c.byTP[tp]; ok && s.offset == at && (!s.markers || off.LogEnd <= s.end) {
			record(obs, tp, s)
			continue
		}
		leader, ok := w.meta.leader(tp)
		if !ok {
			continue
		}
		byLeader[leader] = append(byLeader[leader], want{tp: tp, offset: at, misses: c.misses[tp]})
	}

	// Forget partitions that left the group.
	for tp := range c.byTP {
		if _, ok := rows[tp]; !ok {
			delete(c.byTP, tp)
			delete(c.misses, tp)
		}
	}

	type result struct {
		wants []want
		res   *fetchStamps
		err   error
	}
	results := make([]result, 0, len(byLeader))
	leaders := make([]int32, 0, len(byLeader))
	for leader, ws := range byLeader {
		sort.Slice(ws, func(i, j int) bool {
			if ws[i].misses != ws[j].misses {
				return ws[i].misses > ws[j].misses
			}
			return ws[i].tp.Less(ws[j].tp)
		})
		results = append(results, result{wants: ws})
		leaders = append(leaders, leader)
	}
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].res, results[i].err = w.fetchAt(ctx, leaders[i], results[i].wants)
		}()
	}
	wg.Wait()

	for _, r := range results {
		if r.err != nil {
			w.meta.stale = true
			continue // unknown this poll; asked again next poll
		}
		for _, wt := range r.wants {
			s, ok := r.res.stamps[wt.tp]
			if !ok {
				c.misses[wt.tp]++
				continue
			}
			if s.leaderMoved {
				w.meta.stale = true
				continue
			}
			delete(c.misses, wt.tp)
			c.byTP[wt.tp] = s.stamp
			record(obs, wt.tp, s.stamp)
		}
	}
}

func record(obs *model.Observation, tp model.TopicPartition, s stamp) {
	switch {
	case s.gone:
		obs.OldestGone[tp] = true
	case s.markers:
		obs.OldestMarkerOnly[tp] = true
	case !s.ts.IsZero():
		obs.OldestTimestamp[tp] = s.ts
	}
}

// fetchAt reads, in one Fetch request to leader, the records at the wanted
// offsets.
func (w *Watcher) fetchAt(ctx context.Context, leader int32, ws []want) (*fetchStamps, error) {
	var topics []fetch.RequestTopic
	for _, wt := range ws {
		// Keep request order (misses first): consecutive partitions of a
		// topic share an entry, a topic may recur.
		if n := len(topics); n == 0 || topics[n-1].Topic != wt.tp.Topic {
			topics = append(topics, fetch.RequestTopic{Topic: wt.tp.Topic})
		}
		t := &topics[len(topics)-1]
		t.Partitions = append(t.Partitions, fetch.RequestPartition{
			Partition:          wt.tp.Partition,
			CurrentLeaderEpoch: -1,
			FetchOffset:        wt.offset,
			LogStartOffset:     -1,
			PartitionMaxBytes:  fetchPartitionMaxBytes,
		})
	}
	res, err := w.roundTrip(ctx, &fetchRequest{
		ReplicaID:    -1,
		MaxBytes:     fetchMaxBytes,
		SessionEpoch: -1, // no fetch session
		Topics:       topics,
		route:        route{leader},
	})
	if err != nil {
		return nil, err
	}
	return res.(*fetchStamps), nil
}
