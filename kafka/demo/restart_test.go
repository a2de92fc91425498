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
	cfg := fastConfig()
	cfg.Static = true
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
