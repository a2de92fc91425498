package demo

import (
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// A graceful stop finishes the order in hand and leaves: it takes about
// one processing time, however many orders wait.
func TestStopTakesOneOrderNotSeveral(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.ProcessTime = 400 * time.Millisecond
	cfg.Rate = 50 // orders always waiting
	d, rec := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAll)
	for _, id := range []string{"consumer-b", "consumer-a"} {
		c := consumerOf(t, d, id)
		waitFor(t, 10*time.Second, id+" processing", func() bool {
			d.mu.Lock()
			defer d.mu.Unlock()
			return c.phase == phaseProcessing
		})
		if err := d.Stop(id); err != nil {
			t.Fatal(err)
		}
		took := waitFor(t, 10*time.Second, id+" stopped", func() bool {
			return len(rec.find(model.EventDemoStopped, id)) == 1
		})
		t.Logf("stopping %s took %s", id, took)
		if limit := 2*cfg.ProcessTime + 300*time.Millisecond; took > limit {
			t.Fatalf("stopping %s took %s with %s per order (limit %s): it went on processing", id, took, cfg.ProcessTime, limit)
		}
	}
}

// x on a static member is a stop, not a restart: it leaves for good (by
// instance id; consumer protocol: member epoch -1), so the group rebalances
// at once instead of waiting out the session timeout.
func TestStopOfStaticMemberLeaves(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{ProtocolClassic, ProtocolConsumer} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			cfg := fastConfig()
			cfg.Static = true
			cfg.GroupProtocol = protocol
			cfg.SessionTimeout = 5 * time.Second
			d, rec := startDemo(t, cfg)
			leaves := countLeavesOnWire(d)
			waitTwoOwnAll(t, d, ownsAllRecorded)
			member := info(d, "consumer-b").MemberID
			if err := d.Stop("consumer-b"); err != nil {
				t.Fatal(err)
			}
			took := waitFor(t, 3*time.Second, "consumer-a owns every partition", func() bool {
				o := owners(d)
				return len(o) == 1 && len(o["consumer-a"]) == d.partCount
			})
			t.Logf("%s: static stop → consumer-a owns all in %s (session timeout %s)", protocol, took, cfg.SessionTimeout)
			if n := leaves.left(member) + leaves.left("consumer-b"); n < 1 {
				t.Fatalf("static consumer-b sent no leave on stop")
			}
			waitFor(t, 2*time.Second, "demo_stopped", func() bool {
				return len(rec.find(model.EventDemoStopped, "consumer-b")) == 1
			})
		})
	}
}

// X while a static member is still finishing its order for x: it dies
// there, and nothing leaves for it.
func TestKillWhileStoppingSendsNoLeave(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Static = true
	cfg.ProcessTime = 400 * time.Millisecond
	d, rec := startDemo(t, cfg)
	leaves := countLeavesOnWire(d)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	c := consumerOf(t, d, "consumer-b")
	waitFor(t, 10*time.Second, "consumer-b processing", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return c.phase == phaseProcessing
	})
	if err := d.Stop("consumer-b"); err != nil {
		t.Fatal(err)
	}
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatalf("Kill while stopping: %v", err)
	}
	waitFor(t, cfg.SessionTimeout+3*time.Second, "consumer-b evicted", func() bool {
		return len(rec.find(model.EventDemoEvicted, "consumer-b")) == 1
	})
	if n := leaves.total(); n != 0 {
		t.Fatalf("%d leaves sent for a member killed while stopping, want 0", n)
	}
	if len(rec.find(model.EventDemoStopped, "consumer-b")) != 0 {
		t.Fatal("demo_stopped for a consumer killed before it stopped")
	}
}
