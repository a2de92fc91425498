package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The verdict's spec, as a matrix: producers × consumers × poll intervals
// × when the watch starts, on a simulated clock. Each cell records the
// time from the incident (or from the watch's start, when it starts after
// the incident) to the first non-OK verdict, and the polls that were not
// OK while the consumer kept up (false alarms), over five simulated
// minutes. Run with -v to print the table.

// simLog is a partition's log as a producer writes it.
type simLog struct {
	name string
	// every: records come in bursts this far apart (0: steadily), so a
	// consumer's commits come no more often.
	every time.Duration
	// end is how many offsets the log holds at t, writtenAt when offset
	// o was written, marker whether it is a control record (a
	// transaction marker).
	end       func(t time.Duration) int64
	writtenAt func(o int64) time.Duration
	marker    func(o int64) bool
}

func steadyLog(rate float64) simLog {
	return simLog{
		name:      fmt.Sprintf("steady %g/s", rate),
		end:       func(t time.Duration) int64 { return int64(rate * t.Seconds()) },
		writtenAt: func(o int64) time.Duration { return time.Duration(float64(o) / rate * float64(time.Second)) },
		marker:    func(int64) bool { return false },
	}
}

// burstyLog writes n records at once every every.
func burstyLog(n int64, every time.Duration) simLog {
	return simLog{
		name:      fmt.Sprintf("bursts of %d every %s", n, every),
		every:     every,
		end:       func(t time.Duration) int64 { return n * (int64(t/every) + 1) },
		writtenAt: func(o int64) time.Duration { return time.Duration(o/n) * every },
		marker:    func(int64) bool { return false },
	}
}

// idleLog writes rate a second until stop, then nothing.
func idleLog(rate float64, stop time.Duration) simLog {
	l := steadyLog(rate)
	l.name = fmt.Sprintf("idle after %s", stop)
	inner := l.end
	l.end = func(t time.Duration) int64 { return inner(min(t, stop)) }
	return l
}

// txnLog is a transactional producer: every 10th offset a commit marker.
func txnLog(rate float64) simLog {
	l := steadyLog(rate)
	l.name = "transactional"
	l.marker = func(o int64) bool { return o%10 == 9 }
	return l
}

// simConsumer is how a consumer works through the log: processed(t) is
// the offset it has processed up to at t, and it commits that at the
// times commitAt says (the last commit at or before t). Healthy
// consumers keep up; the others have an incident at t0 (kill: also
// evicted, its group Empty, evictAfter later).
type simConsumer struct {
	name    string
	healthy bool
	// every is how often it commits (0: each record).
	every    time.Duration
	commitAt func(t time.Duration) time.Duration
	// processed, given the log, the incident's time and t.
	processed func(l simLog, t0, t time.Duration) int64
	// evictAfter: the group is Empty from t0+evictAfter (a kill -9 and
	// a 10s session timeout); 0 never.
	evictAfter time.Duration
	// recovers: after the incident the consumer catches up; the verdict
	// must be OK again within a short while of it having caught up.
	recovers bool
	// handover: another member takes the partition this often (a new
	// member id), from the watch's start.
	handover time.Duration
	// retention: the log keeps this much (0: all); records older are
	// deleted, read or not.
	retention time.Duration
	// learnFor: a healthy consumer whose commits come less often than
	// the first allowance (Kafka Streams' 30s) may read LAGGING this long
	// into the watch, until two of its commits have been seen.
	learnFor time.Duration
}

// everyRecord commits each record as it is processed.
func everyRecord(t time.Duration) time.Duration { return t }

// batchedEvery commits every d, at a phase of 37% of it.
func batchedEvery(d time.Duration) func(time.Duration) time.Duration {
	phase := d * 37 / 100
	return func(t time.Duration) time.Duration {
		if t < phase {
			return 0
		}
		return (t-phase)/d*d + phase
	}
}

// keepsUp processes records 20ms after they are written, skipping
// trailing transaction markers as a read_committed consumer commits.
func keepsUp(l simLog, _, t time.Duration) int64 {
	o := l.end(max(t-20*time.Millisecond, 0))
	for o > 0 && l.marker(o-1) {
		o--
	}
	return o
}

// slowBy processes at the producer's rate divided by f from t0.
func slowBy(f float64) func(l simLog, t0, t time.Duration) int64 {
	return func(l simLog, t0, t time.Duration) int64 {
		if t < t0 {
			return keepsUp(l, t0, t)
		}
		rate := float64(l.end(t0+time.Minute)-l.end(t0)) / 60 / f
		return min(keepsUp(l, t0, t0)+int64(rate*(t-t0).Seconds()), l.end(t))
	}
}

