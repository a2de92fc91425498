package kafka

import (
	"context"
	"io"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui/headless"
)

// BenchmarkOnceCold10000 and BenchmarkOnceCold50000 are `kgwatch -group G
// --once` on one topic of n partitions over three loopback brokers, every
// partition lagging by one record a minute old: a new watcher connects,
// polls, the pipeline judges the snapshot and the table is written. The
// in-process brokers' work is inside the figures: profile with -focus on
// the client's packages, or -tagfocus side=client.
func BenchmarkOnceCold10000(b *testing.B) { benchOnceCold(b, 10000) }
func BenchmarkOnceCold50000(b *testing.B) { benchOnceCold(b, 50000) }

func benchOnceCold(b *testing.B, n int) {
	tc := wideGroup(b, n)
	tc.resetCounts()
	f, err := headless.LookupFormat("table")
	if err != nil {
		b.Fatal(err)
	}
	opts := headless.Options{Group: "wide-workers", Timeout: 60 * time.Second}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var s model.Snapshot
		var err error
		// The client's goroutines (the transport's too, started within)
		// carry the label: -tagfocus side=client profiles them alone.
		pprof.Do(context.Background(), pprof.Labels("side", "client"), func(ctx context.Context) {
			w := NewWatcher(Config{Brokers: tc.addrs, Group: "wide-workers", Timeout: 60 * time.Second})
			s, err = headless.Once(ctx, w, opts, f, io.Discard)
			w.Close()
		})
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Partitions) != n || !s.MaxLagAgeKnown {
			b.Fatalf("%d partitions, max lag age known %v", len(s.Partitions), s.MaxLagAgeKnown)
		}
	}
	b.StopTimer()
	reportRequests(b, tc)
}
