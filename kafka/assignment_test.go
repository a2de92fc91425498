package kafka

import (
	"reflect"
	"testing"

	"github.com/segmentio/kafka-go/protocol/describegroups"

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
	g := describegroups.ResponseGroup{ProtocolType: "consumer", Members: []describegroups.ResponseGroupMember{
		{MemberID: "m1", ClientID: "a", ClientHost: "/10.0.0.1", MemberAssignment: []byte{0, 0, 0, 0, 0, 9}},
		{MemberID: "m2", ClientID: "b", ClientHost: "/10.0.0.2"},
	}}
	ms := members(g)
	if len(ms) != 2 || ms[0].Partitions != nil || ms[1].Partitions != nil || ms[0].Host != "/10.0.0.1" {
		t.Errorf("members %+v, want two members without partitions", ms)
	}
}

func TestMembersKeepInstanceID(t *testing.T) {
	g := describegroups.ResponseGroup{ProtocolType: "consumer", Members: []describegroups.ResponseGroupMember{
		{MemberID: "m1", GroupInstanceID: "worker-1", ClientID: "a"},
		{MemberID: "m2", ClientID: "b"},
	}}
	ms := members(g)
	if len(ms) != 2 || ms[0].InstanceID != "worker-1" || ms[1].InstanceID != "" {
		t.Errorf("members %+v, want worker-1's instance id kept", ms)
	}
}
