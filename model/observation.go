package model

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"time"
)

// TopicObservation is what one poll read of one topic's partitions: the
// topic named once, its partitions' values in a slice. Kafka numbers a
// topic's partitions 0 to n-1, so Partitions[p] is partition p whenever
// the numbers allow it (Observation.Part keeps them so); in every case
// the slice is sorted by partition number, without repeats.
type TopicObservation struct {
	Topic      string
	Partitions []PartitionObservation
}

// PartitionObservation is what one poll read of one partition. Each value
// comes with its flag (HasCommit, HasOffsets, …): false is "not read", as
// a key absent from a map was. A slot with every flag false is a
// partition the poll read nothing of.
type PartitionObservation struct {
	Partition int32
	// HasCommit: the group has a commit on the partition, Committed.
	HasCommit bool
	// LeaderEpochKnown: the commit carries a leader epoch, LeaderEpoch.
	LeaderEpochKnown bool
	// CommitUnread: OffsetFetch failed for the partition, CommitErr says
	// why.
	CommitUnread bool
	// HasShareLag: a share group's lag as the broker reports it,
	// ShareLag; negative where it gives none.
	HasShareLag bool
	// HasOffsets: the leader's log offsets, Offsets, were asked (they
	// may carry an error).
	HasOffsets bool
	// HasOldestTimestamp: the timestamp of the record at the committed
	// offset (no commit: at log-start), OldestTimestamp, was read.
	HasOldestTimestamp bool
	// OldestGone: the record at the committed offset was deleted before
	// it was read.
	OldestGone bool
	// OldestMarkerOnly: only control records (transaction markers)
	// follow the committed offset: no message waits.
	OldestMarkerOnly bool

	Committed       int64
	LeaderEpoch     int32
	ShareLag        int64
	Offsets         PartitionOffsets
	CommitErr       string
	OldestTimestamp time.Time
	// oldest is what was read of the record at the committed offset (key,
	// headers and sizes, never its value), from the same fetch as its
	// timestamp; nil when not read. It is pointed to and never written:
	// SetOldestRecord's own copy, or the reader's (SetOldestRecordRef).
	// The rows point to it
	// rather than copy it; a record held by value made each slot 96
	// bytes larger, and the poll's walks over 10,000 slots missed the
	// cache that much more.
	oldest *OldestRecord
}

// SetOldestRecordRef records r as what was read of the record p waits on,
// pointed to, not copied: r must never change, for the rows of this
// snapshot and later ones share it (a watcher's cache of the records
// lagging partitions wait on: at 10,000 partitions copying each into the
// observation was 3% of the TUI's CPU, and the rows' copies 8% of its
// allocation).
func (p *PartitionObservation) SetOldestRecordRef(r *OldestRecord) {
	p.oldest = r
}

// empty reports whether the poll read nothing of the partition.
func (p *PartitionObservation) empty() bool {
	return !(p.HasCommit || p.LeaderEpochKnown || p.CommitUnread || p.HasShareLag || p.HasOffsets ||
		p.HasOldestTimestamp || p.OldestGone || p.OldestMarkerOnly || p.oldest != nil)
}

// Find returns what o holds of tp, nil when it holds nothing (its slot may
// still be there, empty: check the flags).
func (o *Observation) Find(tp TopicPartition) *PartitionObservation {
	i, ok := o.topicIndex(tp.Topic)
	if !ok {
		return nil
	}
	return o.Topics[i].find(tp.Partition)
}

// Part returns tp's slot in o, made (empty) when o has none yet: the one
// way values are put in an Observation. The pointer is valid until the
// next Part of another partition (a new slot may move the slice).
func (o *Observation) Part(tp TopicPartition) *PartitionObservation {
	i, ok := o.topicIndex(tp.Topic)
	if !ok {
		o.Topics = slices.Insert(o.Topics, i, TopicObservation{Topic: tp.Topic})
	}
	return o.Topics[i].part(tp.Partition)
}

// Reserve makes room in o for partitions 0 to n-1 of topic, so that the
// Parts filling them do not grow its slots one step at a time: a topic of
// 50,000 partitions grown by append copies about five times its 10 MB.
// n past the dense range (maxDense) reserves nothing.
func (o *Observation) Reserve(topic string, n int) {
	if n <= 0 || n > maxDense {
		return
	}
	i, ok := o.topicIndex(topic)
	if !ok {
		o.Topics = slices.Insert(o.Topics, i, TopicObservation{Topic: topic})
	}
	t := &o.Topics[i]
	if more := n - len(t.Partitions); more > 0 {
		t.Partitions = slices.Grow(t.Partitions, more)
	}
}

