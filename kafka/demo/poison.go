package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// A poison order, as the field notes' lag note tells it: an order the
// consumer cannot process (a status no version of it knows), whatever it
// tries. Its handler fails on it, retries every poisonRetry and never
// commits past it, so that partition's committed offset stops where the
// poison is while its lag grows; the consumer stays in the group and its
// other partitions go on, as under a client whose error handler pauses
// the failed partition and seeks back to the failed record. Poison
// again skips it, as sending it to a dead-letter topic would: the owner
// commits past it and the partition moves on. The ledger does not count
// poison orders: they are not orders anyone placed.

// poisonRetry is how long the handler waits between two tries.
const poisonRetry = 250 * time.Millisecond

// poisonStatus is the status a poison order carries: one the consumers do
// not know.
const poisonStatus = "payment-chargeback-v2"

// poisonOrder is one poison order; guarded by d.mu.
type poisonOrder struct {
	id      string
	tp      model.TopicPartition
	offset  int64 // -1 until the produce is answered (or a consumer reads it)
	skipped bool
	// failed and passed: the groups that reported failing on it, and
	// those that committed past it once skipped (one event each).
	failed, passed map[*group]bool
}

// Poison produces a poison order and returns it (produced true) or, when
// one is stuck, skips it (produced false).
func (d *Demo) Poison() (model.DemoPoisonOrder, bool, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return model.DemoPoisonOrder{}, false, errors.New("poison order: demo closed")
	}
	if po := d.stuckPoison(); po != nil {
		po.skipped = true
		info := po.info()
		d.mu.Unlock()
		return info, false, nil
	}
	po := &poisonOrder{
		id:     fmt.Sprintf("poison-%06d", len(d.poisons)+1),
		tp:     model.TopicPartition{Topic: d.cfg.Topic, Partition: int32(rand.IntN(d.partCount))},
		offset: -1,
		failed: map[*group]bool{},
		passed: map[*group]bool{},
	}
	d.poisons = append(d.poisons, po)
	d.mu.Unlock()
	offset, err := d.producePoison(po)
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		po.skipped = true // never written, or unknown: nothing to wait for
		return model.DemoPoisonOrder{}, false, err
	}
	if po.offset < 0 {
		po.offset = offset
	}
	return po.info(), true, nil
}

// producePoison writes po to its partition and returns its offset.
func (d *Demo) producePoison(po *poisonOrder) (int64, error) {
	value, err := json.Marshal(order{OrderID: po.id, EventID: "event-" + po.id, Customer: "customer-poison",
		Status: poisonStatus, Run: d.run, Poison: true})
	if err != nil {
		return 0, err
	}
	tr := &kafka.Transport{ClientID: "order-producer", MetadataTopics: []string{d.cfg.Topic}}
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(d.brokers...), Transport: tr, Timeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(d.ctx, 5*time.Second)
	defer cancel()
	resp, err := client.Produce(ctx, &kafka.ProduceRequest{
		Topic:        po.tp.Topic,
		Partition:    int(po.tp.Partition),
		RequiredAcks: kafka.RequireAll,
		Records: kafka.NewRecordReader(kafka.Record{
			Time:  time.Now(),
			Key:   kafka.NewBytes([]byte("customer-poison")),
			Value: kafka.NewBytes(value),
		}),
	})
	if err == nil {
		err = resp.Error
	}
	if err != nil {
		return 0, fmt.Errorf("produce poison order to %s: %w", partList([]model.TopicPartition{po.tp}), err)
	}
	return resp.BaseOffset, nil
}

// stuckPoison is the poison order not yet skipped, if any; d.mu is held.
func (d *Demo) stuckPoison() *poisonOrder {
	for _, po := range d.poisons {
		if !po.skipped {
			return po
		}
	}
	return nil
}

// poisonStatus is the stuck poison order, for Status; d.mu is held.
func (d *Demo) poisonStatus() model.DemoPoisonOrder {
	if po := d.stuckPoison(); po != nil {
		return po.info()
	}
	return model.DemoPoisonOrder{}
}

func (po *poisonOrder) info() model.DemoPoisonOrder {
	return model.DemoPoisonOrder{OrderID: po.id, Partition: po.tp, Offset: po.offset}
}

