package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The verdict in scenarios TestVerdictScenarioMatrix does not stage: one
// partition, a simulated clock, polls at explicit times (so gaps can be
// irregular: a laptop asleep, polls failing), every poll's status
// recorded. An independent probe of the verdict wrote them; the sleep it
// found read wrong is TestAsleepEarlyInTheWatch. The quiet topics' cases
// guard what a faster stall there must not break: a first try (a
// consumer that commits each record as it comes given --stall-after
// alone) made healthy consumers STALLED, as a review found: the
// TestQuietTopicTimer* cases are its.

// pworld is one partition's truth at t (from the log's start).
type pworld struct {
	end       func(t time.Duration) int64  // log end
	writtenAt func(o int64) time.Duration  // when offset o reached the log
	stampAt   func(o int64) time.Duration  // its timestamp (nil: writtenAt)
	committed func(t time.Duration) int64  // committed offset at t
	member    func(t time.Duration) string // owner's member id ("": none)
	empty     func(t time.Duration) bool   // group Empty (nil: never)
	fail      func(t time.Duration) bool   // the poll fails entirely: no snapshot (nil: never)
	noStamp   bool
	opts      HistoryOptions
}

type ppoll struct {
	at     time.Duration
	status Status
	lag    int64
	age    time.Duration
	ageOK  bool
	every  time.Duration
}

func (p ppoll) String() string {
	return fmt.Sprintf("t=%7.1fs %-8s lag=%d age=%.1fs(%v) cadence=%s", p.at.Seconds(), p.status, p.lag, p.age.Seconds(), p.ageOK, p.every)
}

// prun polls w at the given times.
func prun(w pworld, times []time.Duration) []ppoll {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	h := NewHistory(w.opts)
	var out []ppoll
	for _, at := range times {
		if w.fail != nil && w.fail(at) {
			continue
		}
		end := w.end(at)
		committed := w.committed(at)
		o := Observation{
			TakenAt: ht0.Add(at),
			Group:   Group{ID: "g", State: StateStable},
		}
		if m := "m"; w.member != nil {
			m = w.member(at)
			if m != "" {
				o.Members = []Member{{MemberID: m, ClientID: "consumer-" + m, Partitions: []TopicPartition{tp}}}
			}
		} else {
			o.Members = []Member{{MemberID: m, ClientID: "consumer-a", Partitions: []TopicPartition{tp}}}
		}
		if w.empty != nil && w.empty(at) {
			o.Group.State, o.Members = StateEmpty, nil
		}
		o = o.With(Readings{
			Committed: map[TopicPartition]int64{tp: committed},
			Offsets:   map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: end}},
		})
		if committed < end && !w.noStamp {
			st := w.writtenAt(committed)
			if w.stampAt != nil {
				st = w.stampAt(committed)
			}
			o.SetOldestTimestamp(tp, ht0.Add(st))
		}
		s := NewSnapshot(o)
		h.Annotate(&s)
		p := s.Partitions[0]
		out = append(out, ppoll{at: at, status: p.Status, lag: p.Lag, age: p.LagAge, ageOK: p.LagAgeKnown, every: p.CommitEvery})
	}
	return out
}

// pollsEvery returns poll times from start to end, d apart.
func pollsEvery(start, end, d time.Duration) []time.Duration {
	var ts []time.Duration
	for t := start; t < end; t += d {
		ts = append(ts, t)
	}
	return ts
}

// firstAt is the first poll at or after from whose status is in want; -1 none.
func firstAt(ps []ppoll, from time.Duration, want ...Status) time.Duration {
	for _, p := range ps {
		if p.at < from {
			continue
		}
		for _, w := range want {
			if p.status == w {
				return p.at
			}
		}
	}
	return -1
}

// dump shows the polls from..to where the status changes, and one every
// 15s of the simulated clock in between.
func dump(ps []ppoll, from, to time.Duration) string {
	var b strings.Builder
	var last Status
	lastAt := time.Duration(-1 << 62)
	for _, p := range ps {
		if p.at < from || p.at > to {
			continue
		}
		if p.status != last || p.at-lastAt >= 15*time.Second {
			b.WriteString("    " + p.String() + "\n")
			last, lastAt = p.status, p.at
		}
	}
	return b.String()
}