// stopsAt processes nothing from t0 on.
func stopsAt(l simLog, t0, t time.Duration) int64 { return keepsUp(l, t0, min(t, t0)) }

// downFor is a consumer down from t0 for d, then catching up at 3 times
// the producer's rate.
func downFor(d time.Duration) func(l simLog, t0, t time.Duration) int64 {
	return func(l simLog, t0, t time.Duration) int64 {
		if t < t0+d {
			return stopsAt(l, t0, t)
		}
		rate := 3 * float64(l.end(t0+time.Minute)-l.end(t0)) / 60
		return min(keepsUp(l, t0, t0)+int64(rate*(t-t0-d).Seconds()), keepsUp(l, t0, t))
	}
}

var simConsumers = []simConsumer{
	{name: "commits every record", healthy: true, commitAt: everyRecord, processed: keepsUp},
	{name: "commits every 1s", healthy: true, every: time.Second, commitAt: batchedEvery(time.Second), processed: keepsUp},
	{name: "auto-commit 5s", healthy: true, every: 5 * time.Second, commitAt: batchedEvery(5 * time.Second), processed: keepsUp},
	{name: "commits every 8s", healthy: true, every: 8 * time.Second, commitAt: batchedEvery(8 * time.Second), processed: keepsUp},
	{name: "slow 1.1x", commitAt: everyRecord, processed: slowBy(1.1)},
	{name: "slow 10x", commitAt: everyRecord, processed: slowBy(10)},
	{name: "slow 10x, auto-commit 5s", every: 5 * time.Second, commitAt: batchedEvery(5 * time.Second), processed: slowBy(10)},
	{name: "hung", commitAt: everyRecord, processed: stopsAt},
	{name: "hung, auto-commit 5s", every: 5 * time.Second, commitAt: batchedEvery(5 * time.Second), processed: stopsAt},
	{name: "killed (10s session)", commitAt: everyRecord, processed: stopsAt, evictAfter: 10 * time.Second},
	{name: "handed over every 20s", healthy: true, commitAt: everyRecord, processed: keepsUp, handover: 20 * time.Second},
	{name: "commits every 30s (Streams)", healthy: true, every: 30 * time.Second, commitAt: batchedEvery(30 * time.Second), processed: keepsUp, learnFor: 75 * time.Second},
	{name: "hung, handed over every 20s", commitAt: everyRecord, processed: stopsAt, handover: 20 * time.Second},
	{name: "hung, retention 40s", commitAt: everyRecord, processed: stopsAt, retention: 40 * time.Second},
	{name: "restarted (down 5s)", commitAt: everyRecord, processed: downFor(5 * time.Second), recovers: true},
	{name: "back after 60s, catching up", commitAt: everyRecord, processed: downFor(time.Minute), recovers: true},
}

var simLogs = []simLog{
	steadyLog(50),
	burstyLog(200, 3*time.Second),
	idleLog(50, 90*time.Second),
	txnLog(50),
}

var simIntervals = []time.Duration{
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second,
}

// simStamps is how the records' timestamps read.
type simStamps struct {
	name string
	skew time.Duration // added to each record's write time
	none bool          // no timestamp can be read
}

var simStampKinds = []simStamps{
	{name: "exact"},
	{name: "mirrored, 1h old", skew: -time.Hour},
	{name: "clock 20s ahead", skew: 20 * time.Second},
	{name: "no timestamps", none: true},
}

// simResult is one cell of the matrix.
type simResult struct {
	flagged   time.Duration // from the incident or the watch's start; -1 never
	false     int           // non-OK polls while the consumer kept up
	recovered time.Duration // from catching up to OK again; -1 never
}

// incident is when the incident begins, from the log's start.
const incident = 90 * time.Second

