package model

import (
	"math"
	"time"
)

// The verdict on a partition, in time and never in polls, so that it reads
// the same at every poll interval. One poll says most of it: the age of
// the oldest unprocessed record (the one at the committed offset) is how
// long work has waited, measured from the record's own timestamp. History
// refines it: how often the partition's commits come (the allowance), how
// long its commit has stood still (STALLED), a commit gone back (REWOUND),
// and lag growing while produced faster than consumed.

const (
	// laggingAge is the least allowance: records that have waited less
	// are in flight, whatever the consumer's cadence.
	laggingAge = 3 * time.Second
	// FirstAllowance is how long a partition's oldest record may wait
	// before the partition is LAGGING while its commit cadence is not
	// known (the first two commits under its owner not seen yet): three
	// times the 5s auto-commit of the Java client and librdkafka, so a
	// consumer committing every few seconds is OK from the first poll and
	// one whose records have waited longer is flagged by it.
	FirstAllowance = 15 * time.Second
	// cadenceGaps commit gaps are kept per partition; its cadence is
	// their upper median, so one long pause (a hang that ended) does not
	// make it slow to flag for long, and one quick pair of commits does
	// not make it flap.
	cadenceGaps = 4
)

// facts is what the verdict on one partition reads: this poll's row, and
// what its history knows.
type facts struct {
	lag     bool // records waiting: lag > 0, not only transaction markers
	empty   bool // the group has no active members
	unowned bool // members, none rebalancing, and none owns it
	rewound bool // its commit went back within the rates window
	// stuck is how long the commit has not moved while records waited,
	// from the first poll that saw it (a lower bound at first sight).
	stuck time.Duration
	// waited is how long the oldest unprocessed record has waited, when
	// known (ageKnown).
	waited   time.Duration
	ageKnown bool
	// allow is how long a record may wait: the partition's commit cadence
	// and a half, at least laggingAge; FirstAllowance before it is known.
	allow time.Duration
	// stallAt is how long the commit may stand still with records waiting
	// before the partition is STALLED: --stall-after, or its cadence and a
	// half when longer (Kafka Streams commits every 30s: between two
	// commits it is not stalled).
	stallAt time.Duration
	// gone: retention deleted the oldest unprocessed records before they
	// were consumed (PartitionLag.LagAgeGone).
	gone bool
	// behind: produced faster than consumed over the rates window (by
	// half the margin the group's verdict takes: it only holds a verdict).
	behind bool
	was    Status // its status at the last poll
}

// judge is a partition's status, by precedence: STOPPED, REWOUND,
// STALLED, UNOWNED, LAGGING, OK. The group view and the overview both
// judge with it.
func judge(f *facts) Status {
	switch {
	case f.lag && f.empty:
		return StatusStopped
	case f.rewound:
		return StatusRewound
	case f.lag && f.stuck >= f.stallAt:
		return StatusStalled
	case f.lag && f.unowned:
		return StatusUnowned
	case f.lag && lagging(f):
		return StatusLagging
	}
	return StatusOK
}

// lagging is the LAGGING rule: the oldest record has waited past the
// allowance. With no age known (no timestamp could be read), the commit's
// standing still with records waiting stands in for the wait: a consumer
// whose commits advance, however slowly, is then told by the group's
// falling behind, not here (lag sampled at polls cannot tell a slow
// consumer from a batch committer's sawtooth). Once LAGGING, it holds
// until the wait (or the standing still) is under half the allowance (the
// troughs of a batch committer's sawtooth must not end it), unless the
// partition's rates still say it falls behind.
func lagging(f *facts) bool {
	if f.gone {
		return true // records deleted unread: it is behind retention
	}
	allow := f.allow
	was := f.was == StatusLagging
	if was {
		allow /= 2
	}
	if !f.ageKnown {
		return f.stuck >= allow || was && f.behind
	}
	return f.waited >= allow || was && f.behind && f.waited >= laggingAge/2
}

// allowance is how long st's records may wait before it is LAGGING: its
// cadence and a half (at least laggingAge), never more than limit when
// one is set (HistoryOptions.MaxLagAge, the user's SLO); before the
// cadence is known, the limit, or FirstAllowance without one.
func (st *partState) allowance(limit time.Duration) time.Duration {
	c := st.cadence()
	switch {
	case c > 0 && limit > 0:
		return min(max(laggingAge, c*3/2), limit)
	case c > 0:
		return max(laggingAge, c*3/2)
	case limit > 0:
		return limit
	}
	return FirstAllowance
}

// cadence is how often st's commits come under its current owner: the
// upper median of the last gaps seen between two of its commits; 0 before
// one is seen. addGap keeps it.
func (st *partState) cadence() time.Duration { return time.Duration(st.every) }

