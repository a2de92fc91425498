package model

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
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
			st.hist.buf[st.hist.next(ringSize)] = sample{t: int64(i + 1), logEnd: end}
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
