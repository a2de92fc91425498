package kafka

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// A classic group migrated online to the consumer protocol and back, as
// Apache Kafka's GroupMetadataManager does it (migration policy
// bidirectional): while classic, DescribeGroups describes it and
// ConsumerGroupDescribe answers GROUP_ID_NOT_FOUND ("… is not a consumer
// group"); once a consumer-protocol member joins, the coordinator
// converts it, keeping its classic members: ConsumerGroupDescribe v1
// describes it with each member's MemberType and DescribeGroups answers
// as Kafka 4 does for a consumer group (describeAsKafka4); when its last
// consumer-protocol member leaves, it is a classic group again. kfake has
// no migration: Controls answer both describes; commits, topics and
// offsets are kfake's.
type migration struct {
	phase atomic.Int32 // index into the phases below
}

// Phases: classic a, b; consumer group a, b (classic) and d (consumer);
// a restarted with the consumer protocol (a new member id); classic b
// alone.
const (
	phaseClassic = iota
	phaseUpgraded
	phaseMovedA
	phaseDowngraded
)

func classicMember(t *testing.T, id, client string, parts ...int32) kmsg.DescribeGroupsResponseGroupMember {
	t.Helper()
	meta := kmsg.NewConsumerMemberMetadata()
	meta.Topics = []string{"orders"}
	asg := kmsg.NewConsumerMemberAssignment()
	asg.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "orders", Partitions: parts}}
	m := kmsg.NewDescribeGroupsResponseGroupMember()
	m.MemberID, m.ClientID, m.ClientHost = id, client, "/10.0.0.1"
	m.ProtocolMetadata, m.MemberAssignment = meta.AppendTo(nil), asg.AppendTo(nil)
	return m
}

func mixedMember(id, client string, typ int8, epoch int32, parts ...int32) kmsg.ConsumerGroupDescribeResponseGroupMember {
	m := kmsg.NewConsumerGroupDescribeResponseGroupMember()
	m.MemberID, m.ClientID, m.ClientHost, m.MemberEpoch, m.MemberType = id, client, "/10.0.0.1", epoch, typ
	m.SubscribedTopics = []string{"orders"}
	tp := kmsg.AssignmentTopicPartition{Topic: "orders", Partitions: parts}
	m.Assignment.TopicPartitions = []kmsg.AssignmentTopicPartition{tp}
	m.TargetAssignment.TopicPartitions = []kmsg.AssignmentTopicPartition{tp}
	return m
}

func serveMigration(t *testing.T, tc *testCluster, group string) *migration {
	mg := &migration{}
	consumerPhase := func() bool { p := mg.phase.Load(); return p == phaseUpgraded || p == phaseMovedA }
	tc.ControlKey(int16(kmsg.DescribeGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		r := req.(*kmsg.DescribeGroupsRequest)
		if len(r.Groups) != 1 || r.Groups[0] != group || consumerPhase() {
			return nil, nil, false // describeAsKafka4 answers the consumer phases
		}
		res := r.ResponseKind().(*kmsg.DescribeGroupsResponse)
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group, g.State, g.ProtocolType, g.Protocol = group, "Stable", "consumer", "range"
		if mg.phase.Load() == phaseClassic {
			g.Members = append(g.Members, classicMember(t, "member-a", "client-a", 0, 1, 2), classicMember(t, "member-b", "client-b", 3, 4, 5))
		} else {
			g.Members = append(g.Members, classicMember(t, "member-b", "client-b", 0, 1, 2, 3, 4, 5))
		}
		res.Groups = append(res.Groups, g)
		return res, nil, true
	})
	tc.ControlKey(int16(kmsg.ConsumerGroupDescribe), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		res := req.ResponseKind().(*kmsg.ConsumerGroupDescribeResponse)
		g := kmsg.NewConsumerGroupDescribeResponseGroup()
		g.Group = group
		switch mg.phase.Load() {
		case phaseUpgraded:
			g.State, g.Epoch, g.AssignmentEpoch, g.AssignorName = "Stable", 2, 2, "uniform"
			g.Members = append(g.Members, mixedMember("member-a", "client-a", 0, 2, 0, 1),
				mixedMember("member-b", "client-b", 0, 2, 3, 4), mixedMember("d-uuid", "client-d", 1, 2, 2, 5))
		case phaseMovedA:
			g.State, g.Epoch, g.AssignmentEpoch, g.AssignorName = "Stable", 4, 4, "uniform"
			g.Members = append(g.Members, mixedMember("a-uuid", "client-a", 1, 4, 0, 1),
				mixedMember("member-b", "client-b", 0, 4, 3, 4), mixedMember("d-uuid", "client-d", 1, 4, 2, 5))
		default:
			g.ErrorCode = kerr.GroupIDNotFound.Code
			g.ErrorMessage = kmsg.StringPtr("Group " + group + " is not a consumer group.")
		}
		res.Groups = append(res.Groups, g)
		return res, nil, true
	})
	return mg
}

