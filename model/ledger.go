package model

import "slices"

// Ledger counts what happened to the orders the demo produced. Every order
// is in exactly one of four places: processed (at least once), outside
// (committed past by a member the demo did not start, such as a client
// joined through --listen: processed outside the demo, as far as it can
// tell), lost (committed past by the demo's consumers but never processed)
// or in flight (not processed yet, and not committed past, or being
// processed right now), so Processed + Outside + Lost + InFlight ==
// Produced.
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
	// Outside counts orders the demo's consumers never processed because
	// another member of the group committed past them: processed outside
	// the demo, not lost.
	Outside int64 `json:"outside,omitempty"`
}

// OrderBook keeps the exact fate of every order: where it was written, how
// often it was processed, and how far the group has committed on each
// partition. It is the bookkeeping behind a Ledger. The zero value is not
// usable; call NewOrderBook. An OrderBook is not safe for concurrent use.
type OrderBook struct {
	orders         map[string]*orderEntry
	committed      map[TopicPartition]int64
	commitFailures int64
	// fetched is, per partition, the offset after the last one a demo
	// consumer was handed.
	fetched map[TopicPartition]int64
	// unsettled lists, per partition, the orders a consumer gave up while
	// the group had not (as far as the book knows) committed past them:
	// a commit that lands later, its own or a successor's, makes them lost.
	unsettled map[TopicPartition][]unsettled
}

type unsettled struct {
	id             string
	client, member string
}

// A Loss is an order that has just become lost, and who gave it up.
type Loss struct {
	ID     string
	TP     TopicPartition
	Offset int64
	// Client and Member are the consumer that had the order in hand when
	// it died.
	Client, Member string
}

type orderEntry struct {
	tp         TopicPartition
	offset     int64
	processing int // consumers processing it right now
	done       int // times processing finished
	// outside: another member committed past it before the demo's
	// consumers got to it.
	outside bool
}

// NewOrderBook returns an empty book.
func NewOrderBook() *OrderBook {
	return &OrderBook{
		orders:    make(map[string]*orderEntry),
		committed: make(map[TopicPartition]int64),
		fetched:   make(map[TopicPartition]int64),
		unsettled: make(map[TopicPartition][]unsettled),
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

// Abort records that consumer client (as member) gave up processing order
// id without finishing it (it was killed). It returns the loss when the
// group has committed past the order already. Otherwise the order stays in
// flight, and the commit that later moves past it (the dying consumer's own
// commit, whose answer it never saw, or a successor's) returns the loss.
func (b *OrderBook) Abort(id, client, member string) (Loss, bool) {
	e, ok := b.orders[id]
	if !ok || e.processing == 0 {
		return Loss{}, false
	}
	e.processing--
	if b.lost(e) {
		return Loss{ID: id, TP: e.tp, Offset: e.offset, Client: client, Member: member}, true
	}
	if e.processing == 0 && e.done == 0 && !e.outside && e.offset != NoOffset {
		// Given up again (its commit never landed the first time): the
		// last holder answers for it, once.
		list := b.unsettled[e.tp]
		i := slices.IndexFunc(list, func(u unsettled) bool { return u.id == id })
		if i < 0 {
			b.unsettled[e.tp] = append(list, unsettled{id: id, client: client, member: member})
		} else {
			list[i].client, list[i].member = client, member
		}
	}
	return Loss{}, false
}

// lost reports whether order e counts as lost now.
func (b *OrderBook) lost(e *orderEntry) bool {
	return e.done == 0 && !e.outside && e.processing == 0 && e.offset != NoOffset && e.offset < b.committedOr(e.tp)
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
// resume tp from. It returns the orders given up on tp that this commit
// makes lost.
func (b *OrderBook) Commit(tp TopicPartition, next int64) []Loss {
	b.committed[tp] = next
	list := b.unsettled[tp]
	if len(list) == 0 {
		return nil
	}
	var losses []Loss
	kept := list[:0]
	for _, u := range list {
		e, ok := b.orders[u.id]
		switch {
		case !ok || e.done > 0 || e.processing > 0 || e.outside:
			// Picked up again (or settled otherwise): the next holder
			// answers for it now.
		case b.lost(e):
			losses = append(losses, Loss{ID: u.id, TP: tp, Offset: e.offset, Client: u.client, Member: u.member})
		default:
			kept = append(kept, u)
		}
	}
	clear(list[len(kept):])
	if len(kept) == 0 {
		delete(b.unsettled, tp)
	} else {
		b.unsettled[tp] = kept
	}
	return losses
}

// Fetched records that a demo consumer was handed the record at offset of
// tp. Past a gap (an offset beyond both the demo's own last commit and the
// last record handed over), the orders in the gap that no demo consumer
// processed were committed past by another member: they count as Outside.
// When the demo has neither committed on tp nor been handed a record of it,
// the gap runs from the log's start (where the consumers start): an outside
// member that read tp first committed past every order below offset.
func (b *OrderBook) Fetched(tp TopicPartition, offset int64) {
	from := max(b.committedOr(tp), b.fetchedOr(tp), 0)
	b.fetched[tp] = max(b.fetchedOr(tp), offset+1)
	if offset <= from {
		return
	}
	for _, e := range b.orders {
		if e.tp == tp && e.offset >= from && e.offset < offset && e.done == 0 && e.processing == 0 {
			e.outside = true
		}
	}
}

func (b *OrderBook) fetchedOr(tp TopicPartition) int64 {
	if f, ok := b.fetched[tp]; ok {
		return f
	}
	return NoOffset
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
		case e.outside:
			l.Outside++
		case b.lost(e):
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
