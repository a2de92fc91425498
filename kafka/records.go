package kafka

import (
	"context"
	"errors"
	"fmt"
	bits64 "math/bits"
	"slices"
	"sort"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

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

// stamp is what was read of the record at one offset of a partition:
// 40 bytes (a time.Time and padding made it 56; it is held for every
// partition with lag, 100,000 at the largest).
type stamp struct {
	offset int64
	// ts is the record's timestamp in unix milliseconds (Kafka's own
	// unit), 0 when gone, markers or without timestamp (millis gives the
	// time).
	ts int64
	// end is the high watermark a markers stamp was read at.
	end int64
	// rec is what was read of the record itself (key, headers, sizes;
	// model.OldestRecord), nil when not read.
	rec *model.OldestRecord
	// gone: the record was deleted (retention passed it). markers: from
	// offset to end the log holds only control records (transaction
	// markers), no message; it holds while the log does not grow past
	// end.
	gone, markers bool
}

// stampKey names one record: partition tp at offset.
type stampKey struct {
	tp     model.TopicPartition
	offset int64
}

// stampCache remembers the records read, by partition and offset, so a
// record stays read while it is wanted (a group's committed offset does
// not move): records never change.
type stampCache struct {
	byKey map[stampKey]stamp
	// misses counts, per partition, consecutive reads that brought
	// nothing back (budget spent, batch too large); they go first next
	// time.
	misses map[model.TopicPartition]int
}

// want is one partition to read at offset, and the further offsets of it
// wanted too (read in the same records when they reach them).
type want struct {
	tp     model.TopicPartition
	offset int64
	misses int
	also   []int64
}

// fetchSpanMaxBytes is the budget of a partition read for several
// offsets at once: enough to reach a few groups' offsets in one answer.
const fetchSpanMaxBytes = 1 << 20

// lagStamps fills obs's oldest timestamps, gone and marker-only flags and
// oldest records: for each partition with lag, the timestamp of the
// record at the committed offset (no commit: at log-start) and what the
// same read gave of the record (key, headers, sizes). Records already read
// at the same offset come from the cache (w.lag); the others are fetched,
// one request per leader.
func (w *Watcher) lagStamps(ctx context.Context, obs *model.Observation) {
	// Every partition committed or owned, once: the committed ones, then
	// those owned without a commit. Most partitions have no lag and need
	// nothing: only the lagging ones are listed, in a slice kept from
	// poll to poll (a map of them was most of this function's cost).
	c := &w.lag
	c.gen++
	wants := c.wants[:0]
	want := func(tp model.TopicPartition, p *model.PartitionObservation, at int64, committed bool) {
		if p == nil || !p.HasOffsets || p.Offsets.Err != "" {
			return
		}
		off := p.Offsets
		if !committed {
			at = off.LogStart
		}
		switch {
		case at >= off.LogEnd:
			return // no lag: age 0, nothing to read
		case at < off.LogStart:
			p.OldestGone = true // deleted before it was consumed
			return
		}
		wants = append(wants, lagWant{tp: tp, at: at, end: off.LogEnd, p: p})
	}
	for tp, p := range obs.All() {
		if p.HasCommit {
			want(tp, p, p.Committed, true)
		}
	}
	// Then the owned ones without a commit, in the observation's order:
	// the members' partitions are marked in a bit set first (a bit each,
	// in the cache), rather than each looked up in the observation in
	// the assignment's order (a cache miss each: 21 ms a poll at 100,000
	// partitions). Numbers a slice does not hold are looked up.
	owned := &c.owned
	owned.reset()
	slots := obsSlots{obs: obs}
	for _, m := range obs.Members {
		for _, tp := range m.Partitions {
			if !owned.mark(tp) {
				if p := slots.find(tp); p == nil || !p.HasCommit {
					want(tp, p, 0, false)
				}
			}
		}
	}
	for i := range obs.Topics {
		t := &obs.Topics[i]
		bits := owned.of(t.Topic)
		for wi, word := range bits {
			for word != 0 {
				b := bits64.TrailingZeros64(word)
				word &^= 1 << b
				tp := model.TopicPartition{Topic: t.Topic, Partition: int32(wi*64 + b)}
				if p := slots.find(tp); p == nil || !p.HasCommit {
					want(tp, p, 0, false)
				}
			}
		}
	}
	c.wants = wants
	// Each topic's slots at once, up to the highest partition wanted that
	// a slice holds (the committed ones come in order, topic by topic).
	for i := 0; i < len(wants); {
		topic, top := wants[i].tp.Topic, int32(-1)
		for ; i < len(wants) && wants[i].tp.Topic == topic; i++ {
			if p := wants[i].tp.Partition; p < maxSlot {
				top = max(top, p)
			}
		}
		if top >= 0 {
			c.reserve(topic, int(top)+1)
		}
	}
	w.readLagStamps(ctx, c)
}

// lagCache remembers the records the group's lag ages were read from: per
// partition one, the record at the offset it waits on, in a slice per
// topic indexed by partition number (numbers no topic has that many of,
// negative or from maxSlot on, in a map), so a record stays read while it
// is wanted (the commit does not move): records never change. It forgets
// a partition's record once a poll no longer wants one, as stampCache
// does.
type lagCache struct {
	slots[lagSlot]
	// gen counts the polls; wants are this poll's partitions to read
	// (the last poll's until lagStamps lists them again), held the
	// partitions the cache held a record or misses of before this poll.
	gen   uint64
	wants []lagWant
	held  []model.TopicPartition
	// pending and byLeader are readLagStamps's buffers.
	pending  []int
	byLeader map[int32][]want
	// owned is lagStamps's set of the members' partitions.
	owned ownedSet
}

// ownedSet is a set of partitions, a bit each by partition number in a
// slice per topic, kept from poll to poll.
type ownedSet struct {
	topics map[string][]uint64
	last   string
	bits   []uint64
}

// reset empties the set, keeping its slices.
func (o *ownedSet) reset() {
	for _, b := range o.topics {
		clear(b)
	}
	o.last, o.bits = "", nil
}

// mark adds tp; false, adding nothing, for a number no slice holds
// (negative, or from maxSlot).
func (o *ownedSet) mark(tp model.TopicPartition) bool {
	p := tp.Partition
	if p < 0 || p >= maxSlot {
		return false
	}
	if o.bits == nil || o.last != tp.Topic {
		if o.topics == nil {
			o.topics = make(map[string][]uint64)
		}
		o.last, o.bits = tp.Topic, o.topics[tp.Topic]
	}
	if w := int(p / 64); w >= len(o.bits) {
		o.bits = append(o.bits, make([]uint64, w+1-len(o.bits))...)
		o.topics[tp.Topic] = o.bits
	}
	o.bits[p/64] |= 1 << (p % 64)
	return true
}

// of returns topic's bits, nil when none is set.
func (o *ownedSet) of(topic string) []uint64 {
	return o.topics[topic]
}

// lagSlot is one partition's entry in lagCache: 56 bytes.
type lagSlot struct {
	s stamp
	// wanted is the last poll (gen) that wanted a record of it.
	wanted uint64
	// misses counts the consecutive reads that brought nothing back
	// (budget spent, batch too large): they go first next time.
	misses int32
	// has: s was read (at s.offset).
	has bool
}

// lagWant is a partition with lag: the record at offset at is wanted, the
// log ending at end; p is its slot in the observation.
type lagWant struct {
	tp      model.TopicPartition
	at, end int64
	p       *model.PartitionObservation
}

// readLagStamps records in the observation what is known of the record
// each of c.wants waits on: from c when read before (one of only
// transaction markers while the log has not grown past them), the others
// fetched in one Fetch per leader. Partitions it could not read are left
// without; c forgets the partitions no longer wanted.
func (w *Watcher) readLagStamps(ctx context.Context, c *lagCache) {
	pending := c.pending[:0]
	for i := range c.wants {
		wt := &c.wants[i]
		sl := c.slot(wt.tp)
		if sl.wanted == c.gen {
			continue // owned twice: asked once
		}
		sl.wanted = c.gen
		if sl.has && sl.s.offset == wt.at && (!sl.s.markers || wt.end <= sl.s.end) {
			recordIn(wt.p, sl.s)
			continue
		}
		sl.has = false
		pending = append(pending, i)
	}
	c.pending = pending
	if len(pending) > 0 {
		w.fetchLagStamps(ctx, c)
	}
	// Forget the partitions the cache held of earlier polls that this
	// one did not want: a slot holds a record or misses only once wanted.
	for _, tp := range c.held {
		if sl := c.slot(tp); sl.wanted != c.gen {
			*sl = lagSlot{}
		}
	}
	held := c.held[:0]
	for i := range c.wants {
		held = append(held, c.wants[i].tp)
	}
	c.held = held
	clear(c.wants) // no pointers into the observation past the poll
}

// fetchLagStamps reads the records of c.pending, one Fetch per leader.
func (w *Watcher) fetchLagStamps(ctx context.Context, c *lagCache) {
	if c.byLeader == nil {
		c.byLeader = make(map[int32][]want)
	}
	for leader, ws := range c.byLeader {
		c.byLeader[leader] = ws[:0]
	}
	// where maps a partition back to its want, per leader in the order
	// of its request.
	where := make(map[int32][]int, len(c.byLeader))
	for _, i := range c.pending {
		wt := &c.wants[i]
		leader, ok := w.meta.leader(wt.tp)
		if !ok {
			continue
		}
		c.byLeader[leader] = append(c.byLeader[leader], want{tp: wt.tp, offset: wt.at, misses: int(c.slot(wt.tp).misses)})
		where[leader] = append(where[leader], i)
	}
	type result struct {
		leader int32
		wants  []want
		idx    []int
		res    *fetchStamps
		err    error
	}
	results := make([]result, 0, len(where))
	for leader, idx := range where {
		ws := c.byLeader[leader]
		// Misses first, then in partition order: sorted together.
		order := make([]int, len(ws))
		for k := range order {
			order[k] = k
		}
		sort.Slice(order, func(a, b int) bool {
			x, y := ws[order[a]], ws[order[b]]
			if x.misses != y.misses {
				return x.misses > y.misses
			}
			return x.tp.Less(y.tp)
		})
		sorted := make([]want, len(ws))
		sortedIdx := make([]int, len(ws))
		for k, o := range order {
			sorted[k], sortedIdx[k] = ws[o], idx[o]
		}
		results = append(results, result{leader: leader, wants: sorted, idx: sortedIdx})
	}
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].res, results[i].err = w.fetchAt(ctx, results[i].leader, results[i].wants)
		}()
	}
	wg.Wait()

	for _, r := range results {
		if r.err != nil {
			w.meta.stale = true // unknown this poll; asked again next poll
			continue
		}
		for k, wt := range r.wants {
			s, ok := r.res.stamps[wt.tp]
			sl := c.slot(wt.tp)
			switch {
			case ok && s.leaderMoved:
				w.meta.stale = true
			case ok:
				sl.misses = 0
				sl.s, sl.has = s.stamp, true
				recordIn(c.wants[r.idx[k]].p, s.stamp)
			default:
				sl.misses++
			}
		}
	}
}