func (mg *migration) enter(tc *testCluster, group string, phase int32) {
	mg.phase.Store(phase)
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if phase == phaseUpgraded || phase == phaseMovedA {
		if tc.nonClassic == nil {
			tc.nonClassic = map[string]bool{}
		}
		tc.nonClassic[group] = true
	} else {
		delete(tc.nonClassic, group)
	}
}

// TestMigrationEvents: the timeline of a group watched through an online
// migration tells the type changes and the member that moved over.
func TestMigrationEvents(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "migrating", "orders")
	mg := serveMigration(t, tc, "migrating")
	w := newTestWatcher(t, tc, "migrating")
	tr := model.NewTracker("migrating", 0)
	var events []model.Event
	for _, phase := range []int32{phaseClassic, phaseUpgraded, phaseMovedA, phaseDowngraded} {
		mg.enter(tc, "migrating", phase)
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("phase %d: %v", phase, err)
		}
		want := model.TypeClassic
		if phase == phaseUpgraded || phase == phaseMovedA {
			want = model.TypeConsumer
		}
		if s.Group.Type != want || s.Group.State != model.StateStable {
			t.Fatalf("phase %d: group %s %s, want a Stable %s group", phase, s.Group.Type, s.Group.State, want)
		}
		events = append(events, tr.Observe(s)...)
	}
	var types, protocols []model.Event
	for _, e := range events {
		switch e.Type {
		case model.EventGroupTypeChanged:
			types = append(types, e)
		case model.EventMemberProtocolChanged:
			protocols = append(protocols, e)
		case model.EventMemberJoined:
			if e.ClientID == "client-d" && e.Protocol != model.ProtocolConsumer {
				t.Errorf("client-d joined speaking %q, want consumer", e.Protocol)
			}
		}
	}
	if len(types) != 2 || types[0].FromType != model.TypeClassic || types[0].ToType != model.TypeConsumer ||
		types[1].FromType != model.TypeConsumer || types[1].ToType != model.TypeClassic {
		t.Fatalf("type changes %+v, want classic → consumer, then back", types)
	}
	if !strings.Contains(types[0].Detail, "client-d joined speaking the consumer protocol; 2 of 3 members still classic") {
		t.Errorf("upgrade: %q", types[0].Detail)
	}
	if len(protocols) != 1 || protocols[0].ClientID != "client-a" || protocols[0].FromProtocol != model.ProtocolClassic {
		t.Errorf("protocol changes %+v, want client-a's, classic → consumer", protocols)
	}
	b, err := model.MarshalEventJSON(protocols[0])
	if err != nil || !strings.Contains(string(b), `"protocol":"consumer"`) || !strings.Contains(string(b), `"from_protocol":"classic"`) {
		t.Errorf("member_protocol_changed JSON %s (%v)", b, err)
	}
}
