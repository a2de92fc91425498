package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var tl0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// at returns tl0 plus sec seconds.
func at(sec float64) time.Time { return tl0.Add(time.Duration(sec * float64(time.Second))) }

// mem builds a member of topic "orders" whose member id is client-id plus
// a fixed suffix, as kafka-go generates them.
func mem(client string, parts ...int32) Member {
	return memID(client+"-0a1b2c3d-"+client[len(client)-1:]+"000", client, parts...)
}

func memID(id, client string, parts ...int32) Member {
	m := Member{MemberID: id, ClientID: client, Host: "/127.0.0.1"}
	for _, p := range parts {
		m.Partitions = append(m.Partitions, TopicPartition{Topic: "orders", Partition: p})
	}
	return m
}

// snapN builds a snapshot of group order-workers reading topic "orders" of
// n partitions, all committed.
func snapN(sec float64, state string, n int32, assignor string, members ...Member) Snapshot {
	o := Observation{
		TakenAt: at(sec),
		Group:   Group{ID: "order-workers", State: state, ProtocolType: "consumer"},
		Members: members,
	}.With(Readings{
		Committed: map[TopicPartition]int64{},
		Offsets:   map[TopicPartition]PartitionOffsets{},
	})
	if state == StateStable {
		o.Group.Assignor = assignor
		// What the members' subscriptions say once they kept partitions
		// through a join; the tests name the assignor for it.
		o.Group.Cooperative = strings.Contains(assignor, "cooperative")
	}
	if state != StateDead && state != "" {
		for p := range n {
			tp := TopicPartition{Topic: "orders", Partition: p}
			o.SetCommitted(tp, 10)
			o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: 20})
		}
	}
	return NewSnapshot(o)
}

func snap(sec float64, state string, members ...Member) Snapshot {
	return snapN(sec, state, 3, "range", members...)
}

const (
	stable    = StateStable
	preparing = StatePreparingRebalance
	complete  = StateCompletingRebalance
	empty     = StateEmpty
)

// summary writes an event's fields that the tests compare, then its detail.
func summary(e Event) string {
	var b strings.Builder
	b.WriteString(string(e.Type))
	if e.ClientID != "" {
		b.WriteString(" client=" + e.ClientID)
	}
	if len(e.Partitions) > 0 {
		b.WriteString(" parts=")
		for i, tp := range e.Partitions {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%d", tp.Partition)
		}
	}
	if e.From != "" || e.To != "" {
		b.WriteString(" " + e.From + "→" + e.To)
	}
	if len(e.Moves) > 0 {
		b.WriteString(" moves=")
		for i, m := range e.Moves {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%d:%s→%s", m.Partition, m.From, m.To)
		}
	}
	if e.HasDuration {
		b.WriteString(" dur=" + e.Duration.String())
	}
	if e.Inferred {
		b.WriteString(" inferred")
	}
	if e.Phase != "" {
		b.WriteString(" phase=" + e.Phase)
	}
	b.WriteString(" | " + e.Detail)
	return b.String()
}

