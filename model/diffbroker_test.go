package model

import (
	"strings"
	"testing"
	"time"
)

// cmem is a consumer group member of topic "orders": its epoch, what it
// owns, its target.
func cmem(client string, epoch int32, owns, target []int32) Member {
	m := mem(client, owns...)
	m.MemberEpoch = epoch
	m.TargetPartitions = []TopicPartition{}
	for _, p := range target {
		m.TargetPartitions = append(m.TargetPartitions, TopicPartition{Topic: "orders", Partition: p})
	}
	return m
}

func ps(p ...int32) []int32 { return p }

// csnap is a consumer group (KIP-848) snapshot of 3 partitions with group
// and target assignment epoch target.
func csnap(sec float64, state string, target int32, members ...Member) Snapshot {
	o := Observation{
		TakenAt: at(sec),
		Group: Group{ID: "order-workers", State: state, Type: TypeConsumer, ProtocolType: "consumer",
			Assignor: "uniform", Epoch: target, AssignmentEpoch: target},
		Members: members,
	}.With(Readings{
		Committed: map[TopicPartition]int64{},
		Offsets:   map[TopicPartition]PartitionOffsets{},
	})
	for p := range int32(3) {
		tp := TopicPartition{Topic: "orders", Partition: p}
		o.SetCommitted(tp, 10)
		o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 20})
	}
	return NewSnapshot(o)
}

