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

// HistoryOptions tunes History. Zero fields take their defaults.
type HistoryOptions struct {
	// StallAfter is how long the committed offset may stay put, with lag,
	// before the partition is STALLED. Default 30s (`--stall-after`).
	StallAfter time.Duration
	// Window smooths the rates: a rate is measured from the oldest sample
	// inside the window to the newest, and is unknown until the samples span
	// half of it. It is also how long REWOUND sticks. Default 10s.
	Window time.Duration
	// MaxLagAge, when set, caps how long a partition's oldest record may
	// wait before it is LAGGING, whatever its commit cadence allows: the
	// lag-age limit of an SLO (`--max-lag-age`). 0: no cap.
	MaxLagAge time.Duration
	// SparkPoints and SparkEvery shape Snapshot.TotalLagHistory: up to
	// SparkPoints points, one per SparkEvery. Defaults 60 and 5s (5 minutes).
	SparkPoints int
	SparkEvery  time.Duration
}

func (o HistoryOptions) withDefaults() HistoryOptions {
	if o.StallAfter <= 0 {
		o.StallAfter = DefaultStallAfter
	}
	if o.Window <= 0 {
		o.Window = 10 * time.Second
	}
	if o.SparkPoints <= 0 {
		o.SparkPoints = 60
	}
	if o.SparkEvery <= 0 {
		o.SparkEvery = 5 * time.Second
	}
	return o
}

const (
	// ringSize samples are kept per partition, spaced so that they cover
	// the rates' Window whatever the poll interval:
	// memory is a few hundred bytes per partition, not per poll.
	ringSize = 12
	// maxETA: beyond this the group is not meaningfully catching up.
	maxETA = 365 * 24 * time.Hour
	// verdictShare and verdictMin: "falling behind" and an ETA need
	// consumption and production apart by this share of the larger and
	// at least this many messages a second.
	verdictShare = 0.05
	verdictMin   = 0.5
	// An OK partition's lag is worth naming (the worst partition) once
	// its oldest message has waited minWorstAge and worstPolls poll
	// intervals: younger, it is being processed.
	minWorstAge = 5 * time.Second
	worstPolls  = 3
)

// partState is what History knows of one partition.
type partState struct {
	hist ring // its polls, for rates and the short window
	seen bool

	movedAt  int64 // when committed last changed (or first seen)
	moveSeen bool
	// stuckAt: the last poll with commit progress or no lag; a stall is
	// measured from it. stuckExact is false while it is the first sighting.
	stuckAt    int64
	stuckExact bool

	rewound     bool
	rewoundAt   int64
	rewoundFrom int64

	// oldest is the offset of the oldest unprocessed record (the
	// committed offset, or the log start with no commit) as last seen
	// (oldestSeen); notYet the last poll at which it had not been written
	// (the log ended at or before it), existed the first at which it had
	// been (0: not seen). Its wait lies between now-existed and now-notYet,
	// whatever its timestamp says.
	oldest          int64
	oldestSeen      bool
	notYet, existed int64

	// since is when this partition's offsets began to count in the
	// group's sums without a break (first sighting, a commit appearing,
	// or offsets readable again after a gap). gap: a poll could
	// not read them since the newest sample.
	since int64
	gap   bool

	status Status

	// The commit cadence of its owner (cadenceOf, a member id): the last
	// gaps between two of its commits (mark: the last one, 0 before one
	// is seen under this owner). A new owner commits at its own pace
	// (kcat every 5s after a demo consumer's every poll), so its cadence
	// is learnt anew; a partition LAGGING when it changes hands keeps the
	// old owner's (inherited) until the new one's first gap, so the
	// handover does not make it OK for a while.
	gaps      [cadenceGaps]int64
	ngaps     int
	every     int64 // the cadence the gaps make (cadence)
	mark      int64
	cadenceOf string
	inherited bool

	// The last measured rates, and when; the last owner seen (its label
	// and member id), shown while a rebalance leaves it unowned.
	lastConsume, lastProduce float64
	lastRateAt               int64
	owner, ownerID           string
}

