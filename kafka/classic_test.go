package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// classicKgo starts a franz-go member of a classic group (JoinGroup and
// SyncGroup; its balancer is franz-go's default, cooperative-sticky,
// unless opts say otherwise).
func (tc *testCluster) classicKgo(t *testing.T, group, clientID, topic string, opts ...kgo.Opt) *kgoMember {
	t.Helper()
	base := []kgo.Opt{kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.SessionTimeout(3 * time.Second), kgo.HeartbeatInterval(100 * time.Millisecond)}
	return tc.kgoJoin(t, clientID, append(base, opts...)...)
}

// Static members of a classic group (group.instance.id, DescribeGroups
// v4+) carry their instance id to the snapshot and its JSON.
func TestPollClassicStaticMembers(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		const group, topic = "static-workers", "orders"
		tc.createTopic(t, topic, 2)
		tc.classicKgo(t, group, "consumer-a", topic, kgo.InstanceID("worker-a"), kgo.Balancers(kgo.RangeBalancer()))
		tc.classicKgo(t, group, "consumer-b", topic, kgo.Balancers(kgo.RangeBalancer()))
		w := newTestWatcher(t, tc, group)
		s := pollUntil(t, w, "two members owning a partition each", func(s model.Snapshot) bool {
			return s.Group.State == model.StateStable && len(s.Members) == 2 &&
				len(s.Members[0].Partitions) == 1 && len(s.Members[1].Partitions) == 1
		})
		if s.Group.Type != model.TypeClassic || s.Group.Cooperative {
			t.Errorf("group type %q cooperative %v, want classic and eager (range)", s.Group.Type, s.Group.Cooperative)
		}
		b, err := model.MarshalJSONSnapshot(s)
		if err != nil {
			t.Fatal(err)
		}
		var j struct {
			Members []struct {
				ClientID   string  `json:"client_id"`
				InstanceID *string `json:"instance_id"`
			} `json:"members"`
		}
		if err := json.Unmarshal(b, &j); err != nil {
			t.Fatal(err)
		}
		if len(j.Members) != 2 || j.Members[0].InstanceID == nil || *j.Members[0].InstanceID != "worker-a" || j.Members[1].InstanceID != nil {
			t.Errorf("JSON members %s: want consumer-a's instance_id worker-a, consumer-b's null", b)
		}
		// A steady poll describes the group once, as what it is. (The
		// cluster counts its members' requests too: they send OffsetFetch
		// after an assignment, never a describe.)
		tc.resetCounts()
		if _, err := w.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
		if c := tc.requestCounts(); c["DescribeGroups"] != 1 || c["OffsetFetch"] < 1 || c["ConsumerGroupDescribe"]+c["ShareGroupDescribe"]+c["DescribeShareGroupOffsets"] != 0 {
			t.Errorf("steady poll sent %v: want one DescribeGroups, an OffsetFetch, no other describe", c)
		}
	})
}