// readStamps returns what is known of each wanted record (wants maps it to
// its partition's log end now). A record read before comes from c (one of
// only transaction markers while the log has not grown past them); the
// others are fetched, in up to rounds rounds of one Fetch per leader: each
// partition left at its lowest offset not read yet, its other wanted
// offsets read from the same records when they reach them. c forgets the
// records no longer wanted. Records it could not read are absent.
func (w *Watcher) readStamps(ctx context.Context, c *stampCache, wants map[stampKey]int64, rounds int) map[stampKey]stamp {
	if c.byKey == nil {
		c.byKey = make(map[stampKey]stamp)
		c.misses = make(map[model.TopicPartition]int)
	}
	out := make(map[stampKey]stamp, len(wants))
	pending := make(map[model.TopicPartition][]int64)
	for k, end := range wants {
		if s, ok := c.byKey[k]; ok && (!s.markers || end <= s.end) {
			out[k] = s
			continue
		}
		pending[k.tp] = append(pending[k.tp], k.offset)
	}
	// Forget the records and partitions no longer wanted.
	for k := range c.byKey {
		if _, ok := wants[k]; !ok {
			delete(c.byKey, k)
		}
	}
	if len(c.misses) > 0 {
		wanted := make(map[model.TopicPartition]bool, len(pending))
		for k := range wants {
			wanted[k.tp] = true
		}
		for tp := range c.misses {
			if !wanted[tp] {
				delete(c.misses, tp)
			}
		}
	}
	for _, offs := range pending {
		slices.Sort(offs)
	}
	got := func(k stampKey, s stamp) {
		c.byKey[k] = s
		out[k] = s
	}

	for round := 0; round < rounds && len(pending) > 0; round++ {
		byLeader := make(map[int32][]want)
		for tp, offs := range pending {
			leader, ok := w.meta.leader(tp)
			if !ok {
				delete(pending, tp)
				continue
			}
			byLeader[leader] = append(byLeader[leader], want{tp: tp, offset: offs[0], misses: c.misses[tp], also: offs[1:]})
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
			for _, wt := range r.wants {
				if r.err != nil {
					w.meta.stale = true
					delete(pending, wt.tp) // unknown this poll; asked again next poll
					continue
				}
				s, ok := r.res.stamps[wt.tp]
				switch {
				case ok && s.leaderMoved:
					w.meta.stale = true
					delete(pending, wt.tp)
					continue
				case ok:
					delete(c.misses, wt.tp)
					got(stampKey{wt.tp, wt.offset}, s.stamp)
				default:
					c.misses[wt.tp]++
				}
				// The lowest offset is done with this poll, read or not;
				// the others are left for the next round unless this
				// answer reached them.
				left := wt.also[:0:0]
				for _, off := range wt.also {
					if s, ok := r.res.also[stampKey{wt.tp, off}]; ok {
						got(stampKey{wt.tp, off}, s)
					} else {
						left = append(left, off)
					}
				}
				if len(left) == 0 {
					delete(pending, wt.tp)
				} else {
					pending[wt.tp] = left
				}
			}
		}
	}
	return out
}

