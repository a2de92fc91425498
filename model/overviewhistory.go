package model

import (
	"slices"
	"time"
)

// OverviewGroup is what one overview poll read of one group, before any
// arithmetic.
type OverviewGroup struct {
	// Summary is what the coordinator said: ID, State, Type, ProtocolType,
	// Members and Err. Observe fills in the rest.
	Summary GroupSummary
	// Parts holds each partition the group committed, is assigned or has
	// a share lag on, once, sorted by topic then partition: the group
	// view has a row for each one committed or assigned. A slice walked
	// in order, not maps hashed a partition at a time: an overview poll
	// of 5,000 groups has 30,000 of them. OverviewParts sorts and merges
	// parts listed in any order; Observe does it for parts not in order.
	Parts []OverviewPart
	// CommitsUnread: the group's commits could not be read this poll
	// (its OffsetFetch failed: a coordinator loading or moved, a
	// timeout). Parts then hold its assignments alone, which is not
	// "never committed": as the group view's failed poll, its verdict
	// and lag stand until a poll reads them.
	CommitsUnread bool
}

// OverviewPart is one partition of an overview group.
type OverviewPart struct {
	TopicPartition
	// Committed is the group's committed offset (a share group's
	// share-partition start offset), when HasCommit.
	Committed int64
	// ShareLag is a share group's lag on the partition as the broker
	// counts it, when HasShareLag; negative where it gives none.
	ShareLag int64
	// Owner names the member owning it (its member id), "" when unknown:
	// as in the group view, a partition another member takes has its
	// commit cadence learnt anew.
	Owner string
	// Assigned: in a member's assignment; Owned, a member owns it now
	// (false: only in a consumer group member's target, being handed
	// over).
	HasCommit   bool
	HasShareLag bool
	Assigned    bool
	Owned       bool
	// CommitUnread: its commit could not be read (a partition's
	// OffsetFetch error): not "never committed", as the group view's
	// CommitUnread row, its lag unknown and its verdict kept.
	CommitUnread bool
}

// row reports whether the group view has a row for p.
func (p *OverviewPart) row() bool { return p.HasCommit || p.Assigned || p.CommitUnread }

// committed is p's committed offset, NoOffset when it has none.
func (p *OverviewPart) committed() int64 {
	if p.HasCommit {
		return p.Committed
	}
	return NoOffset
}

// OverviewParts returns parts sorted by topic and partition, each
// partition once, as if each part in turn had been written into maps by
// partition: a later commit or share lag replaces an earlier one, a
// partition is assigned (and owned) when any of its parts says so, and
// its owner is the first one named by a part that owns it. It sorts in
// place and reuses parts' storage.
func OverviewParts(parts []OverviewPart) []OverviewPart {
	if partsInOrder(parts) {
		return parts
	}
	slices.SortStableFunc(parts, func(a, b OverviewPart) int { return CompareTP(a.TopicPartition, b.TopicPartition) })
	out := parts[:0]
	for _, p := range parts {
		n := len(out)
		if n == 0 || out[n-1].TopicPartition != p.TopicPartition {
			out = append(out, p)
			continue
		}
		q := &out[n-1]
		if p.HasCommit {
			q.Committed, q.HasCommit = p.Committed, true
		}
		if p.HasShareLag {
			q.ShareLag, q.HasShareLag = p.ShareLag, true
		}
		if p.Owned && q.Owner == "" && !q.Owned {
			q.Owner = p.Owner
		}
		q.Assigned = q.Assigned || p.Assigned
		q.Owned = q.Owned || p.Owned
		q.CommitUnread = q.CommitUnread || p.CommitUnread
	}
	clear(parts[len(out):])
	return out
}

