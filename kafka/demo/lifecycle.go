package demo

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// start runs p as the consumer's process.
func (c *consumer) start(p *proc) {
	d := c.d
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		p.run()
	}()
}

// finish ends the process as a graceful close does, for a stop and a
// restart alike: it finishes the order in hand and commits it, then its
// client leaves the group (closeClient). It returns the member id the
// process had before it left.
func (p *proc) finish() (member string) {
	p.stopOnce.Do(func() { close(p.stopping) })
	p.endPoll()
	<-p.done
	member = p.member()
	p.closeClient()
	return member
}

// closeClient closes the process's kgo client once: kgo then calls
// OnPartitionsRevoked and leaves the group — LeaveGroup (classic, dynamic),
// nothing (classic, static), a heartbeat with member epoch -1 (consumer
// protocol, dynamic) or -2, a temporary leave (consumer protocol, static).
func (p *proc) closeClient() {
	p.closeOnce.Do(func() {
		p.cl.AllowRebalance()
		p.cl.Close()
		p.dialer.Cut() // drop anything left open
	})
}

// lockIn locks the demo for action on the consumer when the demo is open
// and the consumer in one of states; otherwise it leaves the demo unlocked
// and says why the action cannot be done.
func (c *consumer) lockIn(action string, states ...string) error {
	d := c.d
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return fmt.Errorf("%s consumer %q: demo closed", action, c.id)
	}
	if !slices.Contains(states, c.state) {
		st := c.state
		d.mu.Unlock()
		return fmt.Errorf("%s consumer %q: it is %s", action, c.id, st)
	}
	return nil
}

