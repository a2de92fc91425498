package demo

import (
	"context"
	"testing"
	"time"
)

// BenchmarkProducerAtMaxRate measures what the producer writes at MaxRate
// (one produce request per order, so each order's offset is exact) with
// no consumers: orders/s achieved against the 10000 asked.
func BenchmarkProducerAtMaxRate(b *testing.B) {
	d, err := Start(context.Background(), Config{Consumers: -1, Rate: MaxRate}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	time.Sleep(200 * time.Millisecond)
	b.ResetTimer()
	start, n0 := time.Now(), d.Ledger().Produced
	for range b.N {
		time.Sleep(10 * time.Millisecond)
	}
	el := time.Since(start)
	b.ReportMetric(float64(d.Ledger().Produced-n0)/el.Seconds(), "orders/s")
}

// BenchmarkSpawnToAssigned measures n: from Spawn until the new consumer
// owns a partition, an eager rebalance of three kgo members on kfake.
func BenchmarkSpawnToAssigned(b *testing.B) {
	for range b.N {
		b.StopTimer()
		d, err := Start(context.Background(), Config{Consumers: 2, Rate: 20, ProcessTime: 5 * time.Millisecond, SessionTimeout: 2 * time.Second}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for !ownsAll(d, "consumer-a", "consumer-b") {
			time.Sleep(5 * time.Millisecond)
		}
		b.StartTimer()
		if _, err := d.Spawn(); err != nil {
			b.Fatal(err)
		}
		for !ownsAll(d, "consumer-a", "consumer-b", "consumer-c") {
			time.Sleep(time.Millisecond)
		}
		b.StopTimer()
		d.Close()
	}
}
