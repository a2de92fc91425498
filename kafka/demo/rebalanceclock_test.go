package demo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/model"
)

// clockedWatch is what the screen runs: kgwatch's watcher polling the
// demo group every interval, and the demo's events (its consumers'
// reports, the coordinator's clock) added to the same pipeline.
type clockedWatch struct {
	mu     sync.Mutex
	events []model.Event
	polls  int
}

func watchWithDemoEvents(t *testing.T, d *Demo, pipe *EventPipe, interval time.Duration) *clockedWatch {
	t.Helper()
	w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: d.Group(), Timeout: 5 * time.Second})
	pl := model.NewPipeline(model.PipelineOptions{Group: d.Group(), Interval: interval})
	cw := &clockedWatch{}
	keep := func(evs ...model.Event) {
		cw.mu.Lock()
		cw.events = append(cw.events, evs...)
		cw.mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTimer(0)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-pipe.Events():
				if e.Group == d.Group() {
					keep(pl.Add(e))
				}
			case <-tick.C:
				pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
				started := time.Now()
				snap, err := w.Poll(pctx)
				pcancel()
				// Events that came while the poll ran are filed first,
				// as they happened before it answered: a clock can end
				// just before the poll's describe and reach the pipe
				// while the poll still reads offsets.
			drain:
				for {
					select {
					case e := <-pipe.Events():
						if e.Group == d.Group() {
							keep(pl.Add(e))
						}
					default:
						break drain
					}
				}
				if err == nil {
					keep(pl.Observe(&snap)...)
					cw.mu.Lock()
					cw.polls++
					cw.mu.Unlock()
				} else if ctx.Err() == nil {
					keep(pl.PollFailed(started, time.Now(), err)...)
				}
				tick.Reset(interval)
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		w.Close()
	})
	return cw
}

func (cw *clockedWatch) find(match func(model.Event) bool) (model.Event, bool) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for _, e := range cw.events {
		if match(e) {
			return e, true
		}
	}
	return model.Event{}, false
}

// startClocked starts a demo of cfg watched every interval with its
// events, once the watch has seen it settle.
func startClocked(t *testing.T, cfg Config, interval time.Duration) (*Demo, *clockedWatch) {
	t.Helper()
	pipe := NewEventPipe(1024)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	d, err := Start(ctx, cfg, pipe.Emit)
	cancel()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	cw := watchWithDemoEvents(t, d, pipe, interval)
	waitTwoOwnAll(t, d, ownsAll)
	cw.waitSettled(t)
	return d, cw
}

// waitMoveTo waits for a rebalance_completed after since that moves a
// partition to client.
func (cw *clockedWatch) waitMoveTo(t *testing.T, client string, since time.Time) model.Event {
	t.Helper()
	var done model.Event
	defer func() {
		if t.Failed() {
			cw.mu.Lock()
			for _, e := range cw.events {
				t.Logf("event %s %s %q moves %v", e.Time.Format("15:04:05.000"), e.Type, e.Detail, e.Moves)
			}
			cw.mu.Unlock()
		}
	}()
	waitFor(t, 45*time.Second, "a rebalance_completed moving a partition to "+client, func() bool {
		var ok bool
		done, ok = cw.find(func(e model.Event) bool {
			if e.Type != model.EventRebalanceCompleted || e.Time.Before(since) {
				return false
			}
			for _, m := range e.Moves {
				if m.To == client {
					return true
				}
			}
			return false
		})
		return ok
	})
	return done
}

// waitSettled waits, once the coordinator has both consumers owning
// everything, for two more polls: the watch has seen the start-up
// rebalance end, so what follows is a rebalance of its own.
func (cw *clockedWatch) waitSettled(t *testing.T) {
	t.Helper()
	cw.mu.Lock()
	target := cw.polls + 2
	cw.mu.Unlock()
	waitFor(t, 20*time.Second, "the watch to poll the settled group", func() bool {
		cw.mu.Lock()
		defer cw.mu.Unlock()
		return cw.polls >= target
	})
}

// checkSpan checks that done, a rebalance_completed, took the span of the
// coordinator's clocks that began after since and ended by it.
func (cw *clockedWatch) checkSpan(t *testing.T, done model.Event, since time.Time) {
	t.Helper()
	var first, last time.Time
	for _, c := range cw.all(model.EventDemoRebalanceClocked) {
		start := c.Time.Add(-c.Duration)
		if start.Before(since) || c.Time.After(done.Time) {
			continue
		}
		if first.IsZero() || start.Before(first) {
			first = start
		}
		if c.Time.After(last) {
			last = c.Time
		}
	}
	if first.IsZero() || last.Sub(first) != done.Duration {
		t.Errorf("%q took %v; the coordinator's clocks since %v span %v (%v to %v)", done.Detail, done.Duration, since, last.Sub(first), first, last)
	}
}

