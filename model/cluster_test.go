package model

import (
	"fmt"
	"strings"
	"testing"
)

// ofCluster is snapN's group of n partitions on cluster id, each log end
// at end.
func ofCluster(sec float64, id string, n int32, end int64, members ...Member) Snapshot {
	s := snapN(sec, stable, n, "range", members...)
	s.ClusterID = id
	for i := range s.Partitions {
		s.Partitions[i].LogEnd = end
	}
	return s
}

// A restart with another cluster id on the same addresses (6 → 3
// partitions, log ends back to the start, other members) is told as
// cluster_changed, then the watch starts afresh: watch_started, and no
// rebalance that "moved 6 partitions".
func TestClusterChangedStartsAfresh(t *testing.T) {
	p := NewPipeline(PipelineOptions{Group: "order-workers"})
	before := []Snapshot{
		ofCluster(0, "cluster-a", 6, 500, mem("consumer-a", 0, 1, 2), mem("consumer-b", 3, 4, 5)),
		ofCluster(1, "cluster-a", 6, 520, mem("consumer-a", 0, 1, 2), mem("consumer-b", 3, 4, 5)),
	}
	for i := range before {
		p.Observe(&before[i])
	}
	after := ofCluster(2, "cluster-b", 3, 10, mem("consumer-c", 0, 1, 2))
	evs := p.Observe(&after)
	if got := fmt.Sprint(types(evs)); got != "[cluster_changed watch_started]" {
		t.Fatalf("events %s, want [cluster_changed watch_started]:\n%v", got, evs)
	}
	want := "another cluster answers on the same addresses: cluster id cluster-a → cluster-b (6 partitions → 3 partitions); the watch starts afresh; log ends went backwards on 3 partitions"
	if evs[0].Detail != want {
		t.Errorf("detail %q,\nwant %q", evs[0].Detail, want)
	}
	// The next poll is diffed against the new cluster only.
	next := ofCluster(3, "cluster-b", 3, 12, mem("consumer-c", 0, 1, 2))
	if evs := p.Observe(&next); len(evs) != 0 {
		t.Errorf("steady poll of the new cluster gave %v", types(evs))
	}
	for _, e := range p.Timeline().Events() {
		if e.Type == EventRebalanceCompleted || e.Type == EventPartitionMoved || strings.Contains(e.Detail, "moved") {
			t.Errorf("the cluster change read as a rebalance: %s", summary(e))
		}
	}
}

// Log ends going backwards on the same cluster (a topic recreated), or
// with no id known, name the partitions; an id first known is no change.
func TestLogEndBackwards(t *testing.T) {
	for _, id := range []string{"cluster-a", ""} {
		p := NewPipeline(PipelineOptions{Group: "order-workers"})
		first := ofCluster(0, id, 3, 500, mem("consumer-a", 0, 1, 2))
		p.Observe(&first)
		recreated := ofCluster(1, id, 3, 500, mem("consumer-a", 0, 1, 2))
		recreated.Partitions[1].LogEnd, recreated.Partitions[2].LogEnd = 4, 0
		recreated.Partitions[0].Err, recreated.Partitions[0].LogEnd = "NOT_LEADER", NoOffset
		evs := p.Observe(&recreated)
		if len(evs) == 0 || evs[0].Type != EventLogEndBackwards {
			t.Fatalf("id %q: events %v, want log_end_backwards first", id, types(evs))
		}
		if got := PartitionList(evs[0].Partitions, false); got != "p1–p2" {
			t.Errorf("id %q: partitions %s, want p1–p2 (p0 unreadable)", id, got)
		}
	}
	p := NewPipeline(PipelineOptions{Group: "order-workers"})
	unknown := ofCluster(0, "", 3, 500, mem("consumer-a", 0, 1, 2))
	p.Observe(&unknown)
	known := ofCluster(1, "cluster-a", 3, 501, mem("consumer-a", 0, 1, 2))
	if evs := p.Observe(&known); len(evs) != 0 {
		t.Errorf("an id first known gave %v", types(evs))
	}
}
