package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// benchGroup sets up an Empty group committed on every partition of an
// n-partition topic, with records on some partitions, and a warmed-up
// watcher (connected, coordinator found, metadata cached).
func benchGroup(b *testing.B, n int) (*testCluster, *Watcher) {
	tc := newTestCluster(b, false)
	tc.createTopic(b, "wide", n)
	for p := 0; p < n; p += max(1, n/20) {
		tc.produce(b, "wide", p, 5, time.Now().Add(-time.Minute))
	}
	offsets := make(map[int]int64, n)
	for p := 0; p < n; p++ {
		offsets[p] = 0
	}
	tc.commit(b, "wide-workers", "wide", offsets)
	w := newTestWatcher(b, tc, "wide-workers")
	for i := 0; i < 2; i++ {
		if _, err := w.Poll(context.Background()); err != nil {
			b.Fatalf("warm-up poll: %v", err)
		}
	}
	return tc, w
}

// BenchmarkPoll1000 is one snapshot of a 1,000-partition group on three
// loopback brokers.
func BenchmarkPoll1000(b *testing.B) { benchPoll(b, 1000) }

func benchPoll(b *testing.B, n int) {
	tc, w := benchGroup(b, n)
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := w.Poll(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Partitions) != n {
			b.Fatalf("%d partitions, want %d", len(s.Partitions), n)
		}
	}
	b.StopTimer()
	reportRequests(b, tc)
}

// wideGroup sets up an Empty group on an n-partition topic where every
// partition has 2 records a minute old and a commit at 1 (lag 1, so every
// partition's lag age is read).
func wideGroup(b *testing.B, n int) *testCluster {
	tc := newTestCluster(b, false)
	tc.createTopic(b, "wide", n)
	tc.produceEach(b, "wide", n, 2, time.Now().Add(-time.Minute))
	offsets := make(map[int]int64, n)
	for p := 0; p < n; p++ {
		offsets[p] = 1
	}
	tc.commit(b, "wide-workers", "wide", offsets)
	return tc
}

// BenchmarkPollCold10000 is what `kgwatch --once` does on a 10,000-partition
// group over three loopback brokers: a new watcher connects, finds the
// coordinator, describes the topic and reads every partition's offsets and
// lag age. requests/op counts every request, connection set-up included.
func BenchmarkPollCold10000(b *testing.B) {
	const n = 10000
	tc := wideGroup(b, n)
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := NewWatcher(Config{Brokers: tc.addrs, Group: "wide-workers", Timeout: 10 * time.Second})
		s, err := w.Poll(context.Background())
		w.Close()
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Partitions) != n || !s.MaxLagAgeKnown || s.MaxLagAge < time.Minute {
			b.Fatalf("%d partitions, max lag age %v (known %v)", len(s.Partitions), s.MaxLagAge, s.MaxLagAgeKnown)
		}
		for _, p := range s.Partitions {
			if !p.LagAgeKnown {
				b.Fatalf("%s/%d: lag age unknown", p.Topic, p.Partition)
			}
		}
	}
	b.StopTimer()
	reportRequests(b, tc)
}

// BenchmarkPollWarm10000 is one poll of the same group by a watcher that
// has polled before (connections, coordinator, metadata and lag-age
// timestamps cached).
func BenchmarkPollWarm10000(b *testing.B) { benchPollWarm(b, false) }

// BenchmarkPollWarmReuse10000 is BenchmarkPollWarm10000 as the TUI polls:
// the watcher observes and the page builds each snapshot in the rows of
// the last (model.SnapshotBuilder).
func BenchmarkPollWarmReuse10000(b *testing.B) { benchPollWarm(b, true) }

// benchPollWarm polls a group of 10,000 partitions, warm, reusing rows
// or not.
func benchPollWarm(b *testing.B, reuse bool) {
	const n = 10000
	tc := wideGroup(b, n)
	w := newTestWatcher(b, tc, "wide-workers")
	var sb model.SnapshotBuilder
	poll := func() error {
		if !reuse {
			_, err := w.Poll(context.Background())
			return err
		}
		obs, err := w.Observe(context.Background())
		if err == nil {
			sb.Build(&obs)
		}
		return err
	}
	if err := poll(); err != nil {
		b.Fatal(err)
	}
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := poll(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportRequests(b, tc)
}

func reportRequests(b *testing.B, tc *testCluster) {
	total := 0
	for _, c := range tc.requestCounts() {
		total += c
	}
	b.ReportMetric(float64(total)/float64(b.N), "requests/op")
}

// BenchmarkOverview1000 is one overview of 1,000 groups (6 committed
// partitions each) on three loopback brokers, by a warm watcher.
func BenchmarkOverview1000(b *testing.B) {
	tc := newTestCluster(b, true)
	tc.createTopic(b, "orders", 6)
	tc.produceEach(b, "orders", 6, 5, time.Now())
	tc.commitGroups(b, groupNames(1000), "orders", map[int32]int64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 0})
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 10 * time.Second}))
	defer o.Close()
	if _, err := o.Overview(context.Background()); err != nil {
		b.Fatal(err)
	}
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gs, err := o.Overview(context.Background())
		if err != nil || len(gs) != 1000 {
			b.Fatalf("%d groups, %v", len(gs), err)
		}
	}
	b.StopTimer()
	reportRequests(b, tc)
}

// benchOwned1000 is one warm poll of a group of one member owning a
// 1,000-partition topic, every 50th partition with records.
func benchOwned1000(b *testing.B, consumer bool, opts ...kgo.Opt) {
	const n = 1000
	tc := newTestCluster(b, true, fast848())
	tc.createTopic(b, "wide", n)
	for p := 0; p < n; p += 50 {
		tc.produce(b, "wide", p, 5, time.Now().Add(-time.Minute))
	}
	if consumer {
		tc.markNonClassic("wide-workers")
	}
	tc.kgoJoin(b, "consumer-a", append([]kgo.Opt{kgo.ConsumerGroup("wide-workers"), kgo.ConsumeTopics("wide")}, opts...)...)
	w := newTestWatcher(b, tc, "wide-workers")
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := w.Poll(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if s.Group.State == "Stable" && len(s.Members) == 1 && len(s.Members[0].Partitions) == n && !s.Members[0].Reconciling {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("no member owning %d partitions: %s, %d members", n, s.Group.State, len(s.Members))
		}
		time.Sleep(50 * time.Millisecond)
	}
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := w.Poll(context.Background())
		if err != nil || len(s.Partitions) != n {
			b.Fatalf("%d partitions, %v", len(s.Partitions), err)
		}
	}
	b.StopTimer()
	reportRequests(b, tc)
}

// BenchmarkPollConsumer1000 polls a consumer-protocol group (KIP-848) of
// 1,000 partitions; BenchmarkPollClassic1000 a classic one of the same
// size.
func BenchmarkPollConsumer1000(b *testing.B) { benchOwned1000(b, true, kgo.ServerSideBalancer()) }
func BenchmarkPollClassic1000(b *testing.B) {
	benchOwned1000(b, false, kgo.Balancers(kgo.RangeBalancer()), kgo.SessionTimeout(3*time.Second), kgo.HeartbeatInterval(100*time.Millisecond))
}
