package kafka

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kgwatch/kgwatch/model"
)

// TestAnotherClusterOnTheSameAddresses: a cluster (id cluster-a, orders
// of 6 partitions, a member owning them) is stopped and another (id
// cluster-b, orders of 3 partitions with lower log ends) started on the
// same ports. The watcher's snapshots carry each one's id, and the
// pipeline says cluster_changed, then watches afresh: no rebalance, no
// partition "moved" (before, the member's new id on the new cluster read
// as a rebalance that moved every partition).
func TestAnotherClusterOnTheSameAddresses(t *testing.T) {
	ports, addrs := freePorts(t, 3)
	a := newTestCluster(t, false, kfake.Ports(ports...), kfake.ClusterID("cluster-a"))
	committedGroup(t, a, "workers", "orders")
	member := a.joinGroup(t, "workers", "consumer-a", "orders")
	waitAssigned(t, 6, member)

	w := NewWatcher(Config{Brokers: addrs, Group: "workers", Timeout: time.Second})
	defer w.Close()
	pipe := model.NewPipeline(model.PipelineOptions{Group: "workers"})
	var events []model.Event
	poll := func() (model.Snapshot, error) {
		s, err := w.Poll(context.Background())
		if err != nil {
			events = append(events, pipe.PollFailed(time.Now(), time.Now(), err)...)
			return s, err
		}
		events = append(events, pipe.Observe(&s)...)
		return s, nil
	}
	waitFor(t, 10*time.Second, "a Stable poll of cluster-a owning 6 partitions", func() bool {
		s, err := poll()
		return err == nil && s.Group.State == model.StateStable && len(s.Partitions) == 6 && s.Partitions[0].MemberID != ""
	})
	if s, _ := poll(); s.ClusterID != "cluster-a" {
		t.Fatalf("cluster id %q, want cluster-a", s.ClusterID)
	}

	member.leave()
	a.Close()
	b := newTestCluster(t, false, kfake.Ports(ports...), kfake.ClusterID("cluster-b"))
	b.createTopic(t, "orders", 3)
	b.commit(t, "workers", "orders", map[int]int64{0: 0, 1: 0, 2: 0})
	again := b.joinGroup(t, "workers", "consumer-a", "orders")
	waitAssigned(t, 3, again)

	var last model.Snapshot
	waitFor(t, 15*time.Second, "a Stable poll of cluster-b owning 3 partitions", func() bool {
		s, err := poll()
		last = s
		return err == nil && s.ClusterID == "cluster-b" && s.Group.State == model.StateStable && len(s.Partitions) == 3 && s.Partitions[0].MemberID != ""
	}, func() string { return last.ClusterID + " " + last.Group.State })

	changed := 0
	for _, e := range events {
		switch {
		case e.Type == model.EventClusterChanged:
			changed++
			if !strings.Contains(e.Detail, "cluster id cluster-a → cluster-b") {
				t.Errorf("cluster_changed says %q", e.Detail)
			}
		case e.Type == model.EventRebalanceCompleted, e.Type == model.EventPartitionMoved, e.Type == model.EventPartitionsChanged:
			t.Errorf("the new cluster read as the old one's group changing: %s: %s", e.Type, e.Detail)
		}
	}
	if changed != 1 {
		var got []string
		for _, e := range events {
			got = append(got, string(e.Type)+": "+e.Detail)
		}
		t.Errorf("%d cluster_changed events, want 1:\n%s", changed, strings.Join(got, "\n"))
	}
}