func TestDiffConsumerGroup(t *testing.T) {
	a, b, c := "consumer-a", "consumer-b", "consumer-c"
	tests := []struct {
		name  string
		snaps []Snapshot
		want  []string
	}{
		{
			// The coordinator moves the target; consumer-a gives p2 up,
			// then consumer-c takes it: reconciliation seen poll by poll.
			name: "join, reconciled member by member",
			snaps: []Snapshot{
				csnap(0, StateStable, 1, cmem(a, 1, ps(0, 1, 2), ps(0, 1, 2))),
				csnap(1, StateReconciling, 2, cmem(a, 1, ps(0, 1, 2), ps(0, 1)), cmem(c, 0, nil, ps(2))),
				csnap(2, StateReconciling, 2, cmem(a, 2, ps(0, 1), ps(0, 1)), cmem(c, 2, nil, ps(2))),
				csnap(3, StateStable, 2, cmem(a, 2, ps(0, 1), ps(0, 1)), cmem(c, 2, ps(2), ps(2))),
			},
			want: []string{
				"member_joined client=consumer-c | consumer-c joined (host /127.0.0.1); it is to receive p2",
				"state_changed | Stable → Reconciling",
				"rebalance_started | rebalance started (target assignment epoch 1 → 2): consumer-c joined",
				"member_reconciling client=consumer-a parts=2 | consumer-a reconciling towards assignment epoch 2: to give up p2, at epoch 1",
				"member_reconciling client=consumer-c parts=2 | consumer-c reconciling towards assignment epoch 2: to receive p2, at epoch 0",
				"member_reconciled client=consumer-a parts=0,1 | consumer-a reconciled at epoch 2; it owns p0–p1",
				"state_changed | Reconciling → Stable",
				"member_reconciled client=consumer-c parts=2 | consumer-c reconciled at epoch 2; it owns p2",
				"rebalance_completed moves=2:consumer-a→consumer-c dur=2s | rebalance took 2.00s: 1 partition moved",
				"partition_moved parts=2 consumer-a→consumer-c | p2: consumer-a → consumer-c",
			},
		},
		{
			// The target moves again while consumer-a is behind: what it
			// now has to do is reported.
			name: "target moves while reconciling",
			snaps: []Snapshot{
				csnap(0, StateStable, 1, cmem(a, 1, ps(0, 1, 2), ps(0, 1, 2))),
				csnap(1, StateReconciling, 2, cmem(a, 1, ps(0, 1, 2), ps(0, 1, 2)), cmem(c, 0, nil, nil)),
				csnap(2, StateReconciling, 2, cmem(a, 1, ps(0, 1, 2), ps(0, 1)), cmem(c, 0, nil, ps(2))),
			},
			want: []string{
				"member_joined client=consumer-c | consumer-c joined (host /127.0.0.1); it owns no partitions",
				"state_changed | Stable → Reconciling",
				"rebalance_started | rebalance started (target assignment epoch 1 → 2): consumer-c joined",
				"member_reconciling client=consumer-a | consumer-a reconciling towards assignment epoch 2: at epoch 1",
				"member_reconciling client=consumer-c | consumer-c reconciling towards assignment epoch 2: at epoch 0",
				"member_reconciling client=consumer-a parts=2 | consumer-a reconciling towards assignment epoch 2: to give up p2, at epoch 1",
				"member_reconciling client=consumer-c parts=2 | consumer-c reconciling towards assignment epoch 2: to receive p2, at epoch 0",
			},
		},
		{
			name: "clean leave",
			snaps: []Snapshot{
				csnap(0, StateStable, 3, cmem(a, 3, ps(0, 1), ps(0, 1)), cmem(b, 3, ps(2), ps(2))),
				csnap(1, StateReconciling, 4, cmem(a, 3, ps(0, 1), ps(0, 1, 2))),
				csnap(1.5, StateStable, 4, cmem(a, 4, ps(0, 1, 2), ps(0, 1, 2))),
			},
			want: []string{
				"member_left client=consumer-b parts=2 | consumer-b left (host /127.0.0.1); it owned p2",
				"state_changed | Stable → Reconciling",
				"rebalance_started | rebalance started (target assignment epoch 3 → 4): consumer-b left",
				"member_reconciling client=consumer-a parts=2 | consumer-a reconciling towards assignment epoch 4: to receive p2, at epoch 3",
				"state_changed | Reconciling → Stable",
				"member_reconciled client=consumer-a parts=0,1,2 | consumer-a reconciled at epoch 4; it owns p0–p2",
				"rebalance_completed moves=2:consumer-b→consumer-a dur=500ms | rebalance took 0.50s: 1 partition moved",
				"partition_moved parts=2 consumer-b→consumer-a | p2: consumer-b → consumer-a",
			},
		},
		{
			name: "rebalance between polls",
			snaps: []Snapshot{
				csnap(0, StateStable, 1, cmem(a, 1, ps(0, 1, 2), ps(0, 1, 2))),
				csnap(1, StateStable, 2, cmem(a, 2, ps(0, 1), ps(0, 1)), cmem(c, 2, ps(2), ps(2))),
			},
			want: []string{
				"member_joined client=consumer-c parts=2 | consumer-c joined (host /127.0.0.1); it owns p2",
				"rebalance_started inferred | rebalance happened between polls (target assignment epoch 1 → 2): consumer-c joined",
				"rebalance_completed moves=2:consumer-a→consumer-c inferred | rebalance between polls, duration unknown: 1 partition moved",
				"partition_moved parts=2 consumer-a→consumer-c inferred | p2: consumer-a → consumer-c",
			},
		},
		{
			// Killed: no leave; the coordinator fences it after the
			// session timeout, and the survivor reconciles.
			name: "member fenced, survivor takes over",
			snaps: []Snapshot{
				csnap(0, StateStable, 5, cmem(a, 5, ps(0), ps(0)), cmem(b, 5, ps(1, 2), ps(1, 2))),
				csnap(45, StateStable, 6, cmem(a, 5, ps(0), ps(0, 1, 2))),
				csnap(45.2, StateStable, 6, cmem(a, 6, ps(0, 1, 2), ps(0, 1, 2))),
			},
			want: []string{
				"member_left client=consumer-b parts=1,2 | consumer-b left (host /127.0.0.1); it owned p1–p2",
				"rebalance_started | rebalance started (target assignment epoch 5 → 6): consumer-b left",
				"member_reconciling client=consumer-a parts=1,2 | consumer-a reconciling towards assignment epoch 6: to receive p1–p2, at epoch 5",
				"member_reconciled client=consumer-a parts=0,1,2 | consumer-a reconciled at epoch 6; it owns p0–p2",
				"rebalance_completed moves=1:consumer-b→consumer-a,2:consumer-b→consumer-a dur=200ms | rebalance took 0.20s: 2 partitions moved",
				"partition_moved parts=1 consumer-b→consumer-a | p1: consumer-b → consumer-a",
				"partition_moved parts=2 consumer-b→consumer-a | p2: consumer-b → consumer-a",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker("order-workers", 0)
			tr.Observe(tt.snaps[0])
			var got []string
			for _, s := range tt.snaps[1:] {
				for _, e := range tr.Observe(s) {
					got = append(got, summary(e))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A static consumer group member restarting keeps its identity (instance
// id): no leave, no join of a new member, no rebalance.
func TestDiffConsumerStaticRestart(t *testing.T) {
	static := func(id string, epoch int32, parts ...int32) Member {
		m := cmem("consumer-a", epoch, parts, parts)
		m.MemberID, m.InstanceID = id, "worker-1"
		return m
	}
	tr := NewTracker("order-workers", 0)
	tr.Observe(csnap(0, StateStable, 2, static("m-1111", 2, 0, 1, 2)))
	got := tr.Observe(csnap(1, StateStable, 2, static("m-2222", 2, 0, 1, 2)))
	if len(got) != 1 || got[0].Type != EventMemberJoined || !strings.Contains(got[0].Detail, "no rebalance") {
		for _, e := range got {
			t.Log(summary(e))
		}
		t.Fatalf("static restart gave %d events, want one member_joined saying no rebalance", len(got))
	}
	b, err := MarshalEventJSON(got[0])
	if err != nil || !strings.Contains(string(b), `"instance_id":"worker-1"`) {
		t.Errorf("member_joined JSON %s (%v) lacks instance_id", b, err)
	}
}

// Lanes read a consumer group's owners while it reconciles: the partition
// handed over is unowned only between its release and its new owner.
func TestLanesConsumerGroup(t *testing.T) {
	a, c := "consumer-a", "consumer-c"
	snaps := []Snapshot{
		csnap(0, StateStable, 1, cmem(a, 1, ps(0, 1, 2), ps(0, 1, 2))),
		csnap(2, StateReconciling, 2, cmem(a, 1, ps(0, 1, 2), ps(0, 1)), cmem(c, 0, nil, ps(2))),
		csnap(3, StateReconciling, 2, cmem(a, 2, ps(0, 1), ps(0, 1)), cmem(c, 2, nil, ps(2))),
		csnap(5, StateStable, 2, cmem(a, 2, ps(0, 1), ps(0, 1)), cmem(c, 2, ps(2), ps(2))),
	}
	l := NewLanes(0)
	for _, s := range snaps {
		s.TakenAt = ln0.Add(s.TakenAt.Sub(tl0))
		l.Observe(s)
	}
	if got, want := laneString(l, 0, 6), "aaaaaaa\naaaaaaa\naaa__cc"; got != want {
		t.Errorf("lanes:\n%s\nwant:\n%s", got, want)
	}
}

// A cooperative classic rebalance whose revoke phase is seen: the moved
// partition is owned until its revocation, unowned until the assign phase
// gives it to its new owner, and the rest are owned throughout.
func TestLanesCooperativePhases(t *testing.T) {
	coop := "cooperative-sticky"
	l := NewLanes(0)
	for _, s := range []Snapshot{
		laneSnap(0, StateStable, coop, "consumer-a", "consumer-a", "consumer-b", "consumer-b"),
		laneSnap(2, StatePreparingRebalance, coop, "consumer-a", "consumer-b", "consumer-c"),
		laneSnap(3, StateStable, coop, "consumer-a", "", "consumer-b", "consumer-b"),
		laneSnap(4, StatePreparingRebalance, coop, "consumer-a", "consumer-b", "consumer-c"),
		laneSnap(5, StateStable, coop, "consumer-a", "consumer-c", "consumer-b", "consumer-b"),
	} {
		l.Observe(s)
	}
	if got, want := laneString(l, 0, 6), "aaaaaaa\naaa__cc\nbbbbbbb\nbbbbbbb"; got != want {
		t.Errorf("lanes:\n%s\nwant:\n%s", got, want)
	}
}

// A share group's partition shared by two members is labelled with its
// first owner and the count of the others.
func TestLanesShareGroup(t *testing.T) {
	o := Observation{
		TakenAt: ln0,
		Group:   Group{ID: "q", State: StateStable, Type: TypeShare},
		Members: []Member{
			{MemberID: "m1", ClientID: "consumer-a", Partitions: tps("t", 0)},
			{MemberID: "m2", ClientID: "consumer-b", Partitions: tps("t", 0, 1)},
		},
	}
	l := NewLanes(0)
	l.Observe(NewSnapshot(o))
	c := l.At(ln0.Add(time.Second))
	if got := l.Owners()[c.Owner(0)]; got != "consumer-a +1" {
		t.Errorf("p0 labelled %q, want consumer-a +1", got)
	}
	if got := l.Owners()[c.Owner(1)]; got != "consumer-b" {
		t.Errorf("p1 labelled %q, want consumer-b", got)
	}
}
