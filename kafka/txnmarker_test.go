package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// TestPollLagOfTransactionMarkers: a consumer of a transactional topic
// commits the offset after the last record it read, which is the commit
// marker's: log-end − committed stays 1 forever. The watcher finds no
// record there, only the marker, says so (lag 1, age 0, OK), and does not
// fetch it again every poll; once a new message follows, its age is read.
func TestPollLagOfTransactionMarkers(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "tx-workers", "payments"
	tc.createTopic(t, topic, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...), kgo.TransactionalID("payments-tx"),
		kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatalf("transactional producer: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	txn := func(n int, at time.Time) {
		t.Helper()
		if err := cl.BeginTransaction(); err != nil {
			t.Fatalf("begin transaction: %v", err)
		}
		for range n {
			if err := cl.ProduceSync(ctx, &kgo.Record{Partition: 0, Value: []byte("x"), Timestamp: at}).FirstErr(); err != nil {
				t.Fatalf("produce in a transaction: %v", err)
			}
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			t.Fatalf("commit transaction: %v", err)
		}
	}
	txn(3, time.Now().Add(-time.Minute)) // records 0-2, commit marker 3
	tc.commit(t, group, topic, map[int]int64{0: 3})

	w := newTestWatcher(t, tc, group)
	s := pollUntil(t, w, "log-end 4 after the marker", func(s model.Snapshot) bool {
		return len(s.Partitions) == 1 && s.Partitions[0].LogEnd == 4
	})
	p := s.Partitions[0]
	if p.Lag != 1 || !p.LagMarkersOnly || !p.LagAgeKnown || p.LagAge != 0 {
		t.Fatalf("lag %d markers only %v age %v known %v; want lag 1 of markers only, age 0", p.Lag, p.LagMarkersOnly, p.LagAge, p.LagAgeKnown)
	}
	tc.resetCounts()
	if s, err = w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := tc.requestCounts()["Fetch"]; n != 0 || !s.Partitions[0].LagMarkersOnly {
		t.Errorf("second poll: %d fetches, markers only %v; want 0 fetches (cached), markers only", n, s.Partitions[0].LagMarkersOnly)
	}

	txn(1, time.Now().Add(-2*time.Minute)) // record 4, marker 5: a message waits now
	s = pollUntil(t, w, "log-end 6", func(s model.Snapshot) bool { return s.Partitions[0].LogEnd == 6 })
	p = s.Partitions[0]
	if p.Lag != 3 || p.LagMarkersOnly || !p.LagAgeKnown || p.LagAge < 110*time.Second || p.LagAge > 130*time.Second {
		t.Errorf("after a new message: lag %d markers only %v age %v known %v; want lag 3, age about 2m", p.Lag, p.LagMarkersOnly, p.LagAge, p.LagAgeKnown)
	}
}
