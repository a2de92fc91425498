package model

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// hp is one partition of "orders" at one poll: committed offset (NoOffset
// for none), log end, and owner client id ("" = unowned).
type hp struct {
	committed, logEnd int64
	owner             string
}

// hstep is one poll: time since t0, group state, partitions (partition i
// is orders/i), and the statuses expected afterwards ("" = don't check).
type hstep struct {
	at    time.Duration
	state string
	parts []hp
	want  []Status
}

var ht0 = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

func hsnap(at time.Duration, state string, parts []hp) Snapshot {
	o := Observation{
		TakenAt: ht0.Add(at),
		Group:   Group{ID: "order-workers", State: state},
	}.With(Readings{
		Committed: map[TopicPartition]int64{},
		Offsets:   map[TopicPartition]PartitionOffsets{},
	})
	members := map[string]int{}
	for i, p := range parts {
		tp := TopicPartition{Topic: "orders", Partition: int32(i)}
		if p.committed >= 0 {
			o.SetCommitted(tp, p.committed)
		}
		o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: p.logEnd})
		if p.owner == "" {
			continue
		}
		j, ok := members[p.owner]
		if !ok {
			j = len(o.Members)
			members[p.owner] = j
			o.Members = append(o.Members, Member{MemberID: p.owner + "-id", ClientID: p.owner, Host: "/10.0.0.1"})
		}
		o.Members[j].Partitions = append(o.Members[j].Partitions, tp)
	}
	return NewSnapshot(o)
}

// every returns polls every d from 0 to end inclusive, f giving the
// partitions at each time.
func every(d, end time.Duration, state string, f func(at time.Duration) []hp) []hstep {
	var out []hstep
	for at := time.Duration(0); at <= end; at += d {
		out = append(out, hstep{at: at, state: state, parts: f(at)})
	}
	return out
}

func secs(d time.Duration) int64 { return int64(d / time.Second) }

func runSteps(t *testing.T, h *History, steps []hstep) (Snapshot, [][]Event) {
	t.Helper()
	var s Snapshot
	var evs [][]Event
	for _, st := range steps {
		s = hsnap(st.at, st.state, st.parts)
		evs = append(evs, h.Annotate(&s))
		for i, w := range st.want {
			if w != "" && s.Partitions[i].Status != w {
				t.Fatalf("at %v: p%d status = %s, want %s (partition %+v)", st.at, i, s.Partitions[i].Status, w, s.Partitions[i])
			}
		}
	}
	return s, evs
}

