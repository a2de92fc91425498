package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// A real classic group whose second member joins and leaves three times
// rebalances six times, and the count says six: the rebalances the
// polls saw and those they missed, counted by the generation franz-go's
// members send in their subscriptions (v3), which the snapshot reads:
// unknown while consumer-a is new, then 7.
func TestRebalanceCountOfARealGroup(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, true)
	const group, topic = "flappy-workers", "orders"
	tc.createTopic(t, topic, 4)
	eager := kgo.Balancers(kgo.RangeBalancer())
	tc.classicKgo(t, group, "consumer-a", topic, eager)
	w := newTestWatcher(t, tc, group)
	// The watch begins once consumer-a's own join is over: its
	// generation, the first, is not one of the six.
	pollUntil(t, w, "consumer-a owning all 4", func(s model.Snapshot) bool {
		return s.Group.State == model.StateStable && len(s.Members) == 1 && len(s.Members[0].Partitions) == 4
	})
	pipe := model.NewPipeline(model.PipelineOptions{Group: group, Interval: 100 * time.Millisecond, MaxRebalances: 5})
	var events []model.Event
	// settle polls, through the pipeline, until the group is Stable with
	// n members owning every partition.
	settle := func(n int) model.Snapshot {
		t.Helper()
		var s model.Snapshot
		waitFor(t, 20*time.Second, "a stable group of "+model.Count(n, "member"), func() bool {
			var err error
			if s, err = w.Poll(context.Background()); err != nil {
				return false
			}
			events = append(events, pipe.Observe(&s)...)
			owned := 0
			for _, m := range s.Members {
				owned += len(m.Partitions)
			}
			return s.Group.State == model.StateStable && len(s.Members) == n && owned == 4
		}, func() string { return eventList(events) })
		return s
	}
	if first := settle(1); first.Group.Generation != 0 {
		// consumer-a joined from no generation (-1): nothing says it.
		t.Errorf("generation %d with only a new member, want 0 (unknown)", first.Group.Generation)
	}
	for range 3 {
		b := tc.classicKgo(t, group, "consumer-b", topic, eager)
		settle(2)
		b.leave()
		settle(1)
	}
	last := settle(1)
	st := pipe.Rebalances()
	if last.Group.Generation != 7 {
		t.Errorf("generation %d, want 7: the first, then six rebalances", last.Group.Generation)
	}
	if got := st.TenMinutes.Count; got != 6 {
		t.Errorf("counted %d rebalances (%d inferred), want 6; events:%s", got, st.TenMinutes.Inferred, eventList(events))
	}
	// The overview reads the same generation, for its REBAL/10m.
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	gs, err := o.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 1 || gs[0].ID != group || gs[0].Generation != 7 {
		t.Errorf("overview: %+v, want %s at generation 7", gs, group)
	}
	storms := 0
	for _, e := range events {
		if e.Type == model.EventRebalanceStorm {
			storms++
		}
	}
	if storms != 1 || !st.Storm {
		t.Errorf("%d rebalance_storm events, storm %v: want one past --max-rebalances 5", storms, st.Storm)
	}
}
