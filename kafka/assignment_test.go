package kafka

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

func TestDecodeAssignment(t *testing.T) {
	// version 1, [orders: 2, 0], [audit: 7], user data "x"
	valid := []byte{0, 1, 0, 0, 0, 2,
		0, 6, 'o', 'r', 'd', 'e', 'r', 's', 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0,
		0, 5, 'a', 'u', 'd', 'i', 't', 0, 0, 0, 1, 0, 0, 0, 7,
		0, 0, 0, 1, 'x'}
	got, err := decodeAssignment(valid)
	want := []model.TopicPartition{{Topic: "audit", Partition: 7}, {Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 2}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("decode valid: %v %v, want %v", got, err, want)
	}
	for name, b := range map[string][]byte{
		"truncated topic":      valid[:10],
		"truncated partitions": valid[:20],
		"huge partition count": {0, 0, 0, 0, 0, 1, 0, 1, 'a', 0x7f, 0xff, 0xff, 0xff},
		"negative version":     {0xff, 0xff, 0, 0, 0, 0},
		"one byte":             {0},
	} {
		if got, err := decodeAssignment(b); err == nil {
			t.Errorf("%s: decoded %v, want an error", name, got)
		}
	}
	if got, err := decodeAssignment(nil); err != nil || got != nil {
		t.Errorf("empty assignment: %v %v, want nothing", got, err)
	}
}

func TestMembersWithBadAssignments(t *testing.T) {
	g := kmsg.DescribeGroupsResponseGroup{ProtocolType: "consumer", Members: []kmsg.DescribeGroupsResponseGroupMember{
		{MemberID: "m1", ClientID: "a", ClientHost: "/10.0.0.1", MemberAssignment: []byte{0, 0, 0, 0, 0, 9}},
		{MemberID: "m2", ClientID: "b", ClientHost: "/10.0.0.2"},
	}}
	ms, _ := classicMembers(g)
	if len(ms) != 2 || ms[0].Partitions != nil || ms[1].Partitions != nil || ms[0].Host != "/10.0.0.1" {
		t.Errorf("members %+v, want two members without partitions", ms)
	}
}

func TestMembersKeepInstanceID(t *testing.T) {
	g := kmsg.DescribeGroupsResponseGroup{ProtocolType: "consumer", Members: []kmsg.DescribeGroupsResponseGroupMember{
		{MemberID: "m1", InstanceID: kmsg.StringPtr("worker-1"), ClientID: "a"},
		{MemberID: "m2", ClientID: "b"},
	}}
	ms, _ := classicMembers(g)
	if len(ms) != 2 || ms[0].InstanceID != "worker-1" || ms[1].InstanceID != "" {
		t.Errorf("members %+v, want worker-1's instance id kept", ms)
	}
}

// Cooperative is read from the subscriptions: a member that joined still
// owning partitions (v1+ owned partitions), never from the assignor name.
func TestMembersCooperativeFromSubscription(t *testing.T) {
	sub := func(owned ...int32) []byte {
		m := kmsg.NewConsumerMemberMetadata()
		m.Version = 2
		m.Topics = []string{"orders"}
		if len(owned) > 0 {
			m.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "orders", Partitions: owned}}
		}
		return m.AppendTo(nil)
	}
	eager := kmsg.DescribeGroupsResponseGroup{ProtocolType: "consumer", Protocol: "cooperative-sticky", Members: []kmsg.DescribeGroupsResponseGroupMember{
		{MemberID: "m1", ProtocolMetadata: sub()}, {MemberID: "m2", ProtocolMetadata: sub()},
	}}
	if ms, coop := classicMembers(eager); coop || len(ms[0].SubscribedTopics) != 1 {
		t.Errorf("no member kept partitions: cooperative %v (by name only), topics %v", coop, ms[0].SubscribedTopics)
	}
	kept := kmsg.DescribeGroupsResponseGroup{ProtocolType: "consumer", Protocol: "my-assignor", Members: []kmsg.DescribeGroupsResponseGroupMember{
		{MemberID: "m1", ProtocolMetadata: sub(0, 1)}, {MemberID: "m2", ProtocolMetadata: sub()},
	}}
	if _, coop := classicMembers(kept); !coop {
		t.Error("a member joined owning p0, p1: want cooperative")
	}
}