// topicIndex finds a topic by name in the sorted Topics, or where it
// would go. A group has few topics: they are scanned; many are searched.
func (o *Observation) topicIndex(name string) (int, bool) {
	if len(o.Topics) <= 8 {
		for i := range o.Topics {
			switch c := strings.Compare(o.Topics[i].Topic, name); {
			case c == 0:
				return i, true
			case c > 0:
				return i, false
			}
		}
		return len(o.Topics), false
	}
	return slices.BinarySearchFunc(o.Topics, name, func(t TopicObservation, name string) int {
		return strings.Compare(t.Topic, name)
	})
}

// find returns partition p's slot, nil when there is none.
func (t *TopicObservation) find(p int32) *PartitionObservation {
	ps := t.Partitions
	if p >= 0 && int(p) < len(ps) && ps[p].Partition == p {
		return &ps[p]
	}
	if i, ok := slices.BinarySearchFunc(ps, p, comparePartition); ok {
		return &ps[i]
	}
	return nil
}

// maxGap and maxDense bound the empty slots Part adds to keep a topic's
// partitions indexed by number: up to partition maxDense (a topic larger
// than any cluster holds), or twice the slots there are plus maxGap. An
// answer naming its partitions in any order fills the slots in place (a
// broker answers OffsetFetch in no order: with a bound of 65,536, a
// topic of 100,000 partitions whose answer began past it was kept by
// insertion, and the poll took 30 s); a broker naming partition
// 2,000,000,000 makes one slot, not two billion, and one naming 262,143
// alone costs its slots once (120 bytes each, 31 MB).
const (
	maxGap   = 1024
	maxDense = 1 << 18
)

// part returns partition p's slot, made when missing. Numbers from 0 up
// are kept dense (empty slots fill small gaps), so a slot is found by
// index; others (negative, far apart: a broken broker's) are inserted in
// order and found by a search.
func (t *TopicObservation) part(p int32) *PartitionObservation {
	if s := t.find(p); s != nil {
		return s
	}
	n := len(t.Partitions)
	dense := n == 0 || t.Partitions[n-1].Partition == int32(n-1)
	if dense && p >= int32(n) && (p < maxDense || int64(p)-int64(n) <= int64(n)+maxGap) {
		// One allocation for the whole run of slots: appended one by
		// one, a far partition number grew the slice a dozen times.
		t.Partitions = slices.Grow(t.Partitions, int(p)+1-n)
		for q := int32(n); q <= p; q++ {
			t.Partitions = append(t.Partitions, PartitionObservation{Partition: q})
		}
		return &t.Partitions[p]
	}
	if n == 0 || t.Partitions[n-1].Partition < p { // in order: no insertion
		t.Partitions = append(t.Partitions, PartitionObservation{Partition: p})
		return &t.Partitions[n]
	}
	i, _ := slices.BinarySearchFunc(t.Partitions, p, comparePartition)
	t.Partitions = slices.Insert(t.Partitions, i, PartitionObservation{Partition: p})
	return &t.Partitions[i]
}

func comparePartition(s PartitionObservation, p int32) int { return cmp.Compare(s.Partition, p) }

// All yields every partition o read something of, sorted by topic then
// partition. The pointers are o's own: what is written through them is
// in o.
func (o *Observation) All() iter.Seq2[TopicPartition, *PartitionObservation] {
	return func(yield func(TopicPartition, *PartitionObservation) bool) {
		for i := range o.Topics {
			t := &o.Topics[i]
			for k := range t.Partitions {
				p := &t.Partitions[k]
				if p.empty() {
					continue
				}
				if !yield(TopicPartition{Topic: t.Topic, Partition: p.Partition}, p) {
					return
				}
			}
		}
	}
}

// Clear empties every partition's values and keeps the slots, so the next
// poll fills o in place without allocating. Nothing but o refers to its
// slots: a Snapshot copies what it takes (NewSnapshot).
func (o *Observation) Clear() {
	for i := range o.Topics {
		ps := o.Topics[i].Partitions
		for k := range ps {
			ps[k] = PartitionObservation{Partition: ps[k].Partition}
		}
	}
}