func TestStatuses(t *testing.T) {
	const S = StateStable
	tests := []struct {
		name  string
		steps []hstep
	}{
		{"keeping up is OK", func() []hstep {
			st := every(5*time.Second, time.Minute, S, func(at time.Duration) []hp {
				return []hp{{100 * secs(at), 100 * secs(at), "a"}}
			})
			for i := range st {
				st[i].want = []Status{StatusOK}
			}
			return st
		}()},
		{"sawtooth lag of batch commits is not LAGGING", func() []hstep {
			st := every(5*time.Second, time.Minute, S, func(at time.Duration) []hp {
				end := 100 * secs(at)
				if secs(at)%10 == 5 {
					return []hp{{end - 300, end, "a"}}
				}
				return []hp{{end, end, "a"}}
			})
			for i := range st {
				st[i].want = []Status{StatusOK}
			}
			return st
		}()},
		{"with no lag age, lag growing while commits advance is no partition verdict (the group's falling behind says it)", func() []hstep {
			st := every(5*time.Second, 40*time.Second, S, func(at time.Duration) []hp {
				// consumes 80/s, produces 100/s: lag +100 every 5s
				return []hp{{80 * secs(at), 500 + 100*secs(at), "a"}}
			})
			for i := range st {
				st[i].want = []Status{StatusOK}
			}
			return st
		}()},
		{"lag that falls back as often as it grows is not LAGGING", lagSeq([]int64{100, 300, 200, 400, 300, 500, 400},
			[]Status{StatusOK, StatusOK, StatusOK, StatusOK, StatusOK, StatusOK, StatusOK})},
		{"committed offset stuck with lag is LAGGING past the first allowance, STALLED after StallAfter, OK once it moves", []hstep{
			{at: 0, state: S, parts: []hp{{100, 200, "a"}, {200, 200, "a"}}, want: []Status{StatusOK, StatusOK}},
			{at: 10 * time.Second, state: S, parts: []hp{{100, 200, "a"}, {200, 200, "a"}}, want: []Status{StatusOK, StatusOK}},
			{at: 14 * time.Second, state: S, parts: []hp{{100, 200, "a"}, {200, 200, "a"}}, want: []Status{StatusOK, StatusOK}},
			// No age known: the commit standing still 15s stands in for
			// the records' wait (no cadence seen yet: FirstAllowance).
			{at: 15 * time.Second, state: S, parts: []hp{{100, 200, "a"}, {200, 200, "a"}}, want: []Status{StatusLagging, StatusOK}},
			{at: 29 * time.Second, state: S, parts: []hp{{100, 200, "a"}, {200, 200, "a"}}, want: []Status{StatusLagging, StatusOK}},
			// p1 has no lag: an idle partition is not stalled
			{at: 30 * time.Second, state: S, parts: []hp{{100, 200, "a"}, {200, 200, "a"}}, want: []Status{StatusStalled, StatusOK}},
			{at: 35 * time.Second, state: S, parts: []hp{{150, 200, "a"}, {200, 200, "a"}}, want: []Status{StatusOK, StatusOK}},
		}},
		{"an idle partition's first message after minutes is not STALLED at once", []hstep{
			{at: 0, state: S, parts: []hp{{100, 100, "a"}}, want: []Status{StatusOK}},
			{at: 5 * time.Minute, state: S, parts: []hp{{100, 100, "a"}}, want: []Status{StatusOK}},
			{at: 5*time.Minute + time.Second, state: S, parts: []hp{{100, 101, "a"}}, want: []Status{StatusOK}},
			{at: 5*time.Minute + 14*time.Second, state: S, parts: []hp{{100, 101, "a"}}, want: []Status{StatusOK}},
			// Written after the poll at 5m00s, it has waited 15s or less.
			{at: 5*time.Minute + 15*time.Second, state: S, parts: []hp{{100, 101, "a"}}, want: []Status{StatusLagging}},
			{at: 5*time.Minute + 30*time.Second, state: S, parts: []hp{{100, 101, "a"}}, want: []Status{StatusStalled}},
		}},
		{"unreadable offsets keep the verdict instead of flapping", []hstep{
			{at: 0, state: S, parts: []hp{{10, 50, "a"}}, want: []Status{StatusOK}},
			{at: 30 * time.Second, state: S, parts: []hp{{10, 50, "a"}}, want: []Status{StatusStalled}},
			{at: 31 * time.Second, state: S, parts: []hp{{10, NoOffset, "a"}}, want: []Status{StatusStalled}},
			{at: 32 * time.Second, state: S, parts: []hp{{10, 50, "a"}}, want: []Status{StatusStalled}},
		}},
		{"never committed but owned stalls too", []hstep{
			{at: 0, state: S, parts: []hp{{NoOffset, 50, "a"}}, want: []Status{StatusOK}},
			{at: 31 * time.Second, state: S, parts: []hp{{NoOffset, 50, "a"}}, want: []Status{StatusStalled}},
		}},
		{"lag without owner while the group has members is UNOWNED, not while rebalancing", []hstep{
			{at: 0, state: S, parts: []hp{{10, 50, ""}, {50, 50, "a"}, {50, 50, ""}}, want: []Status{StatusUnowned, StatusOK, StatusOK}},
			{at: time.Second, state: StatePreparingRebalance, parts: []hp{{10, 50, ""}, {50, 50, "a"}, {50, 50, ""}}, want: []Status{StatusOK, StatusOK, StatusOK}},
			{at: 2 * time.Second, state: S, parts: []hp{{20, 50, "b"}, {50, 50, "a"}, {50, 50, ""}}, want: []Status{StatusOK, StatusOK, StatusOK}},
		}},
		{"committed offset going back is REWOUND for one window", []hstep{
			{at: 0, state: S, parts: []hp{{500, 600, "a"}}, want: []Status{StatusOK}},
			{at: 5 * time.Second, state: S, parts: []hp{{550, 600, "a"}}, want: []Status{StatusOK}},
			{at: 10 * time.Second, state: S, parts: []hp{{200, 600, "a"}}, want: []Status{StatusRewound}},
			{at: 15 * time.Second, state: S, parts: []hp{{300, 600, "a"}}, want: []Status{StatusRewound}},
			{at: 20 * time.Second, state: S, parts: []hp{{400, 600, "a"}}, want: []Status{StatusOK}},
		}},
		{"a truncated log lowering the commit is a reset, not REWOUND", []hstep{
			{at: 0, state: S, parts: []hp{{500, 600, "a"}}, want: []Status{StatusOK}},
			{at: 5 * time.Second, state: S, parts: []hp{{10, 20, "a"}}, want: []Status{StatusOK}},
		}},
		{"Empty group with lag is STOPPED, without lag OK", []hstep{
			{at: 0, state: StateEmpty, parts: []hp{{10, 50, ""}, {50, 50, ""}}, want: []Status{StatusStopped, StatusOK}},
		}},
		{"STOPPED outranks STALLED, REWOUND outranks STALLED", []hstep{
			{at: 0, state: S, parts: []hp{{10, 50, "a"}, {10, 50, "a"}}, want: []Status{StatusOK, StatusOK}},
			{at: 40 * time.Second, state: S, parts: []hp{{10, 50, "a"}, {10, 50, "a"}}, want: []Status{StatusStalled, StatusStalled}},
			{at: 41 * time.Second, state: StateEmpty, parts: []hp{{10, 50, ""}, {5, 50, ""}}, want: []Status{StatusStopped, StatusStopped}},
			{at: 42 * time.Second, state: S, parts: []hp{{10, 50, "a"}, {5, 50, "a"}}, want: []Status{StatusStalled, StatusRewound}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, NewHistory(HistoryOptions{}), tt.steps)
		})
	}
}

// lagSeq polls every 5s with the given lags (the consumer keeps
// committing) and expects the statuses want, one per poll.
func lagSeq(lags []int64, want []Status) []hstep {
	var out []hstep
	for i, l := range lags {
		at := time.Duration(i) * 5 * time.Second
		c := 1000 + 1000*int64(i) // log end keeps growing: no reset
		out = append(out, hstep{at: at, state: StateStable, parts: []hp{{c, c + l, "a"}}, want: []Status{want[i]}})
	}
	return out
}

