package demo

import (
	"testing"
	"time"
)

// With --commit before and a commit delay, an order committed past but
// still waiting out the delay is in flight: the ledger counts no loss
// while every consumer lives, and one when a consumer dies inside the
// delay.
func TestCommitBeforeDelayIsInFlightUntilAKill(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 10
	cfg.SessionTimeout = time.Second
	cfg.Commit = CommitBefore
	cfg.CommitDelay = 300 * time.Millisecond
	d, _ := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAll)
	// Sample while both consumers sit in their delays most of the time.
	end := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(end) {
		if l := d.Ledger(); l.Lost != 0 {
			t.Fatalf("no consumer died, yet the ledger counts %d lost: %+v", l.Lost, l)
		}
		time.Sleep(20 * time.Millisecond)
	}
	killIn(t, d, "consumer-b", phaseCommitting)
	waitFor(t, 10*time.Second, "a loss counted", func() bool { return d.Ledger().Lost >= 1 })
	l := quiet(t, d, 20*time.Second)
	t.Logf("ledger after quiet: %+v", l)
	if l.Lost < 1 || l.Processed+l.Lost+l.InFlight != l.Produced {
		t.Fatalf("commit before, kill in the delay: ledger %+v, want ≥1 lost and the books balanced", l)
	}
}
