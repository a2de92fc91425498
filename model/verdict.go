package model

import (
	"slices"
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
	// laggingMinGrow: with no age known, lag must grow by at least this
	// many messages (and 1%) across the window, so lag of one or two in
	// flight is never LAGGING.
	laggingMinGrow = 5
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
	// With no age known: grew, lag grew throughout the short window;
	// shrunk, lag is lower than at the window's start. behind: produced
	// faster than consumed over the rates window (by half the margin the
	// group's verdict takes: it only holds a verdict).
	grew, behind, shrunk bool
	was                  Status // its status at the last poll
}

// judge is a partition's status, by precedence: STOPPED, REWOUND,
// STALLED, UNOWNED, LAGGING, OK. The group view and the overview both
// judge with it.
func judge(f facts, stallAfter time.Duration) Status {
	switch {
	case f.lag && f.empty:
		return StatusStopped
	case f.rewound:
		return StatusRewound
	case f.lag && f.stuck >= stallAfter:
		return StatusStalled
	case f.lag && f.unowned:
		return StatusUnowned
	case f.lag && lagging(f):
		return StatusLagging
	}
	return StatusOK
}

// lagging is the LAGGING rule: the oldest record has waited past the
// allowance. With no age known, the commit's standing still stands in
// for the wait, and lag growing throughout the short window says it too.
// Once LAGGING, it holds until the wait is under half the allowance (the
// troughs of a batch committer's sawtooth must not end it), or, with no
// age, the lag shrinks, unless the partition's rates still say it falls
// behind.
func lagging(f facts) bool {
	allow := f.allow
	was := f.was == StatusLagging
	if was {
		allow /= 2
	}
	if !f.ageKnown {
		return f.stuck >= allow || f.grew || was && (f.behind || !f.shrunk)
	}
	return f.waited >= allow || was && f.behind && f.waited >= laggingAge/2
}

// allowance is how long st's records may wait before it is LAGGING: its
// cadence and a half (at least laggingAge), FirstAllowance before the
// cadence is known; never more than limit when one is set
// (HistoryOptions.MaxLagAge).
func (st *partState) allowance(limit time.Duration) time.Duration {
	a := FirstAllowance
	if c := st.cadence(); c > 0 {
		a = max(laggingAge, c*3/2)
	}
	if limit > 0 {
		a = min(a, limit)
	}
	return a
}

// cadence is how often st's commits come under its current owner: the
// upper median of the last gaps seen between two of its commits; 0 before
// one is seen.
func (st *partState) cadence() time.Duration {
	if st.ngaps == 0 {
		return 0
	}
	g := st.gaps
	s := g[:st.ngaps]
	slices.Sort(s)
	return time.Duration(s[len(s)/2])
}

// addGap records one gap between commits.
func (st *partState) addGap(gap int64) {
	if st.ngaps < cadenceGaps {
		st.gaps[st.ngaps] = gap
		st.ngaps++
		return
	}
	copy(st.gaps[:], st.gaps[1:])
	st.gaps[cadenceGaps-1] = gap
}

// waited returns how long p's oldest unprocessed record has waited: its
// lag age, but no longer than since the last poll at which that record
// had not been written yet (the log ended at or before it). Records whose
// timestamps are older than their writing (mirrored with their source's
// times, a producer's clock behind) do not make a consumer that keeps up
// look behind.
func (st *partState) waited(p *PartitionLag, now int64) (time.Duration, bool) {
	if !p.LagAgeKnown || p.LagAgeGone {
		return 0, false
	}
	at := p.Committed
	if at < 0 {
		at = p.LogStart
	}
	age := p.LagAge
	for i := st.hist.len() - 2; i >= 0; i-- {
		if s := st.hist.at(i); s.logEnd >= 0 && s.logEnd <= at {
			age = min(age, time.Duration(now-s.t))
			break
		}
	}
	return age, true
}
