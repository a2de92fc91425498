package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// describe848 is what an outside client (franz-go, not the watcher) reads
// with ConsumerGroupDescribe: each member's epoch and current assignment,
// topic ids named through kfake. A group not there yet has no members.
func (tc *testCluster) describe848(t *testing.T, group string) (epoch int32, members map[string][]model.TopicPartition, epochs map[string]int32) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{group}
	res, err := req.RequestWith(context.Background(), cl)
	if err != nil || len(res.Groups) != 1 || (res.Groups[0].ErrorCode != 0 && res.Groups[0].ErrorCode != kerr.GroupIDNotFound.Code) {
		t.Fatalf("outside ConsumerGroupDescribe %s: %v %+v", group, err, res)
	}
	g := res.Groups[0]
	members, epochs = map[string][]model.TopicPartition{}, map[string]int32{}
	for _, m := range g.Members {
		var parts []model.TopicPartition
		for _, tp := range m.Assignment.TopicPartitions {
			name := tp.Topic
			if name == "" {
				name = tc.TopicIDInfo(tp.TopicID).Topic
			}
			for _, p := range tp.Partitions {
				parts = append(parts, model.TopicPartition{Topic: name, Partition: p})
			}
		}
		slices.SortFunc(parts, model.CompareTP)
		members[m.MemberID], epochs[m.MemberID] = parts, m.MemberEpoch
	}
	return g.AssignmentEpoch, members, epochs
}

// A consumer-protocol group reads like a classic one: members, owners, lag,
// on a cluster that answers classic DescribeGroups as Kafka 4 does (Dead);
// what the watcher shows is what ConsumerGroupDescribe says.
func TestPollConsumerGroup(t *testing.T) {
	for _, kafka40 := range []bool{false, true} {
		t.Run(fmt.Sprintf("kafka40=%v", kafka40), func(t *testing.T) {
			tc := newTestCluster(t, kafka40, fast848())
			const group, topic = "g848", "orders"
			tc.createTopic(t, topic, 6)
			tc.produceEach(t, topic, 6, 4, time.Now())
			// Members of a consumer-protocol group commit themselves
			// (Kafka refuses an outsider's commit to a live group).
			commits := []kgo.Opt{kgo.AutoCommitInterval(100 * time.Millisecond), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}
			tc.consumer848(t, group, "consumer-a", []string{topic}, commits...)
			tc.consumer848(t, group, "consumer-b", []string{topic}, commits...)

			w := newTestWatcher(t, tc, group)
			var s model.Snapshot
			var want map[string][]model.TopicPartition
			waitFor(t, 20*time.Second, "a settled group the watcher and an outside describe agree on", func() bool {
				target, before, _ := tc.describe848(t, group)
				var err error
				if s, err = w.Poll(context.Background()); err != nil {
					t.Fatalf("poll: %v", err)
				}
				_, after, _ := tc.describe848(t, group)
				want = after
				if !equalAssignments(before, after) || s.Group.AssignmentEpoch != target || len(s.Members) != 2 {
					return false
				}
				for _, p := range s.Partitions {
					if p.Committed != 4 {
						return false // not all consumed and committed yet
					}
				}
				for _, m := range s.Members {
					if m.Reconciling || !slices.Equal(m.Partitions, after[m.MemberID]) {
						return false
					}
				}
				return s.Group.State == model.StateStable
			}, func() string { return fmt.Sprintf("snapshot %+v; describe %v", s.Members, want) })

			g := s.Group
			if g.Type != model.TypeConsumer || g.ProtocolType != "consumer" || g.Assignor == "" || g.Epoch < 1 || g.AssignmentEpoch != g.Epoch {
				t.Errorf("group %+v: want type consumer, a server assignor, epochs set and equal", g)
			}
			owners := map[model.TopicPartition]string{}
			for id, parts := range want {
				for _, tp := range parts {
					owners[tp] = id
				}
			}
			if len(s.Partitions) != 6 {
				t.Fatalf("%d partitions, want 6", len(s.Partitions))
			}
			for _, p := range s.Partitions {
				if p.MemberID != owners[p.TopicPartition] || len(p.Owners) != 1 || p.PendingMemberID != "" {
					t.Errorf("%s/%d: owner %q (owners %v, pending %q), ConsumerGroupDescribe says %q", p.Topic, p.Partition, p.MemberID, p.Owners, p.PendingMemberID, owners[p.TopicPartition])
				}
				if p.Lag != 0 || p.Committed != 4 || p.LogEnd != 4 {
					t.Errorf("%s/%d: committed %d log-end %d lag %d, want 4, 4, 0", p.Topic, p.Partition, p.Committed, p.LogEnd, p.Lag)
				}
			}
			for _, m := range s.Members {
				if len(m.Partitions) != 3 || !slices.Equal(m.TargetPartitions, m.Partitions) || m.MemberEpoch != g.AssignmentEpoch {
					t.Errorf("member %s: %v target %v epoch %d; want 3 partitions, target equal, epoch %d", m.ClientID, m.Partitions, m.TargetPartitions, m.MemberEpoch, g.AssignmentEpoch)
				}
			}
			b, err := model.MarshalJSONSnapshot(s)
			if err != nil {
				t.Fatal(err)
			}
			var j struct {
				GroupType string `json:"group_type"`
				Epoch     *int32 `json:"group_epoch"`
				Members   []struct {
					MemberEpoch *int32            `json:"member_epoch"`
					Target      *[]map[string]any `json:"target_partitions"`
				} `json:"members"`
			}
			if err := json.Unmarshal(b, &j); err != nil {
				t.Fatal(err)
			}
			if j.GroupType != "consumer" || j.Epoch == nil || len(j.Members) != 2 || j.Members[0].MemberEpoch == nil || j.Members[0].Target == nil {
				t.Errorf("JSON lacks consumer group fields: %s", b)
			}
			// A steady poll describes the group once, as what it is.
			tc.resetCounts()
			if _, err := w.Poll(context.Background()); err != nil {
				t.Fatal(err)
			}
			c := tc.requestCounts()
			if v, o := tc.version("ConsumerGroupDescribe"), tc.version("OffsetFetch"); v != 1 || o != 9 {
				t.Errorf("ConsumerGroupDescribe v%d, OffsetFetch v%d: want v1 and v9", v, o)
			}
			if c["ConsumerGroupDescribe"] != 1 || c["DescribeGroups"]+c["ShareGroupDescribe"]+c["Metadata"] != 0 {
				t.Errorf("steady poll sent %v: want one ConsumerGroupDescribe, no other describe, topic ids cached", c)
			}
			if r := tc.refusals(); len(r) > 0 {
				t.Errorf("refused: %v", r)
			}
			if n := tc.mixedDescribes(); n > 0 {
				t.Errorf("%d DescribeGroups mixed classic and consumer groups", n)
			}
		})
	}
}

