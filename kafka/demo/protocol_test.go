package demo

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// consumerConfig is fastConfig on the consumer protocol (KIP-848).
func consumerConfig() Config {
	cfg := fastConfig()
	cfg.GroupProtocol = ProtocolConsumer
	return cfg
}

// groupEpoch is the group's epoch (classic: generation) as kfake has it.
func groupEpoch(d *Demo) int32 {
	if gi := d.cluster.GroupInfo(d.Group()); gi != nil {
		return gi.Epoch
	}
	return -1
}

func TestConsumerProtocolOwnsSpawnsAndEvicts(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, consumerConfig())
	leaves := countLeavesOnWire(d)
	if gs := d.Groups(); len(gs) != 1 || gs[0].Protocol != ProtocolConsumer || gs[0].Assignor != AssignorUniform {
		t.Fatalf("Groups() = %+v, want one consumer-protocol group with the uniform assignor", gs)
	}
	waitTwoOwnAll(t, d, ownsAllRecorded)
	// The members speak KIP-848: ConsumerGroupDescribe lists them.
	ms, err := d.admin.members(t.Context(), d.Groups()[0].GroupSpec)
	if err != nil || len(ms) != 2 {
		t.Fatalf("ConsumerGroupDescribe: %v, %v; want 2 members", ms, err)
	}
	waitFor(t, 10*time.Second, "orders processed", func() bool { return d.Ledger().Processed >= 10 })

	// n: the newcomer gets partitions, incrementally.
	var id string
	id, err = d.Spawn()
	if err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, 10*time.Second, "three members own one partition each", func() bool {
		return ownsAllRecorded(d, "consumer-a", "consumer-b", id)
	})
	t.Logf("consumer protocol: spawn → %s owns a partition in %s", id, took)

	// X: no leave on the wire; evicted after the broker's session timeout.
	cfg := d.Config()
	member := info(d, "consumer-b").MemberID
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(cfg.SessionTimeout / 2)
	if o := owners(d); len(o["consumer-b"]) == 0 {
		t.Fatalf("at half the session timeout the group already dropped consumer-b: %s", ownersString(o))
	}
	waitFor(t, cfg.SessionTimeout+3*time.Second, "demo_evicted", func() bool {
		return len(rec.find(model.EventDemoEvicted, "consumer-b")) == 1
	})
	ev := rec.find(model.EventDemoEvicted, "consumer-b")[0]
	low := cfg.SessionTimeout - cfg.HeartbeatInterval - 100*time.Millisecond
	high := cfg.SessionTimeout + 700*time.Millisecond
	t.Logf("consumer protocol: killed member evicted after %s (session timeout %s)", ev.Duration, cfg.SessionTimeout)
	if ev.Duration < low || ev.Duration > high || ev.MemberID != member {
		t.Fatalf("demo_evicted %+v: want member %s within [%s, %s]", ev, member, low, high)
	}
	waitFor(t, 5*time.Second, "consumer-a and consumer-c own every partition", func() bool {
		return ownsAll(d, "consumer-a", id)
	})
	if n := leaves.left(member) + leaves.leftTemporarily(member); n != 0 {
		t.Fatalf("killed member sent %d leave heartbeats, want 0", n)
	}
	l := quiet(t, d, 20*time.Second)
	if l.Lost != 0 || l.Processed != l.Produced {
		t.Fatalf("ledger %+v: want every order processed", l)
	}
}

// A static member restarting on the consumer protocol sends a temporary
// leave (member epoch -2), not a leave (-1): the group epoch does not move
// and the member gets its partitions back.
func TestConsumerProtocolStaticRestartLeavesTemporarily(t *testing.T) {
	t.Parallel()
	cfg := consumerConfig()
	cfg.Static = true
	d, rec := startDemo(t, cfg)
	leaves := countLeavesOnWire(d)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	before, epoch := owners(d), groupEpoch(d)
	member := info(d, "consumer-b").MemberID
	restartAndWait(t, d, rec, "consumer-b")
	waitFor(t, 5*time.Second, "consumer-b owns its partitions again", func() bool {
		return maps.EqualFunc(before, owners(d), slices.Equal[[]int32])
	})
	if n := leaves.leftTemporarily(member); n != 1 {
		t.Fatalf("static member sent %d epoch -2 heartbeats on restart, want 1", n)
	}
	if n := leaves.left(member); n != 0 {
		t.Fatalf("static member sent %d epoch -1 heartbeats on restart, want 0", n)
	}
	if e := groupEpoch(d); e != epoch {
		t.Fatalf("group epoch %d → %d across a static restart: the group rebalanced", epoch, e)
	}

	// A dynamic restart on the same protocol is a leave (-1).
	dyn := consumerConfig()
	d2, rec2 := startDemo(t, dyn)
	leaves2 := countLeavesOnWire(d2)
	waitTwoOwnAll(t, d2, ownsAllRecorded)
	member2, epoch2 := info(d2, "consumer-b").MemberID, groupEpoch(d2)
	restartAndWait(t, d2, rec2, "consumer-b")
	if n := leaves2.left(member2); n != 1 {
		t.Fatalf("dynamic member sent %d epoch -1 heartbeats on restart, want 1", n)
	}
	if e := groupEpoch(d2); e < epoch2+2 {
		t.Fatalf("group epoch %d → %d across a dynamic restart: want a leave and a join", epoch2, e)
	}
}

// The consumer-protocol demo reports the session timeout and heartbeat
// interval its brokers apply (read back from them), the classic demo no
// heartbeat interval: its consumers choose their own.
func TestConsumerProtocolReportsTheBrokersTimeouts(t *testing.T) {
	t.Parallel()
	cfg := consumerConfig()
	cfg.HeartbeatInterval = 70 * time.Millisecond
	d, _ := startDemo(t, cfg)
	g := d.Groups()[0]
	if g.SessionTimeout != cfg.SessionTimeout || g.HeartbeatInterval != 70*time.Millisecond {
		t.Errorf("consumer group: session %s, heartbeat %s; want the broker's %s and 70ms", g.SessionTimeout, g.HeartbeatInterval, cfg.SessionTimeout)
	}
	c, _ := startDemo(t, fastConfig())
	if g := c.Groups()[0]; g.HeartbeatInterval != 0 {
		t.Errorf("classic group: heartbeat interval %s, want 0 (the consumers', not the broker's)", g.HeartbeatInterval)
	}
}