// OverviewGroupOf returns the group of summary s with its partitions
// given by partition, as maps (any may be nil): committed offsets, share
// lags, assigned ones (true when a member owns it now) and their owners'
// member ids. For callers that hold them so, as tests do.
func OverviewGroupOf(s GroupSummary, committed, shareLag map[TopicPartition]int64, assigned map[TopicPartition]bool, owner map[TopicPartition]string) OverviewGroup {
	parts := make([]OverviewPart, 0, len(committed)+len(shareLag)+len(assigned)+len(owner))
	for tp, c := range committed {
		parts = append(parts, OverviewPart{TopicPartition: tp, Committed: c, HasCommit: true})
	}
	for tp, l := range shareLag {
		parts = append(parts, OverviewPart{TopicPartition: tp, ShareLag: l, HasShareLag: true})
	}
	for tp, owned := range assigned {
		parts = append(parts, OverviewPart{TopicPartition: tp, Assigned: true, Owned: owned})
	}
	parts = OverviewParts(parts)
	for i := range parts {
		parts[i].Owner = owner[parts[i].TopicPartition]
	}
	return OverviewGroup{Summary: s, Parts: parts}
}

// partsInOrder reports whether parts are sorted, each partition once.
func partsInOrder(parts []OverviewPart) bool {
	for i := 1; i < len(parts); i++ {
		if CompareTP(parts[i-1].TopicPartition, parts[i].TopicPartition) >= 0 {
			return false
		}
	}
	return true
}

// RecordAt names the record at one offset of a partition.
type RecordAt struct {
	TopicPartition
	Offset int64
}

// RecordStamp is what was read of one record, for a lag age.
type RecordStamp struct {
	// Time is the record's timestamp; zero when it has none.
	Time time.Time
	// Gone: deleted (retention) before it was read. MarkersOnly: from it
	// to the log end the log holds only control records (transaction
	// markers), no message.
	Gone        bool
	MarkersOnly bool
}

// OverviewObservation is one overview poll: every group read, and what
// the leaders of their partitions said.
type OverviewObservation struct {
	// TakenAt is when the poll began; lag ages are measured from it.
	TakenAt time.Time
	Groups  []OverviewGroup
	// Offsets holds the log offsets of the groups' partitions: the log
	// end of every one, the log start of those some group shows without
	// a commit (NoOffset elsewhere: not needed, not asked). Err (with
	// both NoOffset) when they could not be read.
	Offsets map[TopicPartition]PartitionOffsets
	// LogErr says why some log offsets could not be read.
	LogErr string
	// Records holds what was read of the records OldestRecords named.
	Records map[RecordAt]RecordStamp
	// Judged, when not nil, are the groups as they were judged when
	// recorded, in place of the raw read (a recording of format 2 kept
	// the overview so): OverviewPipeline shows them as they are, and
	// the other fields are unused.
	Judged []GroupSummary
}

// rowOf fills r with partition tp of g as NewSnapshot computes its lag:
// committed (NoOffset: none), log offsets (off, when read), lag (from the
// log start with no commit; a share group's from the broker).
func rowOf(r *PartitionLag, p *OverviewPart, off PartitionOffsets, read bool) {
	*r = PartitionLag{TopicPartition: p.TopicPartition, Committed: p.committed(), LogStart: NoOffset, LogEnd: NoOffset}
	if read {
		r.LogStart, r.LogEnd, r.Err = off.LogStart, off.LogEnd, off.Err
	}
	if bad := impossibleOffsets(r.Committed, r.LogStart, r.LogEnd); bad != "" {
		r.Err = joinErr(r.Err, bad)
		r.Committed, r.LogStart, r.LogEnd = max(r.Committed, NoOffset), NoOffset, NoOffset
	}
	r.Lag, r.LagFromStart = Lag(r.Committed, r.LogStart, r.LogEnd)
	if p.CommitUnread && !p.HasCommit {
		r.Err = joinErr(r.Err, "committed offset unreadable")
		r.Lag, r.LagFromStart = 0, false
	}
	if p.HasShareLag && p.ShareLag >= 0 && r.LogEnd >= 0 {
		r.Lag, r.LagFromBroker = p.ShareLag, true
	}
}

