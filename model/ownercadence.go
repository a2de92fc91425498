package model

// A partition handed to a member that already commits others is judged by
// that member's cadence until its own first gap there: a 5 s committer
// leaving its partitions to a 30 s one (a routine scale-in) read them
// LAGGING twice in the first minute, though the new owner's 30 s was
// known on its other partitions. Each view keeps, poll to poll, every
// owner's fastest cadence learnt under it (ownerCadences): a committer on
// a timer commits its busy partitions alike, and a quiet partition's gaps
// are long only for want of records (its 5 min would let a hang on a busy
// one go unflagged for 7.5 min). A handover reads what the polls before
// it kept, so it does not hang on where in the walk it comes, and a poll
// that sees no owner's cadence (one in a rebalance: members listed
// without partitions; commits unreadable) keeps what there was.

// ownerCadences is one group's owner cadences, kept poll to poll.
type ownerCadences struct {
	es   []ownerEvery
	idx  map[uint64]int32 // owner -> its entry in es, once es is long
	poll int64            // the poll noting, counted by begin
}

// ownerEvery is one owner's (hashed: ownerHash) cadence as kept (every:
// 0 until a poll has ended with one), and the poll noting it (next, at
// poll: this poll's fastest so far).
type ownerEvery struct {
	owner       uint64
	every, next int64
	poll        int64
}

// indexFrom is how many owners a group has before their entries are found
// by a hash rather than a search.
const indexFrom = 16

// begin starts a poll's notes.
func (c *ownerCadences) begin() { c.poll++ }

// find returns owner's entry index, -1 when it has none; hint is where it
// was last (an index, checked first).
func (c *ownerCadences) find(owner uint64, hint int32) int32 {
	if hint >= 0 && int(hint) < len(c.es) && c.es[hint].owner == owner {
		return hint
	}
	if c.idx != nil {
		if i, ok := c.idx[owner]; ok {
			return i
		}
		return -1
	}
	for i := range c.es {
		if c.es[i].owner == owner {
			return int32(i)
		}
	}
	return -1
}

// of returns owner's cadence as the polls before this one kept it, 0 when
// none.
func (c *ownerCadences) of(owner uint64) int64 {
	if i := c.find(owner, -1); i >= 0 {
		return c.es[i].every
	}
	return 0
}

// note records owner's cadence every on one of its partitions at this poll
// and returns where its entry is, for the next poll's hint.
func (c *ownerCadences) note(owner uint64, every int64, hint int32) int32 {
	i := c.find(owner, hint)
	if i < 0 {
		i = int32(len(c.es))
		c.es = append(c.es, ownerEvery{owner: owner})
		switch {
		case c.idx != nil:
			c.idx[owner] = i
		case len(c.es) > indexFrom:
			c.reindex()
		}
	}
	e := &c.es[i]
	if e.poll != c.poll || every < e.next {
		e.next, e.poll = every, c.poll
	}
	return i
}

// end keeps this poll's notes: an owner noted takes its fastest cadence of
// the poll; one not noted keeps its last. Once the entries outnumber the
// owners noted by 64, those not noted for staleAfter polls (members gone)
// are dropped: an owner not noted at a poll may still be a member, all
// its partitions taken over since (a rolling restart of a group of 70
// members reshuffles most of them), and dropped at once, its cadence was
// unknown at the next handover (found by an independent review).
func (c *ownerCadences) end() {
	noted := 0
	for i := range c.es {
		if e := &c.es[i]; e.poll == c.poll {
			e.every = e.next
			noted++
		}
	}
	if noted == 0 || len(c.es) <= 2*noted+64 {
		return
	}
	kept := c.es[:0]
	for _, e := range c.es {
		if c.poll-e.poll < staleAfter {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(c.es) {
		return
	}
	c.es = kept
	if c.idx != nil {
		c.reindex()
	}
}

// staleAfter is how many polls an owner's cadence is kept unnoted before
// it may be dropped: longer than a partition handed to it takes to show
// a gap of its own (two commits: a minute for Kafka Streams, 600 polls at
// 100 ms).
const staleAfter = 1024

func (c *ownerCadences) reindex() {
	if len(c.es) <= indexFrom {
		c.idx = nil
		return
	}
	if c.idx == nil {
		c.idx = make(map[uint64]int32, len(c.es))
	}
	clear(c.idx)
	for i := range c.es {
		c.idx[c.es[i].owner] = int32(i)
	}
}

// ownCadence is st's cadence when learnt under its owner, 0 when none or
// inherited.
func (st *partState) ownCadence() int64 {
	if st.inherited {
		return 0
	}
	return st.every
}

// handedTo reports whether owner (a cadence owner: cadenceOwner) takes st
// from another at this poll.
func (st *partState) handedTo(owner uint64) bool {
	return owner != 0 && st.cadenceOf != 0 && owner != st.cadenceOf
}
