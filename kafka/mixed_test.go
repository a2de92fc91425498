package kafka

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// TestPollMixedGroup: a consumer group being migrated online from the
// classic protocol holds members of both. kfake has no such group: a
// Control answers ConsumerGroupDescribe as Apache Kafka 4 does for one
// (v1 carries each member's MemberType: 0 classic, 1 consumer; v0 has no
// such field), and DescribeGroups as Kafka 4 answers for a consumer group
// (describeAsKafka4); the commits are kfake's. The snapshot, its JSON and
// the members say which members are still classic.
func TestPollMixedGroup(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "migrating", "orders")
	tc.markNonClassic("migrating")
	var version atomic.Int32
	version.Store(-1)
	tc.ControlKey(int16(kmsg.ConsumerGroupDescribe), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		version.Store(int32(req.GetVersion()))
		res := req.ResponseKind().(*kmsg.ConsumerGroupDescribeResponse)
		g := kmsg.NewConsumerGroupDescribeResponseGroup()
		g.Group, g.State, g.Epoch, g.AssignmentEpoch, g.AssignorName = "migrating", "Stable", 3, 3, "uniform"
		for i, typ := range []int8{0, 1, 0} {
			m := kmsg.NewConsumerGroupDescribeResponseGroupMember()
			m.MemberID, m.ClientID, m.ClientHost, m.MemberEpoch = "member-"+string(rune('a'+i)), "client-"+string(rune('a'+i)), "/10.0.0.1", 3
			m.SubscribedTopics = []string{"orders"}
			if req.GetVersion() >= 1 {
				m.MemberType = typ
			}
			tp := kmsg.AssignmentTopicPartition{Topic: "orders", Partitions: []int32{int32(2 * i), int32(2*i + 1)}}
			m.Assignment.TopicPartitions = []kmsg.AssignmentTopicPartition{tp}
			m.TargetAssignment.TopicPartitions = []kmsg.AssignmentTopicPartition{tp}
			g.Members = append(g.Members, m)
		}
		res.Groups = append(res.Groups, g)
		return res, nil, true
	})
	w := newTestWatcher(t, tc, "migrating")
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v := version.Load(); v < 1 {
		t.Fatalf("ConsumerGroupDescribe v%d, want v1 (MemberType)", v)
	}
	if s.Group.Type != model.TypeConsumer || len(s.Members) != 3 {
		t.Fatalf("group %+v with %d members, want a consumer group of 3", s.Group, len(s.Members))
	}
	want := []string{model.ProtocolClassic, model.ProtocolConsumer, model.ProtocolClassic}
	for i, m := range s.Members {
		if m.Protocol != want[i] {
			t.Errorf("%s: protocol %q, want %q", m.MemberID, m.Protocol, want[i])
		}
	}
	if n := model.ClassicMembers(s.Members); n != 2 {
		t.Errorf("%d classic members, want 2", n)
	}
	b, err := model.MarshalJSONSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), `"protocol": "classic"`); got != 2 || !strings.Contains(string(b), `"protocol": "consumer"`) {
		t.Errorf("JSON names %d classic members, want 2 and a consumer one: %s", got, b)
	}
	assertLag(t, s, 3)
}