// perRecordUntil: commits each record 20ms after it is written, until
// hang; nothing after.
func perRecordUntil(end func(time.Duration) int64, hang time.Duration) func(time.Duration) int64 {
	return func(t time.Duration) int64 {
		return end(max(min(t, hang)-20*time.Millisecond, 0))
	}
}

// randomLog: records written at random times, gaps uniform in [lo, hi)
// (seeded), for an hour.
func randomLog(seed uint64, lo, hi time.Duration) (func(time.Duration) int64, func(int64) time.Duration) {
	rng := rand.New(rand.NewPCG(seed, seed))
	var at []time.Duration
	for t := lo; t < 2*time.Hour; t += lo + time.Duration(rng.Int64N(int64(hi-lo))) {
		at = append(at, t)
	}
	end := func(t time.Duration) int64 {
		n, _ := slices.BinarySearch(at, t+1) // written at or before t
		return int64(n)
	}
	return end, func(o int64) time.Duration { return at[o] }
}

// Healthy consumers on a sparse topic (a record every 20-100 s, at random):
// one committing each record at once, an auto-committer (5s), Kafka
// Streams (30s). None of them is ever late: no poll may be non-OK, past
// the first 5 minutes (the Streams cadence being learnt from its first
// commits, as the matrix allows: FirstAllowance until two are seen).
func TestQuietTopicConsumersKeepingUpStayOK(t *testing.T) {
	for _, c := range []struct {
		name     string
		commitAt func(time.Duration) time.Duration
	}{
		{"commits each record", everyRecord},
		{"auto-commit 5s", batchedEvery(5 * time.Second)},
		{"Streams 30s", batchedEvery(30 * time.Second)},
	} {
		for _, iv := range []time.Duration{100 * time.Millisecond, time.Second, 5 * time.Second, 10 * time.Second} {
			t.Run(fmt.Sprintf("%s, polls %s", c.name, iv), func(t *testing.T) {
				bad := 0
				watch := time.Hour
				if iv < time.Second {
					watch = 10 * time.Minute // 6,000 polls a run, 10 runs: enough under -race
				}
				for seed := uint64(1); seed <= 10; seed++ {
					end, written := randomLog(seed, 20*time.Second, 100*time.Second)
					w := pworld{end: end, writtenAt: written, committed: func(t time.Duration) int64 {
						return end(max(c.commitAt(t)-20*time.Millisecond, 0))
					}}
					ps := prun(w, pollsEvery(0, watch, iv))
					if f := firstAt(ps, 5*time.Minute, StatusLagging, StatusStalled, StatusRewound); f >= 0 {
						bad++
						if bad == 1 {
							t.Errorf("seed %d: not OK at %s while it kept up\n%s", seed, f, dump(ps, f-40*time.Second, f+10*time.Second))
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of 10 runs had a false alarm", bad)
				}
			})
		}
	}
}

// steady50 is a producer writing 50 records a second.
func steady50() (func(time.Duration) int64, func(int64) time.Duration) {
	l := steadyLog(50)
	return l.end, l.writtenAt
}

// 30 s polls (the brief's upper bound; DESIGN's range stops at 10 s), a
// consumer committing each record hung at 5 min. The commit has not
// moved with records waiting for --stall-after (30s) by the second poll
// after the hang; STALLED is due then (its records are 30-60 s old).
func TestThirtySecondPollsHungConsumer(t *testing.T) {
	end, written := steady50()
	hang := 5*time.Minute + 7*time.Second
	w := pworld{end: end, writtenAt: written, committed: perRecordUntil(end, hang)}
	ps := prun(w, pollsEvery(3*time.Second, 15*time.Minute, 30*time.Second))
	flag := firstAt(ps, 0, StatusLagging, StatusStalled)
	stall := firstAt(ps, 0, StatusStalled)
	t.Logf("hung at %s: first non-OK at +%s, STALLED at +%s\n%s", hang, flag-hang, stall-hang, dump(ps, hang-time.Minute, hang+3*time.Minute))
	// The first poll after the hang still sees the last commit move; the
	// commit then stands still for 30s by the poll after.
	if want := hang + 30*time.Second + 2*30*time.Second; stall < 0 || stall > want {
		t.Errorf("STALLED at %s, want by %s (--stall-after 30s, polls 30s apart)", stall, want)
	}
}

// A laptop that sleeps 10 minutes early in the watch (polls failing for
// as long do the same), a consumer that hung at 5 min while it slept: one
// committing each record at 50/s, an auto-committer (5s) and Kafka
// Streams (30s), at every poll interval (100 ms-10 s), asleep after a few polls
// and after the first commit gap: the upper median of one gap and the
// sleep's is the sleep's. The commit moved while no one looked; the
// gap the watcher measures across the sleep is its own, and was taken
// as the consumer's cadence (9 min 58 s: OK for 15 minutes). On waking,
// the records have waited 5 minutes: LAGGING at once, STALLED once the
// commit has stood still past --stall-after (or the cadence and a half).
func TestAsleepEarlyInTheWatch(t *testing.T) {
	end, written := steady50()
	hang, wake := 5*time.Minute, 10*time.Minute
	for _, c := range []struct {
		name  string
		every time.Duration // commit timer, 0: each record
	}{{"commits each record", 0}, {"auto-commit 5s", 5 * time.Second}, {"Streams 30s", 30 * time.Second}} {
		committed := perRecordUntil(end, hang)
		if c.every > 0 {
			committed = func(t time.Duration) int64 {
				return end(max(batchedEvery(c.every)(min(t, hang))-20*time.Millisecond, 0))
			}
		}
		for _, iv := range simIntervals {
			// Asleep after three polls, and after two polls past the
			// second commit seen: one gap seen, and (on a timer) the
			// last poll before the sleep saw no commit.
			for i, awake := range []time.Duration{3 * iv, 2*c.every + 2*iv} {
				if i == 1 && awake == 3*iv {
					continue // the same case (auto-commit 5s at 10s polls)
				}
				t.Run(fmt.Sprintf("%s, polls %s, asleep after %s", c.name, iv, awake), func(t *testing.T) {
					w := pworld{end: end, writtenAt: written, committed: committed}
					times := append(pollsEvery(0, awake, iv), pollsEvery(wake, wake+5*time.Minute, iv)...)
					ps := prun(w, times)
					flag := firstAt(ps, wake, StatusLagging, StatusStalled)
					stall := firstAt(ps, wake, StatusStalled)
					if flag != wake {
						t.Errorf("first non-OK %s after waking (-1: never), want at once: the records waited 5 min\n%s", flag-wake, dump(ps, 0, wake+5*time.Minute))
					}
					if limit := max(DefaultStallAfter, c.every*3/2) + iv; stall < 0 || stall-wake > limit {
						t.Errorf("STALLED %s after waking (-1: never), want within %s\n%s", stall-wake, limit, dump(ps, 0, wake+5*time.Minute))
					}
				})
			}
		}
	}
}

// Scenarios the probe found right, kept so they stay so.
func TestVerdictEdgeScenarios(t *testing.T) {
	end, written := steady50()
	hang := 5 * time.Minute
	hung := perRecordUntil(end, hang)
	auto5 := func(t time.Duration) int64 {
		return end(max(batchedEvery(5*time.Second)(min(t, hang))-20*time.Millisecond, 0))
	}
	type tc struct {
		name  string
		w     pworld
		times []time.Duration
		from  time.Duration // flag measured from
		want  []Status
		by    time.Duration // at most this long after from
		clean time.Duration // no non-OK before this
	}
	cases := []tc{
		{name: "opened 60s into a hang, 30s polls: first poll", w: pworld{end: end, writtenAt: written, committed: hung},
			times: pollsEvery(hang+time.Minute, hang+5*time.Minute, 30*time.Second), from: hang + time.Minute, want: []Status{StatusLagging}, by: 0},
		{name: "opened 20s into a hang, 250ms polls", w: pworld{end: end, writtenAt: written, committed: hung},
			times: pollsEvery(hang+20*time.Second, hang+5*time.Minute, 250*time.Millisecond), from: hang + 20*time.Second, want: []Status{StatusLagging}, by: 0},
		{name: "hung, stalled after 30s of watching (opened mid-hang)", w: pworld{end: end, writtenAt: written, committed: hung},
			times: pollsEvery(hang+time.Minute, hang+5*time.Minute, time.Second), from: hang + time.Minute, want: []Status{StatusStalled}, by: 31 * time.Second},
		{name: "auto-commit 5s at 100ms polls, hung", w: pworld{end: end, writtenAt: written, committed: auto5},
			times: pollsEvery(0, hang+2*time.Minute, 100*time.Millisecond), from: hang, want: []Status{StatusLagging, StatusStalled}, by: 14 * time.Second, clean: hang},
		{name: "auto-commit 5s, 30s polls, healthy", w: pworld{end: end, writtenAt: written, committed: func(t time.Duration) int64 { return end(max(batchedEvery(5*time.Second)(t)-20*time.Millisecond, 0)) }},
			times: pollsEvery(0, 20*time.Minute, 30*time.Second), from: 20 * time.Minute, clean: 20 * time.Minute},
		{name: "producer and consumer (auto-commit 5s) stop together", w: pworld{end: func(t time.Duration) int64 { return end(min(t, hang)) }, writtenAt: written, committed: auto5},
			times: pollsEvery(0, hang+2*time.Minute, time.Second), from: hang, want: []Status{StatusLagging, StatusStalled}, by: 10 * time.Second, clean: hang},
		{name: "clock 20s ahead, hung, 1s polls", w: pworld{end: end, writtenAt: written, stampAt: func(o int64) time.Duration { return written(o) + 20*time.Second }, committed: hung},
			times: pollsEvery(0, hang+2*time.Minute, time.Second), from: hang, want: []Status{StatusLagging, StatusStalled}, by: 6 * time.Second, clean: hang},
		{name: "clock 5s behind, healthy auto-commit 5s, 250ms polls", w: pworld{end: end, writtenAt: written, stampAt: func(o int64) time.Duration { return written(o) - 5*time.Second }, committed: func(t time.Duration) int64 { return end(max(batchedEvery(5*time.Second)(t)-20*time.Millisecond, 0)) }},
			times: pollsEvery(0, 10*time.Minute, 250*time.Millisecond), from: 10 * time.Minute, clean: 10 * time.Minute},
		{name: "polls fail 20s mid-hang, 1s polls", w: pworld{end: end, writtenAt: written, committed: hung, fail: func(t time.Duration) bool { return t > hang-5*time.Second && t < hang+15*time.Second }},
			times: pollsEvery(0, hang+2*time.Minute, time.Second), from: hang, want: []Status{StatusLagging, StatusStalled}, by: 16 * time.Second, clean: hang},
		{name: "polls fail 30s, healthy", w: pworld{end: end, writtenAt: written, committed: perRecordUntil(end, time.Hour), fail: func(t time.Duration) bool { return t > hang && t < hang+30*time.Second }},
			times: pollsEvery(0, hang+2*time.Minute, time.Second), from: hang + 2*time.Minute, clean: hang + 2*time.Minute},
		{name: "restart re-reads the last 60s (commit back), catches up at 3x", w: pworld{end: end, writtenAt: written, committed: func(t time.Duration) int64 {
			if t < hang {
				return end(t - 20*time.Millisecond)
			}
			return min(end(hang-time.Minute)+int64(150*(t-hang).Seconds()), end(t-20*time.Millisecond))
		}}, times: pollsEvery(0, hang+3*time.Minute, time.Second), from: hang, want: []Status{StatusRewound}, by: time.Second, clean: hang},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := prun(c.w, c.times)
			if f := firstAt(ps, 0, StatusLagging, StatusStalled, StatusRewound, StatusStopped, StatusUnowned); f >= 0 && f < c.clean {
				t.Errorf("false alarm at %s\n%s", f, dump(ps, f-10*time.Second, f+10*time.Second))
			}
			if len(c.want) > 0 {
				f := firstAt(ps, c.from, c.want...)
				if f < 0 || f-c.from > c.by {
					t.Errorf("%v %s after %s (-1: never), want within %s\n%s", c.want, f-c.from, c.from, c.by, dump(ps, c.from-5*time.Second, c.from+time.Minute))
				} else {
					t.Logf("%v at +%s", c.want, f-c.from)
				}
			}
		})
	}
}

