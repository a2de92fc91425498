package demo

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// consumerOf returns our consumer with that client id (in the first
// group).
func consumerOf(t *testing.T, d *Demo, id string) *consumer {
	t.Helper()
	cs, err := d.find(id)
	if err != nil {
		t.Fatal(err)
	}
	return cs[0]
}

// killIn kills consumer id as soon as it is in phase.
func killIn(t *testing.T, d *Demo, id, phase string) {
	t.Helper()
	c := consumerOf(t, d, id)
	waitFor(t, 10*time.Second, id+" in phase "+phase, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return c.phase == phase
	})
	if err := d.Kill(id); err != nil {
		t.Fatalf("Kill(%s): %v", id, err)
	}
}

// ownsAllRecorded is ownsAll once each consumer has also recorded its
// member id: the coordinator lists an assignment a moment before the
// consumer's Next returns the generation, and a test that reads the member
// id in between reads "".
func ownsAllRecorded(d *Demo, clients ...string) bool {
	if !ownsAll(d, clients...) {
		return false
	}
	for _, c := range clients {
		if info(d, c).MemberID == "" {
			return false
		}
	}
	return true
}

func info(d *Demo, id string) ConsumerInfo {
	for _, c := range d.Consumers() {
		if c.ClientID == id {
			return c
		}
	}
	return ConsumerInfo{}
}

// quiet pauses the producer and waits until every order is processed or
// lost, then checks the ledger against the log itself.
func quiet(t *testing.T, d *Demo, within time.Duration) model.Ledger {
	t.Helper()
	if !d.TogglePause() {
		t.Fatal("TogglePause did not pause the producer")
	}
	time.Sleep(100 * time.Millisecond) // let an in-flight produce land
	var l model.Ledger
	waitFor(t, within, "ledger quiet (nothing in flight)", func() bool {
		l = d.Ledger()
		return l.InFlight == 0
	})
	if l.Processed+l.Outside+l.Lost+l.InFlight != l.Produced {
		t.Fatalf("ledger %+v: processed + lost + in-flight != produced", l)
	}
	// The ledger's Produced is what the log holds: count it independently.
	if logged := sum(logEnds(t, d)); logged != l.Produced {
		t.Fatalf("ledger says %d produced, the log holds %d records", l.Produced, logged)
	}
	return l
}

// logEnds returns each partition's log end offset, as ListOffsets reads it.
func logEnds(t *testing.T, d *Demo) []int64 {
	t.Helper()
	client := &kafka.Client{Addr: kafka.TCP(d.brokers...), Timeout: 5 * time.Second}
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for p := range d.partCount {
		req.Topics[d.cfg.Topic] = append(req.Topics[d.cfg.Topic], kafka.LastOffsetOf(p))
	}
	resp, err := client.ListOffsets(context.Background(), req)
	if err != nil {
		t.Fatalf("list offsets: %v", err)
	}
	out := make([]int64, d.partCount)
	for _, po := range resp.Topics[d.cfg.Topic] {
		out[po.Partition] = po.LastOffset
	}
	return out
}

// countLeaves counts the LeaveGroup requests the demo's cluster receives
// from now on, by the member ids they name (MemberID, or Members from v3),
// and returns a func giving a member's count so far.
func countLeaves(d *Demo) func(member string) int {
	var mu sync.Mutex
	leaves := map[string]int{}
	d.cluster.ControlKey(int16(kmsg.LeaveGroup), func(r kmsg.Request) (kmsg.Response, error, bool) {
		d.cluster.KeepControl()
		req := r.(*kmsg.LeaveGroupRequest)
		mu.Lock()
		leaves[req.MemberID]++
		for _, m := range req.Members {
			leaves[m.MemberID]++
		}
		mu.Unlock()
		return nil, nil, false
	})
	return func(member string) int {
		mu.Lock()
		defer mu.Unlock()
		return leaves[member]
	}
}

