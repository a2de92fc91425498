package kafka

import (
	"context"
	"testing"
	"time"

	kafka "github.com/segmentio/kafka-go"
)

// TestPollSeesAddedPartitionsAtOnce: partitions added to a topic the
// watcher already described are read on the next poll that shows them
// committed, not after the metadata cache expires.
func TestPollSeesAddedPartitionsAtOnce(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "growers", "orders")
	w := newTestWatcher(t, tc, "growers")
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	cl, done := tc.client()
	res, err := cl.CreatePartitions(context.Background(), &kafka.CreatePartitionsRequest{
		Topics: []kafka.TopicPartitionsConfig{{Name: "orders", Count: 8}},
	})
	done()
	if err == nil && len(res.Errors) > 0 {
		err = res.Errors["orders"]
	}
	if err != nil {
		t.Fatalf("add partitions to orders: %v", err)
	}
	tc.produce(t, "orders", 6, 4, time.Now())
	tc.produce(t, "orders", 7, 4, time.Now())
	tc.commit(t, "growers", "orders", map[int]int64{6: 1, 7: 1})
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Partitions) != 8 {
		t.Fatalf("%d partitions, want 8", len(s.Partitions))
	}
	assertLag(t, s, 3)
}