// TestBlindPollGaps: a poll far later than the two gaps before it (asleep,
// polls failing, a page not shown) is blind; a tick after a poll made at
// once (a key) is not, nor is any poll before two gaps are known.
func TestBlindPollGaps(t *testing.T) {
	for _, c := range []struct {
		name  string
		gaps  []time.Duration // between polls, the last one's to judge
		blind bool
	}{
		{"steady", []time.Duration{time.Second, time.Second, time.Second}, false},
		{"jitter", []time.Duration{time.Second, 900 * time.Millisecond, 1100 * time.Millisecond, 1900 * time.Millisecond}, false},
		{"asleep", []time.Duration{time.Second, time.Second, 10 * time.Minute}, true},
		{"polls failing 5 s", []time.Duration{time.Second, time.Second, 5 * time.Second}, true},
		{"tick after a poll at once", []time.Duration{time.Second, time.Second, 100 * time.Millisecond, 900 * time.Millisecond}, false},
		{"asleep after a poll at once", []time.Duration{time.Second, 100 * time.Millisecond, 10 * time.Minute}, true},
		{"second poll", []time.Duration{10 * time.Minute}, false},
		{"third poll", []time.Duration{time.Second, 10 * time.Minute}, true},
		{"interval raised to 10 s", []time.Duration{time.Second, time.Second, 10 * time.Second}, true},
		{"then at 10 s", []time.Duration{time.Second, time.Second, 10 * time.Second, 10 * time.Second}, false},
	} {
		h := NewHistory(HistoryOptions{})
		at := ht0.UnixNano()
		h.polled(at)
		last := at
		for _, g := range c.gaps {
			last, at = at, at+int64(g)
			h.polled(at)
		}
		if got := h.blind(last, at); got != c.blind {
			t.Errorf("%s: blind %v, want %v", c.name, got, c.blind)
		}
	}
}