// History remembers recent snapshots of one group, compactly, and derives
// what a single snapshot cannot say: statuses, rates, ETA, stall times and a
// lag sparkline. It holds a fixed number of samples per partition (about
// 670 bytes each, its state and its ring of 12 samples: 6.7 MB for 10,000
// partitions) and forgets partitions that
// leave the snapshot. It is not safe for concurrent
// use.
type History struct {
	opts    HistoryOptions
	spacing int64

	keys   []TopicPartition // keys[i] is the partition states[i] tracks
	states []partState
	lastT  int64
	polls  int

	spark      []int64 // ring of SparkPoints
	sparkHead  int
	sparkN     int
	sparkStart int64 // when the newest point's bucket began

	// The group's rates come from its own sums over the window: consumed
	// and produced add up every partition's offset movements since the
	// last poll, and group keeps them per poll for a little over Window.
	consumed, produced int64
	group              []groupSample
	sinces             []int64 // scratch: readable partitions' since

	// The group's verdict at the last poll, for hysteresis.
	falling, catching bool
}

// groupSample is the group at one poll: the running sums of offsets
// consumed and produced, and the total lag.
type groupSample struct {
	t, consumed, produced, lag int64
}

// groupCoverage is the share of the readable partitions that must have
// been counted since a sample for the group's rates to be measured from
// it: with fewer, the sums would miss some partitions' progress.
const groupCoverage = 0.9

// NewHistory returns an empty History.
func NewHistory(opts HistoryOptions) *History {
	opts = opts.withDefaults()
	span := opts.Window
	return &History{
		opts: opts,
		// Samples land up to one poll short of each spacing; with
		// span/10 the ring's 11 gaps still reach back past span.
		spacing: int64(span) / (ringSize - 2),
		spark:   make([]int64, opts.SparkPoints),
	}
}

