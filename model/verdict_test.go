package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// produced is a partition written at rate records a second from t=0: the
// record at offset o was written at o/rate seconds.
type produced struct{ rate float64 }

func (p produced) end(at time.Duration) int64 { return int64(p.rate * at.Seconds()) }

func (p produced) writtenAt(offset int64) time.Time {
	return ht0.Add(time.Duration(float64(offset) / p.rate * float64(time.Second)))
}

// agedSnap is one partition at poll time at: committed c, log end from the
// producer, and the age of the oldest unprocessed record known, as the
// watcher reads it.
func agedSnap(at time.Duration, p produced, c int64) Snapshot {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	o := Observation{
		TakenAt: ht0.Add(at),
		Group:   Group{ID: "g", State: StateStable},
		Members: []Member{{MemberID: "m", ClientID: "consumer-a", Partitions: []TopicPartition{tp}}},
	}.With(Readings{
		Committed:       map[TopicPartition]int64{tp: c},
		Offsets:         map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: p.end(at)}},
		OldestTimestamp: map[TopicPartition]time.Time{},
	})
	if c < p.end(at) {
		o.SetOldestTimestamp(tp, p.writtenAt(c))
	}
	return NewSnapshot(o)
}

// A partition written 1,000/s and consumed 30/s turns non-OK within 5s
// of falling behind, polled every second.
func TestFallingBehindFlagsWithinSeconds(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	p := produced{rate: 1000}
	// Caught up for a minute, then the consumer slows to 30/s at 60s.
	var flagged time.Duration = -1
	var c int64
	for at := time.Duration(0); at <= 70*time.Second; at += time.Second {
		if at <= 60*time.Second {
			c = p.end(at)
		} else {
			c += 30
		}
		s := agedSnap(at, p, c)
		h.Annotate(&s)
		st := s.Partitions[0].Status
		if at <= 60*time.Second && st != StatusOK {
			t.Fatalf("at %s, caught up: %s", at, st)
		}
		if at > 60*time.Second && st != StatusOK && flagged < 0 {
			flagged = at - 60*time.Second
		}
	}
	if flagged < 0 || flagged > 5*time.Second {
		t.Fatalf("1,000/s produced against 30/s consumed flagged after %s, want within 5s", flagged)
	}
}

// A consumer that keeps up with 1,000/s, committing every few hundred
// milliseconds with jitter in what each poll sees, stays OK over five
// minutes of polls; and so do ones that commit every 5s (the Java
// client's auto-commit) or 8s, whose lag is a sawtooth of 5,000 or 8,000:
// their commits stop for longer than the short window, but no longer than
// they always do.
func TestKeepingUpNeverFlaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name        string
		commitEvery time.Duration
	}{
		{"commits every 200ms", 200 * time.Millisecond},
		{"auto-commit every 5s", 5 * time.Second},
		{"commits every 8s (a batch consumer)", 8 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistory(HistoryOptions{})
			p := produced{rate: 1000}
			at := time.Duration(0)
			for at < 5*time.Minute {
				// Polls every ~1s, ±300ms.
				at += 700*time.Millisecond + time.Duration(rng.IntN(600))*time.Millisecond
				// The last commit: processed up to a moment 0–300ms before
				// the commit, at the last multiple of commitEvery.
				commitAt := at.Truncate(tt.commitEvery)
				n := int64(commitAt / tt.commitEvery)
				c := p.end(commitAt - time.Duration(n*7919%300)*time.Millisecond)
				s := agedSnap(at, p, max(c, 0))
				h.Annotate(&s)
				if st := s.Partitions[0].Status; st != StatusOK {
					t.Fatalf("at %s: %s (lag %d, age %s) for a consumer keeping up", at, st, s.Partitions[0].Lag, s.Partitions[0].LagAge)
				}
			}
		})
	}
}

// After its consumer dies (no more commits), a partition whose records
// keep coming turns non-OK well before a 10s session timeout ends, with
// the lag age known or not.
func TestDeadMemberFlagsBeforeSessionTimeout(t *testing.T) {
	for _, ages := range []bool{true, false} {
		h := NewHistory(HistoryOptions{})
		p := produced{rate: 5} // the demo's producer, on one partition
		var flagged time.Duration = -1
		var c int64
		for at := time.Duration(0); at <= 40*time.Second; at += time.Second {
			if at <= 20*time.Second {
				c = p.end(at) // alive: processes each order as it comes
			}
			s := agedSnap(at, p, c)
			if !ages {
				s = hsnap(at, StateStable, []hp{{c, p.end(at), "consumer-a"}})
			}
			h.Annotate(&s)
			if st := s.Partitions[0].Status; at > 20*time.Second && st != StatusOK && flagged < 0 {
				flagged = at - 20*time.Second
			}
		}
		if flagged < 0 || flagged >= 10*time.Second {
			t.Errorf("ages known %v: a dead member's partition flagged %s after the death, want well before the 10s session timeout", ages, flagged)
		}
	}
}

