package model

import (
	"hash/maphash"
	"slices"
	"time"
)

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
	// An OK partition's lag is worth naming (the worst partition) once
	// its oldest message has waited minWorstAge and worstPolls poll
	// intervals: younger, it is being processed.
	minWorstAge = 5 * time.Second
	worstPolls  = 3
)

// partState is what History knows of one partition. Its fields are laid
// out to pack (times and offsets, then the small ones), its ring held in
// place: 384 bytes a partition, no allocation or pointer of its own.
type partState struct {
	hist samples // its polls, for rates and the short window

	movedAt int64 // when committed last changed (or first seen)
	// stuckAt: the last poll with commit progress or no lag; a stall is
	// measured from it. stuckExact is false while it is the first sighting.
	stuckAt int64

	rewoundAt   int64
	rewoundFrom int64

	// oldest is the offset of the oldest unprocessed record (the
	// committed offset, or the log start with no commit) as last seen
	// (oldestSeen); notYet the last poll at which it had not been written
	// (the log ended at or before it), existed the first at which it had
	// been (0: not seen). Its wait lies between now-existed and now-notYet,
	// whatever its timestamp says.
	oldest          int64
	notYet, existed int64

	// since is when this partition's offsets began to count in the
	// group's sums without a break (first sighting, a commit appearing,
	// or offsets readable again after a gap). gap: a poll could
	// not read them since the newest sample.
	since int64

	// The commit cadence of its owner (cadenceOf, hashed: ownerHash):
	// the last gaps between two of its commits (mark: the last one, 0
	// before one is seen under this owner). A new owner commits at its own pace
	// (kcat every 5s after a demo consumer's every poll), so its cadence
	// is learnt anew; a partition LAGGING when it changes hands keeps the
	// old owner's (inherited) until the new one's first gap, so the
	// handover does not make it OK for a while, and so does one whose
	// owner committed more slowly than FirstAllowance allows for (a
	// Kafka Streams app's members commit every 30 s alike: judged by
	// FirstAllowance, every partition a rebalance moved read LAGGING or
	// STALLED until two commits were seen). A new owner whose cadence is
	// known on its other partitions lends it that instead (ownerCadences).
	gaps  [cadenceGaps]int64
	every int64 // the cadence the gaps make (cadence)
	mark  int64

	// The last measured rates, and when; the last owner seen (its member
	// id hashed, which History.owners names), shown while a rebalance
	// leaves it unowned. A state holds no pointer: the collector does
	// not scan the states (40 MB at 100,000 partitions).
	lastConsume, lastProduce float64
	lastRateAt               int64

	cadenceOf uint64
	owner     uint64

	// member is where memberOf last found its owner in the members.
	member int32
	ngaps  uint8
	status statusCode

	seen       bool
	moveSeen   bool
	stuckExact bool
	rewound    bool
	oldestSeen bool
	gap        bool
	inherited  bool
	// endsSorted: every sample in hist has a log end read, none lower
	// than the one before it (update keeps it; trackOldest reads it).
	endsSorted bool
}

// History remembers recent snapshots of one group, compactly, and derives
// what a single snapshot cannot say: statuses, rates, ETA, stall times and a
// lag sparkline. It holds a fixed number of samples per partition (408
// bytes each, its key, its state and its ring of 12 samples: 4.1 MB for
// 10,000 partitions) and forgets partitions that
// leave the snapshot. It is not safe for concurrent
// use.
type History struct {
	opts    HistoryOptions
	spacing int64

	keys   []TopicPartition // keys[i] is the partition states[i] tracks
	states []partState
	lastT  int64
	polls  int
	// pollAt is the last poll's time and pollGaps the gaps between the
	// last polls, newest first (0: not yet). A poll far later than the
	// two gaps before it (a laptop asleep, polls failing, a page not
	// shown) finds commits that moved while no one looked (update); one
	// poll made at once (a key) between two ticks does not make the next
	// tick look late.
	pollAt   int64
	pollGaps [3]int64

	spark      ring[int64] // SparkPoints of total lag, one per SparkEvery
	sparkStart int64       // when the newest point's bucket began

	// The group's rates come from its own sums over the window: consumed
	// and produced add up every partition's offset movements since the
	// last poll, and group keeps them per poll for a little over Window.
	consumed, produced int64
	group              ring[groupSample]
	sinces             []int64 // scratch: readable partitions' since

	// memberIdx indexes this poll's members by id (memberSums);
	// memberDup: two of them share one; memberHash is each one hashed
	// (ownerHash).
	memberIdx  map[string]int32
	memberDup  bool
	memberHash []uint64
	// seed hashes the owners the states keep (ownerHash); owners names
	// the owners they keep, by hash: the members seen, and the owners
	// before them that some state still remembers.
	seed   maphash.Seed
	owners map[uint64]ownerName
	// cadences keeps each owner's cadence for a partition it takes over
	// (ownerCadences); memberEvery gathers this poll's, by member index.
	cadences    ownerCadences
	memberEvery []int64
	// ownersKept is how many names the last forgetOwners kept.
	ownersKept int
	// sparkSlab is where the sparklines are cut from, one after another:
	// each snapshot's TotalLagHistory is its own, never written again.
	sparkSlab []int64

	// The group's verdict at the last poll, for hysteresis.
	falling, catching bool
}