// SetCommitted records the group's committed offset on tp.
func (o *Observation) SetCommitted(tp TopicPartition, offset int64) {
	p := o.Part(tp)
	p.HasCommit, p.Committed = true, offset
}

// SetCommitLeaderEpoch records the leader epoch tp's commit carries.
func (o *Observation) SetCommitLeaderEpoch(tp TopicPartition, epoch int32) {
	p := o.Part(tp)
	p.LeaderEpochKnown, p.LeaderEpoch = true, epoch
}

// SetCommitErr records that tp's commit could not be read, and why.
func (o *Observation) SetCommitErr(tp TopicPartition, err string) {
	p := o.Part(tp)
	p.CommitUnread, p.CommitErr = true, err
}

// SetShareLag records a share group's lag on tp as the broker reports it.
func (o *Observation) SetShareLag(tp TopicPartition, lag int64) {
	p := o.Part(tp)
	p.HasShareLag, p.ShareLag = true, lag
}

// SetOffsets records tp's log offsets.
func (o *Observation) SetOffsets(tp TopicPartition, off PartitionOffsets) {
	p := o.Part(tp)
	p.HasOffsets, p.Offsets = true, off
}

// SetOldestTimestamp records the timestamp of the record tp waits on.
func (o *Observation) SetOldestTimestamp(tp TopicPartition, ts time.Time) {
	p := o.Part(tp)
	p.HasOldestTimestamp, p.OldestTimestamp = true, ts
}

// SetOldestGone records that the record tp waits on was deleted first.
func (o *Observation) SetOldestGone(tp TopicPartition) { o.Part(tp).OldestGone = true }

// SetOldestMarkerOnly records that only control records follow tp's
// committed offset.
func (o *Observation) SetOldestMarkerOnly(tp TopicPartition) { o.Part(tp).OldestMarkerOnly = true }

// SetOldestRecord records what was read of the record tp waits on: a
// copy of r, which the observation's rows point to.
func (o *Observation) SetOldestRecord(tp TopicPartition, r OldestRecord) {
	o.Part(tp).SetOldestRecordRef(&r)
}

// Readings are per-partition values keyed by partition, the way a test
// writes an observation by hand; Observation.With puts them in place.
// The watcher fills Topics directly.
type Readings struct {
	Committed          map[TopicPartition]int64
	CommitLeaderEpochs map[TopicPartition]int32
	CommitErrs         map[TopicPartition]string
	ShareLag           map[TopicPartition]int64
	Offsets            map[TopicPartition]PartitionOffsets
	OldestTimestamp    map[TopicPartition]time.Time
	OldestGone         map[TopicPartition]bool
	OldestMarkerOnly   map[TopicPartition]bool
	OldestRecords      map[TopicPartition]OldestRecord
}

// With returns o with r's values added (a false OldestGone or
// OldestMarkerOnly adds nothing, as it said nothing in a map).
func (o Observation) With(r Readings) Observation {
	o.Topics = slices.Clone(o.Topics)
	for i := range o.Topics {
		o.Topics[i].Partitions = slices.Clone(o.Topics[i].Partitions)
	}
	each(r.Committed, o.SetCommitted)
	each(r.CommitLeaderEpochs, o.SetCommitLeaderEpoch)
	each(r.CommitErrs, o.SetCommitErr)
	each(r.ShareLag, o.SetShareLag)
	each(r.Offsets, o.SetOffsets)
	each(r.OldestTimestamp, o.SetOldestTimestamp)
	each(r.OldestGone, func(tp TopicPartition, gone bool) {
		if gone {
			o.SetOldestGone(tp)
		}
	})
	each(r.OldestMarkerOnly, func(tp TopicPartition, only bool) {
		if only {
			o.SetOldestMarkerOnly(tp)
		}
	})
	each(r.OldestRecords, o.SetOldestRecord)
	return o
}

// each calls set for m's entries in partition order (slots are then made
// in order, densely).
func each[V any](m map[TopicPartition]V, set func(TopicPartition, V)) {
	tps := make([]TopicPartition, 0, len(m))
	for tp := range m {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, CompareTP)
	for _, tp := range tps {
		set(tp, m[tp])
	}
}
