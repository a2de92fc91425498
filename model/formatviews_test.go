package model

import (
	"strings"
	"testing"
	"time"
)

// The views of --once print kafka-consumer-groups' columns for each group
// type, "-" where a type has no value, and say what a share group's LAG is.
func TestFormatTableViews(t *testing.T) {
	tp := func(p int32) TopicPartition { return TopicPartition{Topic: "orders", Partition: p} }
	obs := func(typ GroupType, members ...Member) Observation {
		return Observation{
			TakenAt: time.Date(2026, 3, 14, 3, 12, 40, 0, time.UTC),
			Group: Group{ID: "g", State: StateStable, Type: typ, Assignor: "uniform", Coordinator: "127.0.0.1:9092", CoordinatorID: 1,
				Epoch: 7, AssignmentEpoch: 6},
			Members: members,
		}.With(Readings{
			Committed:          map[TopicPartition]int64{tp(0): 5, tp(1): 8},
			CommitLeaderEpochs: map[TopicPartition]int32{tp(0): 3},
			Offsets:            map[TopicPartition]PartitionOffsets{tp(0): {LogStart: 0, LogEnd: 36}, tp(1): {LogStart: 0, LogEnd: 9}},
		})
	}
	consumer := obs(TypeConsumer,
		Member{MemberID: "m1", ClientID: "c1", Host: "/h1", MemberEpoch: 6, Partitions: []TopicPartition{tp(0)}, TargetPartitions: []TopicPartition{tp(0), tp(1)}},
		Member{MemberID: "m2", ClientID: "c2", Host: "/h2", MemberEpoch: 5, Partitions: []TopicPartition{tp(1)}})
	classic := obs(TypeClassic,
		Member{MemberID: "m1", ClientID: "c1", Host: "/h1", InstanceID: "i1", Partitions: []TopicPartition{tp(0)}, OwnedPartitions: []TopicPartition{tp(0), tp(1)}, OwnedKnown: true},
		Member{MemberID: "m2", ClientID: "c2", Host: "/h2", Partitions: []TopicPartition{tp(1)}})
	classic.Group.Assignor, classic.Group.Epoch, classic.Group.AssignmentEpoch = "cooperative-sticky", 0, 0
	share := obs(TypeShare, Member{MemberID: "m1", ClientID: "c1", Host: "/h1", MemberEpoch: 2, Partitions: []TopicPartition{tp(0), tp(1)}})
	share = share.With(Readings{ShareLag: map[TopicPartition]int64{tp(0): 4, tp(1): 1}})
	tests := []struct {
		name string
		o    Observation
		v    TableView
		want []string // lines, their runs of spaces as one
	}{
		{"consumer state verbose", consumer, TableView{State: true, Verbose: true}, []string{
			"GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE GROUP-EPOCH TARGET-ASSIGNMENT-EPOCH #MEMBERS",
			"g 127.0.0.1:9092 (1) uniform Stable 7 6 2"}},
		{"classic state verbose: no epochs", classic, TableView{State: true, Verbose: true}, []string{
			"GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE GROUP-EPOCH TARGET-ASSIGNMENT-EPOCH #MEMBERS",
			"g 127.0.0.1:9092 (1) cooperative-sticky Stable - - 2"}},
		{"consumer members", consumer, TableView{Members: true}, []string{
			"GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS",
			"g m1 /h1 c1 1", "g m2 /h2 c2 1"}},
		{"consumer members verbose", consumer, TableView{Members: true, Verbose: true}, []string{
			"GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT",
			"g m1 /h1 c1 1 6 orders:0 6 orders:0,1", "g m2 /h2 c2 1 5 orders:1 6 -"}},
		{"classic members verbose", classic, TableView{Members: true, Verbose: true}, []string{
			"GROUP CONSUMER-ID GROUP-INSTANCE-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT OWNED-PARTITIONS",
			"g m1 i1 /h1 c1 1 orders:0 orders:0,1", "g m2 - /h2 c2 1 orders:1 -"}},
		{"share members verbose", share, TableView{Members: true, Verbose: true}, []string{
			"GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT",
			"g m1 /h1 c1 2 2 orders:0,1"}},
		{"offsets verbose", consumer, TableView{Verbose: true}, []string{
			"GROUP TOPIC PARTITION LEADER-EPOCH CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID LAG-AGE STATUS",
			"g orders 0 3 5 36 31 m1 /h1 c1 - -", "g orders 1 - 8 9 1 m2 /h2 c2 - -"}},
		{"share offsets: the broker's lag, said", share, TableView{}, []string{
			"GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID LAG-AGE STATUS",
			"g orders 0 5 36 4 m1 /h1 c1 - -", "g orders 1 8 9 1 m1 /h1 c1 - -", "", ShareLagNote}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := FormatTableView(NewSnapshot(tt.o), tt.v)
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				got = append(got, strings.Join(strings.Fields(l), " "))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
	// The default view is FormatTable's, and says no share note for
	// other groups.
	if s := NewSnapshot(consumer); FormatTableView(s, TableView{}) != FormatTable(s) || strings.Contains(FormatTable(s), ShareLagNote) {
		t.Error("the default view is not FormatTable's, or notes a share lag")
	}
}