func TestDiffCases(t *testing.T) {
	a, b, c := "consumer-a", "consumer-b", "consumer-c"
	coop := func(sec float64, state string, members ...Member) Snapshot {
		return snapN(sec, state, 3, "cooperative-sticky", members...)
	}
	tests := []struct {
		name  string
		snaps []Snapshot // the first one starts the watch
		want  []string   // events after the first snapshot
	}{
		{
			name: "join, eager",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1), mem(b, 2)),
				snap(1, preparing, mem(a), mem(b), mem(c)),
				snap(1.2, complete, mem(a), mem(b), mem(c)),
				snap(1.41, stable, mem(a, 0), mem(b, 1), mem(c, 2)),
			},
			want: []string{
				"member_joined client=consumer-c | consumer-c joined (host /127.0.0.1)",
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started: consumer-c joined",
				"state_changed | PreparingRebalance → CompletingRebalance",
				"state_changed | CompletingRebalance → Stable",
				"rebalance_completed parts=0 moves=1:consumer-a→consumer-b,2:consumer-b→consumer-c dur=410ms | rebalance took 0.41s: 2 partitions moved, 1 paused, then back to their owner",
				"partition_moved parts=1 consumer-a→consumer-b | p1: consumer-a → consumer-b",
				"partition_moved parts=2 consumer-b→consumer-c | p2: consumer-b → consumer-c",
			},
		},
		{
			name: "clean leave",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1), mem(b, 2)),
				snap(5, preparing, mem(a)),
				snap(5.3, stable, mem(a, 0, 1, 2)),
			},
			want: []string{
				"member_left client=consumer-b parts=2 | consumer-b left (host /127.0.0.1); it owned p2",
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started: consumer-b left",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed parts=0,1 moves=2:consumer-b→consumer-a dur=300ms | rebalance took 0.30s: 1 partition moved, 2 paused, then back to their owner",
				"partition_moved parts=2 consumer-b→consumer-a | p2: consumer-b → consumer-a",
			},
		},
		{
			// The member stops heartbeating; the coordinator evicts it a
			// session timeout later and the group rebalances between polls.
			name: "abrupt leave",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1), mem(b, 2)),
				snap(9, stable, mem(a, 0, 1), mem(b, 2)),
				snap(11, stable, mem(a, 0, 1, 2)),
			},
			want: []string{
				"member_left client=consumer-b parts=2 | consumer-b left (host /127.0.0.1); it owned p2",
				"rebalance_started inferred | rebalance happened between polls: consumer-b left",
				"rebalance_completed parts=0,1 moves=2:consumer-b→consumer-a inferred | rebalance between polls, duration unknown: 1 partition moved, 2 paused, then back to their owner",
				"partition_moved parts=2 consumer-b→consumer-a inferred | p2: consumer-b → consumer-a",
			},
		},
		{
			name: "eager full revoke and reassign",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1), mem(b, 2)),
				snap(1, preparing, mem(a), mem(b)),
				snap(1.5, stable, mem(a, 0, 1), mem(b, 2)),
			},
			want: []string{
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed parts=0,1,2 dur=500ms | rebalance took 0.50s: no partitions moved, 3 paused, then back to their owner",
			},
		},
		{
			// Cooperative-sticky moves a partition in two rebalances: the
			// first revokes it, the second assigns it; the rest stay put.
			name: "cooperative partial move",
			snaps: []Snapshot{
				coop(0, stable, mem(a, 0, 1, 2)),
				coop(1, preparing, mem(a), mem(b)),
				coop(1.2, stable, mem(a, 0, 1), mem(b)),
				coop(1.3, preparing, mem(a), mem(b)),
				coop(1.5, stable, mem(a, 0, 1), mem(b, 2)),
			},
			want: []string{
				"member_joined client=consumer-b | consumer-b joined (host /127.0.0.1)",
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started: consumer-b joined",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed parts=2 dur=200ms phase=revoke | revoke phase of a cooperative rebalance took 0.20s: consumer-a gave up p2; the next generation assigns it",
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started phase=assign | assign phase of the cooperative rebalance started",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed moves=2:consumer-a→consumer-b dur=500ms phase=assign | assign phase took 0.20s; cooperative rebalance took 0.50s: 1 partition moved",
				"partition_moved parts=2 consumer-a→consumer-b | p2: consumer-a → consumer-b @1.2s",
			},
		},
		{
			// The revoke phase's Stable lasts while the member revokes;
			// the assign phase comes and goes between two polls.
			name: "cooperative, assign phase between polls",
			snaps: []Snapshot{
				coop(0, stable, mem(a, 0, 1, 2)),
				coop(1, preparing, mem(a), mem(b)),
				coop(1.2, stable, mem(a, 0, 1), mem(b)),
				coop(2.2, stable, mem(a, 0, 1), mem(b)),
				coop(3.2, stable, mem(a, 0, 1), mem(b, 2)),
			},
			want: []string{
				"member_joined client=consumer-b | consumer-b joined (host /127.0.0.1)",
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started: consumer-b joined",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed parts=2 dur=200ms phase=revoke | revoke phase of a cooperative rebalance took 0.20s: consumer-a gave up p2; the next generation assigns it",
				"rebalance_started inferred phase=assign | assign phase of the cooperative rebalance happened between polls",
				"rebalance_completed moves=2:consumer-a→consumer-b inferred phase=assign | assign phase between polls; the cooperative rebalance began 2.20s before: 1 partition moved",
				"partition_moved parts=2 consumer-a→consumer-b | p2: consumer-a → consumer-b @1.2s",
			},
		},
		{
			name: "rebalance hidden between polls: join",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1, 2)),
				snap(1, stable, mem(a, 0, 1), mem(c, 2)),
			},
			want: []string{
				"member_joined client=consumer-c parts=2 | consumer-c joined (host /127.0.0.1); it owns p2",
				"rebalance_started inferred | rebalance happened between polls: consumer-c joined",
				"rebalance_completed parts=0,1 moves=2:consumer-a→consumer-c inferred | rebalance between polls, duration unknown: 1 partition moved, 2 paused, then back to their owner",
				"partition_moved parts=2 consumer-a→consumer-c inferred | p2: consumer-a → consumer-c",
			},
		},
		{
			name: "rebalance hidden between polls: assignment only",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1), mem(b, 2)),
				snap(1, stable, mem(a, 0), mem(b, 1, 2)),
			},
			want: []string{
				"rebalance_started inferred | rebalance happened between polls",
				"rebalance_completed parts=0,2 moves=1:consumer-a→consumer-b inferred | rebalance between polls, duration unknown: 1 partition moved, 2 paused, then back to their owner",
				"partition_moved parts=1 consumer-a→consumer-b inferred | p1: consumer-a → consumer-b",
			},
		},
		{
			name: "no change gives no events",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1), mem(b, 2)),
				snap(1, stable, mem(a, 0, 1), mem(b, 2)),
				snap(2, stable, mem(b, 2), mem(a, 1, 0)), // order does not matter
			},
			want: nil,
		},
		{
			name: "group emptied between polls",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1, 2)),
				snap(1, empty),
			},
			want: []string{
				"member_left client=consumer-a parts=0,1,2 | consumer-a left (host /127.0.0.1); it owned p0–p2",
				"state_changed | Stable → Empty",
				"group_empty | order-workers has no active members",
			},
		},
		{
			name: "group emptied through an observed rebalance",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1, 2)),
				snap(1, preparing),
				snap(1.1, empty),
			},
			want: []string{
				"member_left client=consumer-a parts=0,1,2 | consumer-a left (host /127.0.0.1); it owned p0–p2",
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started: consumer-a left",
				"state_changed | PreparingRebalance → Empty",
				"rebalance_completed moves=0:consumer-a→,1:consumer-a→,2:consumer-a→ dur=100ms | rebalance took 0.10s: 3 partitions left unowned; the group is empty",
				"partition_moved parts=0 consumer-a→ | p0: consumer-a → (unowned)",
				"partition_moved parts=1 consumer-a→ | p1: consumer-a → (unowned)",
				"partition_moved parts=2 consumer-a→ | p2: consumer-a → (unowned)",
				"group_empty | order-workers has no active members",
			},
		},
		{
			name: "group deleted",
			snaps: []Snapshot{
				snap(0, empty),
				snap(1, ""),
			},
			want: []string{
				"state_changed | Empty → Dead",
				"group_gone | order-workers no longer exists",
			},
		},
		{
			name: "group created while watching",
			snaps: []Snapshot{
				snap(0, StateDead),
				snap(1, preparing, mem(a)),
				snap(1.25, stable, mem(a, 0, 1, 2)),
			},
			want: []string{
				"member_joined client=consumer-a | consumer-a joined (host /127.0.0.1)",
				"state_changed | Dead → PreparingRebalance",
				"rebalance_started | rebalance started: consumer-a joined",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed moves=0:→consumer-a,1:→consumer-a,2:→consumer-a dur=250ms | rebalance took 0.25s: 3 partitions newly assigned",
				"partition_moved parts=0 →consumer-a | p0: (unowned) → consumer-a",
				"partition_moved parts=1 →consumer-a | p1: (unowned) → consumer-a",
				"partition_moved parts=2 →consumer-a | p2: (unowned) → consumer-a",
			},
		},
		{
			name: "partitions added",
			snaps: []Snapshot{
				snapN(0, stable, 3, "range", mem(a, 0, 1), mem(b, 2)),
				snapN(1, preparing, 6, "", mem(a), mem(b)),
				snapN(1.5, stable, 6, "range", mem(a, 0, 1, 2), mem(b, 3, 4, 5)),
			},
			want: []string{
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed parts=0,1 moves=2:consumer-b→consumer-a,3:→consumer-b,4:→consumer-b,5:→consumer-b dur=500ms | rebalance took 0.50s: 1 partition moved, 3 partitions newly assigned, 2 paused, then back to their owner",
				"partition_moved parts=2 consumer-b→consumer-a | p2: consumer-b → consumer-a",
				"partition_moved parts=3 →consumer-b | p3: (unowned) → consumer-b",
				"partition_moved parts=4 →consumer-b | p4: (unowned) → consumer-b",
				"partition_moved parts=5 →consumer-b | p5: (unowned) → consumer-b",
				"partitions_changed parts=3,4,5 | orders: 3 → 6 partitions",
			},
		},
		{
			name: "member with no partitions",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0), mem(b, 1), mem(c, 2)),
				snap(1, preparing, mem(a), mem(b), mem(c), mem("consumer-d")),
				snap(1.3, stable, mem(a, 0), mem(b, 1), mem(c, 2), mem("consumer-d")),
				snap(2, stable, mem(a, 0), mem(b, 1), mem(c, 2)),
			},
			want: []string{
				"member_joined client=consumer-d | consumer-d joined (host /127.0.0.1)",
				"state_changed | Stable → PreparingRebalance",
				"rebalance_started | rebalance started: consumer-d joined",
				"state_changed | PreparingRebalance → Stable",
				"rebalance_completed parts=0,1,2 dur=300ms | rebalance took 0.30s: no partitions moved, 3 paused, then back to their owner; consumer-d owns no partitions",
				"member_left client=consumer-d | consumer-d left (host /127.0.0.1); it owned no partitions",
				"rebalance_started inferred | rebalance happened between polls: consumer-d left",
				"rebalance_completed parts=0,1,2 inferred | rebalance between polls, duration unknown: no partitions moved, 3 paused, then back to their owner",
			},
		},
		{
			// An evicted member that rejoins gets a new member id: a leave
			// and a join, and the move names both ids.
			name: "rejoin with a new member id",
			snaps: []Snapshot{
				snap(0, stable, mem(a, 0, 1), memID("consumer-b-11111111", b, 2)),
				snap(12, stable, mem(a, 0, 1), memID("consumer-b-22222222", b, 2)),
			},
			want: []string{
				"member_left client=consumer-b parts=2 | consumer-b left (host /127.0.0.1); it owned p2",
				"member_joined client=consumer-b parts=2 | consumer-b joined (host /127.0.0.1); it owns p2",
				"rebalance_started inferred | rebalance happened between polls: consumer-b left, consumer-b joined",
				"rebalance_completed parts=0,1 moves=2:consumer-b→consumer-b inferred | rebalance between polls, duration unknown: 1 partition moved, 2 paused, then back to their owner",
				"partition_moved parts=2 consumer-b→consumer-b inferred | p2: consumer-b (11111111) → consumer-b (22222222)",
			},
		},
		{
			name: "watch started during a rebalance",
			snaps: []Snapshot{
				snap(0, complete, mem(a), mem(b)),
				snap(0.2, stable, mem(a, 0, 1), mem(b, 2)),
			},
			want: []string{
				"state_changed | CompletingRebalance → Stable",
				"rebalance_completed | rebalance completed (it began before the watch started): moves unknown",
			},
		},
		{
			name: "rebalance after the group was empty, between polls",
			snaps: []Snapshot{
				snap(0, empty),
				snap(3, stable, mem(a, 0, 1, 2)),
			},
			want: []string{
				"member_joined client=consumer-a parts=0,1,2 | consumer-a joined (host /127.0.0.1); it owns p0–p2",
				"state_changed | Empty → Stable",
				"rebalance_started inferred | rebalance happened between polls: consumer-a joined",
				"rebalance_completed moves=0:→consumer-a,1:→consumer-a,2:→consumer-a inferred | rebalance between polls, duration unknown: 3 partitions newly assigned",
				"partition_moved parts=0 →consumer-a inferred | p0: (unowned) → consumer-a",
				"partition_moved parts=1 →consumer-a inferred | p1: (unowned) → consumer-a",
				"partition_moved parts=2 →consumer-a inferred | p2: (unowned) → consumer-a",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker("order-workers", 0)
			first := tr.Observe(tt.snaps[0])
			if len(first) != 1 || first[0].Type != EventWatchStarted {
				t.Fatalf("first snapshot gave %v, want one watch_started", first)
			}
			var got []string
			for _, s := range tt.snaps[1:] {
				for _, e := range tr.Observe(s) {
					line := summary(e)
					if !e.Time.Equal(s.TakenAt) {
						// Dated otherwise than the poll that saw it
						// (a move dated by its revoke phase): said.
						line += fmt.Sprintf(" @%gs", e.Time.Sub(at(0)).Seconds())
					}
					got = append(got, line)
					if e.Group != "order-workers" {
						t.Errorf("%s: group %q", e.Type, e.Group)
					}
					if e.State != normState(s.Group.State) {
						t.Errorf("%s: state %q, want %q", e.Type, e.State, s.Group.State)
					}
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if n := tr.Timeline().Len(); n != 1+len(tt.want) {
				t.Errorf("timeline holds %d events, want %d", n, 1+len(tt.want))
			}
		})
	}
}