// Watched from just before a commit, a consumer that keeps up committing
// every 5s (auto-commit) stays OK: the first gap, from first sight to the
// first commit, says nothing of how often it commits.
func TestKeepingUpWatchedFromJustBeforeACommit(t *testing.T) {
	for _, start := range []time.Duration{4500 * time.Millisecond, 4900 * time.Millisecond, 2 * time.Second} {
		h := NewHistory(HistoryOptions{})
		p := produced{rate: 1000}
		for at := start; at < start+2*time.Minute; at += time.Second {
			c := p.end(at.Truncate(5 * time.Second))
			s := agedSnap(at, p, c)
			h.Annotate(&s)
			if st := s.Partitions[0].Status; st != StatusOK {
				t.Fatalf("watched from %s: at %s %s (lag %d, age %s) for a consumer keeping up", start, at, st, s.Partitions[0].Lag, s.Partitions[0].LagAge)
			}
		}
	}
}

// A partition that truly falls behind (333/s produced, 290/s consumed, as
// the demo's slowed consumer does) while committing in irregular batches
// (every 0.3-2.5s: the lag zigzags by hundreds) is flagged within seconds
// and stays flagged: the sawtooth does not flap it back to OK.
func TestFallingBehindHoldsWithBatchedCommits(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 4))
		h := NewHistory(HistoryOptions{})
		p := produced{rate: 333}
		var c float64
		nextCommit := time.Duration(0)
		var changes int
		prev := StatusOK
		flaggedAt := time.Duration(-1)
		const slows = 20 * time.Second
		for at := time.Duration(0); at < 90*time.Second; at += 900*time.Millisecond + time.Duration(rng.IntN(200))*time.Millisecond {
			processed := float64(p.end(at))
			if at > slows {
				processed = float64(p.end(slows)) + 290*(at-slows).Seconds()
			}
			if at >= nextCommit {
				c = processed
				nextCommit = at + time.Duration(300+rng.IntN(2200))*time.Millisecond
			}
			s := agedSnap(at, p, int64(c))
			h.Annotate(&s)
			st := s.Partitions[0].Status
			if at <= slows && st != StatusOK {
				t.Fatalf("seed %d: at %s, keeping up: %s", seed, at, st)
			}
			if st != prev {
				changes++
				prev = st
				if st != StatusOK && flaggedAt < 0 {
					flaggedAt = at
				}
			}
		}
		if flaggedAt < 0 || flaggedAt > slows+20*time.Second {
			t.Errorf("seed %d: flagged at %s; want within 20s of falling behind at %s", seed, flaggedAt, slows)
		}
		if changes != 1 {
			t.Errorf("seed %d: status changed %d times (first flagged at %s); want once: flagged, then held", seed, changes, flaggedAt)
		}
	}
}

// A flagged partition whose consumer catches up (600/s against 333/s, then
// keeping up) returns to OK once it has, and stays OK.
func TestFlaggedPartitionRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	h := NewHistory(HistoryOptions{})
	p := produced{rate: 333}
	var c, processed float64
	nextCommit := time.Duration(0)
	caughtUp := time.Duration(-1)
	var last Status
	step := time.Second
	for at := time.Duration(0); at < 150*time.Second; at += step {
		switch {
		case at < 10*time.Second:
			processed = float64(p.end(at))
		case at < 30*time.Second:
			processed += 100 * step.Seconds() // falling behind: 100/s
		default:
			processed = min(processed+600*step.Seconds(), float64(p.end(at)))
			if processed >= float64(p.end(at)) && caughtUp < 0 {
				caughtUp = at
			}
		}
		if at >= nextCommit {
			c = processed
			nextCommit = at + time.Duration(300+rng.IntN(1200))*time.Millisecond
		}
		s := agedSnap(at, p, int64(c))
		h.Annotate(&s)
		last = s.Partitions[0].Status
		if at == 25*time.Second && last == StatusOK {
			t.Fatalf("at %s, 100/s against 333/s: still OK", at)
		}
		if caughtUp >= 0 && at > caughtUp+10*time.Second && last != StatusOK {
			t.Fatalf("at %s, caught up since %s: %s (lag %d, age %s)", at, caughtUp, last, s.Partitions[0].Lag, s.Partitions[0].LagAge)
		}
	}
	if caughtUp < 0 {
		t.Fatal("the consumer never caught up: the test proves nothing")
	}
}

