package demo

import (
	"slices"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// A rolling restart of three dynamic consumers: each restarted once, one
// at a time (never two down together), in order; the group ends Stable
// with all three owning every partition; and kgwatch's own pipeline,
// watching, tells it as one rolling deploy of the three.
func TestRollingRestartRestartsEachOnce(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Consumers = 3
	d, rec := startDemo(t, cfg)
	ids := []string{"consumer-a", "consumer-b", "consumer-c"}
	waitFor(t, 10*time.Second, "three members own all partitions", func() bool { return ownsAllRecorded(d, ids...) })
	gw := watchGroup(t, d, d.Group(), 50*time.Millisecond)
	waitFor(t, 5*time.Second, "the watcher sees a stable group", gw.stable)
	mark := gw.mark()
	before := map[string]string{}
	for _, id := range ids {
		before[id] = info(d, id).MemberID
	}
	n, err := d.RollingRestart()
	if err != nil || n != 3 {
		t.Fatalf("RollingRestart() = %d, %v; want 3 consumers", n, err)
	}
	if _, err := d.RollingRestart(); err == nil {
		t.Error("a second RollingRestart while one runs: no error")
	}
	most := 0
	waitFor(t, 60*time.Second, "the rolling restart ends", func() bool {
		down := 0
		for _, c := range d.Consumers() {
			if c.State != StateRunning || c.MemberID == "" {
				down++
			}
		}
		most = max(most, down)
		return d.Status(false).Rolling.Of == 0
	})
	if most > 1 {
		t.Errorf("%d consumers were down at once, want one at a time", most)
	}
	var order []string
	for _, e := range rec.find(model.EventDemoRestarted, "") {
		order = append(order, e.ClientID)
	}
	if !slices.Equal(order, ids) {
		t.Errorf("restarted %v, want each once in order %v", order, ids)
	}
	waitFor(t, 10*time.Second, "the group Stable with all three owning every partition", func() bool {
		return ownsAll(d, ids...)
	})
	for _, id := range ids {
		if ci := info(d, id); ci.Restarts != 1 || ci.MemberID == before[id] {
			t.Errorf("%s: %d restarts, member id %s (was %s); want one restart, a new member id", id, ci.Restarts, ci.MemberID, before[id])
		}
	}
	var done []model.Event
	waitFor(t, 10*time.Second, "the watcher tells one rolling deploy", func() bool {
		done = gw.since(mark, model.EventDeployCompleted)
		return len(done) > 0
	})
	if started := gw.since(mark, model.EventDeployStarted); len(started) != 1 || len(done) != 1 {
		t.Fatalf("deploy_started %d, deploy_completed %d, want one each", len(started), len(done))
	}
	dep := done[0].Deploy
	if dep.Kind != model.DeployRolling || !slices.Equal(dep.Members, ids) || dep.Replacements != 3 || dep.Rebalances < 3 {
		t.Errorf("deploy %+v, want a rolling deploy of %v with at least 3 rebalances", dep, ids)
	}
	t.Logf("watcher: %s", done[0].Detail)
}

// A consumer stopped (x) while the rolling restart is on its way to it is
// left stopped when its turn comes, and the restart goes on to the end.
func TestRollingRestartLeavesAStoppedConsumerStopped(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Consumers = 3
	d, _ := startDemo(t, cfg)
	ids := []string{"consumer-a", "consumer-b", "consumer-c"}
	waitFor(t, 10*time.Second, "three members own all partitions", func() bool { return ownsAllRecorded(d, ids...) })
	if _, err := d.RollingRestart(); err != nil {
		t.Fatal(err)
	}
	if err := d.Stop("consumer-c"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the rolling restart ends", func() bool { return d.Status(false).Rolling.Of == 0 })
	if ci := info(d, "consumer-c"); ci.State == StateRunning || ci.Restarts != 0 {
		t.Errorf("consumer-c: %s after %d restarts, want it left stopped", ci.State, ci.Restarts)
	}
	for _, id := range ids[:2] {
		if ci := info(d, id); ci.Restarts != 1 {
			t.Errorf("%s: %d restarts, want 1", id, ci.Restarts)
		}
	}
}