// Annotate records s and fills its derived fields: per partition Status,
// rates, CommitMovedAt and StalledSince; per member ConsumeRate; per group
// Status, rates, ETA, FallingBehind, WorstPartition and TotalLagHistory. It returns one status_changed event
// per new status, naming the partitions that changed to it; a partition
// seen for the first time counts as coming from OK. Snapshots must arrive
// in time order; one older than the last seen restarts the history.
// Annotate writes into s.Partitions, so call it before sharing s.
func (h *History) Annotate(s *Snapshot) []Event {
	now := s.TakenAt.UnixNano()
	if h.polls > 0 && now < h.lastT {
		*h = *NewHistory(h.opts)
	}
	// Lag younger than this is work in flight, not a problem to name.
	inFlight := int64(minWorstAge)
	if h.polls > 0 {
		inFlight = max(inFlight, worstPolls*(now-h.lastT))
	}
	h.polls++
	h.lastT = now
	h.align(s.Partitions)

	empty := s.Group.State == StateEmpty
	staffed := len(s.Members) > 0 && !s.Group.Rebalancing() && s.Group.State != StateEmpty

	var changes []statusChange
	s.Status = StatusOK
	h.sinces = h.sinces[:0]
	worst := -1
	stuck := false // some lag is not being worked off at all
	rewound := false
	member := h.memberSums(s)
	loc := s.TakenAt.Location()
	for i := range s.Partitions {
		p := &s.Partitions[i]
		st := &h.states[i]
		prevStatus := st.was()
		if st.unreadable(p) {
			// Offsets or commit unreadable this poll: the lag is unknown,
			// not zero, and the commit did not move. Keep the verdict and
			// the stall clock rather than flap to OK and back.
			p.ConsumeRate, p.ProduceRate = Rate{}, Rate{}
			p.Status = st.status
			st.gap = true
		} else {
			var dc, de int64
			dc, de = h.update(p, st, now)
			h.consumed = AddLag(h.consumed, dc)
			h.produced = AddLag(h.produced, de)
			if p.LogEnd >= 0 {
				h.sinces = append(h.sinces, st.since)
			}
			p.Status = h.judgeRow(p, st, now, empty, staffed && !p.Owned())
		}
		h.keepRates(p, st, now)
		p.PrevOwner, p.PrevMemberID = "", ""
		switch {
		case p.Owned():
			st.owner, st.ownerID = p.ClientID, p.MemberID
			if st.owner == "" {
				st.owner = ShortID(p.MemberID)
			}
		case s.Group.Rebalancing():
			p.PrevOwner, p.PrevMemberID = st.owner, st.ownerID
		default:
			st.owner, st.ownerID = "", ""
		}
		p.CommitMovedAt, p.CommitMoveSeen = time.Unix(0, st.movedAt).In(loc), st.moveSeen
		p.CommitDelay, p.CommitEvery = time.Duration(now-st.movedAt), st.cadence()
		p.StalledSince, p.StalledSinceExact = time.Time{}, false
		if p.Lag > 0 && !p.LagMarkersOnly {
			p.StalledSince, p.StalledSinceExact = time.Unix(0, st.stuckAt).In(loc), st.stuckExact
		}
		st.status = p.Status

		if p.Status != prevStatus {
			changes = append(changes, statusChange{i: i, from: prevStatus, note: h.note(p, st, now)})
		}
		if p.Lag > 0 && (p.Status == StatusStalled || p.Status == StatusStopped || p.Status == StatusUnowned) {
			stuck = true
		}
		if p.Status == StatusRewound {
			// The group's rates mix before and after the rewind until
			// REWOUND ends: they say nothing about catching up.
			rewound = true
		}
		p.InFlight = false
		if p.Lag > 0 && p.Status == StatusOK && !p.LagAgeGone {
			// With no age, the lag's wait without a commit stands in,
			// once the poll that saw it start is known.
			wait := int64(p.LagAge)
			if !p.LagAgeKnown {
				wait = now - st.stuckAt
			}
			p.InFlight = wait < inFlight && (p.LagAgeKnown || st.stuckExact)
		}
		if p.Status.Worse(s.Status) {
			s.Status = p.Status
		}
		if m := member(p); m != nil {
			if p.Lag > 0 && !p.InFlight {
				m.InFlight = false
			}
			if p.CommitMoveSeen && (!m.CommitSeen || p.CommitDelay < m.CommitDelay) {
				m.CommitDelay, m.CommitSeen = p.CommitDelay, true
			}
			if c := p.CommitEvery; c > 0 && (m.CommitEvery == 0 || c < m.CommitEvery) {
				m.CommitEvery = c
			}
			if p.ConsumeRate.Known {
				m.ConsumeRate.PerSec += p.ConsumeRate.PerSec
				m.ConsumeRate.Known = true
				m.ConsumeRate.Stale = m.ConsumeRate.Stale || p.ConsumeRate.Stale
			}
		}
		if (p.Status != StatusOK || p.Lag > 0 && !p.InFlight) && (worst < 0 || rowWorse(p, &s.Partitions[worst])) {
			worst = i
		}
	}

	s.HasWorst = false
	s.WorstPartition = TopicPartition{}
	if worst >= 0 {
		s.WorstPartition, s.HasWorst = s.Partitions[worst].TopicPartition, true
	}
	consume, produce, lagThen := h.groupRates(now, s.TotalLag)
	s.ConsumeRate, s.ProduceRate = consume, produce
	s.ETA, s.ETAKnown, s.FallingBehind = 0, false, false
	s.FallingBehindKnown = consume.Known && produce.Known && !rewound
	falling, catching := false, false
	if consume.Known && produce.Known && s.TotalLag > 0 && !rewound {
		// A verdict needs a real difference, held: the rates a margin
		// apart and total lag moved that way across the window; it then
		// holds while they stay half the margin apart. A consumer one
		// message behind a 5/s producer reads 4.8 vs 4.9 one second and
		// 5.0 vs 4.9 the next: no verdict.
		net := consume.PerSec - produce.PerSec
		margin := max(verdictShare*max(consume.PerSec, produce.PerSec), verdictMin)
		falling = -net > margin && s.TotalLag > lagThen || h.falling && -net > margin/2
		// A stalled, stopped or unowned partition's lag does not drain
		// however fast the others go: no ETA then.
		catching = !stuck && (net > margin && s.TotalLag < lagThen || h.catching && net > margin/2)
		if catching {
			eta := float64(s.TotalLag) / net
			if eta < maxETA.Seconds() {
				s.ETA, s.ETAKnown = time.Duration(eta*float64(time.Second)), true
			}
		}
		s.FallingBehind = falling
	}
	h.falling, h.catching = falling, catching
	s.TotalLagHistory = h.sparkline(now, s.TotalLag)
	return h.events(s, changes)
}