func TestKillIsEvictedAfterSessionTimeoutNotBefore(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.SessionTimeout = 2 * time.Second
	d, rec := startDemo(t, cfg)
	cfg = d.Config()

	// Count LeaveGroup requests: a killed consumer must send none.
	leavesOf := countLeaves(d)

	waitTwoOwnAll(t, d, ownsAllRecorded)
	member := info(d, "consumer-b").MemberID
	killed := time.Now()
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if ci := info(d, "consumer-b"); ci.State != StateKilled || ci.KilledAt.IsZero() {
		t.Fatalf("consumer-b right after Kill: %+v", ci)
	}
	if len(rec.find(model.EventDemoKilled, "consumer-b")) != 1 {
		t.Fatal("no demo_killed event")
	}
	// Well inside the session timeout the coordinator still counts the
	// dead member and consumer-a has not taken its partitions.
	time.Sleep(cfg.SessionTimeout / 2)
	if o := owners(d); len(o["consumer-b"]) == 0 || len(o["consumer-a"]) == 3 {
		t.Fatalf("at half the session timeout the group already moved on: %s", ownersString(o))
	}
	waitFor(t, cfg.SessionTimeout+3*time.Second, "demo_evicted", func() bool {
		return len(rec.find(model.EventDemoEvicted, "consumer-b")) == 1
	})
	ev := rec.find(model.EventDemoEvicted, "consumer-b")[0]
	low := cfg.SessionTimeout - cfg.HeartbeatInterval - 100*time.Millisecond
	high := cfg.SessionTimeout + 700*time.Millisecond
	t.Logf("session timeout %s, heartbeat %s: evicted %s after the kill (event says %s)",
		cfg.SessionTimeout, cfg.HeartbeatInterval, time.Since(killed), ev.Duration)
	if !ev.HasDuration || ev.Duration < low || ev.Duration > high {
		t.Fatalf("evicted after %s, want within [%s, %s]", ev.Duration, low, high)
	}
	if ev.MemberID != member {
		t.Fatalf("demo_evicted member %q, want %q", ev.MemberID, member)
	}
	took := waitFor(t, 3*time.Second, "consumer-a owns all partitions", func() bool {
		o := owners(d)
		return len(o) == 1 && len(o["consumer-a"]) == 3
	})
	t.Logf("eviction → consumer-a owns all in %s", took)
	if ci := info(d, "consumer-b"); ci.State != StateEvicted || ci.MemberID != "" || ci.EvictedAt.Before(ci.KilledAt) {
		t.Fatalf("consumer-b after eviction: %+v", ci)
	}
	if n := leavesOf(member); n != 0 {
		t.Fatalf("killed member sent %d LeaveGroup requests, want 0", n)
	}
}

func TestStopSendsLeaveGroup(t *testing.T) {
	t.Parallel()
	d, _ := startDemo(t, fastConfig())
	leavesOf := countLeaves(d)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	member := info(d, "consumer-a").MemberID
	if err := d.Stop("consumer-a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Second, "consumer-a sent LeaveGroup", func() bool {
		return leavesOf(member) == 1
	})
}

func TestSlowConsumerPartitionsLagWhileOthersKeepUp(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 30
	cfg.ProcessTime = 5 * time.Millisecond
	cfg.SlowProcessTime = 300 * time.Millisecond
	d, _ := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAll)
	slow, err := d.ToggleSlow("consumer-a")
	if err != nil || !slow {
		t.Fatalf("ToggleSlow = %v, %v; want true, nil", slow, err)
	}
	if !info(d, "consumer-a").Slow {
		t.Fatal("Consumers() does not report consumer-a slow")
	}
	o := owners(d)
	var slowLag, fastLag []int64
	waitFor(t, 10*time.Second, "consumer-a's partitions lag ≥ 20 while consumer-b's stay ≤ 5", func() bool {
		l := lags(t, d)
		slowLag, fastLag = nil, nil
		for _, p := range o["consumer-a"] {
			slowLag = append(slowLag, l[p])
		}
		for _, p := range o["consumer-b"] {
			fastLag = append(fastLag, l[p])
		}
		return sum(slowLag) >= 20
	})
	t.Logf("slow member lag %v, fast member lag %v", slowLag, fastLag)
	for _, l := range fastLag {
		if l > 5 {
			t.Fatalf("fast member's partition lag %d, want near zero (slow %v, fast %v)", l, slowLag, fastLag)
		}
	}
	// Back to normal speed, the slow member catches up.
	if slow, _ := d.ToggleSlow("consumer-a"); slow {
		t.Fatal("second ToggleSlow did not clear slow")
	}
	waitFor(t, 15*time.Second, "consumer-a catches up", func() bool { return sum(lags(t, d)) <= 6 })
}