func (cw *clockedWatch) all(typ model.EventType) []model.Event {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	var out []model.Event
	for _, e := range cw.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// An outside kgo member joining through the demo's listener: the
// rebalance it sets off reads the coordinator's duration — real, not the
// "took 0.00s (its consumers' clocks)" of the demo's consumers, who have
// nothing to report about a member they do not run.
func TestOutsideJoinReadsTheCoordinatorsDuration(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Listen = freePorts(t, 3)
	d, cw := startClocked(t, cfg, time.Second)

	asked := time.Now()
	var assignedAt time.Time
	var amu sync.Mutex
	cl := outsider(t, d, cfg.Listen[1],
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			amu.Lock()
			if assignedAt.IsZero() {
				assignedAt = time.Now()
			}
			amu.Unlock()
		}),
	)
	pctx, pcancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for pctx.Err() == nil {
			cl.PollFetches(pctx)
		}
	}()
	defer func() {
		pcancel()
		wg.Wait()
		cl.Close()
	}()

	done := cw.waitMoveTo(t, "outsider", asked)
	if !done.HasDuration || done.Duration <= 0 || !strings.Contains(done.Detail, "(the coordinator's clock") {
		t.Fatalf("outside join: %q, duration %v (known %v); want a real duration by the coordinator's clock", done.Detail, done.Duration, done.HasDuration)
	}
	// The duration is the coordinator's span: one clock, or the clocks
	// of the generations the polls saw as one rebalance, all from when
	// the outsider asked to join.
	cw.checkSpan(t, done, asked)
	amu.Lock()
	t.Logf("outside join: %s; the outsider waited %v from its client's start to its assignment", done.Detail, assignedAt.Sub(asked))
	amu.Unlock()
}

// kill -9: the coordinator's clock starts the rebalance at the killed
// member's session expiry, after the kill, not at the kill (the group was
// Stable meanwhile) and not at the survivors' rejoin.
func TestEvictionClockedFromTheSessionExpiry(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	d, cw := startClocked(t, cfg, 500*time.Millisecond)
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatal(err)
	}
	var killed, clocked model.Event
	waitFor(t, 20*time.Second, "the eviction's clock", func() bool {
		var ok bool
		if killed, ok = cw.find(func(e model.Event) bool { return e.Type == model.EventDemoKilled }); !ok {
			return false
		}
		clocked, ok = cw.find(func(e model.Event) bool {
			return e.Type == model.EventDemoRebalanceClocked && e.Time.After(killed.Time)
		})
		return ok
	})
	if !strings.Contains(clocked.Detail, "consumer-b's session timed out") {
		t.Errorf("eviction clocked as %q, want it to begin with consumer-b's session timing out", clocked.Detail)
	}
	if start := clocked.Time.Add(-clocked.Duration); !start.After(killed.Time) {
		t.Errorf("eviction clocked from %v, not after the kill at %v", start, killed.Time)
	}
	var done model.Event
	waitFor(t, 20*time.Second, "the eviction's rebalance_completed", func() bool {
		var ok bool
		done, ok = cw.find(func(e model.Event) bool {
			return e.Type == model.EventRebalanceCompleted && e.Time.After(killed.Time)
		})
		return ok
	})
	if !done.HasDuration || done.Duration != clocked.Duration {
		t.Errorf("eviction: %q, duration %v; want the coordinator's %v", done.Detail, done.Duration, clocked.Duration)
	}
	t.Logf("kill -9: %s; %s", clocked.Detail, done.Detail)
}

// The consumer protocol: n's rebalance ends when the new member owns the
// partition the others released, not when it reached the target epoch
// (KIP-848 gives the epoch first): the rebalance reads the coordinator's
// span.
func TestConsumerProtocolJoinClockedToTheLastPartition(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.GroupProtocol = ProtocolConsumer
	d, cw := startClocked(t, cfg, 500*time.Millisecond)
	asked := time.Now()
	if _, err := d.Spawn(); err != nil {
		t.Fatal(err)
	}
	done := cw.waitMoveTo(t, "consumer-c", asked)
	if !done.HasDuration || done.Duration <= 0 || !strings.Contains(done.Detail, "(the coordinator's clock") {
		t.Fatalf("consumer-protocol join: %q, duration %v (known %v); want the coordinator's clock", done.Detail, done.Duration, done.HasDuration)
	}
	cw.checkSpan(t, done, asked)
	t.Logf("consumer protocol: %s", done.Detail)
}