// recordIn records s, what was read of the record p waits on, in p.
func recordIn(p *model.PartitionObservation, s stamp) {
	switch {
	case s.gone:
		p.OldestGone = true
	case s.markers:
		p.OldestMarkerOnly = true
	case s.ts > 0:
		p.HasOldestTimestamp, p.OldestTimestamp = true, millis(s.ts)
	}
	if s.rec != nil && !s.gone && !s.markers {
		p.SetOldestRecordRef(s.rec) // the cache's, which nothing writes
	}
}

// fetchAt reads, in one Fetch request to leader, the records at the wanted
// offsets.
func (w *Watcher) fetchAt(ctx context.Context, leader int32, ws []want) (*fetchStamps, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxBytes = fetchMaxBytes
	req.SessionEpoch = -1 // no fetch session
	var also map[model.TopicPartition][]int64
	// All the partitions in one array, each topic's entry a run of it
	// (appending to each grew it piece by piece: 2% of the 10k TUI's
	// allocation).
	parts := make([]kmsg.FetchRequestTopicPartition, 0, len(ws))
	for _, wt := range ws {
		budget := int32(fetchPartitionMaxBytes)
		if len(wt.also) > 0 {
			if also == nil {
				also = make(map[model.TopicPartition][]int64)
			}
			also[wt.tp] = wt.also
			budget = fetchSpanMaxBytes
		}
		// Keep request order (misses first): consecutive partitions of a
		// topic share an entry, a topic may recur.
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != wt.tp.Topic {
			if n > 0 {
				last := &req.Topics[n-1]
				last.Partitions = slices.Clip(last.Partitions)
			}
			req.Topics = append(req.Topics, kmsg.FetchRequestTopic{Topic: wt.tp.Topic, Partitions: parts[len(parts):len(parts)]})
		}
		t := &req.Topics[len(req.Topics)-1]
		parts = append(parts, kmsg.FetchRequestTopicPartition{
			Partition:          wt.tp.Partition,
			CurrentLeaderEpoch: -1,
			FetchOffset:        wt.offset,
			LastFetchedEpoch:   -1,
			LogStartOffset:     -1,
			PartitionMaxBytes:  budget,
		})
		t.Partitions = t.Partitions[:len(t.Partitions)+1]
	}
	res, release, err := w.sendKmsgHeld(ctx, leader, req, minFetch, maxFetch)
	defer release() // readFetch copies what it keeps
	if err != nil {
		var ue *UnsupportedError
		if errors.As(err, &ue) && ue.BrokerMin >= 0 && ue.BrokerMax < minFetch {
			return nil, fmt.Errorf("fetch v%d: the broker is older than Kafka 0.11, records carry no timestamps", ue.BrokerMax)
		}
		return nil, err
	}
	return readFetch(res.(*kmsg.FetchResponse), req.Topics, also)
}