// A consumer that serves its partitions in turn (as a slowed demo consumer
// with two partitions does: 5s on this one at 580/s, 5s on the other)
// falls behind this one's 333/s at 290/s on average: each turn the lag
// falls, then climbs, over longer than the short window, but its low
// points climb. Within 20s it is flagged, and from 30s on it stays so.
func TestFallingBehindInTurnsHolds(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	p := produced{rate: 333}
	var processed, c float64
	flaggedAt := time.Duration(-1)
	const slows = 20 * time.Second
	step := time.Second
	for at := time.Duration(0); at < 150*time.Second; at += step {
		if at < slows {
			processed = float64(p.end(at))
		} else if (at/(5*time.Second))%2 == 0 {
			processed = min(processed+580*step.Seconds(), float64(p.end(at)))
		}
		if at%(2*step) == 0 || at < slows {
			c = processed
		}
		s := agedSnap(at, p, int64(c))
		h.Annotate(&s)
		q := s.Partitions[0]
		if q.Status != StatusOK && flaggedAt < 0 {
			flaggedAt = at
		}
		if at >= slows+30*time.Second && q.Status == StatusOK {
			t.Fatalf("at %s, %s after falling behind: OK again (lag %d, age %s)", at, at-slows, q.Lag, q.LagAge)
		}
	}
	if flaggedAt < 0 || flaggedAt > slows+20*time.Second {
		t.Errorf("flagged at %s; want within 20s of falling behind at %s", flaggedAt, slows)
	}
}

// backlogSnap is one partition at poll time at holding records 0..end,
// each written at written(offset), committed at c (NoOffset: never), the
// age of the oldest unprocessed record known, as the watcher reads it
// (with no commit: the record at the log start).
func backlogSnap(at time.Duration, end, c int64, written func(int64) time.Time) Snapshot {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	o := Observation{
		TakenAt: ht0.Add(at),
		Group:   Group{ID: "g", State: StateStable},
		Members: []Member{{MemberID: "m", ClientID: "consumer-a", Partitions: []TopicPartition{tp}}},
	}.With(Readings{
		Committed:       map[TopicPartition]int64{},
		Offsets:         map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: end}},
		OldestTimestamp: map[TopicPartition]time.Time{},
	})
	if c != NoOffset {
		o.SetCommitted(tp, c)
	}
	if from := max(c, 0); from < end {
		o.SetOldestTimestamp(tp, written(from))
	}
	return NewSnapshot(o)
}

