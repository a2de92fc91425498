package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var ln0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// laneSnap is a snapshot of topic "t" with 4 partitions at ln0+sec; owners
// maps partition → client id ("" unowned). Non-Stable states carry members
// without assignments, as coordinators report them mid-rebalance.
func laneSnap(sec float64, state, assignor string, owners ...string) Snapshot {
	o := Observation{
		TakenAt: ln0.Add(time.Duration(sec * float64(time.Second))),
		Group:   Group{ID: "g", State: state, Assignor: assignor, Cooperative: state == StateStable && strings.Contains(assignor, "cooperative")},
	}.With(Readings{
		Committed: map[TopicPartition]int64{},
		Offsets:   map[TopicPartition]PartitionOffsets{},
	})
	byClient := map[string]int{}
	for p := range 4 {
		tp := TopicPartition{Topic: "t", Partition: int32(p)}
		o.SetCommitted(tp, 1)
		o.SetOffsets(tp, PartitionOffsets{LogEnd: 2})
		if p >= len(owners) || owners[p] == "" {
			continue
		}
		i, ok := byClient[owners[p]]
		if !ok {
			i = len(o.Members)
			byClient[owners[p]] = i
			o.Members = append(o.Members, Member{MemberID: owners[p] + "-0000-1111", ClientID: owners[p]})
		}
		if state == StateStable {
			o.Members[i].Partitions = append(o.Members[i].Partitions, tp)
		}
	}
	return NewSnapshot(o)
}

// laneString draws the lanes over one-second periods from..to, one line
// per row: owner's first letter after "consumer-", '.' rebalancing, '_'
// unowned, '?' unknown. The owner at each period's start must agree with
// Column.Owner.
func laneString(l *Lanes, from, to int) string {
	var b strings.Builder
	out := make([]int, to-from+1)
	for r := range l.Len() {
		if r > 0 {
			b.WriteByte('\n')
		}
		l.Lane(r, ln0.Add(time.Duration(from)*time.Second), time.Second, out)
		for s := from; s <= to; s++ {
			o := out[s-from]
			if at := l.At(ln0.Add(time.Duration(s) * time.Second)).Owner(r); laneRank(at) > laneRank(o) {
				panic(fmt.Sprintf("row %d at %ds: period shows %d, its start %d", r, s, o, at))
			}
			switch o {
			case LaneRebalancing:
				b.WriteByte('.')
			case LaneUnowned:
				b.WriteByte('_')
			case LaneUnknown, LaneNone:
				b.WriteByte('?')
			default:
				b.WriteString(strings.TrimPrefix(l.Owners()[o], "consumer-")[:1])
			}
		}
	}
	return b.String()
}