// TestShareTopicsNamed checks the naming rule share members and share
// offsets use: the answer's name, else the name known for the id, else the
// id (a topic deleted since).
func TestShareTopicsNamed(t *testing.T) {
	known, gone := [16]byte{1}, [16]byte{2}
	name := func(id [16]byte) string {
		if id == known {
			return "orders"
		}
		return ""
	}
	var m kmsg.ShareGroupDescribeResponseGroupMember
	m.Assignment.TopicPartitions = []kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition{
		{Topic: "named", TopicID: known, Partitions: []int32{1}},
		{TopicID: known, Partitions: []int32{0}},
		{TopicID: gone, Partitions: []int32{3}},
	}
	got := shareMembers(kmsg.ShareGroupDescribeResponseGroup{Members: []kmsg.ShareGroupDescribeResponseGroupMember{m}}, name)
	want := []model.TopicPartition{{Topic: "named", Partition: 1}, {Topic: "orders", Partition: 0}, {Topic: topicIDText(gone), Partition: 3}}
	if len(got) != 1 || !reflect.DeepEqual(got[0].Partitions, want) {
		t.Fatalf("share member partitions = %+v, want %+v", got, want)
	}

	var g kmsg.DescribeShareGroupOffsetsResponseGroup
	for _, at := range m.Assignment.TopicPartitions {
		g.Topics = append(g.Topics, kmsg.DescribeShareGroupOffsetsResponseGroupTopic{
			Topic: at.Topic, TopicID: at.TopicID,
			Partitions: []kmsg.DescribeShareGroupOffsetsResponseGroupTopicPartition{{Partition: at.Partitions[0], StartOffset: 5}},
		})
	}
	parts, errs := shareOffsets(g, name)
	start := map[model.TopicPartition]int64{}
	for _, p := range parts {
		start[p.TopicPartition] = p.Committed
	}
	wantStart := map[model.TopicPartition]int64{want[0]: 5, want[1]: 5, want[2]: 5}
	if !reflect.DeepEqual(start, wantStart) || errs != nil {
		t.Fatalf("share start offsets = %v (errors %v), want %v", start, errs, wantStart)
	}
}

// The watcher's member cache gives, poll after poll, what decoding every
// member afresh gives, for members that come, go, change their assignment,
// subscription, client id or instance id, or send bytes that do not
// decode; a member whose bytes are the same again is not decoded again.
func TestMemberCacheDecodesAsAfresh(t *testing.T) {
	assign := func(ps ...int32) []byte {
		a := kmsg.NewConsumerMemberAssignment()
		a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "orders", Partitions: ps}}
		return a.AppendTo(nil)
	}
	sub := func(version int16, owned ...int32) []byte {
		m := kmsg.NewConsumerMemberMetadata()
		m.Version = version
		m.Topics = []string{"orders"}
		if len(owned) > 0 {
			m.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "orders", Partitions: owned}}
		}
		return m.AppendTo(nil)
	}
	assignments := [][]byte{nil, assign(0, 1), assign(2), assign(3, 1, 0), {0, 0, 0, 0, 0, 9}}
	subs := [][]byte{nil, sub(0), sub(1, 0, 1), sub(2, 2), {0, 1}}
	rng := rand.New(rand.NewPCG(19, 7))
	var c memberCache
	for poll := range 400 {
		g := kmsg.DescribeGroupsResponseGroup{ProtocolType: []string{"consumer", "", "connect"}[rng.IntN(3)]}
		if poll%5 != 0 {
			g.ProtocolType = "consumer"
		}
		for i := range rng.IntN(5) {
			m := kmsg.DescribeGroupsResponseGroupMember{
				MemberID:         fmt.Sprintf("m%d", i+rng.IntN(2)),
				ClientID:         fmt.Sprintf("c%d", rng.IntN(2)),
				ClientHost:       "/10.0.0.1",
				MemberAssignment: slices.Clone(assignments[rng.IntN(len(assignments))]),
				ProtocolMetadata: slices.Clone(subs[rng.IntN(len(subs))]),
			}
			if rng.IntN(2) == 0 {
				m.InstanceID = kmsg.StringPtr(fmt.Sprintf("i%d", rng.IntN(2)))
			}
			g.Members = append(g.Members, m)
		}
		want, wantCoop := classicMembers(g)
		got, gotCoop := c.classicMembers(g)
		if !reflect.DeepEqual(got, want) || gotCoop != wantCoop {
			t.Fatalf("poll %d: cached members %+v (cooperative %v), decoded afresh %+v (%v)", poll, got, gotCoop, want, wantCoop)
		}
	}

	// The same bytes again: the partition list is last poll's, not a new
	// decode; other bytes are decoded.
	g := kmsg.DescribeGroupsResponseGroup{ProtocolType: "consumer", Members: []kmsg.DescribeGroupsResponseGroupMember{
		{MemberID: "a", MemberAssignment: assign(0, 1), ProtocolMetadata: sub(1)},
	}}
	first, _ := c.classicMembers(g)
	kept := &c.last["a"].assignment[0]
	again, _ := c.classicMembers(g)
	if &again[0].Partitions[0] != &first[0].Partitions[0] {
		t.Error("the same assignment bytes were decoded again")
	}
	if &c.last["a"].assignment[0] != kept {
		t.Error("the same assignment bytes were copied again")
	}
	g.Members[0].MemberAssignment = assign(0, 2)
	moved, _ := c.classicMembers(g)
	if want := []model.TopicPartition{{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 2}}; !slices.Equal(moved[0].Partitions, want) {
		t.Errorf("a new assignment read as %v, want %v", moved[0].Partitions, want)
	}
}