// A group that owns a partition and never committed it, 50,000 records
// waiting, the one at the log start an hour old: it is LAGGING from the
// first poll, the worst partition, not in flight; it is not called OK
// while the watch waits 15s for commits whose cadence it cannot know
// (they never come). Records that are young are in flight, OK, until
// they have waited as long.
func TestNeverCommittedOldBacklogFlagged(t *testing.T) {
	anHourAgo := func(int64) time.Time { return ht0.Add(-time.Hour) }
	h := NewHistory(HistoryOptions{})
	for at := time.Duration(0); at <= 20*time.Second; at += time.Second {
		s := backlogSnap(at, 50000, NoOffset, anHourAgo)
		evs := h.Annotate(&s)
		if at == 0 && (len(evs) != 1 || evs[0].Detail != "p0 LAGGING: no commit, oldest record 1h00m old, lag 50,000") {
			t.Errorf("first poll's events %+v: want one, saying why it is LAGGING", evs)
		}
		p := s.Partitions[0]
		if !p.LagFromStart || p.Lag != 50000 || !p.LagAgeKnown {
			t.Fatalf("at %s: lag %d (from start %v, age known %v): the fixture is not a never-committed backlog", at, p.Lag, p.LagFromStart, p.LagAgeKnown)
		}
		if p.Status == StatusOK || p.InFlight || s.Status == StatusOK || !s.HasWorst {
			t.Fatalf("at %s: %s (in flight %v), group %s, worst %v: 50,000 records an hour old, none committed", at, p.Status, p.InFlight, s.Status, s.HasWorst)
		}
	}

	// A new topic's first records, 1s old when first seen, the consumer
	// on them: OK (in flight while younger than 5s) until they have
	// waited the 15s, then LAGGING.
	h = NewHistory(HistoryOptions{})
	justNow := func(int64) time.Time { return ht0.Add(-time.Second) }
	for at := time.Duration(0); at <= 16*time.Second; at += time.Second {
		s := backlogSnap(at, 20, NoOffset, justNow)
		h.Annotate(&s)
		p := s.Partitions[0]
		young := at+time.Second < 15*time.Second
		if young && p.Status != StatusOK || !young && p.Status != StatusLagging {
			t.Errorf("at %s (records %s old): %s", at, p.LagAge, p.Status)
		}
		if inFlight := at+time.Second < 5*time.Second; p.InFlight != inFlight {
			t.Errorf("at %s (records %s old): in flight %v", at, p.LagAge, p.InFlight)
		}
	}

	// A group started on that hour-old backlog (auto.offset.reset
	// earliest) consuming 5,000/s, committing every 5s: LAGGING until its
	// first commit; once its commits eat into the backlog, OK again.
	h = NewHistory(HistoryOptions{})
	var last Status
	for at := time.Duration(0); at <= 20*time.Second; at += time.Second {
		c := NoOffset
		if done := at.Truncate(5 * time.Second); done > 0 {
			c = min(int64(5000*done.Seconds()), 50000)
		}
		s := backlogSnap(at, 50000, c, anHourAgo)
		h.Annotate(&s)
		last = s.Partitions[0].Status
		if at < 5*time.Second && last != StatusLagging {
			t.Errorf("at %s, nothing committed: %s", at, last)
		}
	}
	if last != StatusOK {
		t.Errorf("catching up at 5,000/s for 15s: %s, want OK", last)
	}

	// Two such partitions turn LAGGING in one event that says why.
	p0, p1 := TopicPartition{Topic: "orders", Partition: 0}, TopicPartition{Topic: "orders", Partition: 1}
	s := NewSnapshot(Observation{
		TakenAt: ht0,
		Group:   Group{ID: "g", State: StateStable},
		Members: []Member{{MemberID: "m", ClientID: "consumer-a", Partitions: []TopicPartition{p0, p1}}},
	}.With(Readings{
		Offsets:         map[TopicPartition]PartitionOffsets{p0: {LogStart: 0, LogEnd: 50000}, p1: {LogStart: 0, LogEnd: 20}},
		OldestTimestamp: map[TopicPartition]time.Time{p0: ht0.Add(-time.Hour), p1: ht0.Add(-time.Minute)},
	}))
	evs := NewHistory(HistoryOptions{}).Annotate(&s)
	if len(evs) != 1 || evs[0].Detail != "p0, p1 LAGGING: no commit, oldest record 1h00m old" {
		t.Errorf("events %+v: want one, saying why p0 and p1 are LAGGING", evs)
	}
}

// A partition handed from a consumer that commits every second to one
// that commits every 5s (kcat, librdkafka's auto-commit) stays OK: the
// new owner's cadence is learnt anew, not judged by the old one's. A new
// owner that never commits is still flagged.
func TestNewOwnerCadenceLearntAnew(t *testing.T) {
	p := produced{rate: 10}
	snap := func(at time.Duration, c int64, member string) Snapshot {
		s := agedSnap(at, p, c)
		s.Members[0].MemberID, s.Partitions[0].MemberID = member, member
		return s
	}
	for _, dies := range []bool{false, true} {
		h := NewHistory(HistoryOptions{})
		flagged := time.Duration(-1)
		for at := time.Second; at < 90*time.Second; at += time.Second {
			member, c := "fast", p.end(at)-2
			if at >= 40*time.Second {
				member, c = "slow", p.end(at.Truncate(5*time.Second))
				if dies {
					c = p.end(40*time.Second) - 2
				}
			}
			s := snap(at, c, member)
			h.Annotate(&s)
			if st := s.Partitions[0].Status; st != StatusOK && flagged < 0 {
				flagged = at
				if !dies {
					t.Fatalf("at %s: %s (lag %d, age %s) after the handover to a consumer committing every 5s", at, st, s.Partitions[0].Lag, s.Partitions[0].LagAge)
				}
			}
		}
		if dies && (flagged < 40*time.Second || flagged > 60*time.Second) {
			t.Errorf("a new owner that never commits: flagged at %s, want within 20s of the handover at 40s", flagged)
		}
	}
}

