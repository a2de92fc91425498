package kafka

import (
	"context"
	"testing"
	"time"
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
	total := 0
	for _, c := range tc.requestCounts() {
		total += c
	}
	b.ReportMetric(float64(total)/float64(b.N), "requests/op")
}