// update records p in st and sets p's rates. It returns how far the
// committed offset and log end moved since the last poll (0 when they
// cannot be compared: st.since is then now).
func (h *History) update(p *PartitionLag, st *partState, now int64) (dc, de int64) {
	cur := sample{t: now, committed: p.Committed, logEnd: p.LogEnd, lag: p.Lag}
	if p.MemberID != "" && p.MemberID != st.cadenceOf {
		if st.cadenceOf != "" {
			// A new owner: its cadence is its own.
			st.mark = 0
			if st.status == StatusLagging {
				st.inherited = true
			} else {
				st.forgetCadence()
			}
		}
		st.cadenceOf = p.MemberID
	}
	if p.LagMarkersOnly {
		cur.lag = 0 // nothing to consume: neither stalled nor lagging
	}
	if st.hist.buf == nil {
		st.hist = newRing(make([]sample, ringSize))
	}
	if !st.seen {
		st.seen, st.movedAt, st.stuckAt, st.stuckExact = true, now, now, cur.lag == 0
		st.since = now
		st.hist.push(cur, h.spacing)
	} else {
		prev := *st.hist.newest()
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
			// makes a consumer look late.
			if st.mark > 0 {
				st.addGap(now - st.mark)
			}
			st.mark = now
			st.movedAt, st.moveSeen = now, true
		}
		if cur.committed != prev.committed || cur.lag == 0 {
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
		}
		st.hist.push(cur, h.spacing)
	}
	st.trackOldest(p, now)
	if st.rewound && now-st.rewoundAt >= int64(h.opts.Window) {
		st.rewound = false
	}

	// One pass over the ring, oldest first: the rates' endpoints.
	window := int64(h.opts.Window)
	cOld, eOld := -1, -1
	n := st.hist.len()
	for j := 0; j < n-1; j++ {
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
	p.ConsumeRate = h.rate(st, cOld, now, cur.committed, func(sm *sample) int64 { return sm.committed })
	p.ProduceRate = h.rate(st, eOld, now, cur.logEnd, func(sm *sample) int64 { return sm.logEnd })
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
	h.group = append(h.group, groupSample{t: now, consumed: h.consumed, produced: h.produced, lag: totalLag})
	drop := 0
	for len(h.group)-drop >= 3 && now-h.group[drop+1].t >= window {
		drop++
	}
	if drop > 0 {
		h.group = append(h.group[:0], h.group[drop:]...)
	}
	from := h.groupFrom(now)
	if from < 0 {
		return Rate{}, Rate{}, 0
	}
	old := &h.group[from]
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
	if counted > h.group[0].t {
		if need := int(math.Ceil(groupCoverage * float64(len(h.sinces)))); need < len(h.sinces) {
			slices.Sort(h.sinces)
			counted = h.sinces[max(need-1, 0)]
		}
	}
	window := int64(h.opts.Window)
	n := len(h.group)
	for j := 0; j < n-1; j++ {
		g := &h.group[j]
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

// align makes h.states[i] track s.Partitions[i]. Polls of a stable group
// list the same partitions in the same order, so the common case is one
// comparison per partition and no map.
func (h *History) align(rows []PartitionLag) {
	if len(rows) == len(h.keys) {
		same := true
		for i := range rows {
			if rows[i].TopicPartition != h.keys[i] {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	old := make(map[TopicPartition]int, len(h.keys))
	for i, k := range h.keys {
		old[k] = i
	}
	keys := make([]TopicPartition, len(rows))
	states := make([]partState, len(rows))
	for i := range rows {
		keys[i] = rows[i].TopicPartition
		if j, ok := old[keys[i]]; ok {
			states[i] = h.states[j]
		}
	}
	h.keys, h.states = keys, states
}

// rate is (cur − ring[from]) / Δt, unknown when there is no usable older
// sample, the samples span less than half the window, or the offset went
// down (which a reset should have caught; never report a negative rate).
func (h *History) rate(st *partState, from int, now, cur int64, field func(*sample) int64) Rate {
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

// was is the partition's status at the last poll; OK at first sight.
func (st *partState) was() Status {
	if !st.seen {
		return StatusOK
	}
	return st.status
}

// unreadable reports whether p's offsets or commit could not be read this
// poll, once seen before: its lag is unknown, not zero, and its commit
// did not move, so its verdict and stall clock are kept rather than flap
// to OK and back.
func (st *partState) unreadable(p *PartitionLag) bool {
	return st.seen && (p.LogEnd < 0 || (p.Committed < 0 && p.Err != ""))
}

// judgeRow is p's status this poll, once update has recorded it in st:
// empty, the group has no active members; unowned, it has members, is
// not rebalancing and none owns p. Transaction markers alone are no work
// waiting.
func (h *History) judgeRow(p *PartitionLag, st *partState, now int64, empty, unowned bool) Status {
	return judge(h.facts(p, st, now, p.Lag > 0 && !p.LagMarkersOnly, empty, unowned, st.was()))
}

// facts gathers what judge reads of p: this poll's row, and st's history
// up to it (update has recorded it). was is p's status at the last poll.
func (h *History) facts(p *PartitionLag, st *partState, now int64, lag, empty, unowned bool, was Status) facts {
	f := facts{lag: lag, empty: empty, unowned: unowned, rewound: st.rewound, was: was, gone: p.LagAgeGone,
		stuck: time.Duration(now - st.stuckAt), allow: st.allowance(h.opts.MaxLagAge),
		stallAt: max(h.opts.StallAfter, st.cadence()*3/2)}
	f.waited, f.ageKnown = st.waited(p, now)
	f.behind = ratesBehind(p, 0.5)
	return f
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

// rowWorse orders partitions for "look here first": worse status, then
// older lag (messages waiting longest), then larger lag.
func rowWorse(a, b *PartitionLag) bool {
	if sa, sb := a.Status.Severity(), b.Status.Severity(); sa != sb {
		return sa > sb
	}
	if c := compareAge(a, b); c != 0 {
		return c < 0
	}
	return a.Lag > b.Lag
}

// memberSums readies s's members for their partitions' sums (consume
// rate; whether all their lag is in flight) and returns the owner of a
// partition row, nil when unowned or not a member. Rows are summed in the
// partition loop of Annotate, not in a pass of their own: at 10,000
// partitions each pass over the rows costs.
func (h *History) memberSums(s *Snapshot) func(p *PartitionLag) *Member {
	idx := make(map[string]int, len(s.Members))
	for i := range s.Members {
		s.Members[i].ConsumeRate = Rate{}
		s.Members[i].InFlight = s.Members[i].Lag > 0
		s.Members[i].CommitDelay, s.Members[i].CommitSeen, s.Members[i].CommitEvery = 0, false, 0
		idx[s.Members[i].MemberID] = i
	}
	last, lastJ := "", -1
	return func(p *PartitionLag) *Member {
		if !p.Owned() {
			return nil
		}
		if lastJ < 0 || p.MemberID != last {
			j, ok := idx[p.MemberID]
			if !ok {
				return nil
			}
			last, lastJ = p.MemberID, j
		}
		return &s.Members[lastJ]
	}
}

// sparkline records total lag and returns the points, oldest first. A
// point holds the latest total of its SparkEvery bucket.
func (h *History) sparkline(now, total int64) []int64 {
	if h.sparkN == 0 || now-h.sparkStart >= int64(h.opts.SparkEvery) {
		if h.sparkN > 0 {
			h.sparkHead = (h.sparkHead + 1) % len(h.spark)
		}
		h.sparkN = min(h.sparkN+1, len(h.spark))
		h.sparkStart = now
	}
	h.spark[h.sparkHead] = total
	out := make([]int64, h.sparkN)
	for i := range out {
		out[i] = h.spark[(h.sparkHead-h.sparkN+1+i+len(h.spark))%len(h.spark)]
	}
	return out
}
