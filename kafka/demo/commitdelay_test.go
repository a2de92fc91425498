package demo

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// commitBeforeWithDelay is the demo of the kill-in-the-delay tests: commit
// before processing, a 300 ms delay after the commit, a 1 s session. A
// consumer then takes about 0.35 s an order: past a kill, the tests lower
// the rate below what the one consumer left keeps up with (at 10 a second
// the backlog took it over 20 s to clear under -race).
func commitBeforeWithDelay() Config {
	cfg := fastConfig()
	cfg.Rate = 10
	cfg.SessionTimeout = time.Second
	cfg.Commit = CommitBefore
	cfg.CommitDelay = 300 * time.Millisecond
	return cfg
}

// A consumer killed with its commit (--commit before) in flight never
// hears whether the commit landed. When it did, the group resumes past the
// order and it is lost: the ledger counts it, and demo_lost says so in the
// dead consumer's name, even though the loss shows only when the commit
// comes through or a successor commits past it. The coordinator holds
// consumer-b's first commit until the kill has cut its connections, then
// applies it.
func TestKilledWithTheCommitInFlightIsLost(t *testing.T) {
	t.Parallel()
	cfg := commitBeforeWithDelay()
	cfg.Rate = 2 // one order of consumer-b's is all it needs
	d, rec := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	member := info(d, "consumer-b").MemberID
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	d.cluster.ControlKey(int16(kmsg.OffsetCommit), func(r kmsg.Request) (kmsg.Response, error, bool) {
		req := r.(*kmsg.OffsetCommitRequest)
		hold := false
		if req.MemberID == member {
			once.Do(func() { hold = true })
		}
		if hold {
			close(held)
			d.cluster.SleepControl(func() { <-release })
		}
		return nil, nil, false // the coordinator applies it
	})
	select {
	case <-held:
	case <-time.After(15 * time.Second):
		t.Fatal("consumer-b sent no commit")
	}
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	close(release)
	waitFor(t, 20*time.Second, "a loss counted", func() bool { return d.Ledger().Lost >= 1 })
	checkLostEvent(t, d, rec, "consumer-b")
	l := quiet(t, d, 20*time.Second)
	if lost := rec.find(model.EventDemoLost, ""); int64(len(lost)) != l.Lost {
		t.Fatalf("ledger %+v counts %d lost, but %d demo_lost events went out", l, l.Lost, len(lost))
	}
}

// With --commit before and a commit delay, an order committed past but
// still waiting out the delay is in flight: the ledger counts no loss
// while every consumer lives, and one when a consumer dies inside the
// delay.
func TestCommitBeforeDelayIsInFlightUntilAKill(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, commitBeforeWithDelay())
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
	d.SetRate(2) // consumer-a alone keeps up
	waitFor(t, 10*time.Second, "a loss counted", func() bool { return d.Ledger().Lost >= 1 })
	checkLostEvent(t, d, rec, "consumer-b")
	l := quiet(t, d, 20*time.Second)
	t.Logf("ledger after quiet: %+v", l)
	if l.Lost < 1 || l.Processed+l.Outside+l.Lost+l.InFlight != l.Produced {
		t.Fatalf("commit before, kill in the delay: ledger %+v, want ≥1 lost and the books balanced", l)
	}
}

// The order in hand and its window are in ConsumerInfo, so the screen can
// count down "order-000009 processed, commit in 1.4s" (commit after) or
// "committed, processing 1.4s" (commit before).
func TestPendingShowsTheCommitWindow(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{CommitAfter, CommitBefore} {
		cfg := fastConfig()
		cfg.Consumers = 1
		cfg.Rate = 10
		cfg.Commit = mode
		cfg.CommitDelay = 600 * time.Millisecond
		d, _ := startDemo(t, cfg)
		want := model.DemoPhaseProcessed
		window := cfg.CommitDelay
		if mode == CommitBefore {
			want, window = model.DemoPhaseCommitted, cfg.CommitDelay+cfg.ProcessTime
		}
		var ci ConsumerInfo
		waitFor(t, 10*time.Second, "consumer-a in its commit window ("+mode+")", func() bool {
			ci = info(d, "consumer-a")
			return ci.PendingPhase == want
		})
		left := time.Until(ci.PendingUntil)
		t.Logf("commit %s: %s %s at offset %d of p%d, %s left", mode, ci.PendingOrder, ci.PendingPhase, ci.PendingOffset, ci.PendingPartition.Partition, left)
		if !strings.HasPrefix(ci.PendingOrder, "order-") || ci.PendingOffset < 0 || left <= 0 || left > window {
			t.Fatalf("commit %s: pending %+v: want an order and a window of at most %s ahead", mode, ci, window)
		}
		// The window closes: the phase moves on.
		order := ci.PendingOrder
		waitFor(t, 5*time.Second, "the window of "+order+" ends", func() bool {
			ci := info(d, "consumer-a")
			return ci.PendingOrder != order || ci.PendingPhase != want
		})
	}
}