func TestWatchStarted(t *testing.T) {
	tests := []struct {
		name string
		s    Snapshot
		want string
	}{
		{"stable", snap(0, stable, mem("consumer-a", 0, 1), mem("consumer-b", 2)),
			"watching order-workers: Stable, 2 members (consumer-a, consumer-b), 3 partitions owned"},
		{"empty", snap(0, empty), "watching order-workers: Empty, no active members"},
		{"missing", snap(0, ""), "watching order-workers: the group does not exist yet"},
		{"rebalancing", snap(0, preparing, mem("consumer-a")),
			"watching order-workers: PreparingRebalance, 1 member (consumer-a), rebalance in progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := NewTracker("order-workers", 0).Observe(tt.s)
			if len(evs) != 1 {
				t.Fatalf("got %d events, want 1: %v", len(evs), evs)
			}
			e := evs[0]
			if e.Type != EventWatchStarted || e.Detail != tt.want || e.MemberID != "" || !e.Time.Equal(tt.s.TakenAt) {
				t.Errorf("got %s, want watch_started | %s", summary(e), tt.want)
			}
		})
	}
}

func TestConnectionLostRestored(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	tr.Observe(snap(0, stable, mem("consumer-a", 0, 1, 2)))
	err := errors.New("dial tcp 127.0.0.1:9092: connect:\nconnection refused")
	lost := tr.ConnectionLost(at(2), err)
	if len(lost) != 1 || summary(lost[0]) != "connection_lost | connection lost: dial tcp 127.0.0.1:9092: connect: connection refused" {
		t.Fatalf("ConnectionLost gave %v", lost)
	}
	if again := tr.ConnectionLost(at(3), err); again != nil {
		t.Errorf("second failure of the same outage gave %v, want nothing", again)
	}
	// The outage lasted at most from the last good poll (0s) to the first
	// good one after it (14.4s), at least from the first failure to the
	// last (2s to 3s: failures known only by when they were seen).
	got := tr.Observe(snap(14.4, stable, mem("consumer-a", 0, 1, 2)))
	if len(got) != 1 || summary(got[0]) != "connection_restored dur=14.4s | connection restored after 1.00s–14.4s" ||
		!got[0].HasMinDuration || got[0].MinDuration != time.Second {
		t.Fatalf("restore gave %v", got)
	}
	if next := tr.Observe(snap(15, stable, mem("consumer-a", 0, 1, 2))); len(next) != 0 {
		t.Errorf("a good poll after the restore gave %v", next)
	}
	if lost := tr.ConnectionLost(at(16), nil); len(lost) != 1 || lost[0].Detail != "connection lost" {
		t.Errorf("a second outage gave %v, want one connection_lost", lost)
	}
	if n := tr.Timeline().Len(); n != 4 {
		t.Errorf("timeline holds %d events, want 4", n)
	}
}

