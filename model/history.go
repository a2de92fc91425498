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
	// LaggingWindow is the short window a LAGGING verdict looks at: lag
	// grown across it (at least three polls of it, or two poll intervals
	// when polls are slower), while commits advance or after they stopped.
	// Default 5s: a partition falling behind is seen in seconds.
	LaggingWindow time.Duration
	// SparkPoints and SparkEvery shape Snapshot.TotalLagHistory: up to
	// SparkPoints points, one per SparkEvery. Defaults 60 and 5s (5 minutes).
	SparkPoints int
	SparkEvery  time.Duration
}

func (o HistoryOptions) withDefaults() HistoryOptions {
	if o.StallAfter <= 0 {
		o.StallAfter = 30 * time.Second
	}
	if o.Window <= 0 {
		o.Window = 10 * time.Second
	}
	if o.LaggingWindow <= 0 {
		o.LaggingWindow = 5 * time.Second
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
	// the longer of Window and LaggingWindow whatever the poll interval:
	// memory is a few hundred bytes per partition, not per poll.
	ringSize = 8
	// minLaggingSamples is how many polls (the current one included) the
	// lagging window must hold before LAGGING can be said.
	minLaggingSamples = 3
	// recentSize polls are kept per partition, unspaced, for the short
	// window of LAGGING.
	recentSize = 8
	// troughSize spans of LaggingWindow are kept of each partition's
	// lowest lag.
	troughSize = 6
	// laggingAge: with its age known, lag whose oldest record has waited
	// less than this is being worked off, whatever its trend.
	laggingAge = 3 * time.Second
	// laggingMinGrow: with no age known, lag must grow by at least this
	// many messages (and 1%) across the window, so lag of one or two in
	// flight is never LAGGING.
	laggingMinGrow = 5
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

type sample struct {
	t         int64 // unix nanoseconds
	committed int64
	logEnd    int64
	lag       int64
}

type partState struct {
	ring [ringSize]sample
	head uint8 // index of the newest sample
	n    uint8
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

	// since is when this partition's offsets began to count in the
	// group's sums without a break (first sighting, a commit appearing,
	// or offsets readable again after a gap). gap: a poll could
	// not read them since the newest sample.
	since int64
	gap   bool

	status Status

	// recent holds the last polls, oldest first from rhead-rn+1, for the
	// short window of LAGGING; commitEvery is the typical time between
	// two commit movements seen (an EWMA), so a consumer that commits
	// every 5s (auto-commit) is not thought stopped between commits.
	recent      [recentSize]sample
	rhead, rn   uint8
	commitEvery int64
	// cadenceOf is the member whose commits commitEvery describes, and
	// cadenceFrom when it took the partition: a new owner commits at its
	// own pace (kcat every 5s after a demo consumer's every poll), so
	// its cadence is learnt anew, from moves after it took over.
	cadenceOf   string
	cadenceFrom int64

	// troughs holds the lowest lag of each of the last troughSize spans
	// of LaggingWindow (troughAt: when the newest began), for a view of
	// the lag's low points longer than the rates window.
	troughs  [troughSize]int64
	troughAt int64
	thead    uint8
	tn       uint8

	// The last measured rates, and when; the last owner seen (its label
	// and member id), shown while a rebalance leaves it unowned.
	lastConsume, lastProduce float64
	lastRateAt               int64
	owner, ownerID           string
}

func (st *partState) at(i int) *sample { // i = 0 is the oldest
	return &st.ring[(int(st.head)+ringSize-int(st.n)+1+i)%ringSize]
}

// push adds c as the newest sample. While the newest sample is less than
// spacing after the one before it, c replaces it instead, so the ring keeps
// its span whatever the poll interval and the newest slot is always the
// latest poll.
func (st *partState) push(c sample, spacing int64) {
	if st.n == 0 {
		st.head, st.n, st.ring[0] = 0, 1, c
		return
	}
	if st.n >= 2 && c.t-st.ring[(st.head+ringSize-1)%ringSize].t < spacing {
		st.ring[st.head] = c
		return
	}
	st.head = (st.head + 1) % ringSize
	st.ring[st.head] = c
	if st.n < ringSize {
		st.n++
	}
}

// History remembers recent snapshots of one group, compactly, and derives
// what a single snapshot cannot say: statuses, rates, ETA, stall times and a
// lag sparkline. It holds a fixed number of samples per partition (about
// 330 bytes each: 3.3 MB for 10,000 partitions) and forgets partitions that
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
	span := max(opts.Window, opts.LaggingWindow)
	return &History{
		opts: opts,
		// Samples land up to one poll short of each spacing; with span/5
		// the ring's 7 gaps still reach back past span.
		spacing: int64(span) / (ringSize - 3),
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
		prevStatus := st.status
		if !st.seen {
			prevStatus = StatusOK
		}
		if st.seen && (p.LogEnd < 0 || (p.Committed < 0 && p.Err != "")) {
			// Offsets or commit unreadable this poll: the lag is unknown,
			// not zero, and the commit did not move. Keep the verdict and
			// the stall clock rather than flap to OK and back.
			p.ConsumeRate, p.ProduceRate = Rate{}, Rate{}
			p.Status = st.status
			st.gap = true
		} else {
			var dc, de int64
			dc, de = h.update(p, st, now)
			// Transaction markers alone are no work waiting: no verdict.
			lag := p.Lag > 0 && !p.LagMarkersOnly
			h.consumed = AddLag(h.consumed, dc)
			h.produced = AddLag(h.produced, de)
			if p.LogEnd >= 0 {
				h.sinces = append(h.sinces, st.since)
			}
			p.Status = h.verdict(p, st, now, lag, empty, staffed && !p.Owned(), prevStatus == StatusLagging)
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
			st.commitEvery, st.cadenceFrom = 0, now
		}
		st.cadenceOf = p.MemberID
	}
	if p.LagMarkersOnly {
		cur.lag = 0 // nothing to consume: neither stalled nor lagging
	}
	if !st.seen {
		st.seen, st.movedAt, st.stuckAt, st.stuckExact = true, now, now, cur.lag == 0
		st.since = now
		st.push(cur, h.spacing)
	} else {
		prev := st.ring[st.head]
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
			// The cadence of commits as polls see it, from two moves
			// seen: the gap from the first sighting to the first move
			// says nothing of it (watched from just before a commit, a
			// consumer that commits every 5s would seem to commit every
			// second, and be thought stopped between its commits).
			if st.moveSeen && st.movedAt >= st.cadenceFrom {
				gap := now - st.movedAt
				if st.commitEvery == 0 {
					st.commitEvery = gap
				} else {
					st.commitEvery = (st.commitEvery*7 + gap*3) / 10
				}
			}
			st.movedAt, st.moveSeen = now, true
		}
		// A stall needs work waiting: an idle partition whose first new
		// message arrives after minutes without commits is not stalled.
		if cur.committed != prev.committed || cur.lag == 0 {
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
			st.n, st.rn, st.tn = 0, 0, 0
			st.lastRateAt = 0 // the old rates say nothing of the new log
		}
		st.push(cur, h.spacing)
	}
	if st.tn == 0 || now-st.troughAt >= int64(h.opts.LaggingWindow) {
		st.thead = (st.thead + 1) % troughSize
		st.troughs[st.thead], st.troughAt = cur.lag, now
		st.tn = min(st.tn+1, troughSize)
	} else {
		st.troughs[st.thead] = min(st.troughs[st.thead], cur.lag)
	}
	if st.rewound && now-st.rewoundAt >= int64(h.opts.Window) {
		st.rewound = false
	}
	// The recent polls, spaced a sixth of the short window apart (the
	// newest always the latest), so they cover it at any poll interval.
	if st.rn >= 2 && cur.t-st.recent[(st.rhead+recentSize-1)%recentSize].t < int64(h.opts.LaggingWindow)/6 {
		st.recent[st.rhead] = cur
	} else {
		st.rhead = (st.rhead + 1) % recentSize
		st.recent[st.rhead] = cur
		st.rn = min(st.rn+1, recentSize)
	}

	// One pass over the ring, oldest first: the rates' endpoints.
	window := int64(h.opts.Window)
	cOld, eOld := -1, -1
	n := int(st.n)
	for j := 0; j < n-1; j++ {
		sm := st.at(j)
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
	old := st.at(from)
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

// recentAt returns the i-th of the partition's recent polls, 0 the oldest.
func (st *partState) recentAt(i int) *sample {
	return &st.recent[(int(st.rhead)+recentSize-int(st.rn)+1+i)%recentSize]
}

// lagWindow returns the first of the recent polls inside the short window
// (-1 when there are not two polls yet) and the window: LaggingWindow, or
// two poll intervals when polls are slower.
func (h *History) lagWindow(st *partState, now int64) (start int, window int64) {
	n := int(st.rn)
	if n < 2 {
		return -1, 0
	}
	interval := now - st.recentAt(n-2).t
	window = max(int64(h.opts.LaggingWindow), 2*interval)
	for i := 0; i < n-1; i++ {
		if now-st.recentAt(i).t <= window+interval/2 {
			return i, window
		}
	}
	return -1, window
}

// lagging is the LAGGING verdict on p, from its recent polls: lag grown
// across the short window, either while commits advance (the consumer is
// slower than the producer) or after they stopped for longer than the
// partition commits at (a consumer gone silent: killed, hung). Lag whose
// oldest record is younger than laggingAge is in flight, not behind.
// Once LAGGING (was), it holds while lag has not shrunk across the window.
func (h *History) lagging(p *PartitionLag, st *partState, now int64, was bool) bool {
	// Records wait up to a commit's cadence for it: younger than that (and
	// laggingAge) they are in flight.
	inFlight := laggingAge
	if st.commitEvery > 0 {
		inFlight = max(laggingAge, time.Duration(st.commitEvery*3/2))
	}
	if was {
		// Flagged, the age must fall well below it to end the verdict:
		// after each of a slow consumer's commits its oldest record is
		// younger for a moment, then older again.
		inFlight /= 2
	}
	if p.LagAgeKnown && p.LagAge < inFlight && !p.LagAgeGone {
		return false
	}
	// Commits stopped: none across the window, and for longer than the
	// partition's commits come.
	stopFor := max(int64(h.opts.LaggingWindow), st.commitEvery*3/2)
	if st.commitEvery == 0 {
		stopFor = 3 * int64(h.opts.LaggingWindow) // no commit seen yet: its cadence is unknown
	}
	if p.LagFromStart && p.LagAgeKnown && int64(p.LagAge) >= stopFor {
		// Never committed, its first record waiting longer than a
		// commit's unknown cadence is given: the group has committed
		// nothing of records that old, seen from the first poll; it
		// need not watch commits not come for stopFor to know.
		return true
	}
	start, window := h.lagWindow(st, now)
	if start < 0 {
		return false
	}
	n := int(st.rn)
	first, last := st.recentAt(start), st.recentAt(n-1)
	stopped := last.committed == first.committed && now-max(st.movedAt, st.cadenceFrom) >= stopFor
	if was {
		// Commits in batches make lag a sawtooth, so a poll just after a
		// commit may read less than the window's first: the verdict holds
		// while the partition's own rates still say it falls behind.
		return last.lag > 0 && (stopped || last.lag >= first.lag || ratesBehind(p, 0.5) ||
			st.troughsRising(start) || st.longTroughsRising())
	}
	if n-start < minLaggingSamples || float64(now-first.t) < 0.75*float64(window) {
		return false
	}
	grew := last.lag - first.lag
	if stopped {
		// A consumer gone silent: lag piling up, or its oldest record
		// waiting past the time commits take.
		return grew > 0 && (p.LagAgeKnown || grew >= laggingMinGrow) ||
			p.LagAgeKnown && int64(p.LagAge) >= stopFor
	}
	if grew <= 0 || last.committed == first.committed {
		return false
	}
	// Its commits' cadence known, its records waiting past the in-flight
	// age, lag up across the window and produced faster than consumed
	// over the rates window: it falls behind, however its batches of
	// commits zigzag the lag.
	if st.commitEvery > 0 && p.LagAgeKnown && ratesBehind(p, 1) {
		return true
	}
	if !p.LagAgeKnown && (grew < laggingMinGrow || grew*100 < first.lag) {
		return false
	}
	// Commits advance: the lag must grow throughout, every poll above
	// the first and at most one step in four down (commits in batches
	// make lag a sawtooth).
	down, prev := 0, first.lag
	for i := start + 1; i < n; i++ {
		l := st.recentAt(i).lag
		if l <= first.lag {
			return false
		}
		if l < prev {
			down++
		}
		prev = l
	}
	return down*4 <= n-start-1
}

// troughsRising reports whether the lag's low points rise across the
// recent polls from start: the lowest of the later half is no lower than
// the lowest of the earlier. A consumer that falls behind committing in
// batches draws a sawtooth whose troughs climb; one catching up, troughs
// that fall.
func (st *partState) troughsRising(start int) bool {
	n := int(st.rn)
	mid := start + (n-start)/2
	if mid <= start || mid >= n {
		return false
	}
	low := func(from, to int) int64 {
		m := st.recentAt(from).lag
		for i := from + 1; i < to; i++ {
			m = min(m, st.recentAt(i).lag)
		}
		return m
	}
	return low(mid, n) >= low(start, mid)
}

// longTroughsRising is troughsRising over the last troughSize spans of
// the short window (30s): a consumer that serves its partitions in turn,
// a few seconds each, makes each one stall and then catch up in turns
// longer than the short window; falling behind, the low points still
// climb across the long one.
func (st *partState) longTroughsRising() bool {
	n := int(st.tn)
	if n < 4 {
		return false
	}
	low := func(from, to int) int64 { // from the oldest, 0
		m := int64(math.MaxInt64)
		for i := from; i < to; i++ {
			m = min(m, st.troughs[(int(st.thead)+troughSize-n+1+i)%troughSize])
		}
		return m
	}
	return low(n/2, n) > low(0, n/2)
}

// verdict is a readable partition's status this poll, by precedence:
// STOPPED (lag, and the group has no members), REWOUND, STALLED, UNOWNED
// (lag, members, and none owns it: unowned), LAGGING (was: it was
// LAGGING), else OK. The group view and the overview judge by it.
func (h *History) verdict(p *PartitionLag, st *partState, now int64, lag, empty, unowned, was bool) Status {
	switch {
	case lag && empty:
		return StatusStopped
	case st.rewound:
		return StatusRewound
	case lag && now-st.stuckAt >= int64(h.opts.StallAfter):
		return StatusStalled
	case lag && unowned:
		return StatusUnowned
	case lag && h.lagging(p, st, now, was):
		return StatusLagging
	}
	return StatusOK
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
