package model

import (
	"math"
	"slices"
	"time"
)

// Rate is a per-second rate that may be unknown (not enough history, or the
// offsets it needs were unreadable). PerSec is never NaN or negative.
type Rate struct {
	PerSec float64
	Known  bool
	// Stale: not measured this poll (a gap in the offsets, a partition
	// back after a rebalance); PerSec is the last measured value, kept so
	// the screen does not blank out. JSON writes a stale rate as null.
	Stale bool
}

// staleRateFor is how long a partition's last measured rate stands in for
// one that cannot be measured.
const staleRateFor = 30 * time.Second

// groupSample is the group at one poll: the running sums of offsets
// consumed and produced, and the total lag.
type groupSample struct {
	t, consumed, produced, lag int64
}

// groupCoverage is the share of the readable partitions that must have
// been counted since a sample for the group's rates to be measured from
// it: with fewer, the sums would miss some partitions' progress.
const groupCoverage = 0.9

// update records p, owned by owner (hashed: ownerHash; 0 for none), in
// st and sets p's rates; ownerEvery is owner's cadence on the group's
// other partitions when it takes p from another (ownerCadences), else 0.
// It returns how far the
// committed offset and log end moved since the last poll (0 when they
// cannot be compared: st.since is then now).
func (h *History) update(p *PartitionLag, st *partState, now int64, owner uint64, ownerEvery int64) (dc, de int64) {
	cur := sample{t: now, committed: p.Committed, logEnd: p.LogEnd}
	lag := p.Lag
	handed := st.handedTo(owner) // a new owner seen at this poll
	if handed {
		// A new owner: its cadence is its own.
		st.mark = 0
		switch {
		case ownerEvery > 0: // the new owner's, on its other partitions
			st.gaps[0], st.ngaps, st.every, st.inherited = ownerEvery, 1, ownerEvery, true
		case st.status.status() == StatusLagging || st.allowance(0) > FirstAllowance:
			st.inherited = true
		default:
			st.forgetCadence()
		}
	}
	if owner != 0 {
		st.cadenceOf = owner
	}
	if p.LagMarkersOnly {
		lag = 0 // nothing to consume: neither stalled nor lagging
	}
	if !st.seen {
		st.seen, st.movedAt, st.stuckAt, st.stuckExact = true, now, now, lag == 0
		st.since = now
		st.hist.pushSpaced(cur, h.spacing)
		st.endsSorted = st.hist.len() == 1 && cur.logEnd >= 0
	} else {
		prev := st.hist.newest()
		reset := false
		if cur.logEnd >= 0 && prev.logEnd >= 0 && cur.logEnd < prev.logEnd {
			reset = true // log truncated or topic recreated
		}
		if cur.committed >= 0 && prev.committed >= 0 && cur.committed < prev.committed {
			if !reset { // a recreated log explains a lower commit
				st.rewound, st.rewoundAt, st.rewoundFrom = true, now, prev.committed
			}
			reset = true
		}
		if cur.committed != prev.committed {
			// The cadence of commits as polls see it: the time between
			// two commits. The time from the first sighting to the first
			// commit says nothing of it (watched from just before a
			// commit, a consumer that commits every 5s would seem to
			// commit every second); a gap with no records to commit in
			// it makes it longer, never shorter, so an idle spell never
			// makes a consumer look late. It says nothing when the poll
			// came far later than the gap before it (a laptop asleep,
			// polls failing): the commit moved while no one looked, and
			// the gap measures the watcher, not the consumer. Nor does
			// the gap after it start here: the commit came some time in
			// the blind span, and counted from the poll that woke, the
			// next gap would be short (a 30 s committer read as one of
			// every 5 s, LAGGING within seconds), so the next commit
			// seen marks the start again. A commit seen at the poll that
			// sees a new owner is most likely the old owner's, made as
			// the partition was revoked (the Java client's auto-commit
			// and Kafka Streams commit then): counted from it, the new
			// owner's first gap was short.
			if !handed && !h.blind(prev.t, now) {
				if st.mark > 0 {
					st.addGap(now - st.mark)
				}
				st.mark = now
			} else {
				st.mark = 0
			}
			st.movedAt, st.moveSeen = now, true
		}
		if cur.committed != prev.committed || lag == 0 {
			// A stall needs work waiting: an idle partition whose first
			// new message arrives after minutes without commits is not
			// stalled.
			st.stuckAt, st.stuckExact = now, true
		}
		// The group's sums take each offset's movement where it is one:
		// a truncated log or a rewound commit adds nothing this poll, and
		// the rest of the group keeps its rates.
		if st.gap || prev.logEnd < 0 || cur.logEnd < 0 || (prev.committed < 0) != (cur.committed < 0) {
			st.since = now
		} else {
			de = max(cur.logEnd-prev.logEnd, 0)
			if cur.committed >= 0 {
				dc = max(cur.committed-prev.committed, 0)
			}
		}
		st.gap = false
		if reset {
			st.hist.clear()
			st.lastRateAt = 0 // the old rates say nothing of the new log
			st.oldestSeen = false
			st.endsSorted = true
		}
		// A replaced newest was no higher than cur: the order holds.
		st.endsSorted = st.endsSorted && cur.logEnd >= 0 && (st.hist.len() == 0 || cur.logEnd >= st.hist.newest().logEnd)
		st.hist.pushSpaced(cur, h.spacing)
	}
	st.trackOldest(p, now)
	if st.rewound && now-st.rewoundAt >= int64(h.opts.Window) {
		st.rewound = false
	}

	// One pass over the ring, oldest first, until both of the rates'
	// endpoints are found.
	window := int64(h.opts.Window)
	cOld, eOld := -1, -1
	n := st.hist.len()
	for j := 0; j < n-1 && (cOld < 0 || eOld < 0); j++ {
		sm := st.hist.at(j)
		if now-sm.t <= window || j == n-2 {
			if cOld < 0 && (sm.committed >= 0) == (cur.committed >= 0) {
				cOld = j
			}
			if eOld < 0 && sm.logEnd >= 0 && cur.logEnd >= 0 {
				eOld = j
			}
		}
	}
	p.ConsumeRate = h.rate(st, cOld, now, cur.committed, func(sm sample) int64 { return sm.committed })
	p.ProduceRate = h.rate(st, eOld, now, cur.logEnd, func(sm sample) int64 { return sm.logEnd })
	return dc, de
}