// An outage's length is given as the bounds the polls know it within: at
// least from the first failed poll's start to the last failure, at most
// from the last good poll to the first good one. A frozen broker: the poll
// at 1s hung until its 2s timeout, the retries failed the same way until
// 11s, the poll begun at 11s was answered at 11.3s.
func TestOutageBounds(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	tr.Observe(snap(0, stable, mem("consumer-a", 0, 1, 2)))
	timeout := errors.New("i/o timeout")
	if lost := tr.PollFailed(at(1), at(3), timeout); len(lost) != 1 || !lost[0].Time.Equal(at(3)) {
		t.Fatalf("first failure gave %v, want connection_lost when it was seen (3s)", lost)
	}
	for s := 3.0; s < 11; s += 2 {
		if again := tr.PollFailed(at(s), at(s+2), timeout); again != nil {
			t.Fatalf("a later failure gave %v", again)
		}
	}
	back := snap(11, stable, mem("consumer-a", 0, 1, 2))
	back.CompletedAt = at(11.3)
	got := tr.Observe(back)
	if len(got) != 1 || got[0].Type != EventConnectionRestored {
		t.Fatalf("restore gave %v", got)
	}
	e := got[0]
	if !e.HasMinDuration || e.MinDuration != 10*time.Second || !e.HasDuration || e.Duration != 11300*time.Millisecond {
		t.Errorf("restore says %s–%s (known %v), want 10s (1s…11s) to 11.3s (0s…11.3s)", e.MinDuration, e.Duration, e.HasMinDuration)
	}
	if e.Detail != "connection restored after 10.0s–11.3s" {
		t.Errorf("detail %q", e.Detail)
	}
	b, err := MarshalEventJSON(e)
	if err != nil || !strings.Contains(string(b), `"duration_ms":11300,"min_duration_ms":10000,`) {
		t.Errorf("JSON %s (%v), want duration_ms 11300 and min_duration_ms 10000", b, err)
	}

	// A second outage starts its bounds afresh; a start after the
	// failure was seen (a clock step) counts from the failure.
	tr.PollFailed(at(20), at(19), timeout)
	got = tr.Observe(snap(21, stable, mem("consumer-a", 0, 1, 2)))
	if len(got) != 1 || got[0].MinDuration != 0 || got[0].Duration != 9700*time.Millisecond {
		t.Errorf("second outage: %v, want 0s–9.7s", got)
	}
}

