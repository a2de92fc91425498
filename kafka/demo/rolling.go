package demo

import (
	"errors"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// rollingReady is how long a rolling restart waits, once a consumer is back
// in the group, before it restarts the next: a pod's readiness delay, and
// time for the screen to show each step apart.
const rollingReady = time.Second

// rollingState is a rolling restart in progress; guarded by d.mu.
type rollingState struct {
	ids     []string
	done    int
	current string
}

// RollingRestart restarts every consumer in turn, as a rolling deploy
// does: each as Restart does (the same client id and instance id), then
// waits until it is back in the group with its assignment (every group's
// consumer of that name, in compare mode), and rollingReady more, before
// the next. It returns at once, with the number of consumers it will
// restart; Status reports the progress. One rolling restart runs at a
// time.
func (d *Demo) RollingRestart() (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.closed:
		return 0, errors.New("rolling restart: demo closed")
	case d.rolling != nil:
		return 0, errors.New("rolling restart: one is running (" + d.rolling.current + ")")
	}
	var ids []string
	for _, c := range d.groups[0].consumers {
		if c.state == StateRunning {
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return 0, errors.New("rolling restart: no consumer is running")
	}
	d.rolling = &rollingState{ids: ids}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.roll(ids)
	}()
	return len(ids), nil
}

// roll restarts ids one by one.
func (d *Demo) roll(ids []string) {
	defer func() {
		d.mu.Lock()
		d.rolling = nil
		d.mu.Unlock()
	}()
	for i, id := range ids {
		d.mu.Lock()
		d.rolling.done, d.rolling.current = i, id
		d.mu.Unlock()
		olds := d.procsOf(id)
		if len(olds) == 0 {
			continue // stopped or killed meanwhile (x, X): left so, the next
		}
		if err := d.Restart(id); err != nil {
			continue
		}
		if !d.waitBack(id, olds) || !d.sleep(rollingReady) {
			return
		}
	}
}

// procsOf returns the processes of the running consumers named id, by
// consumer: one the user stopped or killed is not brought back.
func (d *Demo) procsOf(id string) map[*consumer]*proc {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[*consumer]*proc{}
	for _, g := range d.groups {
		for _, c := range g.consumers {
			if c.id == id && c.state == StateRunning {
				out[c] = c.proc
			}
		}
	}
	return out
}

// waitBack waits until every consumer in olds runs a new process that has
// had its first assignment, or gives up after the longest a rejoin can
// take (the session timeout and max.poll.interval, and some); false when
// the demo closes meanwhile.
func (d *Demo) waitBack(id string, olds map[*consumer]*proc) bool {
	deadline := time.Now().Add(d.cfg.SessionTimeout + d.cfg.MaxPollInterval + 10*time.Second)
	for time.Now().Before(deadline) {
		if d.back(olds) {
			return true
		}
		if !d.sleep(50 * time.Millisecond) {
			return false
		}
	}
	return true // not back in time: go on, as a deploy's timeout would
}

// back reports whether every consumer in olds is back: a new process,
// running, assigned. One stopped or killed meanwhile (x, X on it while it
// restarted) is not waited for.
func (d *Demo) back(olds map[*consumer]*proc) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for c, old := range olds {
		switch c.state {
		case StateStopping, StateStopped, StateKilled, StateEvicted:
			continue
		}
		if c.proc == old || c.state != StateRunning || c.proc.fresh || c.memberID == "" {
			return false
		}
	}
	return true
}

// sleep waits for t; false when the demo closes first.
func (d *Demo) sleep(t time.Duration) bool {
	timer := time.NewTimer(t)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-d.closing:
		return false
	}
}

// rollingStatus is the rolling restart in progress, for Status; d.mu is
// held.
func (d *Demo) rollingStatus() model.DemoRollingRestart {
	if d.rolling == nil {
		return model.DemoRollingRestart{}
	}
	return model.DemoRollingRestart{Of: len(d.rolling.ids), Done: d.rolling.done, Current: d.rolling.current}
}