// stop closes the consumer gracefully in the background: it finishes the
// order in hand, commits it and leaves the group, so the group rebalances
// at once. A static member leaves too, by instance id, as the Java client
// does when closed with GroupMembershipOperation.LEAVE_GROUP (KIP-1092): a
// stop is not a restart.
func (c *consumer) stop() error {
	d := c.d
	if err := c.lockIn("stop", StateRunning); err != nil {
		return err
	}
	c.state = StateStopping
	p := c.proc
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		start := time.Now()
		member := p.finish()
		if c.instanceID != "" && member != "" && !p.isKilled() { // killed while stopping: a dead process says nothing
			ctx, cancel := context.WithTimeout(d.ctx, 5*time.Second)
			_ = d.admin.leave(ctx, c.g.spec, member, c.instanceID)
			cancel()
		}
		d.mu.Lock()
		stopped := c.state == StateStopping && c.proc == p
		if stopped {
			c.state = StateStopped
			c.stoppedAt = time.Now()
			c.memberID = ""
			c.assigned = nil
		}
		d.mu.Unlock()
		if stopped {
			d.emit(c.g, model.Event{
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
	if err := c.lockIn("kill", StateRunning, StateStopping); err != nil {
		return err
	}
	p := c.proc
	p.dialer.Cut() // first: from here nothing reaches the cluster
	p.killOnce.Do(func() { close(p.killed) })
	p.endPoll()
	c.state = StateKilled
	c.killedAt = time.Now()
	killedAt := c.killedAt
	member := c.memberID
	if member == "" && !c.left {
		member = c.lastID
	}
	d.wg.Add(2)
	d.mu.Unlock()

	d.emit(c.g, model.Event{
		Type:     model.EventDemoKilled,
		ClientID: c.id,
		MemberID: member,
		Detail:   c.id + " killed: connections cut, no LeaveGroup",
	})
	go func() {
		defer d.wg.Done()
		<-p.done
		p.closeClient() // every dial fails: nothing reaches the cluster
	}()
	go func() {
		defer d.wg.Done()
		c.watchEviction(p, member, killedAt)
	}()
	return nil
}

// restart closes the consumer as a process restart closes it and starts it
// again, with the same client id and instance id, after RestartDelay. A
// running consumer finishes the order in hand and commits first; kgo then
// leaves the group as the Java client does on close: a dynamic member with
// LeaveGroup (or member epoch -1), a static one not at all (or, consumer
// protocol, with epoch -2: a temporary leave that keeps its partitions). A
// consumer that is stopped, killed or evicted just starts again.
func (c *consumer) restart() error {
	d := c.d
	if err := c.lockIn("restart", StateRunning, StateStopped, StateKilled, StateEvicted); err != nil {
		return err
	}
	old := c.proc
	if c.state != StateRunning {
		e, err := c.startAgainLocked(0)
		d.mu.Unlock()
		if err == nil {
			d.emit(c.g, e)
		}
		return err
	}
	c.state = StateRestarting
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		start := time.Now()
		old.finish()
		d.mu.Lock()
		if c.instanceID == "" {
			c.memberID = "" // it left; the next process joins anew
			c.assigned = nil
		}
		d.mu.Unlock()
		t := time.NewTimer(d.cfg.RestartDelay)
		select {
		case <-t.C:
		case <-d.closing:
			t.Stop()
		}
		d.mu.Lock()
		if d.closed || c.proc != old || c.state != StateRestarting {
			if c.state == StateRestarting {
				c.state, c.stoppedAt = StateStopped, time.Now()
			}
			d.mu.Unlock()
			return
		}
		e, err := c.startAgainLocked(time.Since(start))
		if err != nil {
			c.state, c.stoppedAt = StateStopped, time.Now()
		}
		d.mu.Unlock()
		if err == nil {
			d.emit(c.g, e)
		}
	}()
	return nil
}

// startAgainLocked starts a new process for the consumer and returns the
// demo_restarted event to emit once d.mu, which is held, is released. took
// is how long a restart kept it down (0: it had stopped or died before).
func (c *consumer) startAgainLocked(took time.Duration) (model.Event, error) {
	p, err := newProc(c)
	if err != nil {
		return model.Event{}, err
	}
	was := c.state
	c.proc = p
	c.state = StateRunning
	c.restarts++
	c.restartedAt = time.Now()
	c.left, c.poisonTries = false, 0
	c.killedAt, c.evictedAt, c.stoppedAt = time.Time{}, time.Time{}, time.Time{}
	if c.instanceID == "" || was != StateRestarting {
		c.memberID = ""
		c.assigned = nil
	}
	c.start(p)
	detail := fmt.Sprintf("%s started again", c.id)
	switch {
	case was == StateRestarting && c.instanceID != "":
		detail = fmt.Sprintf("%s restarted in %.1fs as static member %q: it closed without leaving, so the group keeps its partitions for it",
			c.id, took.Seconds(), c.instanceID)
	case was == StateRestarting:
		detail = fmt.Sprintf("%s restarted in %.1fs: it left the group on close and joins again as a new member", c.id, took.Seconds())
	case c.instanceID != "":
		detail = fmt.Sprintf("%s started again (it was %s) as static member %q", c.id, was, c.instanceID)
	default:
		detail += fmt.Sprintf(" (it was %s)", was)
	}
	e := model.Event{Type: model.EventDemoRestarted, ClientID: c.id, Detail: detail}
	if took > 0 {
		e.Duration, e.HasDuration = took, true
	}
	return e, nil
}

// watchEviction polls the group until the coordinator no longer lists the
// killed process's member, then reports how long that took. The member is
// known by member, the id it last recorded, or else by its client id: the
// coordinator can hold a member whose id the consumer never learnt (killed
// between the coordinator's answer and its own bookkeeping, or while
// joining). A consumer the coordinator never listed after the kill was not
// in the group: nothing was evicted, so no demo_evicted is reported. A
// consumer started again meanwhile (Restart) ends the watch.
func (c *consumer) watchEviction(p *proc, member string, killedAt time.Time) {
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
		d.mu.Lock()
		replaced := c.proc != p
		d.mu.Unlock()
		if replaced {
			return
		}
		ctx, cancel := context.WithTimeout(d.ctx, 2*time.Second)
		ms, err := d.admin.members(ctx, c.g.spec)
		cancel()
		if err != nil {
			continue
		}
		present := false
		for _, m := range ms {
			if (member != "" && m.MemberID == member) || (member == "" && m.ClientID == c.id) {
				present = true
				member = m.MemberID
			}
		}
		if !present {
			break
		}
		seen = true
	}
	took := time.Since(killedAt)
	d.mu.Lock()
	if c.proc != p {
		d.mu.Unlock()
		return
	}
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
	d.emit(c.g, model.Event{
		Type:        model.EventDemoEvicted,
		ClientID:    c.id,
		MemberID:    member,
		Duration:    took,
		HasDuration: true,
		// The session timeout runs from the last heartbeat, up to one
		// heartbeat interval before the kill: took may be shorter than it.
		// The timeout named is the one the broker applies (a consumer
		// group on an outside cluster may keep its own).
		Detail: fmt.Sprintf("%s evicted by the coordinator %.1fs after the kill: no heartbeat for its %s session timeout (counted from its last heartbeat)",
			c.id, took.Seconds(), model.Setting(c.g.sessionTimeout)),
	})
}

// close shuts the consumer down for Demo.Close: it abandons the order in
// hand and leaves the group unless it was killed.
func (c *consumer) close() {
	d := c.d
	d.mu.Lock()
	p := c.proc
	d.mu.Unlock()
	if p == nil {
		return
	}
	p.quitOnce.Do(func() { close(p.quit) })
	p.endPoll()
	<-p.done
	p.closeClient()
}