// A rebalance that spans an outage has no known duration: its end was not
// seen when it happened.
func TestRebalanceAcrossOutage(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	tr.Observe(snap(0, stable, mem("consumer-a", 0, 1, 2)))
	tr.Observe(snap(1, preparing, mem("consumer-a"), mem("consumer-b")))
	tr.ConnectionLost(at(2), errors.New("broken pipe"))
	got := tr.Observe(snap(30, stable, mem("consumer-a", 0, 1), mem("consumer-b", 2)))
	var done *Event
	for i := range got {
		if got[i].Type == EventRebalanceCompleted {
			done = &got[i]
		}
	}
	if got[0].Type != EventConnectionRestored {
		t.Errorf("first event %s, want connection_restored", got[0].Type)
	}
	if done == nil {
		t.Fatalf("no rebalance_completed in %v", got)
	}
	if done.HasDuration || done.Inferred || len(done.Moves) != 1 {
		t.Errorf("got %s, want no duration, not inferred, one move", summary(*done))
	}
	if !strings.Contains(done.Detail, "duration unknown") {
		t.Errorf("detail %q does not say the duration is unknown", done.Detail)
	}
}

func TestDiffStateless(t *testing.T) {
	prev := snap(0, stable, mem("consumer-a", 0, 1), mem("consumer-b", 2))
	next := snap(11, stable, mem("consumer-a", 0, 1, 2))
	got := diffOf(prev, next)
	var types []string
	for _, e := range got {
		types = append(types, string(e.Type))
	}
	want := "member_left rebalance_started rebalance_completed partition_moved"
	if strings.Join(types, " ") != want {
		t.Errorf("Diff gave %s, want %s", strings.Join(types, " "), want)
	}
	if got := diffOf(prev, prev); len(got) != 0 {
		t.Errorf("Diff of a snapshot with itself gave %v", got)
	}
	// A rebalance in progress in prev completes with neither duration nor moves.
	mid := snap(0, preparing, mem("consumer-a"))
	got = diffOf(mid, next)
	if len(got) != 2 || got[1].Type != EventRebalanceCompleted || got[1].HasDuration || got[1].Moves != nil {
		t.Errorf("Diff from a rebalancing snapshot gave %v", got)
	}
}

