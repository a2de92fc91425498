package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// handle processes one order and commits exactly its offset + 1, before or
// after processing as configured. It reports false when the process was
// killed or the demo is closing.
func (p *proc) handle(r *kgo.Record) bool {
	c, d := p.c, p.c.d
	cfg := &d.cfg
	tp := model.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	var o order
	ours := json.Unmarshal(r.Value, &o) == nil && o.Run == d.run && o.OrderID != ""
	d.mu.Lock()
	c.g.book.Fetched(tp, r.Offset)
	d.mu.Unlock()
	if handled, alive := p.poisoned(r, tp, o); handled {
		return alive
	}
	name := o.OrderID
	if !ours {
		name = fmt.Sprintf("offset %d", r.Offset)
	}

	// max.poll.interval runs from the moment the order is handed over.
	deadline := time.Now().Add(cfg.MaxPollInterval)
	onLate := p.pollTimeout

	pt := cfg.ProcessTime
	if c.isSlow() {
		pt = cfg.SlowProcessTime
	}
	// The order is in hand from here: an order committed past but still
	// waiting out the commit delay is in flight, not lost, until the
	// consumer dies with it.
	if ours {
		d.mu.Lock()
		// Where the order is, as the consumer sees it: the producer may
		// not have heard back yet, and a loss is judged by the offset.
		c.g.book.Place(o.OrderID, tp, r.Offset)
		c.g.book.Start(o.OrderID)
		d.mu.Unlock()
	}
	defer c.setPending(pending{})
	if cfg.Commit == CommitBefore {
		c.setPhase(phaseCommitting)
		p.commit(r, tp)
		c.setPending(pending{order: name, tp: tp, offset: r.Offset, phase: model.DemoPhaseCommitted,
			until: time.Now().Add(cfg.CommitDelay + pt)})
		if !p.work(cfg.CommitDelay, deadline, onLate) {
			p.abort(ours, o.OrderID)
			return false
		}
	} else {
		c.setPending(pending{order: name, tp: tp, offset: r.Offset, phase: model.DemoPhaseProcessing,
			until: time.Now().Add(pt)})
	}
	c.setPhase(phaseProcessing)
	defer c.setPhase(phaseIdle)
	if !p.work(pt, deadline, onLate) {
		p.abort(ours, o.OrderID)
		return false
	}
	if ours {
		d.mu.Lock()
		n := c.g.book.Finish(o.OrderID)
		d.mu.Unlock()
		if n > 1 {
			d.emit(c.g, model.Event{
				Type:       model.EventDemoDuplicate,
				ClientID:   c.id,
				MemberID:   p.member(),
				Partitions: []model.TopicPartition{tp},
				Detail:     fmt.Sprintf("%s processed %s a %s time (offset %d)", c.id, o.OrderID, ordinal(n), r.Offset),
			})
		}
	}
	if cfg.Commit == CommitAfter {
		c.setPhase(phaseCommitting)
		c.setPending(pending{order: name, tp: tp, offset: r.Offset, phase: model.DemoPhaseProcessed,
			until: time.Now().Add(cfg.CommitDelay)})
		if !p.work(cfg.CommitDelay, deadline, onLate) {
			return false
		}
		p.commit(r, tp)
	}
	return true
}

// abort gives up the order in hand (the process died with it). If the
// group had committed past it, it is lost now: demo_lost says which. If the
// commit's fate is not known yet (the process died with it in flight), the
// commit that moves past the order later says it.
func (p *proc) abort(ours bool, id string) {
	if !ours {
		return
	}
	c, d := p.c, p.c.d
	member := p.member()
	d.mu.Lock()
	loss, lost := c.g.book.Abort(id, c.id, member)
	closing := d.closed
	d.mu.Unlock()
	if lost && !closing {
		d.emitLosses(c.g, []model.Loss{loss})
	}
}

// emitLosses says demo_lost for each order that became lost, in the name of
// the consumer that died with it.
func (d *Demo) emitLosses(g *group, losses []model.Loss) {
	for _, l := range losses {
		d.emit(g, model.Event{
			Type:       model.EventDemoLost,
			ClientID:   l.Client,
			MemberID:   l.Member,
			Partitions: []model.TopicPartition{l.TP},
			Detail: fmt.Sprintf("%s lost %s (p%d, offset %d): committed before processing, and it died before the order was done",
				l.Client, l.ID, l.TP.Partition, l.Offset),
		})
	}
}

// work spends d on an order. Past deadline it calls onLate once. It reports
// false if the process was killed or the demo is closing meanwhile.
func (p *proc) work(d time.Duration, deadline time.Time, onLate func()) bool {
	end := time.Now().Add(d)
	fired := false
	for {
		now := time.Now()
		if !fired && !now.Before(deadline) && now.Before(end) {
			fired = true
			onLate()
			continue
		}
		wait := end.Sub(now)
		if !fired && deadline.Before(end) {
			wait = deadline.Sub(now)
		}
		if wait <= 0 {
			select {
			case <-p.killed:
				return false
			case <-p.quit:
				return false
			default:
				return true
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-p.killed:
			t.Stop()
			return false
		case <-p.quit:
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// commit commits r's offset + 1 in the current generation (member epoch)
// and books the result. A commit refused because a rebalance took the
// partition, or because the member left the group, is demo_commit_failed.
func (p *proc) commit(r *kgo.Record, tp model.TopicPartition) {
	c, d := p.c, p.c.d
	if p.isKilled() {
		return
	}
	ctx, cancel := context.WithTimeout(d.ctx, 10*time.Second)
	go func() { // a dead process stops waiting
		select {
		case <-p.killed:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := p.cl.CommitRecords(ctx, r)
	cancel()
	// A commit the coordinator took is in the book even when the process
	// died waiting for the answer: the group resumes past it all the same.
	killed := p.isKilled()
	next := r.Offset + 1
	var losses []model.Loss
	d.mu.Lock()
	switch {
	case err == nil:
		losses = c.g.book.Commit(tp, next)
	case !killed:
		c.g.book.CommitFailed()
	}
	closing := d.closed
	d.mu.Unlock()
	if !closing {
		d.emitLosses(c.g, losses)
	}
	if err != nil && !killed { // a dead process reports nothing
		d.emit(c.g, model.Event{
			Type:       model.EventDemoCommitFailed,
			ClientID:   c.id,
			MemberID:   p.member(),
			Partitions: []model.TopicPartition{tp},
			Detail:     fmt.Sprintf("%s could not commit offset %d of %s: %v", c.id, next, partList([]model.TopicPartition{tp}), err),
		})
	}
}

// member is the member id the process's client has now.
func (p *proc) member() string {
	m, _ := p.cl.GroupMetadata()
	return m
}

func (c *consumer) setPending(pd pending) {
	c.d.mu.Lock()
	c.pending = pd
	c.d.mu.Unlock()
}
