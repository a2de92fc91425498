package kafka

import (
	"context"
	"runtime/pprof"
	"testing"
	"time"
)

// spreadGroups sets up 1,000 groups on a 6-partition topic of 60 records
// a partition (a minute old), group i committed at offset i%50 on every
// partition: 50 distinct committed offsets a partition, every group with
// lag, so the overview reads the age of 300 records.
func spreadGroups(b testing.TB) *testCluster {
	tc := newTestCluster(b, true)
	tc.createTopic(b, "orders", 6)
	tc.produceEach(b, "orders", 6, 60, time.Now().Add(-time.Minute))
	names := groupNames(1000)
	for k := 0; k < 50; k++ {
		var gs []string
		for i := k; i < len(names); i += 50 {
			gs = append(gs, names[i])
		}
		off := int64(k)
		tc.commitGroups(b, gs, "orders", map[int32]int64{0: off, 1: off, 2: off, 3: off, 4: off, 5: off})
	}
	return tc
}

// BenchmarkOverviewCold1000 is `kgwatch --once` without --group on 1,000
// groups: a new watcher connects and reads everything once.
func BenchmarkOverviewCold1000(b *testing.B) {
	tc := newTestCluster(b, true)
	tc.createTopic(b, "orders", 6)
	tc.produceEach(b, "orders", 6, 5, time.Now())
	tc.commitGroups(b, groupNames(1000), "orders", map[int32]int64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 0})
	benchOverviewCold(b, tc)
}

// BenchmarkOverviewSpreadCold1000 and BenchmarkOverviewSpreadWarm1000: the
// overview of spreadGroups, by a new watcher and by one that has polled
// before.
func BenchmarkOverviewSpreadCold1000(b *testing.B) { benchOverviewCold(b, spreadGroups(b)) }

func BenchmarkOverviewSpreadWarm1000(b *testing.B) { benchOverviewWarm(b, spreadGroups(b), 1000) }

// benchOverviewWarm measures the overview of tc's n groups by a watcher
// that has polled once. The client's goroutines carry the label
// side=client, so -tagfocus side=client profiles them apart from the
// in-process brokers.
func benchOverviewWarm(b *testing.B, tc *testCluster, n int) {
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 30 * time.Second}))
	defer o.Close()
	if _, err := o.Overview(context.Background()); err != nil {
		b.Fatal(err)
	}
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pprof.Do(context.Background(), pprof.Labels("side", "client"), func(ctx context.Context) {
			gs, err := o.Overview(ctx)
			if err != nil || len(gs) != n {
				b.Fatalf("%d groups, %v", len(gs), err)
			}
		})
	}
	b.StopTimer()
	reportRequests(b, tc)
}

// BenchmarkOverview5000 is one overview of 5,000 groups (6 committed
// partitions each) by a warm watcher, what the overview TUI sends each
// interval.
func BenchmarkOverview5000(b *testing.B) {
	tc := newTestCluster(b, true)
	tc.createTopic(b, "orders", 6)
	tc.produceEach(b, "orders", 6, 5, time.Now())
	tc.commitGroups(b, groupNames(5000), "orders", map[int32]int64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 0})
	benchOverviewWarm(b, tc, 5000)
}
func benchOverviewCold(b *testing.B, tc *testCluster) {
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pprof.Do(context.Background(), pprof.Labels("side", "client"), func(ctx context.Context) {
			o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 10 * time.Second}))
			gs, err := o.Overview(ctx)
			o.Close()
			if err != nil || len(gs) != 1000 {
				b.Fatalf("%d groups, %v", len(gs), err)
			}
		})
	}
	b.StopTimer()
	reportRequests(b, tc)
}
