package model

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// Whatever the poll interval, every sample but the newest is at least
// spacing after the one before it, so a full ring of n spans at least
// (n-2) spacings; the newest is always the latest poll.
func TestRingSpansItsSpacingAtEveryInterval(t *testing.T) {
	spacing := int64(time.Second)
	for _, iv := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
		900 * time.Millisecond, time.Second, 2 * time.Second, 10 * time.Second} {
		var r samples
		var last int64
		for at := time.Duration(0); at < 5*time.Minute; at += iv {
			last = int64(at)
			r.pushSpaced(sample{t: last}, spacing)
		}
		if r.newest().t != last {
			t.Fatalf("every %s: newest %d, want the latest poll %d", iv, r.newest().t, last)
		}
		for i := 1; i < r.len()-1; i++ {
			if d := r.at(i).t - r.at(i-1).t; d < spacing {
				t.Fatalf("every %s: samples %d and %d are %s apart, want at least %s", iv, i-1, i, time.Duration(d), time.Duration(spacing))
			}
		}
		if span := r.newest().t - r.at(0).t; r.len() != ringSize || span < int64(ringSize-2)*spacing {
			t.Errorf("every %s: %d samples span %s, want %d spanning %s or more", iv, r.len(), time.Duration(span), ringSize, time.Duration(int64(ringSize-2)*spacing))
		}
	}
}

// push keeps the newest values, dropping the oldest; add keeps them all,
// growing; drop forgets the oldest. Values read back oldest first.
func TestRingPushAddDrop(t *testing.T) {
	r := newRing[int](3)
	for v := 1; v <= 5; v++ {
		r.push(v)
	}
	if got := r.appendTo(nil); !slices.Equal(got, []int{3, 4, 5}) || *r.newest() != 5 {
		t.Fatalf("push: %v newest %d, want [3 4 5] newest 5", got, *r.newest())
	}
	var g ring[int]
	for v := 1; v <= 9; v++ {
		g.add(v)
		if v == 6 {
			g.drop(4)
		}
	}
	if got := g.appendTo(nil); !slices.Equal(got, []int{5, 6, 7, 8, 9}) || *g.at(0) != 5 || *g.newest() != 9 {
		t.Fatalf("add and drop: %v, want [5 6 7 8 9]", got)
	}
	g.clear()
	g.add(10)
	if got := g.appendTo(nil); !slices.Equal(got, []int{10}) {
		t.Fatalf("after clear: %v, want [10]", got)
	}
}

// trackOldest's look back for a new oldest record, newest first, finds
// what a scan oldest first does: the last earlier poll whose log ended at
// or before the record (notYet), and the first after it whose log went
// past it (existed); unknown log ends (-1) count for neither. Log ends
// here go down as well as up, as they may across a poll that could not
// read them.
func TestTrackOldestLooksBackAsAForwardScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 5000 {
		var st partState
		n := 1 + rng.IntN(ringSize+4)
		for i := range n {
			end := int64(rng.IntN(12)) - 1 // -1: unknown
			st.hist.pushSpaced(sample{t: int64(i + 1), logEnd: end}, 0)
		}
		at := int64(rng.IntN(11))
		var notYet, existed int64
		for i := 0; i < st.hist.len()-1; i++ {
			switch s := st.hist.at(i); {
			case s.logEnd < 0:
			case s.logEnd <= at:
				notYet, existed = s.t, 0
			case existed == 0:
				existed = s.t
			}
		}
		// Now the log goes past it: existed is now when no earlier poll saw it.
		p := PartitionLag{Committed: at, LogEnd: at + 1}
		now := int64(n + 1)
		st.trackOldest(&p, now)
		if existed == 0 {
			existed = now
		}
		if st.notYet != notYet || st.existed != existed {
			t.Fatalf("trial %d: notYet %d existed %d, want %d and %d", trial, st.notYet, st.existed, notYet, existed)
		}
	}
}

// wholeRing is the ring of whole samples samples was before it held
// distances: what it must read back.
type wholeRing struct{ ring[sample] }

func (r *wholeRing) pushSpaced(c sample, spacing int64) {
	if r.n >= 2 && r.newest().t-r.at(int(r.n)-2).t < spacing {
		*r.newest() = c
		return
	}
	r.push(c)
}

