package model

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// randomPolls is a group's polls as a watcher sees them, at random: over
// three topics, partitions come and go; owners move, vanish and share
// nothing; commits advance, stall, go back or cannot be read; log ends
// grow, stand still, fall (a recreated topic) or cannot be read; lag is
// zero as often as not; the group rebalances and empties now and then;
// and the poll interval wanders from 100 ms to 40 s.
type randomPolls struct {
	rng       *rand.Rand
	at        time.Time
	committed map[TopicPartition]int64
	logEnd    map[TopicPartition]int64
}

func newRandomPolls(seed uint64) *randomPolls {
	return &randomPolls{
		rng:       rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		at:        ht0,
		committed: map[TopicPartition]int64{},
		logEnd:    map[TopicPartition]int64{},
	}
}

func (r *randomPolls) next() Observation {
	rng := r.rng
	steps := []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, time.Second, 5 * time.Second, 40 * time.Second}
	r.at = r.at.Add(steps[rng.IntN(len(steps))])
	o := Observation{TakenAt: r.at, Group: Group{ID: "g", State: StateStable}}
	switch rng.IntN(12) {
	case 0:
		o.Group.State = StatePreparingRebalance
	case 1:
		o.Group.State = StateEmpty
	}
	members := 1 + rng.IntN(4)
	if o.Group.State == StateEmpty {
		members = 0
	}
	for m := range members {
		o.Members = append(o.Members, Member{MemberID: fmt.Sprintf("m%d-%d", m, rng.IntN(2)), ClientID: fmt.Sprintf("c%d", m)})
	}
	// The partitions: most polls the same as the last, some with one
	// more or one less, some a different set.
	churn := rng.IntN(8)
	for _, topic := range []string{"a", "b", "c"} {
		for p := range int32(6) {
			tp := TopicPartition{Topic: topic, Partition: p}
			_, had := r.logEnd[tp]
			in := had
			if churn == 0 || (churn == 1 && rng.IntN(10) == 0) || len(r.logEnd) == 0 {
				in = rng.IntN(3) > 0
			}
			if !in {
				delete(r.logEnd, tp)
				delete(r.committed, tp)
				continue
			}
			end, c := r.logEnd[tp], r.committed[tp]
			switch rng.IntN(10) {
			case 0: // stands still
			case 1:
				end = int64(rng.IntN(50)) // recreated: lower, as often as not
			default:
				end += int64(rng.IntN(20))
			}
			switch rng.IntN(8) {
			case 0: // stalls
			case 1:
				c -= int64(rng.IntN(10)) // rewound
			case 2:
				c = end // caught up: no lag
			default:
				c += int64(rng.IntN(20))
			}
			c = min(max(c, 0), end)
			r.logEnd[tp], r.committed[tp] = end, c
			switch rng.IntN(16) {
			case 0:
				o.SetCommitErr(tp, "unreadable")
			case 1: // never committed
			default:
				o.SetCommitted(tp, c)
			}
			switch rng.IntN(16) {
			case 0:
				o.SetOffsets(tp, PartitionOffsets{LogStart: NoOffset, LogEnd: NoOffset, Err: "leader not available"})
			case 1: // not in metadata
			default:
				o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: end})
			}
			if rng.IntN(3) > 0 {
				o.SetOldestTimestamp(tp, r.at.Add(-time.Duration(rng.IntN(60))*time.Second))
			}
			if len(o.Members) > 0 && rng.IntN(5) > 0 {
				m := &o.Members[rng.IntN(len(o.Members))]
				m.Partitions = append(m.Partitions, tp)
			}
		}
	}
	return o
}