func TestLanesGaps(t *testing.T) {
	tests := []struct {
		name  string
		snaps []Snapshot
		want  string // seconds 0..6
	}{
		{
			"eager rebalance: a gap across every partition",
			[]Snapshot{
				laneSnap(0, StateStable, "range", "consumer-a", "consumer-a", "consumer-b", "consumer-b"),
				laneSnap(2, StatePreparingRebalance, "range", "consumer-a", "consumer-b", "consumer-c"),
				laneSnap(3, StateCompletingRebalance, "range", "consumer-a", "consumer-b", "consumer-c"),
				laneSnap(4, StateStable, "range", "consumer-a", "consumer-b", "consumer-c", "consumer-c"),
			},
			"aa..aaa\naa..bbb\nbb..ccc\nbb..ccc",
		},
		{
			"cooperative handover: a gap on moved partitions only",
			[]Snapshot{
				laneSnap(0, StateStable, "cooperative-sticky", "consumer-a", "consumer-a", "consumer-b", "consumer-b"),
				laneSnap(2, StatePreparingRebalance, "cooperative-sticky", "consumer-a", "consumer-b", "consumer-c"),
				laneSnap(3, StateCompletingRebalance, "cooperative-sticky", "consumer-a", "consumer-b", "consumer-c"),
				laneSnap(4, StateStable, "cooperative-sticky", "consumer-a", "consumer-c", "consumer-b", "consumer-b"),
			},
			"aaaaaaa\naa..ccc\nbbbbbbb\nbbbbbbb",
		},
		{
			"eager rebalance between polls: a one-period gap across every partition",
			[]Snapshot{
				laneSnap(0, StateStable, "range", "consumer-a", "consumer-a", "consumer-b", "consumer-b"),
				laneSnap(3, StateStable, "range", "consumer-a", "consumer-b", "consumer-c", "consumer-c"),
			},
			"aa.aaaa\naa.bbbb\nbb.cccc\nbb.cccc",
		},
		{
			"cooperative rebalance between polls: a gap on moved partitions only",
			[]Snapshot{
				laneSnap(0, StateStable, "cooperative-sticky", "consumer-a", "consumer-a", "consumer-b", "consumer-b"),
				laneSnap(3, StateStable, "cooperative-sticky", "consumer-a", "consumer-c", "consumer-b", "consumer-b"),
			},
			"aaaaaaa\naa.cccc\nbbbbbbb\nbbbbbbb",
		},
		{
			"group emptied: unowned, not rebalancing",
			[]Snapshot{
				laneSnap(0, StateStable, "range", "consumer-a", "consumer-a", "consumer-a", "consumer-a"),
				laneSnap(3, StateEmpty, ""),
			},
			"aaa____\naaa____\naaa____\naaa____",
		},
		{
			"unowned partition in a Stable group",
			[]Snapshot{
				laneSnap(1, StateStable, "range", "consumer-a", "", "consumer-b", "consumer-b"),
			},
			"?aaaaaa\n?______\n?bbbbbb\n?bbbbbb",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLanes(0)
			for _, s := range tt.snaps {
				l.Observe(s)
			}
			if got := laneString(l, 0, 6); got != tt.want {
				t.Errorf("lanes:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestLanesLostAndRecovered(t *testing.T) {
	l := NewLanes(0)
	l.Observe(laneSnap(0, StateStable, "range", "consumer-a", "consumer-a", "consumer-a", "consumer-a"))
	l.Lost(ln0.Add(2 * time.Second))
	l.Observe(laneSnap(4, StateStable, "range", "consumer-a", "consumer-a", "consumer-a", "consumer-a"))
	if got, want := laneString(l, 0, 5), strings.Repeat("aa??aa\n", 3)+"aa??aa"; got != want {
		t.Errorf("lanes:\n%s\nwant:\n%s", got, want)
	}
}

func TestLanesStoreOnlyChanges(t *testing.T) {
	l := NewLanes(time.Minute)
	for i := range 1000 {
		l.Observe(laneSnap(float64(i)/10, StateStable, "range", "consumer-a", "consumer-b", "consumer-a", "consumer-b"))
	}
	if len(l.samples) != 1 {
		t.Errorf("steady group kept %d samples, want 1", len(l.samples))
	}
	// A group that changes owner every poll keeps only the horizon.
	for i := range 2000 {
		who := fmt.Sprintf("consumer-%c", 'a'+i%2)
		l.Observe(laneSnap(100+float64(i), StateStable, "range", who, who, who, who))
	}
	if n := len(l.samples); n > 2*61 {
		t.Errorf("kept %d samples for a 1-minute horizon at one change (and one inferred rebalance) per second", n)
	}
	if got := l.At(ln0.Add(2099 * time.Second)).Owner(0); l.Owners()[got] != "consumer-b" {
		t.Errorf("latest owner %q", l.Owners()[got])
	}
}

func TestLanesPartitionsAdded(t *testing.T) {
	l := NewLanes(0)
	l.Observe(laneSnap(0, StateStable, "range", "consumer-a"))
	// The first snapshot already has 4 rows (committed partitions); a new
	// topic sorts before them and reads unknown before it appeared. Its
	// assignment needed a rebalance, between the polls.
	s := laneSnap(2, StateStable, "range", "consumer-a")
	s.Partitions = append([]PartitionLag{{TopicPartition: TopicPartition{Topic: "a", Partition: 0}, MemberID: "x-1", ClientID: "consumer-x"}}, s.Partitions...)
	l.Observe(s)
	if got := l.Row(0); got.Topic != "a" {
		t.Fatalf("row 0 is %v, want the new topic first", got)
	}
	if got := laneString(l, 0, 3); !strings.HasPrefix(got, "?.xx\na.aa\n") {
		t.Errorf("lanes:\n%s", got)
	}
}

func TestLanePeriodsShowShortGaps(t *testing.T) {
	l := NewLanes(0)
	l.Observe(laneSnap(0, StateStable, "range", "consumer-a", "consumer-a", "consumer-a", "consumer-a"))
	l.Observe(laneSnap(10.2, StatePreparingRebalance, "range", "consumer-a", "consumer-b"))
	l.Observe(laneSnap(10.6, StateStable, "range", "consumer-a", "consumer-b", "consumer-b", "consumer-a"))
	out := make([]int, 6)
	l.Lane(1, ln0.Add(-5*time.Second), 5*time.Second, out) // -5..0, 0..5, 5..10, 10..15, 15..20, 20..25
	ob := int(l.ownerIdx["consumer-b"])
	oa := int(l.ownerIdx["consumer-a"])
	want := []int{LaneNone, oa, oa, LaneRebalancing, ob, ob}
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("periods %v, want %v (a=%d b=%d)", out, want, oa, ob)
		}
	}
}

// A static member that restarts (new member id, same group.instance.id)
// causes no rebalance: no gap in its lanes.
func TestLanesStaticRestartNoGap(t *testing.T) {
	restart := func(sec float64, memberID string) Snapshot {
		s := laneSnap(sec, StateStable, "range", "consumer-a", "consumer-a", "consumer-b", "consumer-b")
		for i := range s.Members {
			s.Members[i].InstanceID = s.Members[i].ClientID
		}
		s.Members[0].MemberID = memberID
		for i := range s.Partitions {
			if s.Partitions[i].ClientID == s.Members[0].ClientID {
				s.Partitions[i].MemberID = memberID
			}
		}
		return s
	}
	l := NewLanes(time.Minute)
	l.Observe(restart(0, "consumer-a-1111"))
	l.Observe(restart(3, "consumer-a-2222"))
	if got, want := laneString(l, 0, 6), "aaaaaaa\naaaaaaa\nbbbbbbb\nbbbbbbb"; got != want {
		t.Errorf("lanes:\n%s\nwant:\n%s", got, want)
	}
}

// A rebalance's cost as the audience compares it: eager stops every
// partition for the whole rebalance, cooperative only the one that moves,
// from its revoke phase to its assign phase.
func TestLanesPaused(t *testing.T) {
	sec := func(s float64) time.Time { return ln0.Add(time.Duration(s * float64(time.Second))) }
	eager := NewLanes(0)
	eager.Observe(laneSnap(0, StateStable, "range", "a", "a", "b", "b"))
	eager.Observe(laneSnap(10, StatePreparingRebalance, "range"))
	eager.Observe(laneSnap(12, StateStable, "range", "a", "b", "b", "c"))
	coop := NewLanes(0)
	coop.Observe(laneSnap(0, StateStable, "cooperative-sticky", "a", "a", "b", "b"))
	coop.Observe(laneSnap(10, StatePreparingRebalance, "cooperative-sticky"))
	coop.Observe(laneSnap(11, StateStable, "cooperative-sticky", "a", "a", "b", ""))
	coop.Observe(laneSnap(12, StatePreparingRebalance, "cooperative-sticky"))
	coop.Observe(laneSnap(14, StateStable, "cooperative-sticky", "a", "a", "b", "c"))
	for _, tc := range []struct {
		name     string
		l        *Lanes
		from, to float64
		want     Pause
	}{
		{"eager", eager, 5, 20, Pause{Sum: 8 * time.Second, Longest: 2 * time.Second, Partitions: 4}},
		{"eager before it", eager, 0, 10, Pause{}},
		{"eager cut at its middle", eager, 5, 11, Pause{Sum: 4 * time.Second, Longest: time.Second, Partitions: 4}},
		{"cooperative", coop, 5, 20, Pause{Sum: 3 * time.Second, Longest: 3 * time.Second, Partitions: 1}},
	} {
		if got := tc.l.Paused(sec(tc.from), sec(tc.to)); got != tc.want {
			t.Errorf("%s: Paused = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The consumers' own reports time a partition's pause from its revoke to
// its next assignment; a partition assigned without a revoke in the
// window (a first assignment) or revoked and not yet assigned costs
// nothing known.
func TestConsumerPause(t *testing.T) {
	tp := func(p int32) TopicPartition { return TopicPartition{Topic: "t", Partition: p} }
	ev := func(ms int, typ EventType, ps ...int32) Event {
		e := Event{Time: ln0.Add(time.Duration(ms) * time.Millisecond), Type: typ}
		for _, p := range ps {
			e.Partitions = append(e.Partitions, tp(p))
		}
		return e
	}
	events := []Event{
		ev(0, EventDemoAssigned, 0, 1, 2), // the first assignment
		ev(1000, EventDemoRevoked, 0, 1),
		ev(1010, EventDemoRevoked, 2),
		ev(1200, EventDemoAssigned, 0),
		ev(1250, EventDemoAssigned, 1, 2),
		ev(3000, EventDemoRevoked, 2), // the next rebalance, still open
	}
	got, ok := ConsumerPause(events, ln0.Add(500*time.Millisecond), ln0.Add(5*time.Second))
	want := Pause{Sum: 200*time.Millisecond + 250*time.Millisecond + 240*time.Millisecond, Longest: 250 * time.Millisecond, Partitions: 3}
	if !ok || got != want {
		t.Errorf("ConsumerPause = %+v, %v; want %+v, true", got, ok, want)
	}
	if _, ok := ConsumerPause(events[:1], ln0, ln0.Add(time.Second)); ok {
		t.Error("a first assignment alone is said to time a pause")
	}
}

// Lanes gives each partition the row id of its first sighting, whatever
// the polls list: the same partitions in place, some added or gone,
// sorted or not, one listed twice. Its rows, the ids of a poll's
// partitions and its partition order are those a map of every partition
// seen gives (what Lanes kept before it matched partitions by order).
func TestLanesRowsAsAMapGives(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 7))
	universe := make([]TopicPartition, 0, 66)
	for _, topic := range []string{"", "a", "b", "orders"} {
		for p := -2; p < 15; p++ { // negative numbers sort first, as NewSnapshot sorts them
			universe = append(universe, TopicPartition{Topic: topic, Partition: int32(p)})
		}
	}
	shapes := map[string]int{}
	for trial := range 300 {
		l := NewLanes(0)
		var rows []TopicPartition
		idx := map[TopicPartition]int{}
		var last []TopicPartition
		for poll := range 12 {
			var parts []TopicPartition
			shape := "same"
			switch r := rng.IntN(10); {
			case poll > 0 && r < 4: // as the last poll
				parts = slices.Clone(last)
			case r == 4: // none
				shape = "none"
			case r < 7: // a random subset, sorted
				shape = "sorted"
				for _, tp := range universe {
					if rng.IntN(3) > 0 {
						parts = append(parts, tp)
					}
				}
			case r < 9: // shuffled
				shape = "shuffled"
				for _, tp := range universe {
					if rng.IntN(2) > 0 {
						parts = append(parts, tp)
					}
				}
				rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
			default: // sorted with one listed twice
				shape = "twice"
				for _, tp := range universe {
					if rng.IntN(3) > 0 {
						parts = append(parts, tp)
					}
				}
				if len(parts) > 0 {
					k := rng.IntN(len(parts))
					parts = slices.Insert(parts, k, parts[k])
				}
			}
			shapes[shape]++
			last = parts
			s := Snapshot{TakenAt: time.Unix(int64(1000+poll), 0), Group: Group{ID: "g", State: StateStable}}
			for _, tp := range parts {
				s.Partitions = append(s.Partitions, PartitionLag{TopicPartition: tp})
			}
			l.Observe(s)
			var want []int
			for _, tp := range parts {
				id, ok := idx[tp]
				if !ok {
					id = len(rows)
					idx[tp] = id
					rows = append(rows, tp)
				}
				want = append(want, id)
			}
			if !slices.Equal(l.rows, rows) {
				t.Fatalf("trial %d poll %d (%s): rows %v, want %v", trial, poll, shape, l.rows, rows)
			}
			if !slices.Equal(l.seenIDs, want) && (len(want) > 0 || len(l.seenIDs) > 0) {
				t.Fatalf("trial %d poll %d (%s): ids %v, want %v", trial, poll, shape, l.seenIDs, want)
			}
			sorted := slices.Clone(rows)
			slices.SortFunc(sorted, CompareTP)
			if got := l.Rows(); !slices.Equal(got, sorted) && len(sorted) > 0 {
				t.Fatalf("trial %d poll %d (%s): partition order %v, want %v", trial, poll, shape, got, sorted)
			}
		}
	}
	for _, shape := range []string{"same", "none", "sorted", "shuffled", "twice"} {
		if shapes[shape] < 150 {
			t.Fatalf("%d polls %s: the trials do not cover it", shapes[shape], shape)
		}
	}
}