// TestSamplesReadBackWhole: random polls of a partition (times to the
// nanosecond, at intervals around the spacing, some within a millisecond
// either side of it as a ticker's are; offsets walking up from billions,
// sometimes not read, sometimes read again) read back, oldest to newest,
// as a ring of whole samples holds them. With jumps as well (the clock by
// weeks, an offset by billions out of its base's reach), the newest reads
// back whole and the samples held are in time order.
func TestSamplesReadBackWhole(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, jumpy := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(3, 4))
		jumps := 0
		for trial := range 2000 {
			var r samples
			w := wholeRing{newRing[sample](ringSize)}
			at := int64(1_700_000_000_000)*ms + rng.Int64N(int64(time.Second))
			c, e := rng.Int64N(1<<40), rng.Int64N(1<<40)
			spacing := int64(rng.IntN(3)) * 500 * ms
			for range 1 + rng.IntN(60) {
				if spacing > 0 && rng.IntN(2) == 0 {
					at += spacing - ms + rng.Int64N(2*ms) // a ticker at the spacing
				} else {
					at += 1 + rng.Int64N(1500*ms)
				}
				e += rng.Int64N(100)
				s := sample{t: at, committed: c + rng.Int64N(100), logEnd: e}
				c = s.committed
				switch rng.IntN(20) {
				case 0:
					s.committed = NoOffset
				case 1:
					s.logEnd = NoOffset
				case 2:
					if jumpy {
						s.t += 40 * 24 * 3600 * 1000 * ms // weeks
						at, jumps = s.t, jumps+1
					}
				case 3:
					if jumpy {
						e += 1 << 33 // billions
						s.logEnd, jumps = e, jumps+1
					}
				}
				r.pushSpaced(s, spacing)
				w.pushSpaced(s, spacing)
				if got := r.newest(); got != *w.newest() {
					t.Fatalf("trial %d: newest %+v, want %+v", trial, got, *w.newest())
				}
				if jumpy {
					for i := 1; i < r.len(); i++ {
						if r.at(i).t <= r.at(i-1).t {
							t.Fatalf("trial %d: sample %d at %d, after %d", trial, i, r.at(i).t, r.at(i-1).t)
						}
					}
					continue
				}
				if r.len() != w.len() {
					t.Fatalf("trial %d: %d samples, the whole ring holds %d", trial, r.len(), w.len())
				}
				for i := range r.len() {
					if got, want := r.at(i), *w.at(i); got != want {
						t.Fatalf("trial %d: sample %d of %d is %+v, want %+v", trial, i, r.len(), got, want)
					}
				}
			}
		}
		if jumpy && jumps == 0 {
			t.Fatal("no jump out of reach: the test proves less than it says")
		}
	}
}

// TestSamplesKeepATickersGaps: a gap a ticker makes just short of the
// spacing (999.6 ms of 1 s) replaces the newest sample, as in a ring of
// whole samples; a ring that held times in milliseconds read it as 1 s
// and kept one sample more.
func TestSamplesKeepATickersGaps(t *testing.T) {
	sec := int64(time.Second)
	var r samples
	w := wholeRing{newRing[sample](ringSize)}
	base := int64(1_700_000_000_000_000_000) + 900_000
	for i, d := range []int64{0, 1_500_500_000, 2_500_100_000, 3_000_000_000} {
		s := sample{t: base + d, committed: int64(100 + i), logEnd: int64(200 + i)}
		r.pushSpaced(s, sec)
		w.pushSpaced(s, sec)
	}
	if r.len() != w.len() || r.len() != 3 {
		t.Fatalf("the ring holds %d samples, a ring of whole samples %d (want 3)", r.len(), w.len())
	}
	for i := range r.len() {
		if r.at(i) != *w.at(i) {
			t.Errorf("sample %d is %+v, want %+v", i, r.at(i), *w.at(i))
		}
	}
}

// TestSamplesOutOfReach: a sample whose offset is out of reach of the
// ring's base keeps the ring's samples within reach of it, drops the
// others, and is read back whole; a time is never out of reach.
func TestSamplesOutOfReach(t *testing.T) {
	sec := int64(time.Second)
	fill := func() *samples {
		var r samples
		for i := range int64(ringSize) {
			r.pushSpaced(sample{t: i * sec, committed: 100 + i, logEnd: 200 + i}, sec)
		}
		return &r
	}
	for _, c := range []struct {
		name string
		s    sample
		kept int
	}{
		{"weeks later", sample{t: 30 * 24 * 3600 * sec, committed: 200, logEnd: 300}, ringSize},
		{"log end billions on", sample{t: 12 * sec, committed: 112, logEnd: 5 << 31}, 1},
		{"commit not read", sample{t: 12 * sec, committed: NoOffset, logEnd: 212}, ringSize},
		{"log end not read", sample{t: 12 * sec, committed: 112, logEnd: NoOffset}, ringSize},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := fill()
			r.pushSpaced(c.s, sec)
			if r.len() != c.kept || r.newest() != c.s {
				t.Fatalf("%d samples, newest %+v: want %d, newest %+v", r.len(), r.newest(), c.kept, c.s)
			}
			if c.kept > 1 {
				if first := r.at(0); first != (sample{t: 1 * sec, committed: 101, logEnd: 201}) {
					t.Fatalf("oldest %+v, want the second sample pushed", first)
				}
			}
		})
	}
	// A ring whose first sample read no commit takes the first read as
	// its base's.
	var r samples
	r.pushSpaced(sample{t: 0, committed: NoOffset, logEnd: 10}, sec)
	r.pushSpaced(sample{t: sec, committed: 5 << 40, logEnd: 11}, sec)
	if r.len() != 2 || r.at(0) != (sample{t: 0, committed: NoOffset, logEnd: 10}) || r.newest() != (sample{t: sec, committed: 5 << 40, logEnd: 11}) {
		t.Fatalf("ring %+v, %+v", r.at(0), r.newest())
	}
}