// addGap records one gap between commits, and the cadence they make; the
// first of a new owner's replaces the old owner's inherited ones.
func (st *partState) addGap(gap int64) {
	if st.inherited {
		st.ngaps, st.inherited = 0, false
	}
	if int(st.ngaps) < cadenceGaps {
		st.gaps[st.ngaps] = gap
		st.ngaps++
	} else {
		for k := range cadenceGaps - 1 { // not copy: a call to memmove for 24 bytes
			st.gaps[k] = st.gaps[k+1]
		}
		st.gaps[cadenceGaps-1] = gap
	}
	g, n := st.gaps, int(st.ngaps) // sorted in a copy, by insertion: at most 4
	for i := 1; i < n; i++ {
		for j := i; j > 0 && g[j] < g[j-1]; j-- {
			g[j], g[j-1] = g[j-1], g[j]
		}
	}
	st.every = g[n/2]
}

// createdSlack is how long before it reaches the log a record may be
// stamped: kafka-go's writer batches for up to 1 s by default, Java's and
// librdkafka's producers linger for milliseconds.
const createdSlack = time.Second

// forgetCadence forgets the gaps: a new owner's cadence is its own.
func (st *partState) forgetCadence() { st.ngaps, st.every = 0, 0 }

// polled notes a poll at now, for blind.
func (h *History) polled(now int64) {
	if h.pollAt > 0 {
		h.pollGaps = [3]int64{now - h.pollAt, h.pollGaps[0], h.pollGaps[1]}
	}
	h.pollAt = now
}

// blind reports whether a partition last polled at last (the poll before
// this one, unless it was missing from some) went unseen for more than
// twice the longer of the two poll gaps before this poll's: a commit
// seen to move now moved while no one looked.
func (h *History) blind(last, now int64) bool {
	ref := max(h.pollGaps[1], h.pollGaps[2])
	return ref > 0 && now-last > 2*ref
}

// waited returns how long p's oldest unprocessed record has waited: its
// lag age, when it agrees with what the polls saw of that record (written
// after the last poll at which it was not there yet, before the first at
// which it was); when it does not, halfway between those two polls. So
// timestamps older than their writing (mirrored with their source's
// times, a producer's clock behind) do not make a consumer that keeps up
// look behind, and ones from a clock ahead do not hide one that hung.
// A record made up to createdSlack before the last poll that did not see
// it agrees too: a producer stamps a record when it is made, and sends
// it later (linger, a batch's timeout, retries).
func (st *partState) waited(p *PartitionLag, now int64) (time.Duration, bool) {
	if !p.LagAgeKnown || p.LagAgeGone {
		return 0, false
	}
	age := p.LagAge
	most, least := time.Duration(math.MaxInt64), time.Duration(0)
	if st.notYet > 0 {
		most = time.Duration(now - st.notYet)
	}
	if st.existed > 0 {
		least = time.Duration(now - st.existed)
	}
	switch {
	case age <= most+createdSlack && age >= least:
		return age, true
	case st.notYet > 0 && st.existed > 0:
		return (most + least) / 2, true
	}
	return min(max(age, least), most), true
}

// trackOldest follows the oldest unprocessed record of p through the
// polls (update calls it once p is in the ring): when it was not yet
// written, when it first was. A new oldest record looks back through the
// ring for both.
func (st *partState) trackOldest(p *PartitionLag, now int64) {
	at := p.Committed
	if at < 0 {
		at = p.LogStart
	}
	if at < 0 || p.LogEnd < 0 {
		return // unknown this poll: what was seen stands
	}
	if !st.oldestSeen || at != st.oldest {
		// notYet: the last earlier poll whose log ended at or before
		// it; existed: the first after that one whose log went past it.
		// Newest first, the look back ends at notYet: one sample when the
		// consumer keeps up.
		st.oldest, st.oldestSeen = at, true
		st.notYet, st.existed = st.hist.lookBack(at, st.endsSorted)
	}
	switch {
	case p.LogEnd <= at:
		st.notYet, st.existed = now, 0
	case st.existed == 0:
		st.existed = now
	}
}

// lookBack returns, of the samples before the newest, the time of the
// last whose log ended at or before at (notYet), and of the first after
// that one whose log went past it (existed); 0 when there is none.
// Samples whose log end was not read count for neither.
//
// sorted says the ring's log ends were all read and never go down,
// oldest to newest (partState.endsSorted): then when the oldest is past
// at, all are, and the answer is that oldest sample, so a consumer far
// behind reads two samples, not the ring. The newest first is the other
// common case, a consumer that keeps up.
func (r *samples) lookBack(at int64, sorted bool) (notYet, existed int64) {
	n := r.len() - 1 // the samples before the newest
	if n <= 0 {
		return 0, 0
	}
	if s := r.at(n - 1); s.logEnd >= 0 && s.logEnd <= at {
		return s.t, 0
	}
	if s := r.at(0); sorted && s.logEnd > at {
		return 0, s.t
	}
	for i := n - 1; i >= 0; i-- {
		s := r.at(i)
		if s.logEnd < 0 {
			continue
		}
		if s.logEnd <= at {
			return s.t, existed
		}
		existed = s.t
	}
	return 0, existed
}