func TestFallingBehindAtAnyPollInterval(t *testing.T) {
	// With no lag age (no timestamp readable), a partition whose commits
	// advance slower than its log gets no verdict of its own: the group's
	// falling behind tells it, within the rates' window at any interval,
	// and holds.
	for _, every := range []time.Duration{250 * time.Millisecond, time.Second, 5 * time.Second, 15 * time.Second} {
		t.Run(every.String(), func(t *testing.T) {
			h := NewHistory(HistoryOptions{})
			first := time.Duration(-1)
			for at := time.Duration(0); at <= 2*time.Minute; at += every {
				// consumes 100/s, produces 110/s
				ms := int64(at / time.Millisecond)
				s := hsnap(at, StateStable, []hp{{ms / 10, 1000 + ms*11/100, "a"}})
				h.Annotate(&s)
				if st := s.Partitions[0].Status; st != StatusOK {
					t.Fatalf("at %v: %s with no lag age, commits advancing", at, st)
				}
				if s.FallingBehind && first < 0 {
					first = at
				}
				if first >= 0 && !s.FallingBehind {
					t.Fatalf("at %v: not falling behind after %v", at, first)
				}
			}
			if latest := max(11*time.Second, 2*every); first < 0 || first > latest {
				t.Fatalf("falling behind first at %v, want within %s", first, latest)
			}
		})
	}
}

func TestGroupStatusAndWorstPartition(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	s, _ := runSteps(t, h, []hstep{
		{at: 0, state: StateStable, parts: []hp{{0, 0, "a"}, {0, 0, "a"}}},
	})
	if s.Status != StatusOK || s.HasWorst {
		t.Fatalf("idle group: status %s, worst %v %v; want OK and no worst", s.Status, s.WorstPartition, s.HasWorst)
	}
	s, _ = runSteps(t, h, []hstep{
		{at: time.Second, state: StateStable, parts: []hp{{0, 1000, "a"}, {0, 0, "a"}, {0, 10, ""}}},
	})
	if s.Status != StatusUnowned || !s.HasWorst || s.WorstPartition.Partition != 2 {
		t.Fatalf("status %s, worst %v %v; want UNOWNED, p2 (unowned outranks more lag)", s.Status, s.WorstPartition, s.HasWorst)
	}
	s, _ = runSteps(t, h, []hstep{
		{at: 2 * time.Second, state: StateStable, parts: []hp{{0, 1000, "a"}, {0, 0, "a"}, {10, 10, ""}}},
	})
	if s.Status != StatusOK || s.HasWorst || !s.Partitions[0].InFlight {
		t.Fatalf("status %s, worst %v %v, p0 in flight %v; want OK, no worst: p0's lag has waited 2s",
			s.Status, s.WorstPartition, s.HasWorst, s.Partitions[0].InFlight)
	}
	for at := 3 * time.Second; at <= 7*time.Second; at += time.Second {
		s, _ = runSteps(t, h, []hstep{
			{at: at, state: StateStable, parts: []hp{{0, 1000, "a"}, {0, 1, "a"}, {10, 10, ""}}},
		})
	}
	// No commit seen in 7s, but none was ever seen: how often this
	// consumer commits is unknown, so not yet LAGGING; the worst all
	// the same.
	if s.Status != StatusOK || !s.HasWorst || s.WorstPartition.Partition != 0 {
		t.Fatalf("status %s, worst %v %v; want OK, p0 (lag waiting 7s)", s.Status, s.WorstPartition, s.HasWorst)
	}
}

// On a healthy group, one message in flight here or there, at an age
// under a second, names no worst partition and does not reorder the rows
// sorted by lag or by lag age.
func TestLagInFlightIsNotWorstNorReorders(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	for k := int64(0); k <= 30; k++ {
		// one of three partitions, in turn, has a message in flight
		parts := []hp{{5 * k, 5 * k, "a"}, {5 * k, 5 * k, "b"}, {5 * k, 5 * k, "b"}}
		parts[k%3].committed--
		s := hsnap(time.Duration(k)*time.Second, StateStable, parts)
		s.Partitions[k%3].LagAge, s.Partitions[k%3].LagAgeKnown = 300*time.Millisecond, true
		h.Annotate(&s)
		if s.Status != StatusOK || s.HasWorst {
			t.Fatalf("at %ds: status %s, worst %v %v; want OK, no worst", k, s.Status, s.WorstPartition, s.HasWorst)
		}
		for _, m := range s.Members {
			if m.InFlight != (m.Lag > 0) {
				t.Fatalf("at %ds: member %s lag %d in flight %v; want its lag in flight", k, m.ClientID, m.Lag, m.InFlight)
			}
		}
		for _, key := range []SortKey{SortByLag, SortByLagAge} {
			rows := ptrs(append([]PartitionLag(nil), s.Partitions...))
			SortPartitions(rows, key)
			for i := range rows {
				if rows[i].Partition != int32(i) {
					t.Fatalf("at %ds: sorted by %s, row %d is p%d; want partition order", k, key, i, rows[i].Partition)
				}
			}
		}
	}
}

func TestWorstPartitionPrefersOlderLag(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	s := hsnap(0, StateStable, []hp{{0, 5000, "a"}, {0, 20, "a"}, {0, 900, "a"}})
	// p0: most lag, a minute old; p1: little lag but 30 minutes old; p2: age unknown
	s.Partitions[0].LagAge, s.Partitions[0].LagAgeKnown = time.Minute, true
	s.Partitions[1].LagAge, s.Partitions[1].LagAgeKnown = 30*time.Minute, true
	h.Annotate(&s)
	if !s.HasWorst || s.WorstPartition.Partition != 1 {
		t.Fatalf("worst %v %v, want p1 (oldest waiting message)", s.WorstPartition, s.HasWorst)
	}
}