// TestPartStateSize: a partition's history state stays compact and holds
// no pointer, so the collector never scans the states (it is held for
// every partition watched: 100,000 in the group view, 30,000 in the
// overview at 5,000 groups).
func TestPartStateSize(t *testing.T) {
	if n := unsafe.Sizeof(partState{}); n > 384 {
		t.Errorf("partState is %d bytes, want at most 384", n)
	}
	if p := pointerField(reflect.TypeFor[partState](), "partState"); p != "" {
		t.Errorf("partState holds a pointer: %s", p)
	}
	if n := unsafe.Sizeof(samples{}); n > 216 {
		t.Errorf("samples is %d bytes, want at most 216", n)
	}
}

// TestAnnotateAllocatesPerPollNotPerPartition: a poll of a group as it
// was (commits and log ends moving) allocates no more in Annotate at
// 4,000 partitions than at 400: nothing a partition (a ring's sample
// read through a pointer once made every partition's rates allocate two).
func TestAnnotateAllocatesPerPollNotPerPartition(t *testing.T) {
	allocs := func(n int) float64 {
		o := benchGroup(n)
		h := NewHistory(HistoryOptions{})
		at := ht0
		var b SnapshotBuilder
		poll := func() {
			at = at.Add(time.Second)
			advance(&o, at)
			s := b.Build(&o)
			h.Annotate(&s)
		}
		for range 15 { // past the rates' window: every rate measured
			poll()
		}
		return testing.AllocsPerRun(5, poll)
	}
	small, large := allocs(400), allocs(4000)
	if large > small+20 {
		t.Errorf("a poll allocates %.0f times at 4,000 partitions, %.0f at 400: something allocates per partition", large, small)
	}
}

// pointerField names a field of t that holds a pointer (a string, slice,
// map, pointer, interface, func or chan), "" when none does.
func pointerField(t reflect.Type, path string) string {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if p := pointerField(t.Field(i).Type, path+"."+t.Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Array:
		return pointerField(t.Elem(), path+"[]")
	case reflect.String, reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return path + " (" + t.String() + ")"
	}
	return ""
}

