package demo

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// restartAndWait restarts consumer id and waits until it runs again, as a
// new member that owns partitions.
func restartAndWait(t *testing.T, d *Demo, rec *recorder, id string) {
	t.Helper()
	n := len(rec.find(model.EventDemoRestarted, id))
	old := info(d, id).MemberID
	if err := d.Restart(id); err != nil {
		t.Fatalf("Restart(%s): %v", id, err)
	}
	if st := info(d, id).State; st != StateRestarting {
		t.Fatalf("%s right after Restart: %s, want %s", id, st, StateRestarting)
	}
	waitFor(t, 10*time.Second, id+" restarted", func() bool {
		return len(rec.find(model.EventDemoRestarted, id)) == n+1 && info(d, id).State == StateRunning
	})
	waitFor(t, 10*time.Second, id+" owns partitions again", func() bool {
		ci := info(d, id)
		return len(ci.Assigned) > 0 && ci.MemberID != "" && ci.MemberID != old
	})
}

// A static member's restart is no rebalance: kgwatch's own watcher sees no
// member leave, no rebalance, and every partition keep its owner — whether
// the restarted member leads the group or not (both are restarted).
func TestStaticRestartIsNoRebalance(t *testing.T) {
	t.Parallel()
	for _, assignor := range []string{AssignorRange, AssignorCooperativeSticky} {
		t.Run(assignor, func(t *testing.T) {
			t.Parallel()
			testStaticRestart(t, assignor)
		})
	}
}

func testStaticRestart(t *testing.T, assignor string) {
	cfg := fastConfig()
	cfg.Static = true
	cfg.Assignor = assignor
	d, rec := startDemo(t, cfg)
	leaves := countLeavesOnWire(d)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	gw := watchGroup(t, d, d.Group(), 50*time.Millisecond)
	waitFor(t, 5*time.Second, "the watcher sees a stable group", gw.stable)
	before := owners(d)
	revokes := len(rec.find(model.EventDemoRevoked, ""))
	for _, id := range []string{"consumer-a", "consumer-b"} {
		mark := gw.mark()
		oldMember := info(d, id).MemberID
		restartAndWait(t, d, rec, id)
		gw.waitPolls(t, 3)
		if evs := gw.since(mark, model.EventMemberLeft, model.EventRebalanceStarted, model.EventRebalanceCompleted); len(evs) > 0 {
			t.Fatalf("static restart of %s: the watcher saw %v", id, evs)
		}
		if after := owners(d); !maps.EqualFunc(before, after, slices.Equal[[]int32]) {
			t.Fatalf("static restart of %s moved partitions: %s → %s", id, ownersString(before), ownersString(after))
		}
		if n := leaves.left(id) + leaves.left(oldMember); n != 0 {
			t.Fatalf("static member %s sent %d LeaveGroup on restart, want none", id, n)
		}
		t.Logf("%s restarted: %s", id, rec.find(model.EventDemoRestarted, id)[0].Detail)
	}
	if evs := rec.find(model.EventDemoRevoked, ""); len(evs) != revokes {
		t.Fatalf("static restarts revoked partitions: %v", evs[revokes:])
	}
	l := quiet(t, d, 20*time.Second)
	if l.Lost != 0 || l.Duplicates != 0 || l.CommitFailures != 0 {
		t.Fatalf("ledger after static restarts: %+v, want no loss, duplicate or failed commit", l)
	}
}

// A dynamic member's restart is a leave and a join: the watcher sees it
// leave and join, and two rebalances.
func TestDynamicRestartLeavesAndJoins(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, fastConfig())
	leaves := countLeavesOnWire(d)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	gw := watchGroup(t, d, d.Group(), 50*time.Millisecond)
	waitFor(t, 5*time.Second, "the watcher sees a stable group", gw.stable)
	mark := gw.mark()
	oldMember := info(d, "consumer-b").MemberID
	restartAndWait(t, d, rec, "consumer-b")
	waitFor(t, 5*time.Second, "consumer-a and consumer-b own all partitions again", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	waitFor(t, 5*time.Second, "the watcher sees consumer-b leave, join and two rebalances", func() bool {
		var left, joined bool
		for _, e := range gw.since(mark, model.EventMemberLeft, model.EventMemberJoined) {
			left = left || (e.Type == model.EventMemberLeft && e.ClientID == "consumer-b")
			joined = joined || (e.Type == model.EventMemberJoined && e.ClientID == "consumer-b")
		}
		return left && joined && len(gw.since(mark, model.EventRebalanceCompleted)) >= 2
	})
	if n := leaves.left(oldMember); n != 1 {
		t.Fatalf("dynamic member consumer-b sent %d LeaveGroup on restart, want 1", n)
	}
	for _, e := range gw.since(mark) {
		t.Logf("watcher: %s %s", e.Type, e.Detail)
	}
}

// kill -9 of a static member sends nothing; brought back within the
// session timeout, the new process takes its place: no eviction, no
// rebalance. Left dead, it is evicted at the session timeout.
func TestStaticKillThenRestartIsNoRebalance(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Static = true
	cfg.Consumers = 3
	d, rec := startDemo(t, cfg)
	leaves := countLeavesOnWire(d)
	waitFor(t, 10*time.Second, "three members own a partition each", func() bool {
		return ownsAllRecorded(d, "consumer-a", "consumer-b", "consumer-c")
	})
	gw := watchGroup(t, d, d.Group(), 50*time.Millisecond)
	waitFor(t, 5*time.Second, "the watcher sees a stable group", gw.stable)
	before := owners(d)
	mark := gw.mark()
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatal(err)
	}
	if err := d.Kill("consumer-c"); err != nil {
		t.Fatal(err)
	}
	old := info(d, "consumer-b").MemberID
	time.Sleep(cfg.SessionTimeout / 4)
	if err := d.Restart("consumer-b"); err != nil {
		t.Fatal(err)
	}
	// Within the session timeout the new process holds consumer-b's
	// partitions, and consumer-c's wait for it.
	waitFor(t, cfg.SessionTimeout/2, "restarted consumer-b owns its partitions", func() bool {
		ci := info(d, "consumer-b")
		return ci.MemberID != "" && ci.MemberID != old && slices.Equal(ci.Assigned, tps(before["consumer-b"]...)) &&
			maps.EqualFunc(owners(d), before, slices.Equal[[]int32])
	})
	waitFor(t, 10*time.Second, "consumer-c evicted", func() bool {
		return len(rec.find(model.EventDemoEvicted, "consumer-c")) == 1
	})
	if evs := rec.find(model.EventDemoEvicted, "consumer-b"); len(evs) != 0 {
		t.Fatalf("consumer-b, restarted within the session timeout, was evicted: %v", evs)
	}
	for _, e := range gw.since(mark, model.EventMemberLeft) {
		if e.ClientID == "consumer-b" {
			t.Fatalf("the watcher saw consumer-b leave: %s", e.Detail)
		}
	}
	if n := leaves.total(); n != 0 {
		t.Fatalf("killed static members sent %d leaves, want 0", n)
	}
}

// tps makes the demo topic's partitions.
func tps(ps ...int32) []model.TopicPartition {
	var out []model.TopicPartition
	for _, p := range ps {
		out = append(out, model.TopicPartition{Topic: DefaultTopic, Partition: p})
	}
	return out
}
