package kafka

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// describeNames are the describes a poll may send to learn a group's type.
var describeNames = []string{"DescribeGroups", "ConsumerGroupDescribe", "ShareGroupDescribe", "StreamsGroupDescribe"}

// describes polls a fresh watcher of group twice, cold then warm, and
// returns each poll's describes by name, as the watcher wrote them (a
// wireTap: the cluster's counts miss the requests its controls answer,
// and hold the members' own), and the type the warm poll read.
func describes(t *testing.T, tc *testCluster, group string) (cold, warm map[string]int, typ model.GroupType) {
	t.Helper()
	tap := &wireTap{}
	w := newTestWatcher(t, tc, group)
	w.dial = tap.dial
	poll := func() (map[string]int, model.Snapshot) {
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("poll %s: %v", group, err)
		}
		out := map[string]int{}
		for _, k := range tap.sent() {
			if n := kmsg.NameForKey(k); slices.Contains(describeNames, n) {
				out[n]++
			}
		}
		return out, s
	}
	cold, cs := poll()
	warm, ws := poll()
	if cs.Group.Type != ws.Group.Type {
		t.Errorf("%s: cold poll read type %q, warm %q", group, cs.Group.Type, ws.Group.Type)
	}
	return cold, warm, ws.Group.Type
}

// wantDescribes checks a group's describes, cold and warm, and its type.
func wantDescribes(t *testing.T, tc *testCluster, group string, typ model.GroupType, cold, warm map[string]int) {
	t.Helper()
	c, w, got := describes(t, tc, group)
	if got != typ || !equalCounts(c, cold) || !equalCounts(w, warm) {
		t.Errorf("group %s read as %q: cold poll described %v, warm %v; want %q, cold %v, warm %v", group, got, c, w, typ, cold, warm)
	}
}

// TestProbeOrder: a cold poll of a classic group sends one describe,
// DescribeGroups; a group of another type is described by its own
// describe after DescribeGroups' answer says it is none of classic's
// (Dead on Kafka 4, a live state without members on kfake); every warm
// poll sends the learnt type's describe alone. No type is misread on
// kfake (whose DescribeGroups answers for a consumer group with its live
// state) or on a Kafka 4.0 cluster (Dead, GROUP_ID_NOT_FOUND).
func TestProbeOrder(t *testing.T) {
	t.Parallel()
	dg := map[string]int{"DescribeGroups": 1}
	for _, kafka40 := range []bool{false, true} {
		t.Run(fmt.Sprintf("kafka40=%v", kafka40), func(t *testing.T) {
			t.Parallel()
			tc := newTestCluster(t, kafka40, fast848())
			tc.createTopic(t, "orders", 3)
			tc.produceEach(t, "orders", 3, 4, time.Now())

			// A classic group with members: one describe, cold and warm.
			tc.classicKgo(t, "classic-live", "classic-a", "orders")
			waitFor(t, 20*time.Second, "a Stable classic group", func() bool {
				g := tc.GroupInfo("classic-live")
				return g != nil && g.State == "Stable" && len(g.Members) == 1
			}, func() string { return fmt.Sprintf("%+v", tc.GroupInfo("classic-live")) })
			wantDescribes(t, tc, "classic-live", model.TypeClassic, dg, dg)

			// A classic group that holds only commits (Empty, no members):
			// kfake answers so for an empty consumer group too, so the
			// cold poll asks ConsumerGroupDescribe once.
			tc.commit(t, "classic-commits", "orders", map[int]int64{0: 1, 1: 2, 2: 3})
			wantDescribes(t, tc, "classic-commits", model.TypeClassic,
				map[string]int{"DescribeGroups": 1, "ConsumerGroupDescribe": 1}, dg)

			// A consumer-protocol group: on kfake DescribeGroups answers with
			// its live state and no members, on Kafka 4 Dead.
			if kafka40 {
				tc.markNonClassic("g848")
			}
			tc.kgoJoin(t, "c848", kgo.ConsumerGroup("g848"), kgo.ConsumeTopics("orders"), kgo.ServerSideBalancer())
			waitFor(t, 20*time.Second, "a consumer group member with partitions", func() bool {
				g := tc.GroupInfo("g848")
				return g != nil && len(g.Members) == 1 && len(g.Members[0].Assignment["orders"]) == 3
			}, func() string { return fmt.Sprintf("%+v", tc.GroupInfo("g848")) })
			cgd := map[string]int{"ConsumerGroupDescribe": 1}
			wantDescribes(t, tc, "g848", model.TypeConsumer, map[string]int{"DescribeGroups": 1, "ConsumerGroupDescribe": 1}, cgd)

			// A share group (Kafka 4.0 has none): DescribeGroups answers
			// Dead.
			if !kafka40 {
				tc.shareGroup(t, "jobs-q", "orders", 1)
				waitFor(t, 20*time.Second, "a share group member", func() bool {
					g := tc.GroupInfo("jobs-q")
					return g != nil && len(g.Members) == 1
				}, func() string { return fmt.Sprintf("%+v", tc.GroupInfo("jobs-q")) })
				wantDescribes(t, tc, "jobs-q", model.TypeShare,
					map[string]int{"DescribeGroups": 1, "ConsumerGroupDescribe": 1, "ShareGroupDescribe": 1},
					map[string]int{"ShareGroupDescribe": 1})
			}
			if n := tc.mixedDescribes(); n > 0 {
				t.Errorf("%d DescribeGroups mixed classic and consumer groups", n)
			}
		})
	}
}

// TestProbeEmptyConsumerGroup: an empty consumer-protocol group, which
// kfake's DescribeGroups answers Empty with no members as it would an
// empty classic group, is read as a consumer group.
func TestProbeEmptyConsumerGroup(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, false, fast848())
	tc.createTopic(t, "orders", 3)
	tc.produceEach(t, "orders", 3, 4, time.Now())
	m := tc.kgoJoin(t, "c848", kgo.ConsumerGroup("g848"), kgo.ConsumeTopics("orders"), kgo.ServerSideBalancer(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.AutoCommitInterval(100*time.Millisecond))
	waitFor(t, 20*time.Second, "a consumer group member with partitions", func() bool {
		g := tc.GroupInfo("g848")
		return g != nil && len(g.Members) == 1 && len(g.Members[0].Assignment["orders"]) == 3
	}, func() string { return fmt.Sprintf("%+v", tc.GroupInfo("g848")) })
	m.leave()
	waitFor(t, 20*time.Second, "an Empty consumer group", func() bool {
		g := tc.GroupInfo("g848")
		return g != nil && g.State == "Empty" && len(g.Members) == 0
	}, func() string { return fmt.Sprintf("%+v", tc.GroupInfo("g848")) })
	wantDescribes(t, tc, "g848", model.TypeConsumer,
		map[string]int{"DescribeGroups": 1, "ConsumerGroupDescribe": 1}, map[string]int{"ConsumerGroupDescribe": 1})
}

// TestProbeStreamsGroup: a streams group (answered as Kafka 4.2 does) is
// described by each describe once on the cold poll, by its own alone
// after.
func TestProbeStreamsGroup(t *testing.T) {
	t.Parallel()
	tc, _ := newStreamsCluster(t, streamsGroup("Stable", 5, 5,
		streamsMember("m-a", "proc-1", "wordcount-1", 5, half0, half0, nil)))
	wantDescribes(t, tc, "wordcount", model.TypeStreams,
		map[string]int{"DescribeGroups": 1, "ConsumerGroupDescribe": 1, "ShareGroupDescribe": 1, "StreamsGroupDescribe": 1},
		map[string]int{"StreamsGroupDescribe": 1})
}
