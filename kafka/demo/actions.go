package demo

import "github.com/kgwatch/kgwatch/model"

// Status reads the demo's consumers (of every group in compare mode), its
// producer and, when withLedger, the ledger (the first group's: reading it
// is O(orders) under the demo's lock) and in compare mode every group's.
func (d *Demo) Status(withLedger bool) model.DemoStatus {
	s := model.DemoStatus{Consumers: d.Consumers(), Rate: d.Rate(), Paused: d.Paused(), HotKey: d.HotKey()}
	d.mu.Lock()
	s.Rolling, s.Poison = d.rollingStatus(), d.poisonStatus()
	d.mu.Unlock()
	if withLedger {
		s.Ledger, s.Ledgers = d.ledgers()
		s.HasLedger = true
	}
	return s
}

// ledgers reads the first group's ledger and, in compare mode, every
// group's (nil otherwise), under one hold of the demo's lock: at one
// instant, so the groups' counts compare (each saw the same orders
// produced).
func (d *Demo) ledgers() (first model.Ledger, all map[string]model.Ledger) {
	d.mu.Lock()
	defer d.mu.Unlock()
	first = d.groups[0].book.Ledger()
	if len(d.groups) == 1 {
		return first, nil
	}
	all = make(map[string]model.Ledger, len(d.groups))
	all[d.groups[0].spec.Name] = first
	for _, g := range d.groups[1:] {
		all[g.spec.Name] = g.book.Ledger()
	}
	return first, all
}

// Act does what one demo key asks (the UI's Demo interface): a member
// action on the consumer with that client id (in every group, in compare
// mode), or one on the whole demo.
func (d *Demo) Act(a model.DemoAction) (model.DemoOutcome, error) { return a.Do(d) }