func equalAssignments(a, b map[string][]model.TopicPartition) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// A join, a clean leave and a kill (connections cut, no leave) of a
// consumer-protocol member each give member_joined / member_left,
// rebalance_started and rebalance_completed with the partitions that
// moved.
func TestEventsConsumerGroup(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, true, fast848())
	const group, topic = "g848", "orders"
	tc.createTopic(t, topic, 6)
	tc.consumer848(t, group, "consumer-a", []string{topic})
	pollUntil(t, newTestWatcher(t, tc, group), "consumer-a owning all 6", func(s model.Snapshot) bool {
		return len(s.Members) == 1 && len(s.Members[0].Partitions) == 6 && !s.Members[0].Reconciling
	})
	ew := watchEvents(t, tc, group, 200*time.Millisecond)
	_, i := ew.wait(t, 0, 10*time.Second, "watch_started", isEvent(model.EventWatchStarted, ""))

	b := tc.consumer848(t, group, "consumer-b", []string{topic})
	joined, i := ew.wait(t, i, 10*time.Second, "member_joined consumer-b", isEvent(model.EventMemberJoined, "consumer-b"))
	if joined.MemberID == "" || joined.Host == "" {
		t.Errorf("member_joined lacks member id or host: %+v", joined.Event)
	}
	done, i := ew.wait(t, i, 10*time.Second, "rebalance_completed after the join", isEvent(model.EventRebalanceCompleted, ""))
	if n := movesFromTo(done.Moves, "consumer-a", "consumer-b"); n != 3 {
		t.Errorf("join: rebalance_completed moves %+v, want 3 partitions consumer-a → consumer-b", done.Moves)
	}

	b.leave()
	left, i := ew.wait(t, i, 5*time.Second, "member_left consumer-b", isEvent(model.EventMemberLeft, "consumer-b"))
	if len(left.Partitions) != 3 {
		t.Errorf("member_left names %v, want the 3 consumer-b owned", left.Partitions)
	}
	done, i = ew.wait(t, i, 10*time.Second, "rebalance_completed after the leave", isEvent(model.EventRebalanceCompleted, ""))
	if n := movesFromTo(done.Moves, "consumer-b", "consumer-a"); n != 3 {
		t.Errorf("leave: rebalance_completed moves %+v, want 3 partitions consumer-b → consumer-a", done.Moves)
	}

	x := tc.consumer848(t, group, "consumer-x", []string{topic})
	_, i = ew.wait(t, i, 10*time.Second, "rebalance_completed after consumer-x joined", func(e model.Event) bool {
		return e.Type == model.EventRebalanceCompleted && movesFromTo(e.Moves, "consumer-a", "consumer-x") == 3
	})
	x.kill()
	killed := time.Now()
	left, i = ew.wait(t, i, 10*time.Second, "member_left consumer-x", isEvent(model.EventMemberLeft, "consumer-x"))
	after := left.seen.Sub(killed)
	t.Logf("killed member left %s after the kill (session timeout 3s)", after.Round(time.Millisecond))
	if after < 2500*time.Millisecond {
		t.Errorf("member_left %s after the kill, before the session timeout: a leave was sent?", after)
	}
	if len(left.Partitions) != 3 {
		t.Errorf("member_left names %v, want the 3 consumer-x owned", left.Partitions)
	}
	done, _ = ew.wait(t, i, 10*time.Second, "rebalance_completed after the kill", isEvent(model.EventRebalanceCompleted, ""))
	if n := movesFromTo(done.Moves, "consumer-x", "consumer-a"); n != 3 {
		t.Errorf("kill: rebalance_completed moves %+v, want consumer-x's 3 partitions to consumer-a", done.Moves)
	}
	if r := tc.refusals(); len(r) > 0 {
		t.Errorf("refused: %v", r)
	}
}