func TestRatesAndETA(t *testing.T) {
	h := NewHistory(HistoryOptions{Window: 10 * time.Second})
	type check struct {
		consume, produce float64 // -1 = unknown
		eta              float64 // seconds, -1 = not catching up
		falling          bool
		status           Status
		// group rates when they differ from the partition's: its sums
		// go on across a truncated log or a rewound commit.
		group *[2]float64
	}
	steps := []struct {
		at    time.Duration
		c, e  int64
		check *check
	}{}
	add := func(at time.Duration, c, e int64, ck *check) {
		steps = append(steps, struct {
			at    time.Duration
			c, e  int64
			check *check
		}{at, c, e, ck})
	}
	// 0..12s: consumes 150/s, produces 100/s, lag 6000 − 50t.
	for s := int64(0); s <= 12; s++ {
		var ck *check
		switch s {
		case 0, 4: // less than half a window of history
			ck = &check{consume: -1, produce: -1, eta: -1, status: StatusOK}
		case 5:
			ck = &check{consume: 150, produce: 100, eta: 5750.0 / 50, status: StatusOK}
		case 12:
			ck = &check{consume: 150, produce: 100, eta: 5400.0 / 50, status: StatusOK}
		}
		add(time.Duration(s)*time.Second, 4000+150*s, 10000+100*s, ck)
	}
	// 13s: the topic is recreated, log end falls to 200 and the commit is
	// now beyond it (lag 0). Rates restart instead of going negative.
	// The group's sums count the commit's 150 and no production.
	add(13*time.Second, 5950, 200, &check{consume: -1, produce: -1, eta: -1, status: StatusOK, group: &[2]float64{150, 90}})
	// 14..25s: the consumer resets to 0 and the producer writes 300/s: a
	// rewind (REWOUND), then falling behind at 100/s consumed. The group's
	// rates mix before and after the rewind for a window: no verdict while
	// REWOUND lasts.
	add(14*time.Second, 0, 500, &check{consume: -1, produce: -1, eta: -1, status: StatusRewound, group: &[2]float64{135, 110}})
	for s := int64(15); s <= 25; s++ {
		var ck *check
		switch s {
		case 18:
			ck = &check{consume: -1, produce: -1, eta: -1, status: StatusRewound, group: &[2]float64{115, 190}}
		case 19: // 5s since the rewind restarted the window
			ck = &check{consume: 100, produce: 300, eta: -1, status: StatusRewound, group: &[2]float64{110, 210}}
		case 25: // lag growing 200/s while commits advance: falling
			// behind (no lag age here, so no partition verdict)
			ck = &check{consume: 100, produce: 300, eta: -1, falling: true, status: StatusOK}
		}
		add(time.Duration(s)*time.Second, 100*(s-14), 500+300*(s-14), ck)
	}
	for _, st := range steps {
		s := hsnap(st.at, StateStable, []hp{{st.c, st.e, "a"}})
		h.Annotate(&s)
		p := s.Partitions[0]
		for _, r := range []Rate{p.ConsumeRate, p.ProduceRate, s.ConsumeRate, s.ProduceRate} {
			if math.IsNaN(r.PerSec) || math.IsInf(r.PerSec, 0) || r.PerSec < 0 || (!r.Known && r.PerSec != 0) {
				t.Fatalf("at %v: bad rate %+v", st.at, r)
			}
		}
		if s.ETAKnown && s.ETA <= 0 {
			t.Fatalf("at %v: ETA %v known but not positive", st.at, s.ETA)
		}
		if st.check == nil {
			continue
		}
		ck := st.check
		rateIs := func(what string, r Rate, want float64) {
			t.Helper()
			if want < 0 {
				if r.Known {
					t.Errorf("at %v: %s = %.3f, want unknown", st.at, what, r.PerSec)
				}
				return
			}
			if !r.Known || math.Abs(r.PerSec-want) > 1e-9 {
				t.Errorf("at %v: %s = %+v, want %.3f", st.at, what, r, want)
			}
		}
		rateIs("partition consume", p.ConsumeRate, ck.consume)
		rateIs("partition produce", p.ProduceRate, ck.produce)
		gc, gp := ck.consume, ck.produce
		if ck.group != nil {
			gc, gp = ck.group[0], ck.group[1]
		}
		rateIs("group consume", s.ConsumeRate, gc)
		rateIs("group produce", s.ProduceRate, gp)
		if ck.eta < 0 {
			if s.ETAKnown {
				t.Errorf("at %v: ETA %v, want none", st.at, s.ETA)
			}
		} else if !s.ETAKnown || math.Abs(s.ETA.Seconds()-ck.eta) > 1e-6 {
			t.Errorf("at %v: ETA %v (known %v), want %.3fs", st.at, s.ETA, s.ETAKnown, ck.eta)
		}
		if s.FallingBehind != ck.falling {
			t.Errorf("at %v: FallingBehind = %v, want %v", st.at, s.FallingBehind, ck.falling)
		}
		if p.Status != ck.status {
			t.Errorf("at %v: status %s, want %s", st.at, p.Status, ck.status)
		}
	}
}

func TestNoETAWhileSomeLagCannotDrain(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	var s Snapshot
	for i := int64(0); i <= 40; i++ {
		// p0 drains at 50/s net; p1 holds 10 messages and never commits.
		s = hsnap(time.Duration(i)*time.Second, StateStable, []hp{{1000 + 100*i, 5000 + 50*i, "a"}, {0, 10, "b"}})
		h.Annotate(&s)
		if i == 29 && (!s.ETAKnown || s.ETA != time.Duration(float64(4000-50*29+10)/50*float64(time.Second))) {
			t.Fatalf("at 29s: ETA %v known %v, want %.1fs", s.ETA, s.ETAKnown, float64(4000-50*29+10)/50)
		}
	}
	if s.Partitions[1].Status != StatusStalled || s.ETAKnown {
		t.Fatalf("p1 %s, ETA %v known %v; want STALLED and no ETA", s.Partitions[1].Status, s.ETA, s.ETAKnown)
	}
}