func TestHotKeyMakesOnePartitionDominate(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Consumers = 3
	cfg.Rate = 30
	cfg.ProcessTime = 50 * time.Millisecond
	d, _ := startDemo(t, cfg)
	waitFor(t, 10*time.Second, "three members own a partition each", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b", "consumer-c")
	})
	if !d.ToggleHotKey() {
		t.Fatal("ToggleHotKey did not turn the hot key on")
	}
	before := logEnds(t, d)
	var l []int64
	waitFor(t, 10*time.Second, "one partition's lag ≥ 15 and over 3× every other", func() bool {
		l = lags(t, d)
		hot := 0
		for p := range l {
			if l[p] > l[hot] {
				hot = p
			}
		}
		for p := range l {
			if p != hot && l[hot] <= 3*l[p] {
				return false
			}
		}
		return l[hot] >= 15
	})
	after := logEnds(t, d)
	var total, top int64
	for p := range after {
		n := after[p] - before[p]
		total += n
		top = max(top, n)
	}
	t.Logf("hot key: lag %v; new orders per partition %v → %v", l, before, after)
	if top*10 < total*7 {
		t.Fatalf("hot partition got %d of %d new orders, want most", top, total)
	}
	if d.ToggleHotKey() {
		t.Fatal("second ToggleHotKey did not turn it off")
	}
}

func TestCommitAfterKillBeforeCommitDuplicatesButLosesNothing(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 4
	cfg.SessionTimeout = time.Second
	cfg.CommitDelay = 300 * time.Millisecond
	d, rec := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAll)
	waitFor(t, 10*time.Second, "a few orders produced", func() bool { return d.Ledger().Produced >= 6 })
	killIn(t, d, "consumer-b", phaseCommitting)
	waitFor(t, 10*time.Second, "a duplicate counted", func() bool { return d.Ledger().Duplicates >= 1 })
	dups := rec.find(model.EventDemoDuplicate, "consumer-a")
	if len(dups) == 0 {
		t.Fatal("no demo_duplicate event from consumer-a")
	}
	t.Logf("duplicate: %s", dups[0].Detail)
	l := quiet(t, d, 20*time.Second)
	t.Logf("ledger after quiet: %+v", l)
	if l.Lost != 0 || l.Processed != l.Produced || l.Duplicates < 1 {
		t.Fatalf("commit after: ledger %+v, want every order processed, ≥1 duplicate, none lost", l)
	}
}

func TestCommitBeforeKillDuringProcessingLosesTheOrder(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 4
	cfg.SessionTimeout = time.Second
	cfg.Commit = CommitBefore
	cfg.ProcessTime = 200 * time.Millisecond
	d, rec := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAll)
	waitFor(t, 10*time.Second, "a few orders produced", func() bool { return d.Ledger().Produced >= 6 })
	killIn(t, d, "consumer-b", phaseProcessing)
	waitFor(t, 10*time.Second, "a loss counted", func() bool { return d.Ledger().Lost >= 1 })
	checkLostEvent(t, d, rec, "consumer-b")
	l := quiet(t, d, 20*time.Second)
	t.Logf("ledger after quiet: %+v", l)
	if l.Lost < 1 || l.Duplicates != 0 {
		t.Fatalf("commit before: ledger %+v, want ≥1 lost, no duplicates", l)
	}
	if n := len(rec.find(model.EventDemoLost, "")); int64(n) != l.Lost {
		t.Fatalf("%d demo_lost events for %d lost orders", n, l.Lost)
	}
}

