package model

import (
	"cmp"
	"slices"
	"strings"
	"sync"
)

// its first owner's index in the members (-1: unowned) and further owners
// (share groups), and a member whose target assignment holds it (-1:
// none). key orders entries: topic rank in the high 32 bits, partition in
// the low.
type entry struct {
	key       uint64
	tp        TopicPartition
	owner     int32
	pending   int32
	committed int64
	// shared is nil but in share groups: a pointer keeps the entries
	// small, and they are copied twice.
	shared *[]int
}

// sharedOwners returns the further owners of e.
func (e *entry) sharedOwners() []int {
	if e.shared == nil {
		return nil
	}
	return *e.shared
}

// collectEntries lists every partition committed, owned or targeted once,
// sorted by topic then partition. Kafka numbers a topic's partitions 0 to
// n-1, so a partition is found by its slot, base[topic] + partition, and
// walking the slots yields them sorted: no map, no sort. Numbers too
// sparse for slots (or negative) fall back to a map and a sort, both on
// integer keys.
//
// The entries returned live in scratch, until its next use.
func collectEntries(obs []TopicObservation, members []Member, scratch *entryScratch) []entry {
	if entries, ok := slotEntries(obs, members, scratch); ok {
		return entries
	}
	return mentionEntries(obs, members, scratch)
}

// slotEntries is collectEntries for the common group: partitions numbered
// densely from 0, each owned by one member at most. It lists no mentions
// (at 10,000 partitions they were 1.1 MB written and read back a poll):
// owners and targets are marked in slots, one int32 each, and the
// entries made walking the slots in order beside the observation's
// partitions. ok is false, and nothing returned, where it does not
// apply (a partition with several owners, numbers negative or too
// sparse): mentionEntries lists them then.
func slotEntries(obs []TopicObservation, members []Member, scratch *entryScratch) (_ []entry, ok bool) {
	topics := &scratch.topics
	topics.reset()
	top := scratch.top[:0] // slots per discovery number, less one
	defer func() { scratch.top = top[:0] }()
	note := func(tp TopicPartition) (uint64, bool) {
		k := topics.key(tp)
		id := int(k >> 32)
		for len(top) <= id {
			top = append(top, -1)
		}
		top[id] = max(top[id], int64(tp.Partition))
		return k, tp.Partition >= 0
	}
	mentions := 0
	for i := range obs {
		ps := obs[i].Partitions
		if len(ps) == 0 {
			continue
		}
		// Sorted by number: the first is the lowest, the last the highest.
		if ps[0].Partition < 0 {
			return nil, false
		}
		note(TopicPartition{Topic: obs[i].Topic, Partition: ps[len(ps)-1].Partition})
		mentions += len(ps)
	}
	owned := 0
	for i := range members {
		owned += len(members[i].Partitions) + len(members[i].TargetPartitions)
	}
	mentions += owned
	// keys: each owner's and target's provisional key, in the order the
	// slots are marked below (one topic lookup a mention, not two).
	keys := slices.Grow(scratch.keys[:0], owned)
	defer func() { scratch.keys = keys[:0] }()
	for i := range members {
		for _, tp := range members[i].Partitions {
			k, ok := note(tp)
			if !ok {
				return nil, false
			}
			keys = append(keys, k)
		}
	}
	for i := range members {
		for _, tp := range members[i].TargetPartitions {
			k, ok := note(tp)
			if !ok {
				return nil, false
			}
			keys = append(keys, k)
		}
	}
	slots := int64(0)
	for _, t := range top {
		slots += t + 1
	}
	if slots > 2*int64(mentions)+1024 {
		return nil, false
	}
	rank := topics.ranks()
	base := grown(&scratch.base, len(top)+1) // first slot per rank
	base[0] = 0
	byRank := grown(&scratch.byRank, len(top))
	for id, t := range top {
		byRank[rank[id]] = t + 1
	}
	for r, n := range byRank {
		base[r+1] = base[r] + n
	}
	// owner and pending hold, per slot, the first member owning the
	// partition, and the first whose target holds it (-1: none).
	owner := grown(&scratch.at, int(slots))
	pending := grown(&scratch.pending, int(slots))
	for k := range owner {
		owner[k], pending[k] = -1, -1
	}
	next := 0 // keys[next] is the next mention's
	slot := func(tp TopicPartition) int64 {
		k := keys[next]
		next++
		return base[rank[k>>32]] + int64(tp.Partition)
	}
	for i := range members {
		for _, tp := range members[i].Partitions {
			switch at := &owner[slot(tp)]; {
			case *at < 0:
				*at = int32(i)
			case *at != int32(i):
				return nil, false // shared (a share group): mentionEntries
			}
		}
	}
	for i := range members {
		for _, tp := range members[i].TargetPartitions {
			if at := &pending[slot(tp)]; *at < 0 {
				*at = int32(i)
			}
		}
	}
	// The observation's topic per rank (-1: none).
	obsOf := grown(&scratch.obsOf, len(top))
	for r := range obsOf {
		obsOf[r] = -1
	}
	for i := range obs {
		if len(obs[i].Partitions) > 0 {
			obsOf[rank[topics.key(TopicPartition{Topic: obs[i].Topic})>>32]] = int32(i)
		}
	}
	names := grown(&scratch.names, len(top))
	for id, name := range topics.names {
		names[rank[id]] = name
	}
	// At most one entry a slot: grown once, not by append (five times
	// the entries' size on the way at 50,000 partitions).
	entries := slices.Grow(scratch.entries[:0], int(slots))
	defer func() { scratch.entries = entries[:0] }()
	for r := range byRank {
		var ps []PartitionObservation
		topic := names[r]
		if t := obsOf[r]; t >= 0 {
			ps, topic = obs[t].Partitions, obs[t].Topic
		}
		at := 0 // ps[at] is the first not yet passed
		for q := int64(0); q < byRank[r]; q++ {
			s := base[r] + q
			e := entry{owner: owner[s], pending: pending[s], committed: NoOffset}
			for at < len(ps) && int64(ps[at].Partition) < q {
				at++
			}
			if at < len(ps) && int64(ps[at].Partition) == q {
				p := &ps[at]
				if p.HasCommit {
					e.committed = p.Committed
				} else if e.owner < 0 && e.pending < 0 {
					continue
				}
			} else if e.owner < 0 && e.pending < 0 {
				continue
			}
			e.tp = TopicPartition{Topic: topic, Partition: int32(q)}
			entries = append(entries, e) // key unset: only the mentions sort by it

		}
	}
	return entries, true
}