// simulate watches one partition of log l consumed by c, its timestamps
// read as ts says, polled every interval from start for five minutes:
// ±10% (from rng), or, ticker, within a millisecond either side of it as
// a time.Ticker's polls are (gaps on the edge of the history's spacing).
func simulate(l simLog, c simConsumer, ts simStamps, interval, start time.Duration, ticker bool, rng *rand.Rand) simResult {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	h := NewHistory(HistoryOptions{})
	res := simResult{flagged: -1, recovered: -1}
	caughtUp := time.Duration(-1)
	for at := start; at < start+5*time.Minute; {
		end := l.end(at)
		committed := c.processed(l, incident, c.commitAt(at))
		member := "m"
		if c.handover > 0 {
			member = fmt.Sprintf("m%d", (at-start)/c.handover)
		}
		logStart := int64(0)
		if c.retention > 0 {
			logStart = l.end(max(at-c.retention, 0))
		}
		o := Observation{
			TakenAt: ht0.Add(at),
			Group:   Group{ID: "g", State: StateStable},
			Members: []Member{{MemberID: member, ClientID: "consumer-a", Partitions: []TopicPartition{tp}}},
		}.With(Readings{
			Committed:        map[TopicPartition]int64{tp: committed},
			Offsets:          map[TopicPartition]PartitionOffsets{tp: {LogStart: logStart, LogEnd: end}},
			OldestTimestamp:  map[TopicPartition]time.Time{},
			OldestMarkerOnly: map[TopicPartition]bool{},
			OldestGone:       map[TopicPartition]bool{},
		})
		if c.evictAfter > 0 && at >= incident+c.evictAfter {
			o.Group.State, o.Members = StateEmpty, nil
		}
		switch {
		case committed < logStart:
			o.SetOldestGone(tp)
		case committed < end && !ts.none:
			o.SetOldestTimestamp(tp, ht0.Add(l.writtenAt(committed)+ts.skew))
		}
		if committed < end {
			markers := true
			for off := committed; off < end && markers; off++ {
				markers = l.marker(off)
			}
			if markers {
				o.SetOldestMarkerOnly(tp)
			}
		}
		s := NewSnapshot(o)
		h.Annotate(&s)
		ok := s.Partitions[0].Status == StatusOK
		keptUp := c.healthy || at < incident
		if c.healthy && at-start < c.learnFor {
			keptUp = false // not counted either way: its cadence is being learnt
			ok = true
		}
		if ts.skew < 0 && at == start && keptUp {
			// Mirrored timestamps read their source's time until a poll
			// has seen the log end before the record: the first poll
			// cannot tell them from records an hour old.
			keptUp, ok = false, true
		}
		// Caught up: committed as far as a consumer keeping up would
		// have (both recovering consumers are down 5s at least).
		if c.recovers && caughtUp < 0 && at > incident+5*time.Second && committed >= keepsUp(l, incident, c.commitAt(at)) {
			caughtUp = at
		}
		switch {
		case keptUp && !ok:
			res.false++
		case !keptUp && !ok && res.flagged < 0:
			res.flagged = at - max(incident, start)
		}
		if caughtUp >= 0 && ok && res.recovered < 0 {
			res.recovered = at - caughtUp
		}
		if caughtUp >= 0 && at > caughtUp+30*time.Second && !ok {
			res.false++ // caught up half a minute ago, and still flagged
		}
		if ticker {
			at += interval - time.Millisecond + time.Duration(rng.Int64N(int64(2*time.Millisecond)))
		} else {
			at += interval*9/10 + time.Duration(rng.Int64N(int64(interval)/5+1))
		}
	}
	return res
}

// flagWithin is the spec for an incident's time to its first non-OK
// verdict, watched from before it: the allowance, then the poll that sees
// the wait past it. The allowance is 1.5 times the commit cadence polls
// see (the consumer's, the producer's bursts', or the interval, whichever
// is longest: commits seen every poll look a poll apart), at least 3s:
// within 6s at up to 2s polls for a consumer committing what it
// processes. A 1.1x slow consumer's records wait 0.09s longer each
// second: it takes 11 times as long.
func flagWithin(l simLog, c simConsumer, ts simStamps, interval time.Duration) time.Duration {
	seen := max(c.every, l.every) + interval
	if c.every == 0 && l.every == 0 {
		seen = interval
	}
	allow := max(3*time.Second, seen*3/2)
	if ts.skew != 0 {
		// Timestamps off the truth (a clock ahead, mirrored from their
		// source) give way to the polls that saw the record written:
		// they bound the wait to within the ring's spacing (1s) and a
		// poll.
		allow += time.Second + interval
	}
	if ts.none {
		// With no age, the commit standing still past the allowance says
		// it: the last commit may come up to a cadence after the incident
		// (an auto-commit of what was processed before it).
		// Measured from the last poll that saw the commit move.
		return allow + max(c.every, l.every) + 2*interval + time.Second
	}
	if strings.Contains(c.name, "1.1x") {
		return allow*11 + 2*interval + time.Second
	}
	return allow + interval + time.Second
}

