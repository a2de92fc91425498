package model

// Ledger counts what happened to the orders the demo produced. Every order
// is in exactly one of three places: processed (at least once), lost
// (committed past but never processed) or in flight (not processed yet, and
// not committed past, or being processed right now), so
// Processed + Lost + InFlight == Produced.
type Ledger struct {
	Produced int64 `json:"produced"`
	// Processed counts orders processed at least once.
	Processed int64 `json:"processed"`
	// Duplicates counts orders processed more than once.
	Duplicates int64 `json:"duplicates"`
	// Lost counts orders whose offset the group committed past although no
	// consumer ever finished processing them.
	Lost int64 `json:"lost"`
	// CommitFailures counts offset commits the coordinator refused.
	CommitFailures int64 `json:"commit_failures"`
	// InFlight counts orders neither processed nor lost.
	InFlight int64 `json:"in_flight"`
}

// OrderBook keeps the exact fate of every order: where it was written, how
// often it was processed, and how far the group has committed on each
// partition. It is the bookkeeping behind a Ledger. The zero value is not
// usable; call NewOrderBook. An OrderBook is not safe for concurrent use.
type OrderBook struct {
	orders         map[string]*orderEntry
	committed      map[TopicPartition]int64
	commitFailures int64
}

type orderEntry struct {
	tp         TopicPartition
	offset     int64
	processing int // consumers processing it right now
	done       int // times processing finished
}

// NewOrderBook returns an empty book.
func NewOrderBook() *OrderBook {
	return &OrderBook{
		orders:    make(map[string]*orderEntry),
		committed: make(map[TopicPartition]int64),
	}
}

// Produce records that order id is being written; Place says where it
// landed. An id seen before is ignored.
func (b *OrderBook) Produce(id string) {
	if _, ok := b.orders[id]; ok {
		return
	}
	b.orders[id] = &orderEntry{offset: NoOffset}
}

// Place records that order id was written at offset in tp.
func (b *OrderBook) Place(id string, tp TopicPartition, offset int64) {
	if e, ok := b.orders[id]; ok {
		e.tp, e.offset = tp, offset
	}
}

// Forget drops order id, whose write failed.
func (b *OrderBook) Forget(id string) {
	delete(b.orders, id)
}

// Known reports whether id was produced.
func (b *OrderBook) Known(id string) bool {
	_, ok := b.orders[id]
	return ok
}

// Start records that a consumer began processing order id. Unknown ids are
// ignored.
func (b *OrderBook) Start(id string) {
	if e, ok := b.orders[id]; ok {
		e.processing++
	}
}

// Abort records that a consumer gave up processing order id without
// finishing it (it was killed).
func (b *OrderBook) Abort(id string) {
	if e, ok := b.orders[id]; ok && e.processing > 0 {
		e.processing--
	}
}

// Finish records that a consumer finished processing order id and returns
// how many times it has now been processed (0 for an unknown id).
func (b *OrderBook) Finish(id string) int {
	e, ok := b.orders[id]
	if !ok {
		return 0
	}
	if e.processing > 0 {
		e.processing--
	}
	e.done++
	return e.done
}

// Times returns how many times order id has been processed.
func (b *OrderBook) Times(id string) int {
	if e, ok := b.orders[id]; ok {
		return e.done
	}
	return 0
}

// Commit records a successful commit: next is the offset the group will
// resume tp from.
func (b *OrderBook) Commit(tp TopicPartition, next int64) {
	b.committed[tp] = next
}

// CommitFailed records a commit the coordinator refused.
func (b *OrderBook) CommitFailed() {
	b.commitFailures++
}

// Ledger returns the counts as of now.
func (b *OrderBook) Ledger() Ledger {
	l := Ledger{
		Produced:       int64(len(b.orders)),
		CommitFailures: b.commitFailures,
	}
	for _, e := range b.orders {
		switch {
		case e.done > 0:
			l.Processed++
			if e.done > 1 {
				l.Duplicates++
			}
		case e.processing == 0 && e.offset != NoOffset && e.offset < b.committedOr(e.tp):
			l.Lost++
		default:
			l.InFlight++
		}
	}
	return l
}

func (b *OrderBook) committedOr(tp TopicPartition) int64 {
	if c, ok := b.committed[tp]; ok {
		return c
	}
	return NoOffset
}