func TestUnreadableCommitKeepsTheStallClock(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	s := hsnap(0, StateStable, []hp{{10, 50, "a"}})
	h.Annotate(&s)
	s = hsnap(20*time.Second, StateStable, []hp{{NoOffset, 50, "a"}})
	s.Partitions[0].Err = "offset fetch: COORDINATOR_LOAD_IN_PROGRESS"
	h.Annotate(&s)
	s = hsnap(30*time.Second, StateStable, []hp{{10, 50, "a"}})
	h.Annotate(&s)
	if p := s.Partitions[0]; p.Status != StatusStalled || !p.StalledSince.Equal(ht0) {
		t.Fatalf("status %s since %v; a failed commit read must not restart the stall clock", p.Status, p.StalledSince)
	}
}

func TestGroupRatesSumPartitionsAndMembers(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	var s Snapshot
	for i := int64(0); i <= 10; i++ {
		s = hsnap(time.Duration(i)*time.Second, StateStable, []hp{{10 * i, 20 * i, "a"}, {30 * i, 30 * i, "b"}, {5 * i, 5 * i, "b"}})
		h.Annotate(&s)
	}
	if s.ConsumeRate != (Rate{PerSec: 45, Known: true}) || s.ProduceRate != (Rate{PerSec: 55, Known: true}) {
		t.Fatalf("group rates %+v %+v, want 45 and 55", s.ConsumeRate, s.ProduceRate)
	}
	got := map[string]Rate{}
	for _, m := range s.Members {
		got[m.ClientID] = m.ConsumeRate
	}
	if got["a"] != (Rate{PerSec: 10, Known: true}) || got["b"] != (Rate{PerSec: 35, Known: true}) {
		t.Fatalf("member rates %v, want a 10, b 35", got)
	}
}