// sharedOwner is the owner a shared partition's cadence is kept under
// (update): ownerHash never gives it (its results are odd).
const sharedOwner = 2

// cadenceOwner is the owner whose cadence update keeps for a partition
// owned by owner: a share-partition's start offset moves as any of its
// members acknowledge, so its cadence is the partition's (sharedOwner),
// not its first member's, which the group view and the overview list in
// different orders.
func cadenceOwner(owner uint64, shared bool) uint64 {
	if shared && owner != 0 {
		return sharedOwner
	}
	return owner
}

// NewHistory returns an empty History.
func NewHistory(opts HistoryOptions) *History {
	opts = opts.withDefaults()
	span := opts.Window
	return &History{
		opts: opts,
		seed: maphash.MakeSeed(),
		// Samples land up to one poll short of each spacing; with
		// span/10 the ring's 11 gaps still reach back past span.
		spacing: int64(span) / (ringSize - 2),
		spark:   newRing[int64](opts.SparkPoints),
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
	h.polled(now)
	if len(s.Partitions) != len(h.keys) {
		h.align(s.Partitions)
	}

	empty := s.Group.State == StateEmpty
	shared := s.Group.Kind().SharedPartitions
	staffed := len(s.Members) > 0 && !s.Group.Rebalancing() && s.Group.State != StateEmpty

	var changes []statusChange
	s.Status = StatusOK
	h.sinces = h.sinces[:0]
	worst := -1
	stuck := false // some lag is not being worked off at all
	rewound := false
	h.memberSums(s)
	h.memberEvery = slices.Grow(h.memberEvery[:0], len(s.Members))[:len(s.Members)]
	clear(h.memberEvery)
	h.cadences.begin()
	loc := s.TakenAt.Location()
	for i := range s.Partitions {
		p := &s.Partitions[i]
		if p.TopicPartition != h.keys[i] {
			// Not the partitions of the last poll: the states are
			// matched up by key from here on (those before i are
			// the same partitions, each tracked where it was).
			h.align(s.Partitions)
		}
		st := &h.states[i]
		prevStatus := st.was()
		m, owner := h.memberOf(s, p, st)
		if st.unreadable(p) {
			// Offsets or commit unreadable this poll: the lag is unknown,
			// not zero, and the commit did not move. Keep the verdict and
			// the stall clock rather than flap to OK and back.
			p.ConsumeRate, p.ProduceRate = Rate{}, Rate{}
			p.Status = st.status.status()
			st.gap = true
		} else {
			var dc, de int64
			co, every := cadenceOwner(owner, shared), int64(0)
			if st.handedTo(co) {
				every = h.cadences.of(co)
			}
			dc, de = h.update(p, st, now, co, every)
			if c := st.ownCadence(); c > 0 && owner != 0 && !shared {
				if j := st.member; m != nil && !h.memberDup && owner == h.memberHash[j] {
					if e := h.memberEvery[j]; e == 0 || c < e {
						h.memberEvery[j] = c
					}
				} else { // an owner its member does not name alike: by its hash
					h.cadences.note(owner, c, -1)
				}
			}
			h.consumed = AddLag(h.consumed, dc)
			h.produced = AddLag(h.produced, de)
			if p.LogEnd >= 0 {
				h.sinces = append(h.sinces, st.since)
			}
			p.Status = h.judgeRow(p, st, now, empty, staffed && !p.Owned())
		}
		h.keepRates(p, st, now)
		if p.PrevOwner != "" || p.PrevMemberID != "" {
			p.PrevOwner, p.PrevMemberID = "", ""
		}
		switch {
		case p.Owned():
			st.owner = owner
		case s.Group.Rebalancing():
			if o, ok := h.owners[st.owner]; ok {
				p.PrevOwner, p.PrevMemberID = o.label, o.id
			}
		default:
			st.owner = 0
		}
		p.CommitMovedAt, p.CommitMoveSeen = time.Unix(0, st.movedAt).In(loc), st.moveSeen
		p.CommitDelay, p.CommitEvery = time.Duration(now-st.movedAt), st.cadence()
		p.StalledSince, p.StalledSinceExact = time.Time{}, false
		if p.Lag > 0 && !p.LagMarkersOnly {
			p.StalledSince, p.StalledSinceExact = time.Unix(0, st.stuckAt).In(loc), st.stuckExact
		}
		st.status = codeOf(p.Status)

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
		if m != nil {
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
	h.groupVerdict(s, lagThen, stuck, rewound)
	s.TotalLagHistory = h.sparkline(now, s.TotalLag)
	h.keepEvery()
	return h.events(s, changes)
}

// align makes h.states[i] track s.Partitions[i]. Polls of a stable group
// list the same partitions in the same order, so the common case is one
// comparison per partition and no map; Annotate makes it in its own walk
// of the rows, calling align where a partition differs (or the count).
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

// was is the partition's status at the last poll; OK at first sight.
func (st *partState) was() Status {
	if !st.seen {
		return StatusOK
	}
	return st.status.status()
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
	lag := p.Lag > 0 && !p.LagMarkersOnly
	if lag && empty {
		// judge's first rule, which reads no more: the history of an
		// abandoned group's lagging partitions (most groups of a shared
		// cluster's overview) is not gathered for nothing.
		return StatusStopped
	}
	var f facts
	h.facts(&f, p, st, now, lag, empty, unowned, st.was())
	return judge(&f)
}

// facts gathers what judge reads of p: this poll's row, and st's history
// up to it (update has recorded it). was is p's status at the last poll.
// Without lag judge reads no more than rewound, so no more is gathered: a
// partition that keeps up costs little. f is written in place, every
// field (a facts is copied for nothing otherwise, each row each poll).
func (h *History) facts(f *facts, p *PartitionLag, st *partState, now int64, lag, empty, unowned bool, was Status) {
	*f = facts{lag: lag, empty: empty, unowned: unowned, rewound: st.rewound, was: was, gone: p.LagAgeGone}
	if !lag {
		return
	}
	f.stuck, f.allow = time.Duration(now-st.stuckAt), st.allowance(h.opts.MaxLagAge)
	f.stallAt = max(h.opts.StallAfter, st.cadence()*3/2)
	f.waited, f.ageKnown = st.waited(p, now)
	f.behind = ratesBehind(p, 0.5)
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
// rate; whether all their lag is in flight), indexes them by member id
// for memberOf and hashes them (ownerHash), naming each hash in
// h.owners. Rows are summed in the partition loop of Annotate, not in a
// pass of their own: at 10,000 partitions each pass over the rows costs.
func (h *History) memberSums(s *Snapshot) {
	if h.memberIdx == nil {
		h.memberIdx = make(map[string]int32, len(s.Members))
	}
	if h.owners == nil {
		h.owners = make(map[uint64]ownerName, len(s.Members))
	}
	clear(h.memberIdx)
	h.memberDup = false
	h.memberHash = h.memberHash[:0]
	for i := range s.Members {
		m := &s.Members[i]
		m.ConsumeRate = Rate{}
		m.InFlight = m.Lag > 0
		m.CommitDelay, m.CommitSeen, m.CommitEvery = 0, false, 0
		if _, dup := h.memberIdx[m.MemberID]; dup {
			h.memberDup = true
		}
		h.memberIdx[m.MemberID] = int32(i)
		id := h.ownerHash(m.MemberID, m.ClientID)
		h.memberHash = append(h.memberHash, id)
		if id != 0 {
			h.owners[id] = ownerName{label: memberLabelOf(m.ClientID, m.MemberID), id: m.MemberID}
		}
	}
	h.forgetOwners(len(s.Members))
}

// keepEvery keeps this poll's member cadences (memberEvery) for the
// next poll's handovers.
func (h *History) keepEvery() {
	for i, e := range h.memberEvery {
		if e > 0 && h.memberHash[i] != 0 {
			h.cadences.note(h.memberHash[i], e, -1)
		}
	}
	h.cadences.end()
}

// memberOf returns the member of s (readied by memberSums) that owns the
// partition row p, nil when unowned or not a member; of members sharing
// an id, the last; and the owner hashed (ownerHash; 0: unowned): its
// member's hash, or the row's own when the row names its owner otherwise
// than a member listed alone with its id does (a snapshot made by hand:
// members sharing an id, a row's client id not its member's, an owner
// not listed), so an owner hashes alike whether its member is listed or
// not. st remembers where its owner was found, so a poll of owners as
// they were costs one comparison a row, not a map lookup nor a hash.
func (h *History) memberOf(s *Snapshot, p *PartitionLag, st *partState) (*Member, uint64) {
	if !p.Owned() {
		return nil, 0
	}
	j := int(st.member)
	if h.memberDup || j >= len(s.Members) || s.Members[j].MemberID != p.MemberID {
		j32, ok := h.memberIdx[p.MemberID]
		if !ok {
			return nil, h.rowOwner(p)
		}
		j = int(j32)
		st.member = j32
	}
	m := &s.Members[j]
	if h.memberDup || m.ClientID != p.ClientID {
		return m, h.rowOwner(p)
	}
	return m, h.memberHash[j]
}

// rowOwner is the hash of the owner row p names, named in h.owners as the
// row names it.
func (h *History) rowOwner(p *PartitionLag) uint64 {
	id := h.ownerHash(p.MemberID, p.ClientID)
	if _, named := h.owners[id]; !named {
		h.owners[id] = ownerName{label: memberLabelOf(p.ClientID, p.MemberID), id: p.MemberID}
	}
	return id
}