// eachRow calls f with every row the group view would show for a group
// of these parts (in order, each once: OverviewParts), its
// lag computed (rowOf) in h.row, its track in gt (found before the row is
// filled: the row's offsets are found by the track's topic number,
// offsetsOf) and whether a member owns it.
func (h *OverviewHistory) eachRow(o *OverviewObservation, parts []OverviewPart, gt *groupTrack, f func(r *PartitionLag, pt *partTrack, owned bool)) {
	r := &h.row
	n := 0 // rows so far: where the track of a group as it was keeps it
	for i := range parts {
		p := &parts[i]
		if !p.row() {
			continue
		}
		pt := gt.part(p.TopicPartition, n)
		n++
		off, ok := h.offsetsOf(o, pt)
		rowOf(r, p, off, ok)
		r.MemberID = p.Owner
		f(r, pt, p.Assigned && p.Owned)
	}
}

// oldest returns the record whose age is r's lag age: the one at the
// committed offset, with no commit at the log start; false when r has no
// lag or it cannot be read (offsets unknown, deleted).
func oldest(r *PartitionLag) (RecordAt, bool) {
	at, ok := oldestOffset(r.Committed, r.LogStart, r.LogEnd, r.Lag)
	if !ok {
		return RecordAt{}, false
	}
	return RecordAt{TopicPartition: r.TopicPartition, Offset: at}, true
}

// oldestOffset is oldest's offset, of a row of these offsets and lag.
func oldestOffset(committed, logStart, logEnd, lag int64) (int64, bool) {
	at := committed
	if at < 0 {
		at = logStart
	}
	if lag <= 0 || at < 0 || at >= logEnd || (logStart >= 0 && at < logStart) {
		return 0, false
	}
	return at, true
}

// OldestRecords lists, once each, the records the groups' lag ages need
// (the record at each lagging row's committed offset, or log start):
// what to fetch before Observe.
//
// It reads only what oldest needs of each row (lagOf), not whole rows as
// eachRow fills them: 30,000 rows a poll at 5,000 groups. A partition is
// found by its topic (hashed once for a run of rows on one topic: a
// group's parts come by topic) and its number, and the records it named
// so far by a search of a few offsets.
func (o *OverviewObservation) OldestRecords() []RecordAt {
	if len(o.Offsets) == 0 {
		return nil // no log end: no row has lag
	}
	type partOffsets struct {
		PartitionOffsets
		named []int64            // the offsets named, while few
		many  map[int64]struct{} // past namedSearch
	}
	const namedSearch = 16
	// The poll's offsets: parts[byTopic[topics[topic]][partition]-1] for
	// partitions tableParts would hold, parts[stray[tp]] for the others.
	parts := make([]partOffsets, 0, len(o.Offsets))
	topics := make(map[string]int32)
	var byTopic [][]int32
	var stray map[TopicPartition]int32
	for tp, off := range o.Offsets {
		i := int32(len(parts))
		parts = append(parts, partOffsets{PartitionOffsets: off})
		p := tp.Partition
		if p < 0 || p >= tableParts {
			if stray == nil {
				stray = make(map[TopicPartition]int32)
			}
			stray[tp] = i
			continue
		}
		t, ok := topics[tp.Topic]
		if !ok {
			t = int32(len(byTopic))
			topics[tp.Topic] = t
			byTopic = append(byTopic, nil)
		}
		if n := int(p) + 1; n > len(byTopic[t]) {
			byTopic[t] = append(byTopic[t], make([]int32, n-len(byTopic[t]))...)
		}
		byTopic[t][p] = i + 1
	}
	lastTopic, last := "", int32(-1)
	find := func(tp TopicPartition) (*partOffsets, bool) {
		p := tp.Partition
		if p < 0 || p >= tableParts {
			i, ok := stray[tp]
			return &parts[i], ok
		}
		if last < 0 || tp.Topic != lastTopic {
			t, ok := topics[tp.Topic]
			if !ok {
				return nil, false
			}
			lastTopic, last = tp.Topic, t
		}
		if ps := byTopic[last]; int(p) < len(ps) && ps[p] > 0 {
			return &parts[ps[p]-1], true
		}
		return nil, false
	}
	var out []RecordAt
	take := func(p *OverviewPart) {
		po, ok := find(p.TopicPartition)
		if !ok {
			return // no log end: no lag
		}
		c, logStart, logEnd, lag := lagOf(p, po.PartitionOffsets, true)
		offset, ok := oldestOffset(c, logStart, logEnd, lag)
		if !ok {
			return
		}
		if po.many != nil {
			if _, dup := po.many[offset]; dup {
				return
			}
			po.many[offset] = struct{}{}
		} else {
			if slices.Contains(po.named, offset) {
				return
			}
			po.named = append(po.named, offset)
			if len(po.named) > namedSearch {
				po.many = make(map[int64]struct{}, 2*len(po.named))
				for _, n := range po.named {
					po.many[n] = struct{}{}
				}
				po.named = nil
			}
		}
		out = append(out, RecordAt{TopicPartition: p.TopicPartition, Offset: offset})
	}
	for i := range o.Groups {
		for j := range o.Groups[i].Parts {
			if p := &o.Groups[i].Parts[j]; p.row() {
				take(p)
			}
		}
	}
	return out
}

