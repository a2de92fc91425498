package model

// A partition handed to a member that already commits others is judged by
// that member's cadence until its own first gap there: a 5 s committer
// leaving its partitions to a 30 s one (a routine scale-in) read them
// LAGGING twice in the first minute, though the new owner's 30 s was
// known on its other partitions. Each view keeps, poll to poll, every
// owner's slowest cadence learnt under it (a partition's inherited one
// does not count), and reads the last poll's at a handover, so what a
// handover inherits does not hang on where in the walk it comes.

// ownerEvery is one owner's cadence (hashed: ownerHash).
type ownerEvery struct {
	owner uint64
	every int64
}

// noteEvery raises owner's cadence in es to every, adding it when new.
func noteEvery(es []ownerEvery, owner uint64, every int64) []ownerEvery {
	for i := range es {
		if es[i].owner == owner {
			es[i].every = max(es[i].every, every)
			return es
		}
	}
	return append(es, ownerEvery{owner, every})
}

// everyOf returns owner's cadence in es, 0 when it has none.
func everyOf(es []ownerEvery, owner uint64) int64 {
	for _, e := range es {
		if e.owner == owner {
			return e.every
		}
	}
	return 0
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