// Annotate matches each row with its partition's state in its own walk
// of the rows (align only where they differ): a History fed the same
// polls, aligned first as it was before, gives the same rows, snapshot
// and events at every poll, across partitions coming and going.
func TestAnnotateAlignsInItsWalk(t *testing.T) {
	midWalk := 0 // polls of as many partitions as the last, not the same
	for seed := range uint64(25) {
		polls := newRandomPolls(seed)
		h, ref := NewHistory(HistoryOptions{}), NewHistory(HistoryOptions{})
		ref.seed = h.seed // the states keep their owners hashed
		var b SnapshotBuilder
		for poll := range 300 {
			o := polls.next()
			s := b.Build(&o)
			want := deepCopy(s)
			if len(s.Partitions) == len(h.keys) && len(s.Partitions) > 0 {
				for i := range s.Partitions {
					if s.Partitions[i].TopicPartition != h.keys[i] {
						midWalk++
						break
					}
				}
			}
			ref.align(want.Partitions)
			wantEvents := ref.Annotate(&want)
			events := h.Annotate(&s)
			if !reflect.DeepEqual(s, want) {
				t.Fatalf("seed %d poll %d: snapshots differ:\n%+v\n%+v", seed, poll, s, want)
			}
			if !reflect.DeepEqual(events, wantEvents) {
				t.Fatalf("seed %d poll %d: events differ:\n%+v\n%+v", seed, poll, events, wantEvents)
			}
			if !slices.Equal(h.keys, ref.keys) || !reflect.DeepEqual(h.states, ref.states) {
				t.Fatalf("seed %d poll %d: states differ", seed, poll)
			}
		}
	}
	if midWalk == 0 {
		t.Fatal("no poll changed partitions but not their count: the walk's own align never ran")
	}
}

// trackOldest takes its short cut (the oldest sample past the record:
// all are) only on a ring whose log ends update kept in order: at every
// poll of random polls, a state marked sorted has them so, and its look
// back finds what a full scan does, for every offset.
func TestLookBackShortCutOnlyWhereSorted(t *testing.T) {
	sorted := 0
	for seed := range uint64(25) {
		polls := newRandomPolls(seed)
		h := NewHistory(HistoryOptions{})
		for poll := range 300 {
			o := polls.next()
			s := NewSnapshot(o)
			h.Annotate(&s)
			for i := range h.states {
				st := &h.states[i]
				if !st.endsSorted {
					continue
				}
				sorted++
				for j := range st.hist.len() {
					if e := st.hist.at(j).logEnd; e < 0 || j > 0 && e < st.hist.at(j-1).logEnd {
						t.Fatalf("seed %d poll %d: %v marked sorted with log ends out of order", seed, poll, h.keys[i])
					}
				}
				for at := int64(-1); at < 200; at++ {
					ny, ex := st.hist.lookBack(at, true)
					wantNy, wantEx := st.hist.lookBack(at, false)
					if ny != wantNy || ex != wantEx {
						t.Fatalf("seed %d poll %d: %v at %d: look back %d %d, a scan %d %d", seed, poll, h.keys[i], at, ny, ex, wantNy, wantEx)
					}
				}
			}
		}
	}
	if sorted == 0 {
		t.Fatal("no state was ever sorted: the test proves nothing")
	}
}

// refLastEnds is lastEnds as it was before back kept what it compared:
// two walks, one to compare and one to keep.
type refLastEnds struct {
	keys []TopicPartition
	ends []int64
}

func (l *refLastEnds) back(cur []PartitionLag) []TopicPartition {
	var out []TopicPartition
	i, j := 0, 0
	for i < len(l.keys) && j < len(cur) {
		q := &cur[j]
		switch c := CompareTP(l.keys[i], q.TopicPartition); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			if e := l.ends[i]; e >= 0 && q.Err == "" && q.LogEnd >= 0 && q.LogEnd < e {
				out = append(out, q.TopicPartition)
			}
			i++
			j++
		}
	}
	return out
}

func (l *refLastEnds) keep(rows []PartitionLag) {
	l.keys, l.ends = l.keys[:0], l.ends[:0]
	for i := range rows {
		e := rows[i].LogEnd
		if rows[i].Err != "" {
			e = -1
		}
		l.keys = append(l.keys, rows[i].TopicPartition)
		l.ends = append(l.ends, max(e, -1))
	}
}