// listLog: records written at the given times.
func listLog(at []time.Duration) (func(time.Duration) int64, func(int64) time.Duration) {
	return func(t time.Duration) int64 {
			n, _ := slices.BinarySearch(at, t+1)
			return int64(n)
		}, func(o int64) time.Duration {
			return at[o]
		}
}

// timerAt is a commit timer every d, firing phase into each d.
func timerAt(d, phase time.Duration) func(time.Duration) time.Duration {
	return func(t time.Duration) time.Duration {
		if t < phase {
			return 0
		}
		return (t-phase)/d*d + phase
	}
}

// A consumer that commits each record 2 s after it comes, a record a
// minute, polls 10 s, --stall-after 10s: a poll that catches a record in
// flight has seen the commit stand still since the poll before (10 s),
// though the record waited 2 s. It is OK throughout.
func TestQuietTopicTimerCaughtInFlight(t *testing.T) {
	var at []time.Duration
	for k := range 30 {
		at = append(at, time.Duration(k)*time.Minute+15*time.Second+time.Duration(k%7)*1300*time.Millisecond)
	}
	end, written := listLog(at)
	w := pworld{end: end, writtenAt: written, opts: HistoryOptions{StallAfter: 10 * time.Second},
		committed: func(t time.Duration) int64 { return end(max(t-2*time.Second, 0)) }}
	ps := prun(w, pollsEvery(0, 30*time.Minute, 10*time.Second))
	if f := firstAt(ps, 0, StatusLagging, StatusStalled); f >= 0 {
		t.Errorf("healthy consumer (each record committed 2 s after it came) not OK at %s\n%s", f, dump(ps, f-time.Minute, f+10*time.Second))
	}
}