// lagOf is the committed offset, log offsets and lag rowOf gives p, and
// no more of the row, from p's offsets (off, when read).
func lagOf(p *OverviewPart, off PartitionOffsets, read bool) (c, logStart, logEnd, lag int64) {
	c, logStart, logEnd = p.committed(), NoOffset, NoOffset
	if read {
		logStart, logEnd = off.LogStart, off.LogEnd
	}
	if c < NoOffset || logStart < NoOffset || logEnd < NoOffset || logStart >= 0 && logEnd >= 0 && logEnd < logStart {
		c, logStart, logEnd = max(c, NoOffset), NoOffset, NoOffset // impossibleOffsets
	}
	lag, _ = Lag(c, logStart, logEnd)
	if p.CommitUnread && !p.HasCommit {
		lag = 0
	}
	if p.HasShareLag && p.ShareLag >= 0 && logEnd >= 0 {
		lag = p.ShareLag
	}
	return c, logStart, logEnd, lag
}

// ageOf fills r's lag age from the record read at its oldest offset, as
// NewSnapshot does from an Observation's OldestTimestamp, OldestGone and
// OldestMarkerOnly; pt is r's track, whose topic number finds the record
// among the poll's (indexRecords).
func (h *OverviewHistory) ageOf(o *OverviewObservation, r *PartitionLag, pt *partTrack) {
	var rs RecordStamp
	var has bool
	if at, ok := oldest(r); ok {
		if p := at.Partition; p >= 0 && p < tableParts && pt.topic != 0 {
			rs, has = h.recs[recKey{topic: pt.topic, partition: p, offset: at.Offset}]
		} else {
			rs, has = o.Records[at]
		}
	}
	r.LagMarkersOnly = r.Lag > 0 && has && rs.MarkersOnly
	hasTS := has && !rs.Gone && !rs.MarkersOnly && !rs.Time.IsZero()
	r.LagAge, r.LagAgeKnown, r.LagAgeGone = LagAge(*r, o.TakenAt, rs.Time, hasTS, has && rs.Gone)
}

// Summarize computes every group's summary from one poll, with no
// history: the statuses one poll can tell (OK, UNOWNED, STOPPED).
func (o *OverviewObservation) Summarize(opts HistoryOptions) []GroupSummary {
	return NewOverviewHistory(opts).Observe(o)
}