// The tracker's log ends, compared and kept in one walk when a poll has
// the last one's partitions, say what two walks said: the same
// partitions gone backwards at every poll, the same ends kept, whether
// back ran before keep or not (the first poll, a cluster change).
func TestLastEndsKeepAsTheyCompare(t *testing.T) {
	backs := 0
	for seed := range uint64(25) {
		polls := newRandomPolls(seed)
		var l lastEnds
		var ref refLastEnds
		var b SnapshotBuilder
		for poll := range 300 {
			o := polls.next()
			s := b.Build(&o)
			if poll%17 != 0 { // now and then keep alone, as the first poll does
				got, want := l.back(s.Partitions), ref.back(s.Partitions)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d poll %d: back %v, want %v", seed, poll, got, want)
				}
				backs += len(got)
			}
			l.keep(s.Partitions)
			ref.keep(s.Partitions)
			if !slices.Equal(l.keys, ref.keys) || !slices.Equal(l.ends, ref.ends) {
				t.Fatalf("seed %d poll %d: kept %v %v, want %v %v", seed, poll, l.keys, l.ends, ref.keys, ref.ends)
			}
		}
	}
	if backs == 0 {
		t.Fatal("no log end ever went back: the test proves nothing")
	}
}

// slotEntries, where it applies, lists what mentionEntries does: the same
// entries in the same order, the same count of oldest records, over
// random observations and members (commits, owners, targets; topics only
// owned; empty slots; and the groups it leaves to mentionEntries:
// shared partitions, negative or sparse numbers).
func TestSlotEntriesAsMentions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	applied, left := 0, 0
	var mine, theirs entryScratch // each path its own, as build reuses one
	for trial := range 3000 {
		var o Observation
		for _, topic := range []string{"b", "a", "c", "d"}[:1+rng.IntN(4)] {
			n := rng.IntN(12)
			for p := range int32(n) {
				if rng.IntN(4) == 0 {
					continue
				}
				tp := TopicPartition{Topic: topic, Partition: p}
				switch rng.IntN(5) {
				case 0:
					o.Part(tp) // a slot read nothing of
				case 1:
					o.SetOffsets(tp, PartitionOffsets{LogEnd: 9})
				default:
					o.SetCommitted(tp, int64(rng.IntN(100)))
				}
				if rng.IntN(3) == 0 {
					o.SetOldestRecord(tp, OldestRecord{})
				}
			}
			switch rng.IntN(20) {
			case 0:
				o.SetCommitted(TopicPartition{Topic: topic, Partition: -1}, 3)
			case 1:
				o.SetCommitted(TopicPartition{Topic: topic, Partition: 1 << 20}, 3)
			}
		}
		members := make([]Member, rng.IntN(4))
		for i := range members {
			members[i].MemberID = fmt.Sprint("m", i)
			for range rng.IntN(8) {
				tp := TopicPartition{Topic: []string{"a", "b", "e"}[rng.IntN(3)], Partition: int32(rng.IntN(10))}
				if rng.IntN(4) == 0 {
					members[i].TargetPartitions = append(members[i].TargetPartitions, tp)
				} else if rng.IntN(3) > 0 || trial%5 == 0 { // a fifth may share partitions
					members[i].Partitions = append(members[i].Partitions, tp)
				}
			}
		}
		if trial%5 != 0 { // one owner at most, as most groups have
			seen := map[TopicPartition]bool{}
			for i := range members {
				members[i].Partitions = slices.DeleteFunc(members[i].Partitions, func(tp TopicPartition) bool {
					was := seen[tp]
					seen[tp] = true
					return was
				})
			}
		}
		got, ok := slotEntries(o.Topics, members, &mine)
		want := mentionEntries(o.Topics, members, &theirs)
		if !ok {
			left++
			continue
		}
		applied++
		for k := range want {
			want[k].key = 0 // the mentions' order, not read once they are in it
		}
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("trial %d: slots give\n%+v\nmentions\n%+v", trial, got, want)
		}
	}
	if applied < 1000 || left < 100 {
		t.Fatalf("slots applied %d times, left %d: the trials do not cover both", applied, left)
	}
}