// Kafka Streams (commit.interval.ms 30000) on a quiet topic, default
// flags, polls 10 s, its timer 28.5 s into each 30 s: a timer and polls
// both periodic keep their phase for hours, so its records can go unseen
// between polls commit after commit, as a per-record committer's do.
func TestQuietTopicTimerStreamsDefaultFlags(t *testing.T) {
	end, written := randomLog(2, 20*time.Second, 100*time.Second)
	w := pworld{end: end, writtenAt: written, committed: func(t time.Duration) int64 {
		return end(max(timerAt(30*time.Second, 28500*time.Millisecond)(t)-20*time.Millisecond, 0))
	}}
	ps := prun(w, pollsEvery(0, 2*time.Hour, 10*time.Second))
	if f := firstAt(ps, 5*time.Minute, StatusLagging, StatusStalled); f >= 0 {
		t.Errorf("Streams 30s keeping up: not OK at %s\n%s", f, dump(ps, f-time.Minute, f+10*time.Second))
	}
}

// Kafka Streams 30s, --stall-after 15s, polls 10 s: four records that come
// just before its timer, unseen by any poll, then one just after a commit
// that waits the whole 30 s (README: between two Streams commits it is
// not stalled; 1.5x the cadence when longer).
func TestQuietTopicTimerStreamsShortStallAfter(t *testing.T) {
	var at []time.Duration
	for k := range 6 {
		at = append(at, time.Duration(k)*time.Minute+25*time.Second) // committed at 28.5 s, no poll between
	}
	at = append(at, 6*time.Minute+29*time.Second) // just after the 6m28.5s commit
	end, written := listLog(at)
	w := pworld{end: end, writtenAt: written, opts: HistoryOptions{StallAfter: 15 * time.Second}, committed: func(t time.Duration) int64 {
		return end(max(timerAt(30*time.Second, 28500*time.Millisecond)(t)-20*time.Millisecond, 0))
	}}
	ps := prun(w, pollsEvery(0, 8*time.Minute, 10*time.Second))
	if f := firstAt(ps, 0, StatusLagging, StatusStalled); f >= 0 {
		t.Errorf("Streams 30s keeping up: not OK at %s\n%s", f, dump(ps, f-time.Minute, f+10*time.Second))
	}
}