// checkLostEvent checks that a demo_lost event from id names the order
// and its offset, as demo_duplicate does.
func checkLostEvent(t *testing.T, d *Demo, rec *recorder, id string) {
	t.Helper()
	// The ledger counts the loss before the event goes out (the book is
	// written under the demo's lock, the event after it): wait for it.
	var evs []model.Event
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if evs = rec.find(model.EventDemoLost, id); len(evs) > 0 {
			break
		}
		if time.Now().After(end) {
			rec.mu.Lock()
			for _, e := range rec.events { // say what happened instead
				t.Logf("event %s %s: %s", e.Type, e.ClientID, e.Detail)
			}
			rec.mu.Unlock()
			t.Fatalf("timed out after 5s waiting for a demo_lost event from %s (ledger %+v)", id, d.Ledger())
		}
	}
	e := evs[0]
	if !strings.Contains(e.Detail, "order-") || !strings.Contains(e.Detail, "offset ") || len(e.Partitions) != 1 {
		t.Fatalf("demo_lost %q (partitions %v): want the order, its offset and partition", e.Detail, e.Partitions)
	}
	t.Logf("lost: %s", e.Detail)
}

func TestMaxPollIntervalPushesSlowMemberOut(t *testing.T) {
	t.Parallel()
	t.Run("dynamic", func(t *testing.T) {
		t.Parallel()
		testMaxPoll(t, false)
	})
	t.Run("static", func(t *testing.T) {
		t.Parallel()
		testMaxPoll(t, true)
	})
}

func testMaxPoll(t *testing.T, static bool) {
	cfg := fastConfig()
	cfg.Static = static
	cfg.Rate = 10
	cfg.SessionTimeout = 2 * time.Second
	cfg.MaxPollInterval = time.Second
	cfg.SlowProcessTime = 2500 * time.Millisecond
	d, rec := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	member := info(d, "consumer-b").MemberID
	if _, err := d.ToggleSlow("consumer-b"); err != nil {
		t.Fatal(err)
	}
	// consumer-b starts a slow order; a second later it leaves the group
	// on its own and consumer-a takes every partition.
	left := waitFor(t, 5*time.Second, "consumer-b left; consumer-a owns all partitions", func() bool {
		o := owners(d)
		return len(o) == 1 && len(o["consumer-a"]) == 3
	})
	t.Logf("slow order → partitions moved in %s", left)
	revoked := false
	for _, e := range rec.find(model.EventDemoRevoked, "consumer-b") {
		if strings.Contains(e.Detail, "max.poll.interval") && e.MemberID == member {
			revoked = true
		}
	}
	if !revoked {
		t.Fatal("no demo_revoked naming max.poll.interval for consumer-b")
	}
	if _, err := d.ToggleSlow("consumer-b"); err != nil { // let it come back
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "consumer-b's late commit refused", func() bool {
		return len(rec.find(model.EventDemoCommitFailed, "consumer-b")) >= 1
	})
	waitFor(t, 5*time.Second, "the slow order reprocessed by consumer-a counted as a duplicate", func() bool {
		return len(rec.find(model.EventDemoDuplicate, "")) >= 1 && d.Ledger().Duplicates >= 1
	})
	if l := d.Ledger(); l.CommitFailures < 1 {
		t.Fatalf("ledger %+v: want ≥1 commit failure", l)
	}
	waitFor(t, 10*time.Second, "consumer-b rejoined after its order", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	l := quiet(t, d, 20*time.Second)
	if l.Lost != 0 || l.Processed != l.Produced {
		t.Fatalf("ledger %+v: want everything processed, nothing lost", l)
	}
}
