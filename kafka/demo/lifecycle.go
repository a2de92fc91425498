package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kgwatch/kgwatch/model"
)

// stop closes the consumer gracefully in the background.
func (c *consumer) stop() error {
	d := c.d
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return fmt.Errorf("stop consumer %q: demo closed", c.id)
	}
	if c.state != StateRunning {
		st := c.state
		d.mu.Unlock()
		return fmt.Errorf("stop consumer %q: it is %s", c.id, st)
	}
	c.state = StateStopping
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		start := time.Now()
		c.cg.Close() // finishes the order in hand, then LeaveGroup
		<-c.done
		d.mu.Lock()
		stopped := c.state == StateStopping
		member := c.lastID
		if stopped {
			c.state = StateStopped
			c.stoppedAt = time.Now()
			c.memberID = ""
			c.assigned = nil
		}
		d.mu.Unlock()
		if stopped {
			d.emit(model.Event{
				Type:        model.EventDemoStopped,
				ClientID:    c.id,
				MemberID:    member,
				Duration:    time.Since(start),
				HasDuration: true,
				Detail:      c.id + " closed and left the group",
			})
		}
	}()
	return nil
}

// kill cuts the consumer's connections at once; it sends nothing more.
func (c *consumer) kill() error {
	d := c.d
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return fmt.Errorf("kill consumer %q: demo closed", c.id)
	}
	if c.state != StateRunning && c.state != StateStopping {
		st := c.state
		d.mu.Unlock()
		return fmt.Errorf("kill consumer %q: it is %s", c.id, st)
	}
	c.state = StateKilled
	c.killedAt = time.Now()
	killedAt := c.killedAt
	member := c.memberID
	if member == "" && !c.left {
		member = c.lastID
	}
	d.wg.Add(2)
	d.mu.Unlock()

	c.killOnce.Do(func() { close(c.killed) })
	c.dialer.Cut()
	d.emit(model.Event{
		Type:     model.EventDemoKilled,
		ClientID: c.id,
		MemberID: member,
		Detail:   c.id + " killed: connections cut, no LeaveGroup",
	})
	go func() {
		defer d.wg.Done()
		c.cg.Close() // every dial fails: nothing reaches the cluster
		<-c.done
	}()
	go func() {
		defer d.wg.Done()
		c.watchEviction(member, killedAt)
	}()
	return nil
}

// watchEviction polls the group until the coordinator no longer lists the
// killed consumer, then reports how long that took. The consumer is known
// by member, the id it last recorded, and by its client id: the
// coordinator can hold a member whose id the consumer never learnt (killed
// between the coordinator's answer and its own bookkeeping, or while
// joining). A consumer the coordinator never listed after the kill was not
// in the group: nothing was evicted, so no demo_evicted is reported.
func (c *consumer) watchEviction(member string, killedAt time.Time) {
	d := c.d
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	seen := false
	for {
		select {
		case <-d.ctx.Done():
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(d.ctx, 2*time.Second)
		resp, err := d.admin.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: []string{d.cfg.Group}})
		cancel()
		if err != nil || len(resp.Groups) != 1 || resp.Groups[0].Error != nil {
			continue
		}
		present := false
		for _, m := range resp.Groups[0].Members {
			if (member != "" && m.MemberID == member) || m.ClientID == c.id {
				present = true
				if member == "" {
					member = m.MemberID
				}
			}
		}
		if !present {
			break
		}
		seen = true
	}
	took := time.Since(killedAt)
	d.mu.Lock()
	// Never listed: EvictedAt is when the demo saw it was not in the
	// group (the UI says "killed before it joined"), with no event.
	c.state = StateEvicted
	c.evictedAt = killedAt.Add(took)
	c.memberID = ""
	c.assigned = nil
	d.mu.Unlock()
	if !seen {
		return // not in the group when killed: no eviction to report
	}
	d.emit(model.Event{
		Type:        model.EventDemoEvicted,
		ClientID:    c.id,
		MemberID:    member,
		Duration:    took,
		HasDuration: true,
		Detail:      fmt.Sprintf("%s gone after %.1fs without a heartbeat: the coordinator evicted it (session timeout)", c.id, took.Seconds()),
	})
}

// close shuts the consumer down for Demo.Close: it abandons the order in
// hand and leaves the group unless it was killed.
func (c *consumer) close() {
	c.quitOnce.Do(func() { close(c.quit) })
	c.cg.Close()
	<-c.done
	c.dialer.Cut() // drop anything the readers left open
}