// The clock's rules on dated requests and the coordinator's answers (no
// cluster, no wall clock): a KIP-848 join ends when the joiner owns the
// partition its owner released, not when it reached the target epoch; a
// member gone without a leave is dated from its last request plus its
// session timeout.
func TestRebalanceClockRules(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	topic := [16]byte{1}
	owns := func(ps ...int32) []kmsg.ConsumerGroupHeartbeatRequestTopic {
		return []kmsg.ConsumerGroupHeartbeatRequestTopic{{TopicID: topic, Partitions: ps}}
	}
	member := func(id string, ps ...int32) kfake.GroupMember {
		return kfake.GroupMember{MemberID: id, ClientID: id, Assignment: map[string][]int32{"orders": ps}}
	}
	hb := func(id string, epoch int32, topics []kmsg.ConsumerGroupHeartbeatRequestTopic) *kmsg.ConsumerGroupHeartbeatRequest {
		r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		r.Group, r.MemberID, r.MemberEpoch, r.Topics = "g", id, epoch, topics
		return r
	}
	t.Run("consumer protocol join", func(t *testing.T) {
		rc := &rebalanceClock{groups: map[string]*groupClock{}, partitions: 3}
		rc.groups["g"] = newGroupClock("g", true, 2*time.Second)
		g := rc.groups["g"]
		rc.note(hb("a", 0, nil), ms(0))
		rc.note(hb("a", 1, owns(0, 1, 2)), ms(5))
		if _, ok := g.check(&kfake.GroupInfo{State: "Stable", Epoch: 1, Members: []kfake.GroupMember{member("a", 0, 1, 2)}}, ms(1), 3); !ok {
			t.Fatal("start-up: no clock")
		}
		rc.note(hb("c", 0, nil), ms(100)) // consumer-c asks to join
		rc.note(hb("a", 2, owns(0, 1)), ms(300))
		rc.note(hb("c", 2, owns()), ms(310))
		// Both at the target epoch, p2 not yet sent to c: Stable by kfake's
		// state, not every partition owned.
		gi := &kfake.GroupInfo{State: "Stable", Epoch: 2, Members: []kfake.GroupMember{member("a", 0, 1), member("c")}}
		if e, ok := g.check(gi, ms(320), 3); ok {
			t.Fatalf("clocked %v at the target epoch with p2 owned by nobody", e.Duration)
		}
		gi.Members[1] = member("c", 2) // sent to c, c has not said it owns it
		if e, ok := g.check(gi, ms(330), 3); ok {
			t.Fatalf("clocked %v before c owned p2", e.Duration)
		}
		rc.note(hb("c", 2, owns(2)), ms(900))
		e, ok := g.check(gi, ms(905), 3)
		if !ok || e.Duration != 800*time.Millisecond || !e.Time.Equal(ms(900)) {
			t.Fatalf("clocked %v at %v (ok %v), want 800ms from c's join to its owning p2", e.Duration, e.Time, ok)
		}
	})
	t.Run("classic eviction", func(t *testing.T) {
		rc := &rebalanceClock{groups: map[string]*groupClock{}}
		rc.groups["g"] = newGroupClock("g", false, 2*time.Second)
		g := rc.groups["g"]
		sync := func(id string, gen int32, at time.Time) {
			r := kmsg.NewPtrSyncGroupRequest()
			r.Group, r.MemberID, r.Generation = "g", id, gen
			rc.note(r, at)
		}
		join := func(id string, at time.Time) {
			r := kmsg.NewPtrJoinGroupRequest()
			r.Group, r.MemberID, r.SessionTimeoutMillis = "g", id, 1500
			rc.note(r, at)
		}
		join("", ms(0))
		join("a", ms(1))
		join("b", ms(2))
		sync("a", 1, ms(10))
		sync("b", 1, ms(12))
		two := &kfake.GroupInfo{State: "Stable", Epoch: 1, Members: []kfake.GroupMember{member("a", 0, 1), member("b", 2)}}
		if _, ok := g.check(two, ms(20), 3); !ok {
			t.Fatal("start-up: no clock")
		}
		hbReq := kmsg.NewPtrHeartbeatRequest()
		hbReq.Group, hbReq.MemberID = "g", "b"
		rc.note(hbReq, ms(1000)) // b's last heartbeat; then kill -9
		// b's session (1.5s) expires at 2.5s; a rejoins at 3.1s on its
		// heartbeat's REBALANCE_IN_PROGRESS and syncs at 3.2s.
		g.check(&kfake.GroupInfo{State: "PreparingRebalance", Epoch: 1, Members: []kfake.GroupMember{member("a")}}, ms(2600), 3)
		join("a", ms(3100))
		sync("a", 2, ms(3200))
		e, ok := g.check(&kfake.GroupInfo{State: "Stable", Epoch: 2, Members: []kfake.GroupMember{member("a", 0, 1, 2)}}, ms(3300), 3)
		if !ok || e.Duration != 700*time.Millisecond || !strings.Contains(e.Detail, "b's session timed out") {
			t.Fatalf("eviction clocked %v (ok %v, %q), want 700ms from b's session expiry at 2.5s to a's sync", e.Duration, ok, e.Detail)
		}
	})
}