func TestStalledSince(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	steps := []hstep{
		{at: 0, state: StateStable, parts: []hp{{10, 100, "a"}}},
		{at: 5 * time.Second, state: StateStable, parts: []hp{{20, 100, "a"}}},
		{at: 50 * time.Second, state: StateStable, parts: []hp{{20, 100, "a"}}, want: []Status{StatusStalled}},
	}
	s, _ := runSteps(t, h, steps)
	p := s.Partitions[0]
	if !p.CommitMovedAt.Equal(ht0.Add(5*time.Second)) || !p.CommitMoveSeen {
		t.Fatalf("CommitMovedAt %v seen %v, want %v seen", p.CommitMovedAt, p.CommitMoveSeen, ht0.Add(5*time.Second))
	}
	if !p.StalledSince.Equal(ht0.Add(5*time.Second)) || !p.StalledSinceExact {
		t.Fatalf("StalledSince %v exact %v, want %v exact", p.StalledSince, p.StalledSinceExact, ht0.Add(5*time.Second))
	}
	b, err := MarshalJSONSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"stalled_since": "2026-11-29T14:02:16Z"`) {
		t.Fatalf("JSON lacks stalled_since:\n%s", b)
	}
}

func TestStatusChangedEvents(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	var steps []hstep
	// Two partitions stuck at the same commit: LAGGING together at 15s
	// (no commit seen: the first allowance), STALLED at 30s, nothing more
	// until both move at 60s.
	for at := time.Duration(0); at <= 70*time.Second; at += time.Second {
		c := int64(10)
		if at >= 60*time.Second {
			c = 100
		}
		steps = append(steps, hstep{at: at, state: StateStable, parts: []hp{{c, 100, "a"}, {c, 100, "b"}, {100, 100, "b"}}})
	}
	_, evs := runSteps(t, h, steps)
	var got []Event
	for i, e := range evs {
		for _, ev := range e {
			if ev.Type != EventStatusChanged || ev.Group != "order-workers" || !ev.Time.Equal(ht0.Add(steps[i].at)) {
				t.Errorf("event %+v at step %v", ev, steps[i].at)
			}
			got = append(got, ev)
		}
	}
	if len(got) != 3 {
		t.Fatalf("got %d events, want 3 (lagging, stalled, recovered): %+v", len(got), got)
	}
	if got[0].State != "LAGGING" || len(got[0].Partitions) != 2 || !got[0].Time.Equal(ht0.Add(15*time.Second)) ||
		got[0].Detail != "p0, p1 LAGGING: no commit for 15s with records waiting" {
		t.Errorf("first event %+v", got[0])
	}
	if got[1].State != "STALLED" || len(got[1].Partitions) != 2 || !got[1].Time.Equal(ht0.Add(30*time.Second)) ||
		got[1].Detail != "p0, p1 STALLED: committed offsets unchanged for 30s or more" {
		t.Errorf("second event %+v", got[1])
	}
	if got[2].State != "OK" || len(got[2].Partitions) != 2 || !got[2].Time.Equal(ht0.Add(60*time.Second)) {
		t.Errorf("third event %+v", got[2])
	}
}

func TestStatusChangedDetail(t *testing.T) {
	tests := []struct {
		name   string
		steps  []hstep
		detail string
	}{
		{"lagging, commits stopped", every(time.Second, 6*time.Second, StateStable, func(at time.Duration) []hp {
			// Commits every second until 3s, then none; 10 a second
			// written: 3s without a commit is past its allowance.
			return []hp{{10 * min(secs(at), 3), 40 + 10*secs(at), "a"}}
		}), "p0 LAGGING: no commit for 3.0s (commits every 1.0s), lag 70"},
		{"stalled", []hstep{
			{at: 0, state: StateStable, parts: []hp{{40, 100, "a"}}},
			{at: 45 * time.Second, state: StateStable, parts: []hp{{40, 100, "a"}}},
		}, "p0 STALLED: committed offset 40 unchanged for 45s, lag 60"},
		{"rewound", []hstep{
			{at: 0, state: StateStable, parts: []hp{{40, 100, "a"}}},
			{at: time.Second, state: StateStable, parts: []hp{{7, 100, "a"}}},
		}, "p0 REWOUND: committed offset went back 40 → 7"},
		{"stopped on first sight", []hstep{
			{at: 0, state: StateEmpty, parts: []hp{{40, 100, ""}}},
		}, "p0 STOPPED: group has no active members, lag 60"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, evs := runSteps(t, NewHistory(HistoryOptions{}), tt.steps)
			last := evs[len(evs)-1]
			if len(last) != 1 || last[0].Detail != tt.detail {
				t.Fatalf("events %+v, want one with detail %q", last, tt.detail)
			}
			for _, e := range evs[:len(evs)-1] {
				if len(e) != 0 {
					t.Fatalf("early events %+v", e)
				}
			}
		})
	}
}

func TestSparkline(t *testing.T) {
	h := NewHistory(HistoryOptions{SparkPoints: 3, SparkEvery: 5 * time.Second})
	var s Snapshot
	for i := int64(0); i <= 22; i++ {
		s = hsnap(time.Duration(i)*time.Second, StateStable, []hp{{0, i, "a"}})
		h.Annotate(&s)
		if i == 2 && !equalInts(s.TotalLagHistory, []int64{2}) {
			t.Fatalf("at 2s: %v", s.TotalLagHistory)
		}
	}
	// buckets start at 0, 5, 10, 15, 20; the last three hold 14, 19, 22.
	if !equalInts(s.TotalLagHistory, []int64{14, 19, 22}) {
		t.Fatalf("TotalLagHistory = %v, want [14 19 22]", s.TotalLagHistory)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHistoryForgetsPartitionsAndRestartsOnTimeTravel(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	s := hsnap(0, StateStable, []hp{{0, 10, "a"}, {0, 10, "a"}, {0, 10, "a"}})
	h.Annotate(&s)
	s = hsnap(40*time.Second, StateStable, []hp{{0, 10, "a"}})
	h.Annotate(&s)
	if len(h.states) != 1 || len(h.keys) != 1 {
		t.Fatalf("history tracks %d partitions, want 1", len(h.states))
	}
	if s.Partitions[0].Status != StatusStalled {
		t.Fatalf("p0 lost its history across the resize: %s", s.Partitions[0].Status)
	}
	s = hsnap(10*time.Second, StateStable, []hp{{0, 10, "a"}})
	h.Annotate(&s)
	if s.Partitions[0].Status != StatusOK {
		t.Fatalf("after the clock went back: %s, want a fresh start (OK)", s.Partitions[0].Status)
	}
}

func TestStatusGlyphs(t *testing.T) {
	seen := map[string]bool{}
	for i, s := range Statuses() {
		g := s.Glyph()
		if len([]rune(g)) != 1 || seen[g] {
			t.Errorf("%s glyph %q: want one distinct rune", s, g)
		}
		seen[g] = true
		if s.Severity() != i+1 {
			t.Errorf("%s severity %d, want %d", s, s.Severity(), i+1)
		}
		if s.Label() != g+" "+string(s) {
			t.Errorf("label %q", s.Label())
		}
	}
	if !StatusStopped.Worse(StatusStalled) || !StatusStalled.Worse(StatusLagging) || StatusOK.Worse(StatusOK) {
		t.Error("Worse does not order STOPPED > STALLED > LAGGING, or OK is worse than itself")
	}
}

func TestJSONStatusesAndRates(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	var s Snapshot
	for i := int64(0); i <= 10; i++ {
		s = hsnap(time.Duration(i)*time.Second, StateStable, []hp{{1000 + 20*i, 2000 + 10*i, "a"}, {0, 50, ""}})
		h.Annotate(&s)
	}
	b, err := MarshalJSONSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Status         *string         `json:"status"`
		ConsumeRate    *float64        `json:"consume_rate"`
		ProduceRate    *float64        `json:"produce_rate"`
		ETASeconds     *float64        `json:"eta_seconds"`
		MaxLag         int64           `json:"max_lag"`
		WorstPartition *TopicPartition `json:"worst_partition"`
		Partitions     []map[string]any
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// p0: lag 900, draining at 10/s; p1: 50 unowned.
	if got.Status == nil || *got.Status != "UNOWNED" || got.MaxLag != 900 || got.WorstPartition == nil || got.WorstPartition.Partition != 1 {
		t.Errorf("group: %s", b)
	}
	if got.ConsumeRate == nil || *got.ConsumeRate != 20 || got.ProduceRate == nil || *got.ProduceRate != 10 {
		t.Errorf("group rates: %s", b)
	}
	if got.ETASeconds != nil {
		t.Errorf("eta_seconds with an unowned partition's lag undrained: %s", b)
	}
	p0 := got.Partitions[0]
	if p0["status"] != "OK" || p0["consume_rate"] != 20.0 || p0["produce_rate"] != 10.0 {
		t.Errorf("p0: %v", p0)
	}
	p1 := got.Partitions[1]
	if p1["status"] != "UNOWNED" || p1["consume_rate"] != 0.0 || p1["produce_rate"] != 0.0 {
		t.Errorf("p1: %v", p1)
	}

	// Only p0: draining 900 at a net 10/s.
	h = NewHistory(HistoryOptions{})
	for i := int64(0); i <= 10; i++ {
		s = hsnap(time.Duration(i)*time.Second, StateStable, []hp{{1000 + 20*i, 2000 + 10*i, "a"}})
		h.Annotate(&s)
	}
	if j := s.ToJSON(); j.ETASeconds == nil || *j.ETASeconds != 90 || j.FallingBehind == nil || *j.FallingBehind {
		t.Errorf("eta_seconds %v falling %v, want 90 and false", j.ETASeconds, j.FallingBehind)
	}

	// Not annotated, or not enough history: nulls, never zeros.
	for _, s := range []Snapshot{hsnap(0, StateStable, []hp{{1, 10, "a"}}), func() Snapshot {
		s := hsnap(0, StateStable, []hp{{1, 10, "a"}})
		NewHistory(HistoryOptions{}).Annotate(&s)
		return s
	}()} {
		b, err := MarshalJSONSnapshot(s)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"consume_rate", "produce_rate", "eta_seconds", "falling_behind"} {
			if v, ok := m[k]; !ok || v != nil {
				t.Errorf("%s = %v (present %v), want null", k, v, ok)
			}
		}
		p := m["partitions"].([]any)[0].(map[string]any)
		for _, k := range []string{"consume_rate", "produce_rate"} {
			if v, ok := p[k]; !ok || v != nil {
				t.Errorf("partition %s = %v (present %v), want null", k, v, ok)
			}
		}
	}
}

// A group whose partitions show up one by one (consumers joining, each
// partition listed once it is owned or committed) must not read as slower
// than it is: the group rate is unknown until most partitions have been
// watched long enough, then right.
func TestGroupRatesWhilePartitionsAppear(t *testing.T) {
	h := NewHistory(HistoryOptions{Window: 10 * time.Second})
	const n = 40
	known := false
	for at := time.Duration(0); at <= 30*time.Second; at += time.Second {
		// partition i is first listed at i×150ms; each produces 100/s and
		// consumes 50/s.
		var parts []hp
		for i := 0; i < n && time.Duration(i)*150*time.Millisecond <= at; i++ {
			ms := int64(at / time.Millisecond)
			parts = append(parts, hp{ms / 20, 1000 + ms/10, "a"})
		}
		s := hsnap(at, StateStable, parts)
		h.Annotate(&s)
		want := 100 * float64(len(parts))
		for _, r := range []struct {
			what string
			r    Rate
			want float64
		}{{"produce", s.ProduceRate, want}, {"consume", s.ConsumeRate, want / 2}} {
			if r.r.Known && (r.r.PerSec < 0.9*r.want-0.5 || r.r.PerSec > r.want+0.5) {
				t.Fatalf("at %v (%d partitions): group %s %.1f/s, want about %.1f/s or unknown", at, len(parts), r.what, r.r.PerSec, r.want)
			}
		}
		known = known || s.ProduceRate.Known
		if at >= 15*time.Second && (!s.ProduceRate.Known || !s.ConsumeRate.Known) {
			t.Fatalf("at %v: group rates %+v %+v still unknown", at, s.ConsumeRate, s.ProduceRate)
		}
	}
}

// A consumer keeping up with a 5/s producer, one message in flight now and
// then, reads 4.8 vs 4.9/s one second and 5.0 vs 4.9/s the next: neither
// falling behind nor an ETA. Slowed to 0.5/s it falls behind within a
// window and stays so, every poll.
func TestFallingBehindNeedsARealSustainedShortfall(t *testing.T) {
	h := NewHistory(HistoryOptions{Window: 10 * time.Second})
	var c int64
	for k := int64(0); k <= 120; k++ {
		end := 5*k + k%3/2
		if k <= 60 {
			c = end - k%2
		} else if k%2 == 0 {
			c++
		}
		s := hsnap(time.Duration(k)*time.Second, StateStable, []hp{{c, end, "a"}, {5 * k, 5 * k, "b"}})
		h.Annotate(&s)
		switch {
		case k <= 60 && (s.FallingBehind || s.ETAKnown):
			t.Fatalf("at %ds keeping up (lag %d, consume %.2f vs produce %.2f): falling %v, ETA %v %v",
				k, s.TotalLag, s.ConsumeRate.PerSec, s.ProduceRate.PerSec, s.FallingBehind, s.ETA, s.ETAKnown)
		case k >= 72 && !s.FallingBehind:
			t.Fatalf("at %ds slowed (lag %d, consume %.2f vs produce %.2f): not falling behind",
				k, s.TotalLag, s.ConsumeRate.PerSec, s.ProduceRate.PerSec)
		}
	}
}

// A member whose commits stop (killed, or hung on a message) reads a
// consume rate that falls to 0 within the window, poll by poll, not the
// rate it had: member rates come from the same window as partitions'.
func TestMemberRateFallsWhenCommitsStop(t *testing.T) {
	h := NewHistory(HistoryOptions{Window: 10 * time.Second})
	var c int64
	last := math.Inf(1)
	for k := int64(0); k <= 40; k++ {
		if k <= 20 {
			c = 4 * k
		}
		s := hsnap(time.Duration(k)*time.Second, StateStable, []hp{{c, 4 * k, "a"}, {4 * k, 4 * k, "b"}})
		h.Annotate(&s)
		r := s.Members[0].ConsumeRate
		switch {
		case k == 20 && (!r.Known || r.PerSec != 4):
			t.Fatalf("at %ds: member a consume %+v, want 4/s", k, r)
		case k > 20 && (!r.Known || r.PerSec >= last && r.PerSec > 0):
			t.Fatalf("at %ds, %ds after its last commit: member a consume %+v, was %.2f; want it falling", k, k-20, r, last)
		case k >= 31 && r.PerSec != 0:
			t.Fatalf("at %ds, %ds after its last commit: member a consume %+v, want 0", k, k-20, r)
		}
		last = r.PerSec
	}
}

// A transactional topic's consumer commits the offset of the commit
// marker, which is never consumed: log-end − committed stays 1. That lag
// is counted, as Kafka's tools count it, but it is OK, 0 old, never
// STALLED and never the worst partition.
func TestTransactionMarkerLagIsNotWork(t *testing.T) {
	h := NewHistory(HistoryOptions{StallAfter: 10 * time.Second})
	var s Snapshot
	for k := 0; k <= 40; k++ {
		s = hsnap(time.Duration(k)*time.Second, StateStable, []hp{{100, 101, "a"}, {50, 50, "a"}})
		s.Partitions[0].LagMarkersOnly = true
		s.Partitions[0].LagAge, s.Partitions[0].LagAgeKnown = 0, true
		h.Annotate(&s)
	}
	p := s.Partitions[0]
	if p.Lag != 1 || p.Status != StatusOK || s.Status != StatusOK || s.HasWorst || !p.StalledSince.IsZero() {
		t.Fatalf("lag %d status %s (group %s), worst %v %v, stalled since %v; want lag 1, OK, no worst, not stalling",
			p.Lag, p.Status, s.Status, s.WorstPartition, s.HasWorst, p.StalledSince)
	}
}

func TestNewSnapshotMarkerOnlyLag(t *testing.T) {
	tp0 := TopicPartition{Topic: "orders", Partition: 0}
	s := NewSnapshot(Observation{
		TakenAt: ht0,
		Group:   Group{ID: "g", State: StateStable},
	}.With(Readings{
		Committed:        map[TopicPartition]int64{tp0: 100},
		Offsets:          map[TopicPartition]PartitionOffsets{tp0: {LogStart: 0, LogEnd: 101}},
		OldestMarkerOnly: map[TopicPartition]bool{tp0: true},
	}))
	p := s.Partitions[0]
	if p.Lag != 1 || !p.LagMarkersOnly || !p.LagAgeKnown || p.LagAge != 0 || !s.MaxLagAgeKnown {
		t.Fatalf("lag %d markers %v age %v known %v; want lag 1, markers only, age 0 known", p.Lag, p.LagMarkersOnly, p.LagAge, p.LagAgeKnown)
	}
}

// The STALLED reason writes --stall-after as the flag is written: "2m",
// not Go's "2m0s".
func TestStalledReasonSaysTheSetting(t *testing.T) {
	h := NewHistory(HistoryOptions{StallAfter: 2 * time.Minute})
	if got := h.reason(StatusStalled); got != "committed offsets unchanged for 2m or more" {
		t.Errorf("reason %q", got)
	}
}

// History keeps each partition's state in a slice aligned with the
// snapshot's rows, re-aligned when the set of partitions changes, and
// finds a row's owner by where it was last found. Partitions that come
// and go between polls (inserted among the others in sort order), owners
// that change and members listed in another order must not give one
// partition's history, or one member's rate, to another: every partition
// here consumes at its own rate, never going back.
func TestStatesFollowTheirPartitionsAsTheSetChanges(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	names := []string{"m0", "m1", "m2"}
	for n := range 40 {
		at := time.Duration(n) * time.Second
		o := Observation{
			TakenAt: ht0.Add(at),
			Group:   Group{ID: "order-workers", State: StateStable},
		}
		for i := range names {
			if n%2 == 1 {
				i = len(names) - 1 - i // listed the other way round
			}
			o.Members = append(o.Members, Member{MemberID: names[i] + "-id", ClientID: names[i]})
		}
		for k := range 20 {
			if k%2 == 1 && (n/3+k/2)%2 == 0 {
				continue // the odd partitions come and go every 3 polls
			}
			tp := TopicPartition{Topic: "orders", Partition: int32(k)}
			c := int64(1000*k) + int64(k+1)*int64(n)
			o.SetCommitted(tp, c)
			o.SetOffsets(tp, PartitionOffsets{LogEnd: c + 5})
			owner := (k + n/7) % 3 // owners move every 7 polls
			for j := range o.Members {
				if o.Members[j].ClientID == names[owner] {
					o.Members[j].Partitions = append(o.Members[j].Partitions, tp)
				}
			}
		}
		s := NewSnapshot(o)
		h.Annotate(&s)
		sums := map[string]float64{}
		for _, p := range s.Partitions {
			k := p.Partition
			if p.Status == StatusRewound {
				t.Fatalf("poll %d: p%d REWOUND: it was given another partition's history", n, k)
			}
			want := float64(k + 1)
			if r := p.ConsumeRate; r.Known && !r.Stale && r.PerSec != want {
				t.Fatalf("poll %d: p%d consumes %v/s, want its own %v/s", n, k, r.PerSec, want)
			}
			if k%2 == 0 && n >= 10 && !p.ConsumeRate.Known {
				t.Fatalf("poll %d: p%d, present at every poll, has no rate", n, k)
			}
			if p.ConsumeRate.Known {
				sums[p.ClientID] += p.ConsumeRate.PerSec
			}
		}
		for _, m := range s.Members {
			if m.ConsumeRate.PerSec != sums[m.ClientID] {
				t.Fatalf("poll %d: %s consumes %v/s, want its partitions' %v/s", n, m.ClientID, m.ConsumeRate.PerSec, sums[m.ClientID])
			}
		}
	}
}