// A partition whose commit could not be read is not "never committed":
// its lag from the log start is a guess, so an old log-start record does
// not make it LAGGING (it read "no commit, oldest record 1h00m old").
func TestUnreadableCommitIsNotNeverCommitted(t *testing.T) {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	h := NewHistory(HistoryOptions{})
	for i := range 3 {
		at := time.Duration(i) * time.Second
		s := NewSnapshot(Observation{
			TakenAt: ht0.Add(time.Hour + at),
			Group:   Group{ID: "g", State: StateStable},
			Members: []Member{{MemberID: "m", ClientID: "consumer-a", Partitions: []TopicPartition{tp}}},
		}.With(Readings{
			Committed:       map[TopicPartition]int64{},
			CommitErrs:      map[TopicPartition]string{tp: "TOPIC_AUTHORIZATION_FAILED"},
			Offsets:         map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: 1000}},
			OldestTimestamp: map[TopicPartition]time.Time{tp: ht0},
		}))
		h.Annotate(&s)
		if p := s.Partitions[0]; p.Status == StatusLagging {
			t.Fatalf("poll %d: %s (err %q, lag %d from start %v, age %s) for a commit that could not be read", i, p.Status, p.Err, p.Lag, p.LagFromStart, p.LagAge)
		}
	}
}

// --max-lag-age caps the allowance: a consumer committing every 8s keeps
// up by its own cadence, but its records wait up to 8s; with a 5s limit
// (an SLO) it turns LAGGING once they have waited 5s (and holds down to
// half of it), and is OK below.
func TestMaxLagAgeCapsTheAllowance(t *testing.T) {
	for _, limit := range []time.Duration{0, 5 * time.Second} {
		h := NewHistory(HistoryOptions{MaxLagAge: limit})
		p := produced{rate: 100}
		lagging, prev := 0, StatusOK
		for at := time.Second; at < 2*time.Minute; at += 500 * time.Millisecond {
			s := agedSnap(at, p, p.end(at.Truncate(8*time.Second)))
			h.Annotate(&s)
			q := s.Partitions[0]
			switch {
			case q.Status == StatusLagging:
				lagging++
				if limit == 0 || q.LagAge < limit && !(prev == StatusLagging && q.LagAge >= limit/2) {
					t.Fatalf("limit %s, at %s: LAGGING with records %s old (was %s)", limit, at, q.LagAge, prev)
				}
			case q.Status != StatusOK:
				t.Fatalf("limit %s, at %s: %s", limit, at, q.Status)
			case limit > 0 && q.LagAge >= limit:
				t.Fatalf("limit %s, at %s: OK with records %s old", limit, at, q.LagAge)
			}
			prev = q.Status
		}
		if limit > 0 && lagging == 0 {
			t.Errorf("limit %s: never LAGGING", limit)
		}
	}
}

// Before the cadence is known (one --once poll), --max-lag-age is the
// allowance, not capped at the first 15s: with a 1m SLO, records 30s old
// are OK and 61s old LAGGING; with none, 16s old are LAGGING already.
func TestMaxLagAgeIsTheFirstAllowance(t *testing.T) {
	p := produced{rate: 10}
	for _, tt := range []struct {
		limit, age time.Duration
		want       Status
	}{
		{time.Minute, 30 * time.Second, StatusOK},
		{time.Minute, 61 * time.Second, StatusLagging},
		{0, 14 * time.Second, StatusOK},
		{0, 16 * time.Second, StatusLagging},
		{5 * time.Second, 6 * time.Second, StatusLagging},
	} {
		at := 10 * time.Minute
		s := agedSnap(at, p, p.end(at-tt.age))
		NewHistory(HistoryOptions{MaxLagAge: tt.limit}).Annotate(&s)
		if got := s.Partitions[0].Status; got != tt.want {
			t.Errorf("limit %s, records %s old, first poll: %s, want %s", tt.limit, s.Partitions[0].LagAge, got, tt.want)
		}
	}
}

// judgeRow answers STOPPED for a lagging partition of an empty group
// without gathering its history: judge must say so whatever the rest of
// the facts are (were its precedence changed, judgeRow's shortcut would
// have to change with it).
func TestJudgeStopsAnyLagOfAnEmptyGroup(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 17))
	d := func() time.Duration { return time.Duration(rng.IntN(120)) * time.Second }
	statuses := []Status{StatusOK, StatusLagging, StatusStalled, StatusRewound, StatusUnowned, StatusStopped}
	for range 5000 {
		f := facts{lag: true, empty: true, unowned: rng.IntN(2) == 0, rewound: rng.IntN(2) == 0,
			stuck: d(), waited: d(), ageKnown: rng.IntN(2) == 0, allow: d(), stallAt: d(),
			gone: rng.IntN(2) == 0, behind: rng.IntN(2) == 0, was: statuses[rng.IntN(len(statuses))]}
		if got := judge(&f); got != StatusStopped {
			t.Fatalf("%+v judged %s, want STOPPED", f, got)
		}
	}
}