// A healthy consumer on a commit timer (auto-commit 5 s, Kafka Streams
// 30 s), watched at every poll interval, goes unseen for a span (polls
// failing 20 s, a laptop asleep 10 min) after one commit seen and after
// two, and the watch wakes at six points of the timer's period. The
// commit that moved in the span moved at some time no poll saw: the gap
// after it, counted from the poll that woke, was short (a 30 s committer
// read as one of every 5 s, LAGGING 22 s on end). The cadence the polls
// learn is never shorter than the timer's period by more than a poll.
func TestCadenceAfterABlindSpan(t *testing.T) {
	end, written := steady50()
	for _, every := range []time.Duration{5 * time.Second, 30 * time.Second} {
		for _, iv := range simIntervals {
			if iv >= every {
				continue // every poll sees a commit: no gap is short
			}
			for _, seen := range []int{1, 2} {
				for _, span := range []time.Duration{20 * time.Second, 10 * time.Minute} {
					for k := range 6 {
						name := fmt.Sprintf("every %s, polls %s, %d seen, blind %s, wake %d/6", every, iv, seen, span, k)
						t.Run(name, func(t *testing.T) {
							phase := every / 3
							committed := func(tt time.Duration) int64 {
								return end(max(timerAt(every, phase)(tt)-20*time.Millisecond, 0))
							}
							// Asleep a poll after the seen-th commit (the
							// first at phase): none or one gap learnt.
							from := phase + time.Duration(seen-1)*every + iv
							wake := from + span
							wake += (phase + every*time.Duration(k)/6 - wake%every + every) % every
							times := append(pollsEvery(0, from, iv), pollsEvery(wake, wake+3*every+time.Minute, iv)...)
							ps := prun(pworld{end: end, writtenAt: written, committed: committed}, times)
							for _, p := range ps {
								if p.every > 0 && p.every < every-iv {
									t.Fatalf("at %s: cadence %s, the timer's %s\n%s", p.at, p.every, every, dump(ps, from-every, p.at+every))
								}
							}
						})
					}
				}
			}
		}
	}
}

// A partition handed, 10 minutes into the watch, from one member of an
// application committing on a slow timer (20 s, Kafka Streams' 30 s, 35 s)
// to another of it, at every poll interval and four phases of the new
// owner's timer (its first commit a quarter to a whole period after the
// old owner's last, made as the partition was revoked). A healthy new owner stays OK: judged by FirstAllowance
// and --stall-after until two of its commits were seen, it read LAGGING
// or STALLED after every rebalance (a 35 s committer STALLED at 28 s and
// 63 s past the handover). One that never commits is still flagged within
// the old cadence and a half, and STALLED by --stall-after or the cadence
// and a half.
func TestSlowCommitterHandedOver(t *testing.T) {
	end, written := steady50()
	handover := 10 * time.Minute
	for _, every := range []time.Duration{20 * time.Second, 30 * time.Second, 35 * time.Second} {
		for _, iv := range simIntervals {
			if iv >= every {
				continue
			}
			for k := range 4 {
				for _, dies := range []bool{false, true} {
					name := fmt.Sprintf("every %s, polls %s, new phase %d/4, dies %v", every, iv, k, dies)
					t.Run(name, func(t *testing.T) {
						old := timerAt(every, every/3)
						committed := func(tt time.Duration) int64 {
							at := old(tt)
							if tt >= handover {
								// The old owner commits as its partitions are
								// revoked (the Java client's auto-commit and
								// Kafka Streams do); the new owner's timer
								// first fires (k+1)/4 of a period later.
								at = handover
								if first := handover + every*time.Duration(k+1)/4; tt >= first && !dies {
									at = first + (tt-first)/every*every
								}
							}
							return end(max(at-20*time.Millisecond, 0))
						}
						member := func(tt time.Duration) string {
							if tt >= handover {
								return "n"
							}
							return "m"
						}
						ps := prun(pworld{end: end, writtenAt: written, committed: committed, member: member}, pollsEvery(0, handover+5*time.Minute, iv))
						flag := firstAt(ps, handover, StatusLagging, StatusStalled)
						if !dies {
							if flag >= 0 {
								t.Fatalf("healthy new owner %s at %s, %s after the handover\n%s", ps[slices.IndexFunc(ps, func(p ppoll) bool { return p.at == flag })].status, flag, flag-handover, dump(ps, handover-every, flag+every))
							}
							return
						}
						stall := firstAt(ps, handover, StatusStalled)
						if by := handover + every*3/2 + 2*iv; flag < 0 || flag > by {
							t.Errorf("a new owner that never commits flagged at %s (-1: never), want by %s\n%s", flag, by, dump(ps, handover-every, handover+2*time.Minute))
						}
						if by := handover + max(DefaultStallAfter, every*3/2) + 2*iv; stall < 0 || stall > by {
							t.Errorf("a new owner that never commits STALLED at %s (-1: never), want by %s\n%s", stall, by, dump(ps, handover-every, handover+2*time.Minute))
						}
					})
				}
			}
		}
	}
}