// OverviewHistory derives, poll after poll of the overview, what one poll
// cannot say: each group's status, the worst of its partitions'. Each
// partition is judged by History's own rules (its update and LAGGING
// verdict, the same precedence: STOPPED, REWOUND, STALLED, UNOWNED,
// LAGGING, OK), from the offsets and lag age the overview reads, so a
// group reads the same in the overview as in its own view. It keeps
// History's per-partition state (about 700 bytes a partition of a group)
// and forgets groups and partitions that leave. It is not safe for
// concurrent use.
type OverviewHistory struct {
	// rules holds the options History's per-partition rules read; its
	// group-level state is unused.
	rules  *History
	groups map[string]*groupTrack
	lastT  int64
	polls  int64
	row    PartitionLag // scratch: the row being judged
	// topics numbers each topic a poll's offsets or a group's partition
	// named (from 1), until forgetTopics numbers them anew; offs holds the
	// poll's offsets by topic number, then partition (tableParts at most):
	// a row finds its offsets by its track's topic number, not a hash.
	topics map[string]int32
	offs   [][]offSlot
	// named[id-1] is the last poll that named topic id, and live the number
	// of topics the last poll named: once the topics no poll names
	// outnumber those it does (a cluster whose topics come and go),
	// forgetTopics numbers them afresh, so the registry and offs hold
	// what the polls name, not every topic the history ever saw.
	named []int64
	live  int
	// recs holds the poll's records (Records) by topic number, for
	// those whose partition offs would hold: a key of three numbers
	// hashes faster than a topic's name.
	recs map[recKey]RecordStamp
}

// recKey names a record by its topic's number, partition and offset.
type recKey struct {
	topic, partition int32
	offset           int64
}

// indexRecords files the poll's records in recs.
func (h *OverviewHistory) indexRecords(o *OverviewObservation) {
	if h.recs == nil {
		h.recs = make(map[recKey]RecordStamp, len(o.Records))
	}
	clear(h.recs)
	for at, rs := range o.Records {
		if p := at.Partition; p >= 0 && p < tableParts {
			h.recs[recKey{topic: h.topicID(at.Topic), partition: p, offset: at.Offset}] = rs
		}
	}
}

// offSlot is one partition's log offsets, read in poll poll.
type offSlot struct {
	PartitionOffsets
	poll int64
}

// tableParts bounds the partitions offs holds: past it (or below 0), a
// row's offsets are looked up in the poll's map.
const tableParts = 1 << 16

// topicID returns topic's number, given it when new.
func (h *OverviewHistory) topicID(topic string) int32 {
	id, ok := h.topics[topic]
	if !ok {
		id = int32(len(h.topics) + 1)
		h.topics[topic] = id
		h.named = append(h.named, 0)
	}
	if h.named[id-1] != h.polls {
		h.named[id-1] = h.polls
		h.live++
	}
	return id
}

// topicSlack is how many topics no poll names the registry may hold
// beyond as many as the last poll named before forgetTopics runs: it
// runs at most once per that many topics gone, so its walk over the
// tracks costs nothing per poll.
var topicSlack = 256

// forgetTopics empties the topic registry and the offsets by topic
// number, and makes every track look its topic up again (0: not yet).
func (h *OverviewHistory) forgetTopics() {
	h.topics = make(map[string]int32, h.live)
	h.offs, h.named = nil, nil
	for _, gt := range h.groups {
		for i := range gt.parts {
			gt.parts[i].topic = 0
		}
	}
}

// indexOffsets files the poll's offsets in offs.
func (h *OverviewHistory) indexOffsets(o *OverviewObservation) {
	for tp, off := range o.Offsets {
		if tp.Partition < 0 || tp.Partition >= tableParts {
			continue
		}
		id := int(h.topicID(tp.Topic))
		if id >= len(h.offs) {
			h.offs = append(h.offs, make([][]offSlot, id+1-len(h.offs))...)
		}
		if p := int(tp.Partition); p >= len(h.offs[id]) {
			h.offs[id] = append(h.offs[id], make([]offSlot, p+1-len(h.offs[id]))...)
		}
		h.offs[id][tp.Partition] = offSlot{PartitionOffsets: off, poll: h.polls}
	}
}

