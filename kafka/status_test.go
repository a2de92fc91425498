package kafka

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// annotatedPoll polls w once and runs the snapshot through h.
func annotatedPoll(t *testing.T, w *Watcher, h *model.History) (model.Snapshot, []model.Event) {
	t.Helper()
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	return s, h.Annotate(&s)
}

// TestStatusStalledEndToEnd: a kafka-go member holds both partitions and
// heartbeats, but never commits while records keep arriving. Once the
// commits have stood still for stall-after, both partitions are STALLED,
// owned by that member, and a status_changed event says so; not before.
func TestStatusStalledEndToEnd(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		const group, topic = "stuck-workers", "orders"
		const stallAfter = 1500 * time.Millisecond
		tc.createTopic(t, topic, 2)
		for p := 0; p < 2; p++ {
			tc.produce(t, topic, p, 5, time.Now())
		}
		m := tc.joinGroup(t, group, "consumer-a", topic)
		g := waitAssigned(t, 2, m)[0]
		if err := g.CommitOffsets(map[string]map[int]int64{topic: {0: 2, 1: 5}}); err != nil {
			t.Fatalf("commit: %v", err)
		}

		w := newTestWatcher(t, tc, group)
		h := model.NewHistory(model.HistoryOptions{StallAfter: stallAfter, Window: time.Second})
		first, _ := annotatedPoll(t, w, h)
		start := first.TakenAt
		if st := partitionRow(t, first, topic, 0).Status; st != model.StatusOK {
			t.Fatalf("p0 on the first poll: %s, want OK (a stall needs stall-after of history)", st)
		}

		var s model.Snapshot
		var stalledEvent *model.Event
		waitFor(t, 20*time.Second, "both partitions STALLED", func() bool {
			for p := 0; p < 2; p++ {
				tc.produce(t, topic, p, 1, time.Now()) // work keeps arriving
			}
			var evs []model.Event
			s, evs = annotatedPoll(t, w, h)
			for i := range evs {
				if evs[i].Type == model.EventStatusChanged && evs[i].State == string(model.StatusStalled) {
					stalledEvent = &evs[i]
				}
			}
			for _, p := range s.Partitions {
				if p.Status == model.StatusStalled && s.TakenAt.Sub(start) < stallAfter {
					t.Fatalf("%s/%d STALLED after %s, before stall-after %s", p.Topic, p.Partition, s.TakenAt.Sub(start), stallAfter)
				}
			}
			return partitionRow(t, s, topic, 0).Status == model.StatusStalled &&
				partitionRow(t, s, topic, 1).Status == model.StatusStalled
		}, func() string {
			return string(partitionRow(t, s, topic, 0).Status) + "/" + string(partitionRow(t, s, topic, 1).Status)
		})

		if s.Group.State != model.StateStable || len(s.Members) != 1 {
			t.Fatalf("group %s with %d members, want Stable with the stuck member", s.Group.State, len(s.Members))
		}
		for p := 0; p < 2; p++ {
			r := partitionRow(t, s, topic, int32(p))
			if r.ClientID != "consumer-a" || r.Lag == 0 || r.ConsumeRate.PerSec != 0 {
				t.Errorf("p%d: owner %q lag %d consume rate %+v; want consumer-a, lag, nothing consumed", p, r.ClientID, r.Lag, r.ConsumeRate)
			}
			if !r.LagAgeKnown || r.LagAge <= 0 {
				t.Errorf("p%d: lag age %v known %v, want the waiting record's age", p, r.LagAge, r.LagAgeKnown)
			}
		}
		if s.Status != model.StatusStalled || !s.HasWorst || s.ETAKnown {
			t.Errorf("group status %s worst %v eta known %v; want STALLED, a worst partition, no ETA", s.Status, s.HasWorst, s.ETAKnown)
		}
		if s.ProduceRate.Known && s.ProduceRate.PerSec > 0 && !s.FallingBehind {
			t.Errorf("produce %.1f/s, consume %+v: want falling behind", s.ProduceRate.PerSec, s.ConsumeRate)
		}
		if stalledEvent == nil {
			t.Fatal("no status_changed event to STALLED")
		}
		if !slices.Contains(stalledEvent.Partitions, model.TopicPartition{Topic: topic, Partition: 0}) {
			t.Errorf("STALLED event names %v, want %s/0 among them", stalledEvent.Partitions, topic)
		}

		// JSON carries the verdict.
		j := s.ToJSON()
		if j.Status == nil || *j.Status != "STALLED" || j.Partitions[0].Status == nil || *j.Partitions[0].Status != "STALLED" {
			t.Errorf("JSON status %v / %v, want STALLED", j.Status, j.Partitions[0].Status)
		}

		// A commit ends the stall.
		if err := g.CommitOffsets(map[string]map[int]int64{topic: {0: 6}}); err != nil {
			t.Fatalf("commit: %v", err)
		}
		s, _ = annotatedPoll(t, w, h)
		if st := partitionRow(t, s, topic, 0).Status; st == model.StatusStalled {
			t.Errorf("p0 after a commit: %s, want the stall over", st)
		}
	})
}

// TestStatusStoppedEndToEnd: after the only member leaves, the group is
// Empty; partitions with lag are STOPPED from the first snapshot, those
// without stay OK.
func TestStatusStoppedEndToEnd(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		const group, topic = "gone-workers", "payments"
		// Lag 0, 1 and 4, all a minute old: at equal ages the larger lag is worse.
		leftWithCommits(t, tc, group, topic, time.Now().Add(-time.Minute).Truncate(time.Millisecond))

		w := newTestWatcher(t, tc, group)
		h := model.NewHistory(model.HistoryOptions{})
		var s model.Snapshot
		var evs []model.Event
		waitFor(t, 20*time.Second, "an Empty group", func() bool {
			s, evs = annotatedPoll(t, w, h)
			return s.Group.State == model.StateEmpty
		})
		for p, want := range []model.Status{model.StatusOK, model.StatusStopped, model.StatusStopped} {
			if got := partitionRow(t, s, topic, int32(p)).Status; got != want {
				t.Errorf("p%d: %s, want %s", p, got, want)
			}
		}
		if s.Status != model.StatusStopped || !s.HasWorst || s.WorstPartition.Partition != 2 {
			t.Errorf("group status %s, worst %v %v; want STOPPED, p2 (most lag)", s.Status, s.HasWorst, s.WorstPartition)
		}
		if r := partitionRow(t, s, topic, 2); !r.LagAgeKnown || r.LagAge < 50*time.Second {
			t.Errorf("p2 lag age %v known %v, want about a minute", r.LagAge, r.LagAgeKnown)
		}
		var stopped []model.TopicPartition
		for _, e := range evs {
			if e.Type == model.EventStatusChanged && e.State == string(model.StatusStopped) {
				stopped = e.Partitions
			}
		}
		if len(stopped) != 2 {
			t.Errorf("STOPPED event partitions %v, want p1 and p2", stopped)
		}
	})
}
