package model

import (
	"encoding/json"
	"strings"
	"testing"
)

// typedSnap is snap for a group of type typ at the given epoch (the
// consumer kinds' group and target epochs; every member reconciled to it
// unless its MemberEpoch says otherwise).
func typedSnap(sec float64, typ GroupType, state string, epoch int32, members ...Member) Snapshot {
	o := Observation{
		TakenAt: at(sec),
		Group:   Group{ID: "order-workers", State: state, Type: typ, ProtocolType: "consumer"},
		Members: members,
	}.With(Readings{
		Committed: map[TopicPartition]int64{},
		Offsets:   map[TopicPartition]PartitionOffsets{},
	})
	if typ.Kind().CoordinatorAssigned {
		o.Group.Epoch, o.Group.AssignmentEpoch = epoch, epoch
		for i := range o.Members {
			m := &o.Members[i]
			if m.MemberEpoch == 0 {
				m.MemberEpoch = epoch
			}
			if m.TargetPartitions == nil {
				m.TargetPartitions = m.Partitions
			}
		}
	}
	for p := range int32(6) {
		tp := TopicPartition{Topic: "orders", Partition: p}
		o.SetCommitted(tp, 10)
		o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 20})
	}
	return NewSnapshot(o)
}

func speaking(m Member, protocol string) Member {
	m.Protocol = protocol
	return m
}

func eventJSON(t *testing.T, e Event) map[string]any {
	t.Helper()
	b, err := MarshalEventJSON(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// An online migration as Apache Kafka runs it: a classic group becomes a
// consumer group when its first consumer-protocol member joins (its
// classic members stay, ConsumerGroupDescribe v1 naming them classic),
// its members move over one by one (each restarted with the consumer
// protocol, a new member id, the same client id), and it turns classic
// again when its last consumer-protocol member leaves.
func TestOnlineMigrationEvents(t *testing.T) {
	a, b := mem("consumer-a", 0, 1, 2), mem("consumer-b", 3, 4, 5)
	tr := NewTracker("order-workers", 0)
	tr.Observe(typedSnap(0, TypeClassic, stable, 0, a, b))

	got := tr.Observe(typedSnap(1, TypeConsumer, stable, 1,
		speaking(mem("consumer-a", 0, 1), ProtocolClassic), speaking(mem("consumer-b", 3, 4), ProtocolClassic),
		speaking(memID("d-uuid-0001", "consumer-d", 2, 5), ProtocolConsumer)))
	types := ofType(got, EventGroupTypeChanged)
	if len(types) != 1 || types[0].FromType != TypeClassic || types[0].ToType != TypeConsumer ||
		!strings.Contains(types[0].Detail, "consumer-d joined speaking the consumer protocol; 2 of 3 members still classic") {
		t.Fatalf("upgrade gave %v, want one group_type_changed classic → consumer naming consumer-d", got)
	}
	if m := eventJSON(t, types[0]); m["from_type"] != "classic" || m["to_type"] != "consumer" {
		t.Errorf("group_type_changed JSON %v: want from_type classic, to_type consumer", m)
	}
	joined := ofType(got, EventMemberJoined)
	if len(joined) != 1 || joined[0].Protocol != ProtocolConsumer {
		t.Fatalf("joins %v, want consumer-d's, speaking consumer", joined)
	}
	if m := eventJSON(t, joined[0]); m["protocol"] != "consumer" {
		t.Errorf("member_joined JSON %v: want protocol consumer", m)
	}
	if n := len(ofType(got, EventMemberProtocolChanged)); n != 0 {
		t.Errorf("%d protocol changes when the group was upgraded: its classic members still speak classic", n)
	}

	// consumer-a restarts with group.protocol=consumer: a new member id.
	got = tr.Observe(typedSnap(2, TypeConsumer, stable, 2,
		speaking(memID("a-uuid-0002", "consumer-a", 0, 1), ProtocolConsumer), speaking(mem("consumer-b", 3, 4), ProtocolClassic),
		speaking(memID("d-uuid-0001", "consumer-d", 2, 5), ProtocolConsumer)))
	changed := ofType(got, EventMemberProtocolChanged)
	if len(changed) != 1 || changed[0].ClientID != "consumer-a" || changed[0].Protocol != ProtocolConsumer ||
		changed[0].FromProtocol != ProtocolClassic || !strings.Contains(changed[0].Detail, "consumer-a rejoined speaking the consumer protocol (was classic") {
		t.Fatalf("consumer-a's restart gave %v, want one member_protocol_changed classic → consumer", got)
	}
	if m := eventJSON(t, changed[0]); m["protocol"] != "consumer" || m["from_protocol"] != "classic" {
		t.Errorf("member_protocol_changed JSON %v", m)
	}
	if left := ofType(got, EventMemberLeft); len(left) != 1 || left[0].Protocol != ProtocolClassic {
		t.Errorf("leaves %v, want consumer-a's old member, classic", left)
	}
	if n := len(ofType(got, EventGroupTypeChanged)); n != 0 {
		t.Errorf("%d type changes while the group stayed a consumer group", n)
	}

	// The consumer-protocol members leave: the last classic one is alone,
	// and Kafka converts the group back.
	got = tr.Observe(typedSnap(3, TypeClassic, stable, 0, mem("consumer-b", 0, 1, 2, 3, 4, 5)))
	types = ofType(got, EventGroupTypeChanged)
	if len(types) != 1 || types[0].FromType != TypeConsumer || types[0].ToType != TypeClassic ||
		!strings.Contains(types[0].Detail, "classic group again") || !strings.Contains(types[0].Detail, "consumer-a, consumer-d") {
		t.Fatalf("downgrade gave %v, want one group_type_changed consumer → classic naming both leavers", got)
	}
	if n := len(ofType(got, EventMemberProtocolChanged)); n != 0 {
		t.Errorf("%d protocol changes: consumer-b spoke classic throughout", n)
	}
}

// A static member keeps its instance id across the restart that changes
// its protocol: it is the same member, now speaking consumer.
func TestStaticMemberProtocolChange(t *testing.T) {
	static := func(id, protocol string) Member {
		m := speaking(memID(id, "consumer-a", 0, 1, 2), protocol)
		m.InstanceID = "worker-1"
		return m
	}
	other := speaking(memID("d-uuid-0001", "consumer-d", 3, 4, 5), ProtocolConsumer)
	tr := NewTracker("order-workers", 0)
	tr.Observe(typedSnap(0, TypeConsumer, stable, 4, static("a-classic-1", ProtocolClassic), other))
	got := tr.Observe(typedSnap(1, TypeConsumer, stable, 5, static("a-uuid-0002", ProtocolConsumer), other))
	changed := ofType(got, EventMemberProtocolChanged)
	if len(changed) != 1 || changed[0].InstanceID != "worker-1" || changed[0].FromProtocol != ProtocolClassic {
		t.Fatalf("got %v, want worker-1's member_protocol_changed", got)
	}
	// A consumer group described at v0 tells no protocol: nothing changes.
	tr = NewTracker("order-workers", 0)
	tr.Observe(typedSnap(0, TypeConsumer, stable, 4, static("a-1", ""), other))
	if got := ofType(tr.Observe(typedSnap(1, TypeConsumer, stable, 4, static("a-1", ProtocolConsumer), other)), EventMemberProtocolChanged); len(got) != 0 {
		t.Errorf("protocol unknown, then told: %v, want no change", got)
	}
}