// offsetsOf returns the poll's offsets of pt's partition, as
// o.Offsets[pt.tp] does.
func (h *OverviewHistory) offsetsOf(o *OverviewObservation, pt *partTrack) (PartitionOffsets, bool) {
	p := pt.tp.Partition
	if p < 0 || p >= tableParts {
		off, ok := o.Offsets[pt.tp]
		return off, ok
	}
	if pt.topic == 0 {
		pt.topic = h.topicID(pt.tp.Topic)
	}
	if int(pt.topic) < len(h.offs) {
		if parts := h.offs[pt.topic]; int(p) < len(parts) && parts[p].poll == h.polls {
			return parts[p].PartitionOffsets, true
		}
	}
	return PartitionOffsets{}, false
}

// groupTrack is one group's partitions; poll is the last poll that listed
// the group.
type groupTrack struct {
	// parts holds the group's partitions, in no order: found by a search
	// while the group has at most smallGroup (most groups: a few
	// partitions), by index past that.
	parts []partTrack
	index map[TopicPartition]int32
	poll  int64
	// cadences keeps each owner's cadence, for a partition it takes over
	// (ownerCadences, as History.cadences).
	cadences ownerCadences
	// rate counts the group's rebalances by its generation's moves.
	rate RebalanceRate
	// seen counts, for a group whose generation cannot be read (a
	// classic group whose clients do not tell it: librdkafka, kafka-go),
	// the rebalances the polls see (seenGeneration); state and members
	// are the last poll's.
	seen    int32
	state   string
	members int
	read    bool
	// told: the group has told a generation (read while Stable only);
	// it is then never counted by what the polls see.
	told bool
	// last is the verdict and lag of the last poll that read the group's
	// commits, which a poll that could not read them keeps.
	last    lastRead
	hasLast bool
}

// seenGeneration stands in for a generation the overview cannot read: it
// moves by one when the group is seen entering a rebalance, or its
// member count changed between two polls that both found it Stable (a
// rebalance begun and ended between them). A rebalance between two polls
// that leaves the member count as it was is missed.
func (gt *groupTrack) seenGeneration(s *GroupSummary) int32 {
	rebalancing := Group{State: s.State}.Rebalancing()
	switch {
	case !gt.read:
		gt.seen = 1
	case rebalancing && !(Group{State: gt.state}).Rebalancing(),
		s.State == StateStable && gt.state == StateStable && s.Members != gt.members:
		gt.seen++
	}
	gt.read, gt.state, gt.members = true, s.State, s.Members
	return gt.seen
}

// partTrack is one partition of a group, as History tracks it; poll is
// the last poll that showed it.
type partTrack struct {
	// The key first: part reads it, and the state's first fields share
	// its cache line.
	tp   TopicPartition
	poll int64
	// topic is tp's topic's number in the history's topics; 0 until
	// looked up.
	topic int32
	// cadenceAt is where the group's cadences (ownerCadences) held its
	// owner at the last poll: a hint, in what was padding.
	cadenceAt int32
	partState
}

// smallGroup is the most partitions a group's track searches rather than
// indexes: a search of a few is cheaper than a hash.
const smallGroup = 16

// part returns tp's track, added (new) when the group had none. at is
// where the track of a group whose partitions are as they were holds
// it: the group's rows come in order, so most polls find each there.
func (gt *groupTrack) part(tp TopicPartition, at int) *partTrack {
	if at < len(gt.parts) && gt.parts[at].tp == tp {
		return &gt.parts[at]
	}
	if gt.index != nil {
		if i, ok := gt.index[tp]; ok {
			return &gt.parts[i]
		}
	} else {
		for i := range gt.parts {
			if pt := &gt.parts[i]; pt.tp.Partition == tp.Partition && pt.tp.Topic == tp.Topic {
				return pt
			}
		}
	}
	gt.parts = append(gt.parts, partTrack{tp: tp})
	switch {
	case gt.index != nil:
		gt.index[tp] = int32(len(gt.parts) - 1)
	case len(gt.parts) > smallGroup:
		gt.reindex()
	}
	return &gt.parts[len(gt.parts)-1]
}

// reindex indexes the parts past smallGroup; none at or below.
func (gt *groupTrack) reindex() {
	if len(gt.parts) <= smallGroup {
		gt.index = nil
		return
	}
	gt.index = make(map[TopicPartition]int32, len(gt.parts))
	for i := range gt.parts {
		gt.index[gt.parts[i].tp] = int32(i)
	}
}