// Reconciliation is visible while a member lags its target: consumer-a
// takes its time to give partitions up (its revoke callback commits, say),
// so its epoch stays behind the target and consumer-b waits for them. The
// coordinator may already have told consumer-a its new assignment: the
// partitions it is giving up are then in nobody's current assignment, and
// carry consumer-b as their pending owner (Apache Kafka's describe leaves
// partitions pending revocation out of the assignment too).
func TestConsumerGroupReconciliation(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, true, fast848())
	const group, topic = "g848", "orders"
	tc.createTopic(t, topic, 4)
	slow := make(chan struct{})
	var once sync.Once
	tc.consumer848(t, group, "consumer-a", []string{topic}, kgo.OnPartitionsRevoked(func(ctx context.Context, _ *kgo.Client, _ map[string][]int32) {
		once.Do(func() {
			select {
			case <-slow:
			case <-time.After(10 * time.Second):
			}
		})
	}))
	w := newTestWatcher(t, tc, group)
	pollUntil(t, w, "consumer-a owning all 4", func(s model.Snapshot) bool {
		return len(s.Members) == 1 && len(s.Members[0].Partitions) == 4 && !s.Members[0].Reconciling
	})
	ew := watchEvents(t, tc, group, 200*time.Millisecond)
	_, i := ew.wait(t, 0, 10*time.Second, "watch_started", isEvent(model.EventWatchStarted, ""))

	tc.consumer848(t, group, "consumer-b", []string{topic})
	lagging := func(s model.Snapshot) bool {
		if len(s.Members) != 2 || !s.Group.Rebalancing() {
			return false
		}
		a, b := s.Members[0], s.Members[1]
		if !a.Reconciling || a.MemberEpoch >= s.Group.AssignmentEpoch || !b.Reconciling || len(b.Partitions) != 0 || len(b.TargetPartitions) != 2 {
			return false
		}
		for _, tp := range b.TargetPartitions {
			for _, p := range s.Partitions {
				if p.TopicPartition == tp && p.ClientID != "consumer-a" && p.PendingClientID != "consumer-b" {
					return false // neither still consumer-a's nor pending for consumer-b
				}
			}
		}
		return true
	}
	pollUntil(t, w, "consumer-a behind its target, consumer-b waiting", lagging)
	// It stays so while consumer-a holds on: a second later, still.
	time.Sleep(time.Second)
	if s, err := w.Poll(context.Background()); err != nil || !lagging(s) {
		t.Fatalf("a second on: %v; members %+v", err, s.Members)
	}
	ew.wait(t, i, time.Second, "member_reconciling consumer-a", isEvent(model.EventMemberReconciling, "consumer-a"))
	rec, i := ew.wait(t, i, time.Second, "member_reconciling consumer-b", isEvent(model.EventMemberReconciling, "consumer-b"))
	if len(rec.Partitions) != 2 || !strings.Contains(rec.Detail, "to receive") {
		t.Errorf("member_reconciling %q names %v, want the 2 partitions consumer-b is to receive", rec.Detail, rec.Partitions)
	}
	// The event watcher has seen the rebalance begin: held a second more
	// from here, it cannot read shorter than that, however late its polls
	// ran on a loaded machine.
	time.Sleep(time.Second)
	close(slow)
	done, _ := ew.wait(t, i, 10*time.Second, "rebalance_completed", isEvent(model.EventRebalanceCompleted, ""))
	if n := movesFromTo(done.Moves, "consumer-a", "consumer-b"); n != 2 || !done.HasDuration || done.Duration < time.Second {
		t.Errorf("rebalance_completed %q moves %+v, want 2 consumer-a → consumer-b, taking over a second", done.Detail, done.Moves)
	}
	ew.wait(t, 0, time.Second, "member_reconciled consumer-a", isEvent(model.EventMemberReconciled, "consumer-a"))
	ew.wait(t, 0, time.Second, "member_reconciled consumer-b", isEvent(model.EventMemberReconciled, "consumer-b"))
}