// TestPrevOwnerAcrossARebalance: while a rebalance leaves partitions
// unowned, each row names the owner it had before (its client id, else
// its short member id, and its member id), though the states keep owners
// only as hashes; after the rebalance, and when the group is not
// rebalancing, no row names one. Members coming and going poll after
// poll (each restart a new member id) do not grow the names kept.
func TestPrevOwnerAcrossARebalance(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	at := ht0
	poll := func(state string, owners ...Member) Snapshot {
		at = at.Add(time.Second)
		o := Observation{TakenAt: at, Group: Group{ID: "g", State: state}}
		for p := range int32(4) {
			tp := TopicPartition{Topic: "orders", Partition: p}
			o.SetCommitted(tp, 10)
			o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 12})
			if len(owners) > 0 {
				m := &owners[int(p)%len(owners)]
				m.Partitions = append(m.Partitions, tp)
			}
		}
		o.Members = owners
		s := NewSnapshot(o)
		h.Annotate(&s)
		return s
	}
	a := func() Member { return Member{MemberID: "consumer-a-1b2c3d4e", ClientID: "consumer-a"} }
	anon := func() Member { return Member{MemberID: "rdkafka-0f1e2d3c4b5a"} } // no client id
	poll(StateStable, a(), anon())
	s := poll(StatePreparingRebalance)
	want := []ownerName{{"consumer-a", "consumer-a-1b2c3d4e"}, {"2d3c4b5a", "rdkafka-0f1e2d3c4b5a"}}
	for i, p := range s.Partitions {
		if w := want[i%2]; p.PrevOwner != w.label || p.PrevMemberID != w.id {
			t.Errorf("rebalancing p%d: before %q (%q), want %q (%q)", p.Partition, p.PrevOwner, p.PrevMemberID, w.label, w.id)
		}
	}
	for _, state := range []string{StateStable, StateEmpty} {
		var ms []Member
		if state == StateStable {
			ms = []Member{a()}
		}
		for _, p := range poll(state, ms...).Partitions {
			if p.PrevOwner != "" || p.PrevMemberID != "" {
				t.Errorf("%s p%d: names %q (%q) as the owner before", state, p.Partition, p.PrevOwner, p.PrevMemberID)
			}
		}
	}
	// Members listed with one id (a snapshot made by hand) are named as
	// their rows name them.
	poll(StateStable, Member{MemberID: "dup", ClientID: "client-a"}, Member{MemberID: "dup", ClientID: "client-b"})
	for _, p := range poll(StatePreparingRebalance).Partitions {
		if w := []string{"client-a", "client-b"}[p.Partition%2]; p.PrevOwner != w || p.PrevMemberID != "dup" {
			t.Errorf("members sharing an id, p%d: before %q (%q), want %q (dup)", p.Partition, p.PrevOwner, p.PrevMemberID, w)
		}
	}
	for i := range 500 {
		poll(StateStable, Member{MemberID: fmt.Sprintf("consumer-x-%04d", i), ClientID: "consumer-x"})
	}
	if len(h.owners) > 4+64 {
		t.Errorf("%d owner names kept after 500 members came and went, want at most %d", len(h.owners), 4+64)
	}
}

// TestRebalanceWithManyOwnersRemembered: a rebalance that lists no
// members while the states remember more owners than the names' bound
// does not walk the states again every poll (it found nothing to forget
// the first time, and walking makes a map of the names kept).
func TestRebalanceWithManyOwnersRemembered(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	at := ht0
	poll := func(ms []Member) {
		at = at.Add(time.Second)
		o := Observation{TakenAt: at, Group: Group{ID: "g", State: StateStable}}
		if len(ms) == 0 {
			o.Group.State = StatePreparingRebalance
		}
		for p := range int32(400) {
			tp := TopicPartition{Topic: "orders", Partition: p}
			o.SetCommitted(tp, 10)
			o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 12})
			if len(ms) > 0 {
				ms[int(p)%len(ms)].Partitions = append(ms[int(p)%len(ms)].Partitions, tp)
			}
		}
		o.Members = ms
		s := NewSnapshot(o)
		h.Annotate(&s)
	}
	var ms []Member
	for i := range 200 {
		ms = append(ms, Member{MemberID: fmt.Sprintf("consumer-%04d", i), ClientID: "consumer"})
	}
	poll(ms)
	poll(nil)
	if len(h.owners) != 200 {
		t.Fatalf("%d owners named, want the 200 the states remember", len(h.owners))
	}
	if n := testing.AllocsPerRun(5, func() { h.forgetOwners(0) }); n != 0 {
		t.Errorf("a poll listing no members allocates %.0f times in forgetOwners: the states are walked every poll", n)
	}
}

// TestOwnerHashesAlikeListedOrNot: a row that names its owner otherwise
// than its member does (a snapshot made by hand: the row's client id not
// the member's) keeps one owner whether the member is listed, not
// listed, or listed with another sharing its id: its commit cadence is
// not forgotten as if a new owner came.
func TestOwnerHashesAlikeListedOrNot(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	at := ht0
	tp := TopicPartition{Topic: "t", Partition: 0}
	var owners []uint64
	for _, members := range [][]Member{
		{{MemberID: "m1", ClientID: "member-client", Partitions: []TopicPartition{tp}}},
		nil,
		{{MemberID: "m1", ClientID: "member-client", Partitions: []TopicPartition{tp}}, {MemberID: "m1", ClientID: "other"}},
		{{MemberID: "m1", ClientID: "member-client", Partitions: []TopicPartition{tp}}},
	} {
		at = at.Add(time.Second)
		s := Snapshot{TakenAt: at, Group: Group{ID: "g", State: StateStable}, Members: members,
			Partitions: []PartitionLag{{TopicPartition: tp, MemberID: "m1", ClientID: "row-client", Committed: 5, LogStart: 0, LogEnd: 10, Lag: 5}}}
		h.Annotate(&s)
		owners = append(owners, h.states[0].cadenceOf)
	}
	for i, o := range owners {
		if o != owners[0] || o == 0 {
			t.Fatalf("poll %d: owner %x, first %x: one owner hashed differently", i, o, owners[0])
		}
	}
}