// A consumer on a commit timer (5 s auto-commit, Kafka Streams' 30 s,
// 40 s) hangs with two partitions; watched from before the hang and from
// 20 s into it, at every interval. The event that turns them STALLED says
// how long they stood still: at least the threshold in force (--stall-
// after, or the cadence and a half once known: 45 s for Streams), at most
// a poll past it. It said --stall-after's "30s or more" whatever held
// (seen against librdkafka consumers).
func TestStalledEventSaysHowLongItStoodStill(t *testing.T) {
	end, written := steady50()
	hang := 5 * time.Minute
	tps := []TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}}
	for _, every := range []time.Duration{5 * time.Second, 30 * time.Second, 40 * time.Second} {
		for _, iv := range simIntervals {
			for _, from := range []time.Duration{0, hang + 20*time.Second} {
				h := NewHistory(HistoryOptions{})
				detail := ""
				for _, at := range pollsEvery(from, hang+3*time.Minute, iv) {
					// Both partitions alike: one event names them, with the
					// group's reason rather than a partition's note.
					c := end(max(timerAt(every, every/3)(min(at, hang))-20*time.Millisecond, 0))
					o := Observation{TakenAt: ht0.Add(at), Group: Group{ID: "g", State: StateStable},
						Members: []Member{{MemberID: "m", ClientID: "streams-1", Partitions: tps}}}
					r := Readings{Committed: map[TopicPartition]int64{}, Offsets: map[TopicPartition]PartitionOffsets{}}
					for _, tp := range tps {
						r.Committed[tp], r.Offsets[tp] = c, PartitionOffsets{LogStart: 0, LogEnd: end(at)}
					}
					o = o.With(r)
					for _, tp := range tps {
						if c < end(at) {
							o.SetOldestTimestamp(tp, ht0.Add(written(c)))
						}
					}
					s := NewSnapshot(o)
					for _, ev := range h.Annotate(&s) {
						// After the hang: a 40 s committer is STALLED early
						// in a watch, before its cadence is known (README).
						if ev.Type == EventStatusChanged && ev.State == string(StatusStalled) && detail == "" && at > hang {
							detail = ev.Detail
						}
					}
				}
				// The threshold: --stall-after alone while the cadence is
				// unknown (watched from mid-hang), else the cadence the
				// polls saw (a multiple of the interval) and a half.
				least, most := DefaultStallAfter, DefaultStallAfter
				if from == 0 {
					least = max(DefaultStallAfter, every*3/2)
					most = max(DefaultStallAfter, max(every, iv)*3/2)
				}
				_, said, _ := strings.Cut(detail, "unchanged for ")
				said, _, _ = strings.Cut(said, " or more")
				d, err := time.ParseDuration(said)
				if err != nil || d < least-time.Second || d > most+iv+time.Second {
					t.Errorf("every %s, polls %s, from %s: STALLED event %q; want it to say %s to %s", every, iv, from, detail, least, most+iv)
				}
			}
		}
	}
}
