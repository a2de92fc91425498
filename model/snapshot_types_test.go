package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

func tps(topic string, ps ...int32) []TopicPartition {
	out := make([]TopicPartition, len(ps))
	for i, p := range ps {
		out[i] = tp(topic, p)
	}
	return out
}

// A consumer group mid-reconciliation: c1 still owns p2, which its target
// gives up; p3 is in c2's target and nobody's current assignment.
func consumerObservation() Observation {
	offsets := map[TopicPartition]PartitionOffsets{}
	for p := int32(0); p < 4; p++ {
		offsets[tp("orders", p)] = PartitionOffsets{LogStart: 0, LogEnd: 10}
	}
	return Observation{
		TakenAt: t0,
		Group: Group{ID: "g", State: StateReconciling, Type: TypeConsumer, ProtocolType: "consumer",
			Assignor: "uniform", Epoch: 5, AssignmentEpoch: 5},
		Members: []Member{
			{MemberID: "m2", ClientID: "c2", Host: "/10.0.0.2", MemberEpoch: 4, Rack: "r2",
				Partitions: nil, TargetPartitions: tps("orders", 3, 2)},
			{MemberID: "m1", ClientID: "c1", InstanceID: "worker-1", MemberEpoch: 5,
				Partitions: tps("orders", 0, 1, 2), TargetPartitions: tps("orders", 0, 1)},
			{MemberID: "m0", ClientID: "c0", MemberEpoch: 5,
				Partitions: nil, TargetPartitions: nil},
			{MemberID: "m9", ClientID: "c9", InstanceID: "worker-9", MemberEpoch: -2,
				Partitions: nil, TargetPartitions: tps("orders", 1)},
		},
	}.With(Readings{
		Committed: map[TopicPartition]int64{tp("orders", 0): 4},
		Offsets:   offsets,
	})
}

func TestNewSnapshotConsumerGroup(t *testing.T) {
	s := NewSnapshot(consumerObservation())
	if len(s.Partitions) != 4 {
		t.Fatalf("%d rows, want 4 (owned, committed and targeted partitions)", len(s.Partitions))
	}
	type row struct {
		owner, pending string
		owners         int
	}
	want := []row{{"c1", "", 1}, {"c1", "", 1}, {"c1", "", 1}, {"", "c2", 0}}
	for i, w := range want {
		p := s.Partitions[i]
		if p.ClientID != w.owner || p.PendingClientID != w.pending || len(p.Owners) != w.owners {
			t.Errorf("p%d: owner %q pending %q owners %v; want %q, %q, %d", i, p.ClientID, p.PendingClientID, p.Owners, w.owner, w.pending, w.owners)
		}
	}
	rec := map[string]bool{}
	for _, m := range s.Members {
		rec[m.ClientID] = m.Reconciling
	}
	// c2: epoch behind; c1: owns p2 beyond its target; c0: caught up,
	// empty; c9: a static member away for now (epoch -2).
	if !rec["c2"] || !rec["c1"] || rec["c0"] || rec["c9"] {
		t.Errorf("reconciling %v, want c1 and c2 only", rec)
	}
	if got := s.Members[2].TargetPartitions; !reflect.DeepEqual(got, tps("orders", 2, 3)) {
		t.Errorf("c2's target %v, want sorted p2, p3", got)
	}

	b, err := MarshalJSONSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if j["group_type"] != "consumer" || j["group_epoch"] != 5.0 || j["assignment_epoch"] != 5.0 || j["assignor"] != "uniform" {
		t.Errorf("group fields: type %v epoch %v assignment epoch %v assignor %v", j["group_type"], j["group_epoch"], j["assignment_epoch"], j["assignor"])
	}
	ms := j["members"].([]any)
	c1 := ms[1].(map[string]any)
	if c1["instance_id"] != "worker-1" || c1["member_epoch"] != 5.0 || c1["reconciling"] != true || len(c1["target_partitions"].([]any)) != 2 || c1["rack"] != nil {
		t.Errorf("c1 = %v", c1)
	}
	c2 := ms[2].(map[string]any)
	if c2["instance_id"] != nil || c2["rack"] != "r2" || len(c2["partitions"].([]any)) != 0 {
		t.Errorf("c2 = %v", c2)
	}
	p3 := j["partitions"].([]any)[3].(map[string]any)
	if p3["pending_client_id"] != "c2" || p3["pending_member_id"] != "m2" || p3["client_id"] != nil || len(p3["owners"].([]any)) != 0 {
		t.Errorf("p3 = %v", p3)
	}
	p0 := j["partitions"].([]any)[0].(map[string]any)
	if os := p0["owners"].([]any); len(os) != 1 || os[0].(map[string]any)["client_id"] != "c1" {
		t.Errorf("p0 owners = %v, want [c1]", p0["owners"])
	}
	if _, ok := p0["pending_client_id"]; ok {
		t.Errorf("p0 has a pending owner though c1 owns it: %v", p0)
	}
}