// A static member (group.instance.id) restarting within its session keeps
// its identity and its partitions: no member_left, no rebalance.
func TestConsumerGroupStaticRestart(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, true, fast848())
	const group, topic = "g848", "orders"
	tc.createTopic(t, topic, 4)
	a := tc.consumer848(t, group, "consumer-a", []string{topic}, kgo.InstanceID("worker-a"))
	tc.consumer848(t, group, "consumer-b", []string{topic})
	w := newTestWatcher(t, tc, group)
	first := pollUntil(t, w, "two members owning 2 each", func(s model.Snapshot) bool {
		return len(s.Members) == 2 && len(s.Members[0].Partitions) == 2 && len(s.Members[1].Partitions) == 2 &&
			!s.Members[0].Reconciling && !s.Members[1].Reconciling
	})
	ew := watchEvents(t, tc, group, 200*time.Millisecond)
	_, i := ew.wait(t, 0, 10*time.Second, "watch_started", isEvent(model.EventWatchStarted, ""))

	a.leave() // a static leave: the member stays, at epoch -2
	tc.consumer848(t, group, "consumer-a", []string{topic}, kgo.InstanceID("worker-a"))
	back, _ := ew.wait(t, i, 10*time.Second, "consumer-a back", isEvent(model.EventMemberJoined, "consumer-a"))
	if !strings.Contains(back.Detail, "same member, no rebalance") {
		t.Errorf("member_joined %q: want it named a static member's return", back.Detail)
	}
	s := pollUntil(t, w, "consumer-a back with its partitions", func(s model.Snapshot) bool {
		return len(s.Members) == 2 && s.Members[0].MemberID != first.Members[0].MemberID && !s.Members[0].Reconciling
	})
	if !slices.Equal(s.Members[0].Partitions, first.Members[0].Partitions) || s.Members[0].InstanceID != "worker-a" {
		t.Errorf("after the restart consumer-a owns %v (instance %q), before %v", s.Members[0].Partitions, s.Members[0].InstanceID, first.Members[0].Partitions)
	}
	time.Sleep(500 * time.Millisecond) // a few more polls
	ew.mu.Lock()
	defer ew.mu.Unlock()
	for _, e := range ew.events[i:] {
		if e.Type == model.EventMemberLeft || (e.Type == model.EventRebalanceCompleted && len(e.Moves) > 0) {
			t.Errorf("static restart gave %s %q", e.Type, e.Detail)
		}
	}
}