func TestPartitionsChangedMultiTopic(t *testing.T) {
	mk := func(sec float64, payments int32) Snapshot {
		o := Observation{TakenAt: at(sec), Group: Group{ID: "g", State: stable, Assignor: "range"}}
		m := Member{MemberID: "m-1", ClientID: "c"}
		for p := range int32(2) {
			m.Partitions = append(m.Partitions, TopicPartition{Topic: "orders", Partition: p})
		}
		for p := range payments {
			m.Partitions = append(m.Partitions, TopicPartition{Topic: "payments", Partition: p})
		}
		o.Members = []Member{m}
		return NewSnapshot(o)
	}
	got := diffOf(mk(0, 2), mk(1, 4))
	var pc []Event
	for _, e := range got {
		if e.Type == EventPartitionsChanged {
			pc = append(pc, e)
		}
		if e.Type == EventPartitionMoved && !strings.HasPrefix(e.Detail, "payments/p") {
			t.Errorf("move in a two-topic group not named by topic: %q", e.Detail)
		}
	}
	if len(pc) != 1 || pc[0].Detail != "payments: 2 → 4 partitions" || len(pc[0].Partitions) != 2 || pc[0].Partitions[0].Partition != 2 {
		t.Errorf("partitions_changed: %v", pc)
	}
}

func TestPartList(t *testing.T) {
	tps := func(ps ...int32) []TopicPartition {
		var out []TopicPartition
		for _, p := range ps {
			out = append(out, TopicPartition{Topic: "t", Partition: p})
		}
		return out
	}
	tests := []struct {
		in   []TopicPartition
		want string
	}{
		{tps(2), "p2"},
		{tps(0, 1, 2, 5, 7, 8), "p0–p2, p5, p7–p8"},
		{tps(0, 2, 4, 6, 8, 10, 12, 14), "p0, p2, p4, p6, p8, p10, … (8 in all)"},
	}
	for _, tt := range tests {
		if got := PartitionList(tt.in, false); got != tt.want {
			t.Errorf("PartitionList(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := PartitionList(tps(0, 1), true); got != "t/p0–p1" {
		t.Errorf("multi-topic partList = %q", got)
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		410 * time.Millisecond:   "0.41s",
		12400 * time.Millisecond: "12.4s",
		192 * time.Second:        "3m12s",
	} {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%v) = %q, want %q", d, got, want)
		}
	}
}

// Snapshots built by hand (no partition rows, members unsorted) diff the
// same as NewSnapshot's.
func TestDiffHandBuiltSnapshots(t *testing.T) {
	raw := func(sec float64, members ...Member) Snapshot {
		return Snapshot{TakenAt: at(sec), Group: Group{ID: "order-workers", State: stable, Assignor: "range"}, Members: members}
	}
	a := memID("a-1", "consumer-a", 2, 0, 1)
	got := diffOf(raw(0, a), raw(1, memID("a-1", "consumer-a", 1, 0), memID("b-1", "consumer-b", 2)))
	var sums []string
	for _, e := range got {
		sums = append(sums, summary(e))
	}
	want := []string{
		"member_joined client=consumer-b parts=2 | consumer-b joined (host /127.0.0.1); it owns p2",
		"rebalance_started inferred | rebalance happened between polls: consumer-b joined",
		"rebalance_completed parts=0,1 moves=2:consumer-a→consumer-b inferred | rebalance between polls, duration unknown: 1 partition moved, 2 paused, then back to their owner",
		"partition_moved parts=2 consumer-a→consumer-b inferred | p2: consumer-a → consumer-b",
	}
	if strings.Join(sums, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(sums, "\n"), strings.Join(want, "\n"))
	}
}