// keepRates remembers p's rates when they are measured, and stands the last
// ones in, marked stale, for a while when they are not.
func (h *History) keepRates(p *PartitionLag, st *partState, now int64) {
	if p.ConsumeRate.Known && p.ProduceRate.Known {
		st.lastConsume, st.lastProduce, st.lastRateAt = p.ConsumeRate.PerSec, p.ProduceRate.PerSec, now
		return
	}
	if st.lastRateAt == 0 || now-st.lastRateAt > int64(staleRateFor) {
		return
	}
	if !p.ConsumeRate.Known {
		p.ConsumeRate = Rate{PerSec: st.lastConsume, Known: true, Stale: true}
	}
	if !p.ProduceRate.Known {
		p.ProduceRate = Rate{PerSec: st.lastProduce, Known: true, Stale: true}
	}
}

// groupRates records this poll's group sums and total lag, and returns the
// group's rates and the total lag they start from: the sums' growth from
// the oldest sample inside the window that at least groupCoverage of the
// readable partitions were counted since, to now. They are unknown until
// that spans half the window, so a group whose partitions appear one by
// one (consumers joining) does not read as slower than it is.
func (h *History) groupRates(now, totalLag int64) (consume, produce Rate, lagThen int64) {
	window := int64(h.opts.Window)
	h.group.add(groupSample{t: now, consumed: h.consumed, produced: h.produced, lag: totalLag})
	for h.group.len() >= 3 && now-h.group.at(1).t >= window {
		h.group.drop(1)
	}
	from := h.groupFrom(now)
	if from < 0 {
		return Rate{}, Rate{}, 0
	}
	old := h.group.at(from)
	secs := float64(now-old.t) / float64(time.Second)
	return Rate{PerSec: float64(h.consumed-old.consumed) / secs, Known: true},
		Rate{PerSec: float64(h.produced-old.produced) / secs, Known: true}, old.lag
}

// groupFrom returns the index of the group sample the rates are measured
// from, -1 when none qualifies.
func (h *History) groupFrom(now int64) int {
	if len(h.sinces) == 0 {
		return -1
	}
	// counted: the sample must be no older than the time by which
	// groupCoverage of the readable partitions were being counted. Most
	// polls every partition has been counted for longer than the window:
	// no sorting then.
	counted := int64(0)
	for _, t := range h.sinces {
		counted = max(counted, t)
	}
	if counted > h.group.at(0).t {
		if need := int(math.Ceil(groupCoverage * float64(len(h.sinces)))); need < len(h.sinces) {
			slices.Sort(h.sinces)
			counted = h.sinces[max(need-1, 0)]
		}
	}
	window := int64(h.opts.Window)
	n := h.group.len()
	for j := 0; j < n-1; j++ {
		g := h.group.at(j)
		if g.t < counted || (now-g.t > window && j != n-2) {
			continue
		}
		if dt := now - g.t; dt <= 0 || dt < window/2 {
			return -1
		}
		return j
	}
	return -1
}

// rate is (cur − ring[from]) / Δt, unknown when there is no usable older
// sample, the samples span less than half the window, or the offset went
// down (which a reset should have caught; never report a negative rate).
func (h *History) rate(st *partState, from int, now, cur int64, field func(sample) int64) Rate {
	if from < 0 {
		return Rate{}
	}
	old := st.hist.at(from)
	dt := now - old.t
	if dt <= 0 || dt < int64(h.opts.Window)/2 {
		return Rate{}
	}
	d := cur - field(old)
	if cur < 0 {
		d = 0 // nothing committed at either end: nothing consumed
	}
	if d < 0 {
		return Rate{}
	}
	return Rate{PerSec: float64(d) / (float64(dt) / float64(time.Second)), Known: true}
}

// ratesBehind reports whether p's produce rate exceeds its consume rate by
// share times the margin the group's verdicts take (verdictShare of the
// rate, at least verdictMin a second), both measured this poll.
func ratesBehind(p *PartitionLag, share float64) bool {
	c, e := p.ConsumeRate, p.ProduceRate
	if !c.Known || !e.Known || c.Stale || e.Stale {
		return false
	}
	return e.PerSec-c.PerSec > share*max(verdictShare*e.PerSec, verdictMin)
}
