package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

func TestPollLagAge(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		const group, topic = "aging-workers", "orders"
		tc.createTopic(t, topic, 4)
		old := time.Now().Add(-2 * time.Minute)
		tc.produce(t, topic, 0, 10, old)                           // p0: committed 4, lag 6, 2 minutes old
		tc.produce(t, topic, 1, 5, old)                            // p1: committed 5, lag 0
		tc.produce(t, topic, 2, 10, old)                           // p2: committed 3, records below 6 deleted
		tc.produce(t, topic, 3, 3, time.Now().Add(-5*time.Minute)) // p3: no commit, log-start 1
		tc.produce(t, topic, 3, 3, time.Now())
		tc.deleteRecords(t, topic, 2, 6)
		tc.deleteRecords(t, topic, 3, 1)
		m := tc.joinGroup(t, group, "consumer-a", topic)
		gen := waitAssigned(t, 4, m)[0]
		if err := gen.CommitOffsets(map[string]map[int]int64{topic: {0: 4, 1: 5, 2: 3}}); err != nil {
			t.Fatalf("commit: %v", err)
		}

		w := newTestWatcher(t, tc, group)
		s := pollUntil(t, w, "commits", func(s model.Snapshot) bool {
			return len(s.Partitions) == 4 && s.Partitions[0].Committed == 4
		})
		near := func(got, want time.Duration) bool { return got > want-5*time.Second && got < want+5*time.Second }
		p := s.Partitions
		if !p[0].LagAgeKnown || !near(p[0].LagAge, 2*time.Minute) {
			t.Errorf("p0 lag age %v known %v, want about 120s", p[0].LagAge, p[0].LagAgeKnown)
		}
		if !p[1].LagAgeKnown || p[1].LagAge != 0 || p[1].Lag != 0 {
			t.Errorf("p1 lag %d age %v known %v, want lag 0 age 0", p[1].Lag, p[1].LagAge, p[1].LagAgeKnown)
		}
		if !p[2].LagAgeGone || p[2].LagAgeKnown {
			t.Errorf("p2 gone %v known %v (age %v), want the record reported gone", p[2].LagAgeGone, p[2].LagAgeKnown, p[2].LagAge)
		}
		if !p[3].LagFromStart || !p[3].LagAgeKnown || !near(p[3].LagAge, 5*time.Minute) {
			t.Errorf("p3 from start %v age %v known %v, want about 300s from log-start", p[3].LagFromStart, p[3].LagAge, p[3].LagAgeKnown)
		}
		if !s.MaxLagAgeKnown || !near(s.MaxLagAge, 5*time.Minute) {
			t.Errorf("max lag age %v known %v, want about 300s", s.MaxLagAge, s.MaxLagAgeKnown)
		}
	})
}

func TestPollLagAgeFetchesOnlyWhenCommitMoves(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "aging-workers", "orders"
	tc.createTopic(t, topic, 6)
	old := time.Now().Add(-time.Minute)
	offsets := map[int]int64{}
	for p := 0; p < 6; p++ {
		tc.produce(t, topic, p, 5, old)
		offsets[p] = 1
	}
	tc.commit(t, group, topic, offsets)
	w := newTestWatcher(t, tc, group)

	fetches := func() int {
		tc.resetCounts()
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.Partitions {
			if !p.LagAgeKnown || p.LagAge < time.Minute {
				t.Errorf("%s/%d: lag age %v known %v, want over a minute", p.Topic, p.Partition, p.LagAge, p.LagAgeKnown)
			}
		}
		return tc.requestCounts()["Fetch"]
	}
	if n := fetches(); n != 3 {
		t.Errorf("first poll: %d fetches, want 3 (one per leader)", n)
	}
	if n := fetches(); n != 0 {
		t.Errorf("poll with unchanged commits: %d fetches, want 0", n)
	}
	tc.commit(t, group, topic, map[int]int64{0: 2, 3: 3}) // both led by broker 0
	if n := fetches(); n != 1 {
		t.Errorf("poll after two commits on one leader: %d fetches, want 1", n)
	}
}

// TestPollLagAgeRecordDeletedAfterListOffsets: retention deletes the record
// at the committed offset between the watcher's ListOffsets and its Fetch
// (simulated: the earliest offsets are answered as 0 while the log starts
// at 6). The fetch meets OFFSET_OUT_OF_RANGE and reports the record gone.
func TestPollLagAgeRecordDeletedAfterListOffsets(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "late-workers", "orders"
	tc.createTopic(t, topic, 1)
	tc.produce(t, topic, 0, 10, time.Now().Add(-time.Minute))
	tc.deleteRecords(t, topic, 0, 6)
	tc.commit(t, group, topic, map[int]int64{0: 3})
	tc.ControlKey(int16(kmsg.ListOffsets), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		req := kreq.(*kmsg.ListOffsetsRequest)
		if len(req.Topics) == 0 || len(req.Topics[0].Partitions) == 0 || req.Topics[0].Partitions[0].Timestamp != -2 {
			return nil, nil, false
		}
		tc.KeepControl()
		resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewListOffsetsResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewListOffsetsResponseTopicPartition()
				sp.Partition, sp.Offset, sp.Timestamp = rp.Partition, 0, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	w := newTestWatcher(t, tc, group)
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := s.Partitions[0]
	if p.LogStart != 0 || p.Committed != 3 {
		t.Fatalf("set-up: log-start %d committed %d, want the stale log-start 0 and commit 3", p.LogStart, p.Committed)
	}
	if !p.LagAgeGone || p.LagAgeKnown {
		t.Errorf("gone %v known %v age %v, want the record reported gone", p.LagAgeGone, p.LagAgeKnown, p.LagAge)
	}
	tc.resetCounts()
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := tc.requestCounts()["Fetch"]; n != 0 {
		t.Errorf("%d fetches for a record known gone, want 0", n)
	}
}