// TestVerdictScenarioMatrix runs every scenario at every interval, its
// polls ±10% apart and, as a ticker's, within a millisecond of the
// interval.
func TestVerdictScenarioMatrix(t *testing.T) {
	for _, ticker := range []bool{false, true} {
		t.Run(map[bool]string{false: "polls ±10%", true: "ticker ±1ms"}[ticker], func(t *testing.T) {
			verdictScenarioMatrix(t, ticker)
		})
	}
}

func verdictScenarioMatrix(t *testing.T, ticker bool) {
	rng := rand.New(rand.NewPCG(17, 17))
	var table strings.Builder
	fmt.Fprintf(&table, "%-24s %-16s %-28s %-8s", "producer", "timestamps", "consumer", "watch")
	for _, iv := range simIntervals {
		fmt.Fprintf(&table, " %9s", iv)
	}
	table.WriteString("\n")
	for _, l := range simLogs {
		stamps := simStampKinds[:1]
		if l.name == simLogs[0].name {
			stamps = simStampKinds // every kind of timestamp on the steady producer
		}
		for _, ts := range stamps {
			for _, c := range simConsumers {
				if !c.healthy && strings.HasPrefix(l.name, "idle") {
					continue // an incident with nothing produced is no incident
				}
				for _, start := range []time.Duration{0, incident + time.Minute} {
					if c.healthy && start > 0 {
						continue
					}
					watch := "before"
					if start > 0 {
						watch = "60s in"
					}
					fmt.Fprintf(&table, "%-24s %-16s %-28s %-8s", l.name, ts.name, c.name, watch)
					for _, iv := range simIntervals {
						r := simulate(l, c, ts, iv, start, ticker, rng)
						table.WriteString(" " + r.cell(c))
						name := fmt.Sprintf("%s / %s / %s / watch %s / every %s", l.name, ts.name, c.name, watch, iv)
						if r.false > 0 {
							t.Errorf("%s: %d polls not OK while the consumer kept up", name, r.false)
						}
						if c.healthy {
							continue
						}
						want := flagWithin(l, c, ts, iv)
						if c.handover > 0 {
							// A new owner before the flag: its cadence is
							// learnt anew, the first allowance meanwhile.
							want = max(want, FirstAllowance+iv+time.Second)
						}
						if start > 0 {
							// 60s into it, the first poll knows, except a 1.1x
							// slow consumer's records (5.4s old): once its
							// cadence is seen, its 3s, or 1.5 intervals.
							want = 0
							switch {
							case strings.Contains(c.name, "1.1x"):
								want = 2*iv + flagWithin(l, c, ts, iv)
							case c.retention > 0:
								// Its oldest records deleted unread: told at once.
							case ts.none || ts.skew > 0:
								// No age, or one from a clock ahead: the commit
								// standing still past the first allowance says it.
								want = FirstAllowance + iv + time.Second
							}
						}
						if ts.none && (strings.Contains(c.name, "slow") || strings.Contains(c.name, "catching up") && start > 0) {
							// No age and commits advancing: no partition verdict (the
							// group's falling behind says it).
							want = -1
						}
						if strings.Contains(c.name, "down 5s") && (start > 0 || want > 5*time.Second+iv) {
							want = -1 // back before the watch began, or before its allowance ran out
						}
						switch {
						case want >= 0 && (r.flagged < 0 || r.flagged > want):
							t.Errorf("%s: first flagged after %s, want within %s", name, r.flagged, want)
						case c.recovers && r.flagged >= 0 && (r.recovered < 0 || r.recovered > 10*time.Second+2*iv):
							t.Errorf("%s: OK again %s after catching up, want within %s", name, r.recovered, 10*time.Second+2*iv)
						}
					}
					table.WriteString("\n")
				}
			}
		}
	}
	t.Logf("time to the first non-OK verdict (false alarms in brackets; ok: healthy, none):\n%s", table.String())
}

// cell is r as the table shows it.
func (r simResult) cell(c simConsumer) string {
	s := "-"
	switch {
	case c.healthy && r.false == 0:
		s = "ok"
	case r.flagged >= 0:
		s = fmt.Sprintf("%.1fs", math.Round(r.flagged.Seconds()*10)/10)
	}
	if r.false > 0 {
		s += fmt.Sprintf("[%d]", r.false)
	}
	return fmt.Sprintf("%9s", s)
}