// A share group: p0 is shared by two members; the broker's lag is used
// where it gives one.
func TestNewSnapshotShareGroup(t *testing.T) {
	o := Observation{
		TakenAt: t0,
		Group:   Group{ID: "q", State: StateStable, Type: TypeShare, ProtocolType: "share", Assignor: "simple", Epoch: 3, AssignmentEpoch: 3},
		Members: []Member{
			{MemberID: "mb", ClientID: "share-b", MemberEpoch: 3, Partitions: tps("jobs", 0, 1)},
			{MemberID: "ma", ClientID: "share-a", MemberEpoch: 3, Partitions: tps("jobs", 0)},
		},
	}.With(Readings{
		Committed: map[TopicPartition]int64{tp("jobs", 0): 10, tp("jobs", 1): 5},
		ShareLag:  map[TopicPartition]int64{tp("jobs", 0): 3, tp("jobs", 1): -1},
		Offsets: map[TopicPartition]PartitionOffsets{
			tp("jobs", 0): {LogStart: 0, LogEnd: 20},
			tp("jobs", 1): {LogStart: 0, LogEnd: 9},
		},
	})
	s := NewSnapshot(o)
	p0, p1 := s.Partitions[0], s.Partitions[1]
	if len(p0.Owners) != 2 || p0.Owners[0].ClientID != "share-a" || p0.Owners[1].ClientID != "share-b" || p0.ClientID != "share-a" {
		t.Errorf("p0 owners %+v (first %q), want share-a then share-b", p0.Owners, p0.ClientID)
	}
	if p0.Lag != 3 || !p0.LagFromBroker {
		t.Errorf("p0 lag %d from broker %v, want the broker's 3", p0.Lag, p0.LagFromBroker)
	}
	if p1.Lag != 4 || p1.LagFromBroker || len(p1.Owners) != 1 {
		t.Errorf("p1 lag %d from broker %v owners %v, want log-end 9 - start 5 = 4, one owner", p1.Lag, p1.LagFromBroker, p1.Owners)
	}
	if a, b := s.Members[0], s.Members[1]; len(a.Partitions) != 1 || len(b.Partitions) != 2 || a.Lag != 3 || b.Lag != 7 {
		t.Errorf("members %s %v lag %d, %s %v lag %d; want share-a [p0] 3, share-b [p0 p1] 7", a.ClientID, a.Partitions, a.Lag, b.ClientID, b.Partitions, b.Lag)
	}
	if s.TotalLag != 7 {
		t.Errorf("total lag %d, want 7 (a shared partition counts once)", s.TotalLag)
	}
	if s.Members[0].Reconciling || s.Members[1].Reconciling {
		t.Error("share members marked reconciling")
	}
}

func TestAssignmentsKnown(t *testing.T) {
	tests := []struct {
		g    Group
		want bool
	}{
		{Group{State: StateStable}, true},
		{Group{State: StatePreparingRebalance}, false},
		{Group{State: StateCompletingRebalance, Type: TypeClassic}, false},
		{Group{State: StateReconciling, Type: TypeConsumer}, true},
		{Group{State: StateAssigning, Type: TypeConsumer}, true},
		{Group{State: StateDead, Type: TypeConsumer}, false},
		{Group{State: StateStable, Type: TypeShare}, true},
	}
	for _, tt := range tests {
		if got := tt.g.AssignmentsKnown(); got != tt.want {
			t.Errorf("%+v: AssignmentsKnown %v, want %v", tt.g, got, tt.want)
		}
	}
	if !(Group{State: StateReconciling}).Rebalancing() || (Group{State: StateStable, Type: TypeConsumer}).Rebalancing() {
		t.Error("Rebalancing: Reconciling is, Stable is not")
	}
}