func TestLargeRebalanceIsOneEvent(t *testing.T) {
	var all, half []int32
	for p := range int32(200) {
		all = append(all, p)
		if p < 100 {
			half = append(half, p)
		}
	}
	var rest []int32
	for p := int32(100); p < 200; p++ {
		rest = append(rest, p)
	}
	tr := NewTracker("order-workers", 1000)
	tr.Observe(snapN(0, stable, 200, "range", mem("consumer-a", all...)))
	tr.Observe(snapN(1, preparing, 200, "range", mem("consumer-a"), mem("consumer-b")))
	evs := tr.Observe(snapN(2, stable, 200, "range", mem("consumer-a", half...), mem("consumer-b", rest...)))
	var completed *Event
	for i, e := range evs {
		switch e.Type {
		case EventPartitionMoved:
			t.Fatalf("a 100-partition move emitted partition_moved events: %s", e.Detail)
		case EventRebalanceCompleted:
			completed = &evs[i]
		}
	}
	if completed == nil || len(completed.Moves) != 100 {
		t.Fatalf("rebalance_completed missing or without its 100 moves: %+v", completed)
	}
	if !strings.Contains(completed.Detail, "see moves") {
		t.Errorf("detail does not say where the moves are: %q", completed.Detail)
	}
}

// A rebalance first seen when the connection comes back may have begun at
// any time during the outage: its duration is unknown, not measured from
// the restore.
func TestRebalanceFirstSeenAfterOutage(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	tr.Observe(snap(0, stable, mem("consumer-a", 0, 1, 2)))
	tr.ConnectionLost(at(2), errors.New("broken pipe"))
	tr.Observe(snap(30, preparing, mem("consumer-a"), mem("consumer-b")))
	got := tr.Observe(snap(30.5, stable, mem("consumer-a", 0, 1), mem("consumer-b", 2)))
	var done *Event
	for i := range got {
		if got[i].Type == EventRebalanceCompleted {
			done = &got[i]
		}
	}
	if done == nil {
		t.Fatalf("no rebalance_completed in %v", got)
	}
	if done.HasDuration || !strings.Contains(done.Detail, "duration unknown") || len(done.Moves) != 1 {
		t.Errorf("got %s, want no duration (it began during the outage), one move", summary(*done))
	}
}

// A static member (group.instance.id) that restarts within the session
// timeout comes back with a new member id; the coordinator hands it its
// partitions back without a rebalance. It is the same member: no leave, no
// rebalance, no move.
func TestStaticMemberRestart(t *testing.T) {
	static := func(id string, parts ...int32) Member {
		m := memID(id, "consumer-a", parts...)
		m.InstanceID = "worker-1"
		return m
	}
	tr := NewTracker("order-workers", 0)
	tr.Observe(snap(0, stable, static("consumer-a-1111", 0, 1), mem("consumer-b", 2)))
	got := tr.Observe(snap(1, stable, static("consumer-a-2222", 0, 1), mem("consumer-b", 2)))
	if len(got) != 1 || got[0].Type != EventMemberJoined || got[0].MemberID != "consumer-a-2222" ||
		!strings.Contains(got[0].Detail, "no rebalance") {
		for _, e := range got {
			t.Log(summary(e))
		}
		t.Fatalf("static restart gave %d events, want one member_joined saying no rebalance", len(got))
	}
	// A later real rebalance does not count the restarted member's
	// partitions as moved.
	tr.Observe(snap(2, preparing, static("consumer-a-2222"), mem("consumer-b")))
	got = tr.Observe(snap(2.5, stable, static("consumer-a-2222", 0, 1, 2)))
	for _, e := range got {
		if e.Type == EventRebalanceCompleted && (len(e.Moves) != 1 || e.Moves[0].Partition != 2) {
			t.Errorf("rebalance_completed %s, want only p2 moved", summary(e))
		}
	}
}