// forget drops the partitions poll did not show.
func (gt *groupTrack) forget(poll int64) {
	kept := gt.parts[:0]
	for i := range gt.parts {
		if gt.parts[i].poll == poll {
			kept = append(kept, gt.parts[i])
		}
	}
	clear(gt.parts[len(kept):]) // their owners' strings
	gt.parts = kept
	gt.reindex()
}

// NewOverviewHistory returns an empty history. Of opts, StallAfter,
// MaxLagAge and Window (how long REWOUND sticks) count.
func NewOverviewHistory(opts HistoryOptions) *OverviewHistory {
	return &OverviewHistory{rules: NewHistory(opts), groups: make(map[string]*groupTrack), topics: make(map[string]int32)}
}

// Observe computes every group's summary from one poll, by the group
// view's rules (NewSnapshot): lag over the rows the group view shows,
// never-committed ones from the log start (FromStartPartitions), the
// oldest lag's age; and its Status from this poll and the ones before.
// Summaries are in o.Groups' order. Polls must arrive in time order; one
// older than the last restarts the history.
func (h *OverviewHistory) Observe(o *OverviewObservation) []GroupSummary {
	now := o.TakenAt.UnixNano()
	if h.polls > 0 && now < h.lastT {
		*h = *NewOverviewHistory(h.rules.opts)
	}
	h.polls++
	h.lastT = now
	h.rules.polled(now)
	if len(h.topics) > 2*h.live+topicSlack {
		h.forgetTopics()
	}
	h.live = 0
	h.indexOffsets(o)
	h.indexRecords(o)
	out := make([]GroupSummary, len(o.Groups))
	for i := range o.Groups {
		out[i] = h.observe(o, &o.Groups[i], now)
	}
	for id, gt := range h.groups {
		if gt.poll != h.polls {
			delete(h.groups, id)
		}
	}
	return out
}

