package demo

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// A consumer killed before it recorded its member id (the coordinator
// answered its SyncGroup, run had not yet stored the generation) is still
// in the group: the demo must wait for the coordinator to drop it, not
// report an eviction at once.
func TestKillBeforeMemberIDRecordedWaitsForEviction(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, fastConfig())
	cfg := d.Config()
	waitTwoOwnAll(t, d, ownsAll)
	// The state the race leaves behind: the coordinator lists consumer-b,
	// consumer-b has recorded no member id yet.
	c := consumerOf(t, d, "consumer-b")
	d.mu.Lock()
	c.memberID, c.lastID = "", ""
	d.mu.Unlock()
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	waitFor(t, cfg.SessionTimeout+3*time.Second, "demo_evicted", func() bool {
		return len(rec.find(model.EventDemoEvicted, "consumer-b")) == 1
	})
	ev := rec.find(model.EventDemoEvicted, "consumer-b")[0]
	if low := cfg.SessionTimeout - cfg.HeartbeatInterval - 100*time.Millisecond; ev.Duration < low {
		t.Fatalf("demo_evicted %s after the kill, before the session timeout (%s): an eviction that was not observed", ev.Duration, cfg.SessionTimeout)
	}
	if ev.MemberID == "" {
		t.Error("demo_evicted names no member: the coordinator's id for consumer-b was not picked up")
	}
	// The coordinator waited a whole session timeout without a heartbeat;
	// the kill came up to a heartbeat interval after the last one, so the
	// time since the kill (ev.Duration) is not how long it went unheard.
	want := fmt.Sprintf("%.1fs after the kill: no heartbeat for its %s session timeout", ev.Duration.Seconds(), model.Setting(cfg.SessionTimeout))
	if !strings.Contains(ev.Detail, want) {
		t.Errorf("demo_evicted says %q, want it to say %q", ev.Detail, want)
	}
}

// A consumer killed as soon as it is spawned may never have reached the
// coordinator. Either way, no eviction is reported before the session
// timeout could have passed.
func TestKillRightAfterSpawnClaimsNoEarlyEviction(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Consumers = 1
	d, rec := startDemo(t, cfg)
	cfg = d.Config()
	id, err := d.Spawn()
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	if err := d.Kill(id); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	waitFor(t, cfg.SessionTimeout+3*time.Second, id+" no longer killed", func() bool {
		return info(d, id).State != StateKilled
	})
	low := cfg.SessionTimeout - cfg.HeartbeatInterval - 100*time.Millisecond
	for _, ev := range rec.find(model.EventDemoEvicted, id) {
		if ev.Duration < low {
			t.Fatalf("demo_evicted %s after the kill, before the session timeout (%s): an eviction that was not observed", ev.Duration, cfg.SessionTimeout)
		}
	}
}