// Events are dated when the poll that showed them completed: a poll that
// began before a broker froze and was answered when it thawed shows the
// recovery at its answer, and the outage lasts from the last good answer.
func TestOutageDatedByPollCompletion(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	first := snap(0, stable, mem("consumer-a", 0, 1, 2))
	first.CompletedAt = at(0.05)
	tr.Observe(first)
	tr.ConnectionLost(at(10.05), errors.New("i/o timeout")) // the poll at 0.05s… timed out at 10s
	thawed := snap(11, stable, mem("consumer-a", 0, 1, 2))  // began at 11s, answered at 12.5s
	thawed.CompletedAt = at(12.5)
	got := tr.Observe(thawed)
	if len(got) != 1 || got[0].Type != EventConnectionRestored {
		t.Fatalf("restore gave %v", got)
	}
	if !got[0].Time.Equal(at(12.5)) || got[0].Duration != 12450*time.Millisecond {
		t.Errorf("connection_restored at %s after %s, want at the answer (12.5s) after 12.45s", got[0].Time.Sub(at(0)), got[0].Duration)
	}

	// Lost from the start: the outage runs from the first failure.
	tr = NewTracker("order-workers", 0)
	tr.ConnectionLost(at(1), errors.New("refused"))
	s := snap(5, stable, mem("consumer-a", 0, 1, 2))
	s.CompletedAt = at(5.5)
	if got := tr.Observe(s); len(got) != 2 || got[0].Duration != 4500*time.Millisecond {
		t.Errorf("restore after an outage from the start gave %v", got)
	}
}

// diffOf returns the events that lead from prev to next, as a Tracker whose
// last snapshot was prev would report them. It knows nothing before prev: a
// rebalance already in progress in prev completes in next with no duration
// and no moves, since the owners before it are unknown.
func diffOf(prev, next Snapshot) []Event {
	d := differ{group: next.Group.ID}
	if d.group == "" {
		d.group = prev.Group.ID
	}
	d.prime(newSnapView(prev, nil))
	return d.observe(next)
}

// Before any poll succeeded, nothing was lost: the first failure says the
// cluster cannot be reached yet, the first good poll that it connected
// (then watch_started), and a later outage is a lost connection again.
func TestNeverConnectedIsNotLost(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	first := tr.ConnectionLost(at(0), errors.New("dial tcp 127.0.0.1:9092: connection refused"))
	if len(first) != 1 || first[0].Detail != "cannot reach the cluster yet: dial tcp 127.0.0.1:9092: connection refused" {
		t.Fatalf("a failure before any good poll gave %v", first)
	}
	tr.ConnectionLost(at(2), nil)
	got := tr.Observe(snap(4, stable, mem("consumer-a", 0, 1, 2)))
	if len(got) != 2 || got[0].Detail != "connected after 2.00s–4.00s of failed attempts" || got[1].Type != EventWatchStarted {
		t.Fatalf("the first good poll gave %v", got)
	}
	if lost := tr.ConnectionLost(at(6), nil); len(lost) != 1 || lost[0].Detail != "connection lost" {
		t.Errorf("an outage after a good poll gave %v", lost)
	}
	// Polls that hung 5s each from the start: the most runs from the
	// first one's start (0s), not from its failure (5s).
	tr = NewTracker("order-workers", 0)
	tr.PollFailed(at(0), at(5), nil)
	tr.PollFailed(at(5), at(10), nil)
	got = tr.Observe(snap(11, stable, mem("consumer-a", 0, 1, 2)))
	if len(got) < 1 || got[0].Duration != 11*time.Second || got[0].MinDuration != 10*time.Second {
		t.Errorf("hung polls from the start: %v", got)
	}
}

// TestPartitionsChangedWithAsManyRows: a poll whose rows are as many as
// the last one's but other partitions (a topic's partition gone, another
// topic's come) is a partitions change; the tracker, which keeps the last
// view's keys when a poll has the same ones, must see they are not.
func TestPartitionsChangedWithAsManyRows(t *testing.T) {
	mk := func(sec float64, orders, payments int32) Snapshot {
		o := Observation{TakenAt: at(sec), Group: Group{ID: "g", State: stable, Assignor: "range"}}
		m := Member{MemberID: "m-1", ClientID: "c"}
		for p := range orders {
			m.Partitions = append(m.Partitions, TopicPartition{Topic: "orders", Partition: p})
		}
		for p := range payments {
			m.Partitions = append(m.Partitions, TopicPartition{Topic: "payments", Partition: p})
		}
		o.Members = []Member{m}
		return NewSnapshot(o)
	}
	tr := NewTracker("g", 0)
	var got []string
	for i, s := range []Snapshot{mk(0, 4, 1), mk(1, 4, 1), mk(2, 3, 2), mk(3, 3, 2), mk(4, 4, 1)} {
		for _, e := range tr.Observe(s) {
			if e.Type == EventPartitionsChanged {
				got = append(got, fmt.Sprintf("%d %s", i, e.Detail))
			}
		}
	}
	want := []string{
		"2 orders: 4 → 3 partitions", "2 payments: 1 → 2 partitions",
		"4 orders: 3 → 4 partitions", "4 payments: 2 → 1 partitions",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("partitions_changed:\n got %q\nwant %q", got, want)
	}
}