// observe summarizes one group and judges its partitions.
func (h *OverviewHistory) observe(o *OverviewObservation, g *OverviewGroup, now int64) GroupSummary {
	s := g.Summary
	s.Partitions, s.Committed = 0, 0
	parts := g.Parts
	if !partsInOrder(parts) {
		parts = OverviewParts(slices.Clone(parts))
	}
	s.TotalLag, s.MaxLag, s.LagFromStart, s.FromStartPartitions = 0, 0, false, 0
	s.MaxLagAge, s.MaxLagAgeKnown = 0, false

	gt := h.groups[s.ID]
	if gt == nil {
		n := 0 // the rows eachRow gives
		for j := range parts {
			if parts[j].row() {
				n++
			}
		}
		// The first poll's partitions take one allocation a group.
		gt = &groupTrack{parts: make([]partTrack, 0, n)}
		h.groups[s.ID] = gt
	}
	gt.poll = h.polls
	rebalancing := Group{State: s.State}.Rebalancing()
	gen := s.Generation
	gt.told = gt.told || gen > 0
	if gen == 0 && !gt.told && s.Type.Kind().Rebalance == RebalanceGeneration && (Group{State: s.State}).Exists() {
		gen = gt.seenGeneration(&s)
	}
	rb := gt.rate.ObserveGeneration(o.TakenAt, gen, Group{State: s.State}.Exists(), nil, rebalancing)
	s.Rebalances, s.RebalancesKnown = rb.TenMinutes.Count, rb.Generations
	// As History.Annotate: a group Empty with lag is STOPPED; lag nobody
	// owns is UNOWNED while members are assigned.
	empty := s.State == StateEmpty
	staffed := s.Members > 0 && !(Group{State: s.State}).Rebalancing() && !empty

	if g.CommitsUnread {
		// Not read is not "never committed": the last verdict and lag
		// stand, every track kept as it was.
		for i := range gt.parts {
			gt.parts[i].poll = h.polls
		}
		if gt.hasLast {
			gt.last.put(&s)
		} else {
			s.Status, s.LagUnknown = "", true // never read: no verdict, no lag (the Err says why)
		}
		return s
	}

	status := StatusOK
	missing, pastEnd := 0, 0
	shared := s.Type.Kind().SharedPartitions
	for j := range parts {
		if parts[j].HasCommit {
			s.Committed++
		}
	}
	gt.cadences.begin()
	h.eachRow(o, parts, gt, func(r *PartitionLag, pt *partTrack, owned bool) {
		s.Partitions++
		h.ageOf(o, r, pt)
		if r.LogEnd < 0 {
			missing++
		}
		if r.LogEnd >= 0 && r.Committed > r.LogEnd {
			pastEnd++
		}
		if r.CountsFromStart() {
			s.FromStartPartitions++
		}
		s.TotalLag = AddLag(s.TotalLag, r.Lag)
		s.MaxLag = max(s.MaxLag, r.Lag)
		if r.LagAgeKnown && (!s.MaxLagAgeKnown || r.LagAge > s.MaxLagAge) {
			s.MaxLagAge, s.MaxLagAgeKnown = r.LagAge, true
		}

		pt.poll = h.polls
		st := &pt.partState
		if st.unreadable(r) {
			r.Status = st.status.status()
		} else {
			owner := h.rules.ownerHash(r.MemberID, r.ClientID)
			co, every := cadenceOwner(owner, shared), int64(0)
			if st.handedTo(co) {
				every = gt.cadences.of(co)
			}
			h.rules.update(r, st, now, co, every)
			if c := st.ownCadence(); c > 0 && owner != 0 && !shared {
				pt.cadenceAt = gt.cadences.note(owner, c, pt.cadenceAt)
			}
			r.Status = h.rules.judgeRow(r, st, now, empty, staffed && !owned)
		}
		st.status = codeOf(r.Status)
		if r.Status.Worse(status) {
			status = r.Status
		}
	})
	gt.cadences.end()
	s.LagFromStart = s.FromStartPartitions > 0
	s.Status = status
	if missing > 0 {
		e := "log end of " + Count(missing, "partition") + " unknown"
		if o.LogErr != "" {
			e += ": " + o.LogErr
		}
		s.Err = joinErr(s.Err, e)
	}
	if pastEnd > 0 {
		// As the group view's rows say it: lag 0 would say all is well;
		// the consumer will get OFFSET_OUT_OF_RANGE and reset.
		s.Err = joinErr(s.Err, "committed offset past log-end on "+Count(pastEnd, "partition")+" (log truncated or topic recreated?)")
	}
	if len(gt.parts) > s.Partitions {
		gt.forget(h.polls)
	}
	gt.last, gt.hasLast = lastReadOf(&s), true // read: CommitsUnread returned above
	return s
}

// lastRead is what a group's summary says of its commits: its verdict and
// lag, without a pointer (the collector does not scan it).
type lastRead struct {
	partitions, committed, fromStart int
	totalLag, maxLag                 int64
	maxLagAge                        time.Duration
	lagFromStart, maxLagAgeKnown     bool
	status                           statusCode
}

func lastReadOf(s *GroupSummary) lastRead {
	return lastRead{partitions: s.Partitions, committed: s.Committed, fromStart: s.FromStartPartitions,
		totalLag: s.TotalLag, maxLag: s.MaxLag, maxLagAge: s.MaxLagAge,
		lagFromStart: s.LagFromStart, maxLagAgeKnown: s.MaxLagAgeKnown, status: codeOf(s.Status)}
}

// put gives s the verdict and lag l kept.
func (l *lastRead) put(s *GroupSummary) {
	s.Partitions, s.Committed, s.FromStartPartitions = l.partitions, l.committed, l.fromStart
	s.TotalLag, s.MaxLag, s.MaxLagAge = l.totalLag, l.maxLag, l.maxLagAge
	s.LagFromStart, s.MaxLagAgeKnown, s.Status = l.lagFromStart, l.maxLagAgeKnown, l.status.status()
}