// mentionEntries is collectEntries for any group: every mention of a
// partition (a commit, an owner, a target) listed, then folded into one
// entry per partition, by slot where numbers are dense, else by map.
func mentionEntries(obs []TopicObservation, members []Member, scratch *entryScratch) []entry {
	read := 0 // partitions read: at most one commit each
	for i := range obs {
		read += len(obs[i].Partitions)
	}
	owned := 0
	for _, m := range members {
		owned += len(m.Partitions) + len(m.TargetPartitions)
	}
	// raw holds every mention in turn: commits, then owners, then
	// targets, each keyed by the topic's discovery number for now.
	raw := scratch.raw[:0]
	if need := read + owned; cap(raw) < need {
		raw = make([]entry, 0, need)
	}
	defer func() { scratch.raw = raw[:0] }()
	topics := &scratch.topics
	topics.reset()
	top := scratch.top[:0] // highest partition per discovery number
	defer func() { scratch.top = top[:0] }()
	dense := true
	note := func(tp TopicPartition) uint64 {
		k := topics.key(tp)
		id := int(k >> 32)
		for len(top) <= id {
			top = append(top, -1)
		}
		top[id] = max(top[id], int64(tp.Partition))
		dense = dense && tp.Partition >= 0
		return k
	}
	for i := range obs {
		t := &obs[i]
		for k := range t.Partitions {
			p := &t.Partitions[k]
			if p.HasCommit {
				tp := TopicPartition{Topic: t.Topic, Partition: p.Partition}
				raw = append(raw, entry{key: note(tp), tp: tp, owner: -1, pending: -1, committed: p.Committed})
			}
		}
	}
	for i := range members {
		for _, tp := range members[i].Partitions {
			raw = append(raw, entry{key: note(tp), tp: tp, owner: int32(i), pending: -1, committed: NoOffset})
		}
	}
	for i := range members {
		for _, tp := range members[i].TargetPartitions {
			raw = append(raw, entry{key: note(tp), tp: tp, owner: -1, pending: int32(i), committed: NoOffset})
		}
	}
	rank := topics.ranks()
	for k := range raw {
		raw[k].key = uint64(rank[raw[k].key>>32])<<32 | raw[k].key&0xffffffff
	}

	// merge folds a mention into the entry found for its partition.
	merge := func(e *entry, m entry) {
		switch {
		case m.owner >= 0:
			switch {
			case e.owner < 0:
				e.owner = m.owner
			case e.owner != m.owner && !slices.Contains(e.sharedOwners(), int(m.owner)):
				if e.shared == nil {
					e.shared = new([]int)
				}
				*e.shared = append(*e.shared, int(m.owner))
			}
		case m.pending >= 0:
			if e.pending < 0 {
				e.pending = m.pending
			}
		}
	}

	slots := int64(0)
	for _, t := range top {
		slots += t + 1
	}
	if dense && slots <= 2*int64(len(raw))+1024 {
		base := grown(&scratch.base, len(top)+1)
		base[0] = 0
		byRank := grown(&scratch.byRank, len(top)) // partitions per rank
		for id, t := range top {
			byRank[rank[id]] = t + 1
		}
		for r, n := range byRank {
			base[r+1] = base[r] + n
		}
		// at holds, per slot, the first mention of its partition, into
		// which the later ones fold.
		at := grown(&scratch.at, int(slots))
		for k := range at {
			at[k] = -1
		}
		n := 0
		for k := range raw {
			slot := base[raw[k].key>>32] + int64(raw[k].tp.Partition)
			if first := at[slot]; first >= 0 {
				merge(&raw[first], raw[k])
				continue
			}
			at[slot] = int32(k)
			n++
		}
		entries := scratch.entries[:0]
		if cap(entries) < n {
			entries = make([]entry, 0, n)
		}
		defer func() { scratch.entries = entries[:0] }()
		for _, k := range at {
			if k >= 0 {
				entries = append(entries, raw[k])
			}
		}
		return entries
	}
	index := make(map[uint64]int, len(raw))
	entries := make([]entry, 0, len(raw))
	for _, m := range raw {
		if k, ok := index[m.key]; ok {
			merge(&entries[k], m)
			continue
		}
		index[m.key] = len(entries)
		entries = append(entries, m)
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
	return entries
}

// entryScratch holds collectEntries' slices between snapshots: at 10,000
// partitions they are 1.6 MB a poll the collector would otherwise take
// back, while the rows (which snapshots keep) are 3.4 MB.
type entryScratch struct {
	raw, entries []entry
	// The slots and their topics' bounds (dense partition numbers);
	// pending and obsOf are slotEntries' (targets per slot, observed
	// topic per rank), names the topics by rank.
	at, pending, obsOf []int32
	names              []string
	keys               []uint64
	// parts and lists hold members' partitions and targets while
	// NewSnapshot makes them (settle copies them out).
	parts, lists      []TopicPartition
	count             []int
	top, base, byRank []int64
	topics            topicRanks
}

// grown returns (*s)[:n], grown when it is shorter, and keeps it in *s.
func grown[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	*s = (*s)[:n]
	return *s
}

var entryScratchPool = sync.Pool{New: func() any { return new(entryScratch) }}

// topicRanks numbers topics in the order they are first seen and then
// ranks them by name, so partitions can sort on integers.
type topicRanks struct {
	names []string
	ids   map[string]uint32
	last  string
	lastI uint32
	// order and rank are ranks' storage.
	order, rank []uint32
}

// reset forgets the topics, keeping the storage.
func (t *topicRanks) reset() {
	t.names = t.names[:0]
	clear(t.ids)
	t.last, t.lastI = "", 0
}

// key returns the partition's provisional key: the topic's discovery
// number in the high 32 bits, the partition in the low.
func (t *topicRanks) key(tp TopicPartition) uint64 {
	if len(t.names) == 0 || tp.Topic != t.last {
		// A few topics are found by a scan: their names are mostly the
		// same strings (one per topic in an answer), compared by pointer
		// first, and a group's partitions come in random topic order.
		if len(t.names) <= 8 {
			for id, name := range t.names {
				if name == tp.Topic {
					t.last, t.lastI = name, uint32(id)
					return uint64(id)<<32 | partitionKey(tp.Partition)
				}
			}
		}
		if t.ids == nil {
			t.ids = make(map[string]uint32)
		}
		id, ok := t.ids[tp.Topic]
		if !ok {
			id = uint32(len(t.names))
			t.ids[tp.Topic] = id
			t.names = append(t.names, tp.Topic)
		}
		t.last, t.lastI = tp.Topic, id
	}
	return uint64(t.lastI)<<32 | partitionKey(tp.Partition)
}

// partitionKey is a partition number as the low half of a key: sign bit
// flipped, so keys order negative numbers (a broken broker's) first, as
// CompareTP does.
func partitionKey(p int32) uint64 { return uint64(uint32(p) ^ 1<<31) }

// ranks maps each discovery number to the topic's rank by name.
func (t *topicRanks) ranks() []uint32 {
	order := grown(&t.order, len(t.names))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(t.names[a], t.names[b]) })
	rank := grown(&t.rank, len(t.names))
	for r, id := range order {
		rank[id] = uint32(r)
	}
	return rank
}
