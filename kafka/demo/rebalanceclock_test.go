package demo

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

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
				snap, err := w.Poll(pctx)
				pcancel()
				if err == nil {
					keep(pl.Observe(&snap)...)
					cw.mu.Lock()
					cw.polls++
					cw.mu.Unlock()
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
	pipe := NewEventPipe(1024)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	d, err := Start(ctx, cfg, pipe.Emit)
	cancel()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	cw := watchWithDemoEvents(t, d, pipe, time.Second)
	waitTwoOwnAll(t, d, ownsAll)
	cw.waitSettled(t)

	asked := time.Now()
	var assignedAt time.Time
	var amu sync.Mutex
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Listen[1]))),
		kgo.ClientID("outsider"),
		kgo.ConsumerGroup(d.Group()),
		kgo.ConsumeTopics(d.Topic()),
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.SessionTimeout(2*time.Second),
		kgo.HeartbeatInterval(200*time.Millisecond),
		kgo.DisableClientMetrics(),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			amu.Lock()
			if assignedAt.IsZero() {
				assignedAt = time.Now()
			}
			amu.Unlock()
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
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

	var done model.Event
	waitFor(t, 20*time.Second, "a rebalance_completed moving a partition to the outsider", func() bool {
		var ok bool
		done, ok = cw.find(func(e model.Event) bool {
			if e.Type != model.EventRebalanceCompleted || e.Time.Before(asked) {
				return false
			}
			for _, m := range e.Moves {
				if m.To == "outsider" {
					return true
				}
			}
			return false
		})
		return ok
	})
	if !done.HasDuration || done.Duration <= 0 || !strings.Contains(done.Detail, "(the coordinator's clock") {
		t.Fatalf("outside join: %q, duration %v (known %v); want a real duration by the coordinator's clock", done.Detail, done.Duration, done.HasDuration)
	}
	// The duration is the coordinator's span: one clock, or the clocks
	// of the generations the polls saw as one rebalance, all from when
	// the outsider asked to join.
	var first, last time.Time
	for _, c := range cw.all(model.EventDemoRebalanceClocked) {
		start := c.Time.Add(-c.Duration)
		if start.Before(asked) || c.Time.After(done.Time) {
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
		t.Errorf("rebalance_completed took %v; the coordinator's clocks since the join span %v (%v to %v)", done.Duration, last.Sub(first), first, last)
	}
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
	pipe := NewEventPipe(1024)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	d, err := Start(ctx, cfg, pipe.Emit)
	cancel()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	cw := watchWithDemoEvents(t, d, pipe, 500*time.Millisecond)
	waitTwoOwnAll(t, d, ownsAll)
	cw.waitSettled(t)
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