// A cooperative rebalance is shown as what it is: its revoke phase, then
// its assign phase, one generation later, each a rebalance_completed; the
// moved partitions are owned by their old owner until the revoke phase
// ends, unowned only until the assign phase gives them to the new one, and
// the others are owned throughout. Cooperative is read from the members'
// subscriptions: the assignor is franz-go's, whatever its name.
func TestCooperativeRebalancePhases(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, true)
	const group, topic = "coop-workers", "orders"
	tc.createTopic(t, topic, 4)
	var mu sync.Mutex
	slow := true
	// consumer-a's revoke takes 800ms (it commits what it had, say):
	// the revoke phase's generation stays Stable that long.
	tc.classicKgo(t, group, "consumer-a", topic, kgo.OnPartitionsRevoked(func(context.Context, *kgo.Client, map[string][]int32) {
		mu.Lock()
		wait := slow
		mu.Unlock()
		if wait {
			time.Sleep(800 * time.Millisecond)
		}
	}))
	w := newTestWatcher(t, tc, group)
	pollUntil(t, w, "consumer-a owning all 4", func(s model.Snapshot) bool {
		return s.Group.State == model.StateStable && len(s.Members) == 1 && len(s.Members[0].Partitions) == 4
	})

	tr := model.NewTracker(group, 0)
	lanes := model.NewLanes(0)
	var events []model.Event
	// The lanes are drawn at each poll's start (TakenAt), its events are
	// dated at its end (ObservedAt): taken maps one to the other, so the
	// phases are compared with the lanes on the lanes' clock (a slow poll
	// under load is no flake).
	taken := map[time.Time]time.Time{}
	observe := func() model.Snapshot {
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		events = append(events, tr.Observe(s)...)
		lanes.Observe(s)
		taken[s.ObservedAt()] = s.TakenAt
		return s
	}
	takenAt := func(e *model.Event) time.Time {
		if at, ok := taken[e.Time]; ok {
			return at
		}
		return e.Time
	}
	start := observe().TakenAt
	tc.classicKgo(t, group, "consumer-b", topic)
	var last model.Snapshot
	deadline := time.Now().Add(15 * time.Second)
	for {
		last = observe()
		if last.Group.State == model.StateStable && len(last.Members) == 2 && len(last.Members[0].Partitions) == 2 && len(last.Members[1].Partitions) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 2+2 assignment within 15s; events:%s", eventList(events))
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	slow = false
	mu.Unlock()

	var revoke, assign *model.Event
	for i := range events {
		e := &events[i]
		if e.Type == model.EventRebalanceCompleted && e.Phase == model.PhaseRevoke {
			revoke = e
		}
		if e.Type == model.EventRebalanceCompleted && e.Phase == model.PhaseAssign {
			assign = e
		}
	}
	t.Logf("events:%s", eventList(events))
	if revoke == nil || assign == nil {
		t.Fatalf("want a revoke phase and an assign phase; events:%s", eventList(events))
	}
	// The revoke phase lists what it revoked; the moves are the assign
	// phase's, each once, dated by the revoke.
	if len(revoke.Partitions) != 2 || len(revoke.Moves) != 0 || !strings.Contains(revoke.Detail, "consumer-a gave up") {
		t.Errorf("revoke phase %q partitions %v moves %+v: want consumer-a giving up 2, no moves yet", revoke.Detail, revoke.Partitions, revoke.Moves)
	}
	for _, e := range events {
		if e.Type == model.EventPartitionMoved && !e.Time.Equal(revoke.Time) {
			t.Errorf("%s dated %v, want the revoke phase's %v", e.Detail, e.Time, revoke.Time)
		}
	}
	if movesFromTo(assign.Moves, "consumer-a", "consumer-b") != 2 || !assign.Time.After(revoke.Time) {
		t.Errorf("assign phase %q moves %+v: want 2 consumer-a → consumer-b after the revoke phase", assign.Detail, assign.Moves)
	}

	// Lanes, in 50ms periods from the join to the end.
	const step = 50 * time.Millisecond
	cells := make([]int, int(last.TakenAt.Sub(start)/step)+3) // two periods past the end
	moved := map[model.TopicPartition]bool{}
	for _, m := range assign.Moves {
		moved[m.TopicPartition] = true
	}
	owners := lanes.Owners()
	for r, tp := range lanes.Rows() {
		lanes.Lane(r, start, step, cells)
		var seq []string
		unowned := time.Duration(0)
		for _, c := range cells {
			switch {
			case c == model.LaneRebalancing:
				seq = appendRun(seq, ".")
			case c == model.LaneUnowned:
				seq = appendRun(seq, "_")
				unowned += step
			case c >= 0:
				seq = appendRun(seq, owners[c])
			default:
				seq = appendRun(seq, "?")
			}
		}
		got := strings.Join(seq, " ")
		t.Logf("p%d: %s (unowned %s)", tp.Partition, got, unowned)
		switch {
		case moved[tp]:
			if got != "consumer-a _ consumer-b" {
				t.Errorf("moved p%d: lane %q, want consumer-a, unowned, consumer-b", tp.Partition, got)
			}
			// Unowned from the revoke phase's end to the assign phase's
			// end, give or take a period at each end.
			if between := takenAt(assign).Sub(takenAt(revoke)); unowned > between+2*step {
				t.Errorf("moved p%d unowned %s, longer than between the phases (%s)", tp.Partition, unowned, between)
			}
		default:
			if got != "consumer-a" {
				t.Errorf("kept p%d: lane %q, want consumer-a throughout", tp.Partition, got)
			}
		}
	}
	if !last.Group.Cooperative {
		t.Error("Group.Cooperative false after a cooperative rebalance")
	}
	if r := tc.refusals(); len(r) > 0 {
		t.Errorf("refused: %v", r)
	}
}

func appendRun(seq []string, s string) []string {
	if n := len(seq); n > 0 && seq[n-1] == s {
		return seq
	}
	return append(seq, s)
}

func eventList(evs []model.Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "\n  %s %s %s %q", e.Time.Format("15:04:05.000"), e.Type, e.Phase, e.Detail)
	}
	return b.String()
}
