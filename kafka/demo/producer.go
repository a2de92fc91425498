package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kgwatch/kgwatch/model"
)

// hotKey is the customer that, with the hot key on, places most orders.
const hotKey = "customer-0042"

// hotShare is the share of orders that carry the hot key while it is on.
const hotShare = 0.9

// order is one JSON order event, as in the seed's producer.
type order struct {
	OrderID  string `json:"order_id"`
	EventID  string `json:"event_id"`
	Customer string `json:"customer"`
	Status   string `json:"status"`
	// Run tags the demo run that wrote the order, so that a rerun against
	// an outside cluster ignores an earlier run's orders.
	Run string `json:"run"`
	// Poison marks a poison order (poison.go): no consumer can process it.
	Poison bool `json:"poison,omitempty"`
}

// produce writes orders at the configured rate until the demo closes. Each
// order goes in its own produce request so that its offset is known exactly.
func (d *Demo) produce() {
	tr := &kafka.Transport{ClientID: "order-producer", MetadataTopics: []string{d.cfg.Topic}}
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(d.brokers...), Transport: tr, Timeout: 5 * time.Second}
	partitions := make([]int, d.partCount)
	for i := range partitions {
		partitions[i] = i
	}
	var hash kafka.Hash
	seq := 0
	var pace pacer
	pace.restart(time.Now())
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-d.rateCh:
			// Rate or pause changed: recompute the next send time.
			pace.restart(time.Now())
		case <-timer.C:
		}
		d.mu.Lock()
		rate, paused, hot := d.rate, d.paused, d.hot
		d.mu.Unlock()
		if paused || rate <= 0 {
			timer.Reset(time.Hour)
			continue
		}
		interval := orderInterval(rate)
		if wait := pace.wait(time.Now()); wait > 0 {
			timer.Reset(wait)
			continue
		}
		seq++
		o := order{
			OrderID:  fmt.Sprintf("order-%06d", seq),
			Customer: fmt.Sprintf("customer-%04d", rand.IntN(1000)),
			Status:   "payment-completed",
			Run:      d.run,
		}
		o.EventID = "event-" + o.OrderID[len("order-"):]
		if hot && rand.Float64() < hotShare {
			o.Customer = hotKey
		}
		d.send(client, &hash, partitions, o)
		now := time.Now()
		pace.sent(now, interval)
		timer.Reset(max(pace.wait(now), 0))
	}
}

// pacer is when the producer's next order is due: one interval after the
// last one was due, so a slow send does not slow the rate, but never more
// than a second behind, so a stall is not made up in a burst.
type pacer struct{ next time.Time }

// restart makes an order due at now.
func (p *pacer) restart(now time.Time) { p.next = now }

// wait is how long until the next order is due; ≤ 0: it is.
func (p *pacer) wait(now time.Time) time.Duration { return p.next.Sub(now) }

// sent records that the due order went out, at now, at interval.
func (p *pacer) sent(now time.Time, interval time.Duration) {
	p.next = p.next.Add(interval)
	if now.Sub(p.next) > time.Second {
		p.next = now
	}
}

// send writes one order, keyed by customer, and records it in the book.
func (d *Demo) send(client *kafka.Client, hash *kafka.Hash, partitions []int, o order) {
	value, err := json.Marshal(o)
	if err != nil {
		return
	}
	key := []byte(o.Customer)
	p := hash.Balance(kafka.Message{Key: key}, partitions...)
	// Book the order before writing it: a consumer may read it before the
	// produce response arrives.
	d.books(func(b *model.OrderBook) { b.Produce(o.OrderID) })
	ctx, cancel := context.WithTimeout(d.ctx, 5*time.Second)
	defer cancel()
	resp, err := client.Produce(ctx, &kafka.ProduceRequest{
		Topic:        d.cfg.Topic,
		Partition:    p,
		RequiredAcks: kafka.RequireAll,
		Records: kafka.NewRecordReader(kafka.Record{
			Time:  time.Now(),
			Key:   kafka.NewBytes(key),
			Value: kafka.NewBytes(value),
		}),
	})
	if err == nil {
		err = resp.Error
	}
	if err != nil {
		// The order is dropped, not retried: its id is never reused, so a
		// write that landed after all is ignored by the book.
		d.books(func(b *model.OrderBook) { b.Forget(o.OrderID) })
		return
	}
	tp := model.TopicPartition{Topic: d.cfg.Topic, Partition: int32(p)}
	d.books(func(b *model.OrderBook) { b.Place(o.OrderID, tp, resp.BaseOffset) })
}

// books applies f to every group's order book: each group consumes every
// order.
func (d *Demo) books(f func(*model.OrderBook)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, g := range d.groups {
		f(g.book)
	}
}

// orderInterval is the time between two orders at rate orders/s, for any
// float: a rate the demo does not take (0, NaN, ±Inf, 1e-300, 1e308) is
// first held to MinRate … MaxRate, so the interval is always between 100µs
// and 100s and never overflows a time.Duration.
func orderInterval(rate float64) time.Duration {
	r := clampRate(rate)
	if r == 0 {
		r = MinRate
	}
	return time.Duration(float64(time.Second) / r)
}

// TogglePause pauses or resumes the producer and returns whether it is now
// paused.
func (d *Demo) TogglePause() bool {
	d.mu.Lock()
	d.paused = !d.paused
	p := d.paused
	d.mu.Unlock()
	d.poke()
	return p
}

// SetRate sets the producer's orders per second: NaN and negatives mean 0,
// other values are held to MinRate … MaxRate.
func (d *Demo) SetRate(r float64) {
	d.mu.Lock()
	d.rate = clampRate(r)
	d.mu.Unlock()
	d.poke()
}

// Rate returns the producer's orders per second.
func (d *Demo) Rate() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rate
}

// Paused reports whether the producer is paused.
func (d *Demo) Paused() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paused
}

// ToggleHotKey switches the hot key on or off and returns whether it is now
// on: while on, most orders carry one customer's key and land on one
// partition.
func (d *Demo) ToggleHotKey() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.hot = !d.hot
	return d.hot
}

// HotKey reports whether the hot key is on.
func (d *Demo) HotKey() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hot
}

func (d *Demo) poke() {
	select {
	case d.rateCh <- struct{}{}:
	default:
	}
}