// poisoned handles r if a poison order bars it: r is one (it fails, or,
// skipped, is committed past), or comes after a stuck one on its
// partition (it waits: the consumer seeks back to the poison). handled
// false: r is an ordinary order. alive false: the process ended meanwhile.
func (p *proc) poisoned(r *kgo.Record, tp model.TopicPartition, o order) (handled, alive bool) {
	c, d := p.c, p.c.d
	d.mu.Lock()
	var po *poisonOrder
	mine := false // r is po itself
	for _, x := range d.poisons {
		if o.Poison && o.Run == d.run && x.id == o.OrderID {
			po, mine = x, true
			break
		}
		if !x.skipped && x.tp == tp && x.offset >= 0 && x.offset < r.Offset {
			po = x
		}
	}
	if po == nil {
		d.mu.Unlock()
		return false, true
	}
	if po.offset < 0 && mine {
		po.offset = r.Offset
	}
	skipped, first := po.skipped, !po.failed[c.g]
	if !skipped && mine {
		po.failed[c.g] = true
		c.poisonTries++
		c.poisonTP, c.poisonOffset = tp, r.Offset
	}
	d.mu.Unlock()
	switch {
	case !mine: // after a stuck poison: back to it
		p.seek(tp, po.offset)
		return true, true
	case skipped:
		p.skipPoison(r, tp, po)
		return true, !p.ending()
	}
	if first {
		d.emit(c.g, model.Event{Type: model.EventDemoPoison, ClientID: c.id, MemberID: p.member(),
			Partitions: []model.TopicPartition{tp},
			Detail: fmt.Sprintf("%s cannot process %s (p%d, offset %d): unknown status %q, a permanent error; it retries every %s and commits nothing past it (P skips it)",
				c.id, po.id, tp.Partition, r.Offset, poisonStatus, model.Setting(poisonRetry))})
	}
	p.seek(tp, r.Offset)
	p.pauseForRetry(tp)
	return true, !p.ending()
}

// pauseForRetry pauses tp until poisonRetry from now: the consumer's
// other partitions go on meanwhile, as under a client whose error handler
// pauses the failed partition and seeks back.
func (p *proc) pauseForRetry(tp model.TopicPartition) {
	p.cl.PauseFetchPartitions(map[string][]int32{tp.Topic: {tp.Partition}})
	p.retry, p.retryAt = &tp, time.Now().Add(poisonRetry)
}

// pollContext is the context of the next poll: the process's, cut at the
// poison's retry, whose partition it resumes once due.
func (p *proc) pollContext() (context.Context, context.CancelFunc) {
	if p.retry == nil {
		return p.pollCtx, func() {}
	}
	if !time.Now().Before(p.retryAt) {
		p.cl.ResumeFetchPartitions(map[string][]int32{p.retry.Topic: {p.retry.Partition}})
		p.retry = nil
		return p.pollCtx, func() {}
	}
	return context.WithDeadline(p.pollCtx, p.retryAt)
}

// skipPoison commits past a skipped poison order r, as a consumer that
// sent it to a dead-letter topic does.
func (p *proc) skipPoison(r *kgo.Record, tp model.TopicPartition, po *poisonOrder) {
	c, d := p.c, p.c.d
	p.commit(r, tp)
	d.mu.Lock()
	tries := c.poisonTries
	c.poisonTries = 0
	report := !po.passed[c.g]
	po.passed[c.g] = true
	d.mu.Unlock()
	if !report {
		return
	}
	after := ""
	if tries > 0 {
		after = " after " + model.Count(tries, "failure")
	}
	d.emit(c.g, model.Event{Type: model.EventDemoPoisonSkipped, ClientID: c.id, MemberID: p.member(),
		Partitions: []model.TopicPartition{tp},
		Detail: fmt.Sprintf("%s skipped %s (p%d, offset %d)%s, as to a dead-letter topic: committed past it, p%d moves on",
			c.id, po.id, tp.Partition, r.Offset, after, tp.Partition)})
}

// seek makes the process fetch tp again from offset; it runs on the poll
// goroutine before AllowRebalance, as kgo asks.
func (p *proc) seek(tp model.TopicPartition, offset int64) {
	p.cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{tp.Topic: {tp.Partition: {Epoch: -1, Offset: offset}}})
}

// clearPoison forgets the poison order the consumer was stuck on if it
// gave up its partition; d.mu is held.
func (c *consumer) clearPoison(gone []model.TopicPartition) {
	for _, tp := range gone {
		if c.poisonTries > 0 && tp == c.poisonTP {
			c.poisonTries = 0
		}
	}
}
