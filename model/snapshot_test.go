package model

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestLag(t *testing.T) {
	tests := []struct {
		name                       string
		committed, start, end, lag int64
		fromStart                  bool
	}{
		{"committed", 40, 0, 100, 60, false},
		{"caught up", 100, 0, 100, 0, false},
		{"committed past end (truncated log)", 120, 0, 100, 0, false},
		{"no commit counts from log start", NoOffset, 30, 100, 70, true},
		{"no commit and empty log", NoOffset, 100, 100, 0, true},
		{"unknown log end", 10, NoOffset, NoOffset, 0, false},
		{"nothing known", NoOffset, NoOffset, NoOffset, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lag, fromStart := Lag(tt.committed, tt.start, tt.end)
			if lag != tt.lag || fromStart != tt.fromStart {
				t.Errorf("Lag(%d, %d, %d) = %d, %v; want %d, %v", tt.committed, tt.start, tt.end, lag, fromStart, tt.lag, tt.fromStart)
			}
		})
	}
}

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func tp(topic string, p int32) TopicPartition { return TopicPartition{Topic: topic, Partition: p} }

func sampleObservation() Observation {
	return Observation{
		TakenAt: t0,
		Group:   Group{ID: "order-workers", State: StateStable, ProtocolType: "consumer", Assignor: "range"},
		Members: []Member{
			{MemberID: "consumer-b-2222", ClientID: "consumer-b", Host: "/10.0.0.2", Partitions: []TopicPartition{tp("orders", 2)}},
			{MemberID: "consumer-a-1111", ClientID: "consumer-a", Host: "/10.0.0.1", Partitions: []TopicPartition{tp("orders", 1), tp("orders", 0)}},
		},
	}.With(Readings{
		Committed: map[TopicPartition]int64{tp("orders", 0): 90, tp("orders", 2): 10, tp("old", 0): 5},
		Offsets: map[TopicPartition]PartitionOffsets{
			tp("orders", 0): {LogStart: 0, LogEnd: 100},
			tp("orders", 1): {LogStart: 20, LogEnd: 50},
			tp("orders", 2): {LogStart: 0, LogEnd: 400},
			tp("old", 0):    {LogStart: 0, LogEnd: 5},
		},
	})
}

func TestNewSnapshot(t *testing.T) {
	s := NewSnapshot(sampleObservation())
	want := []struct {
		tp        TopicPartition
		owner     string
		committed int64
		lag       int64
		fromStart bool
	}{
		{tp("old", 0), "", 5, 0, false},
		{tp("orders", 0), "consumer-a", 90, 10, false},
		{tp("orders", 1), "consumer-a", NoOffset, 30, true},
		{tp("orders", 2), "consumer-b", 10, 390, false},
	}
	if len(s.Partitions) != len(want) {
		t.Fatalf("got %d partitions, want %d: %+v", len(s.Partitions), len(want), s.Partitions)
	}
	for i, w := range want {
		p := s.Partitions[i]
		if p.TopicPartition != w.tp || p.ClientID != w.owner || p.Committed != w.committed || p.Lag != w.lag || p.LagFromStart != w.fromStart {
			t.Errorf("row %d = %+v, want %+v", i, p, w)
		}
	}
	if s.TotalLag != 430 || s.MaxLag != 390 {
		t.Errorf("total/max lag = %d/%d, want 430/390", s.TotalLag, s.MaxLag)
	}
	if s.Members[0].ClientID != "consumer-a" || s.Members[0].Lag != 40 || s.Members[1].Lag != 390 {
		t.Errorf("members = %+v", s.Members)
	}
	if got := s.Members[0].Partitions; got[0] != tp("orders", 0) || got[1] != tp("orders", 1) {
		t.Errorf("member partitions not sorted: %v", got)
	}
}

func TestNewSnapshotMissingOffsetsIsAPartitionError(t *testing.T) {
	o := sampleObservation()
	p := o.Find(tp("orders", 1))
	p.HasOffsets, p.Offsets = false, PartitionOffsets{}
	o.SetOffsets(tp("orders", 2), PartitionOffsets{LogStart: NoOffset, LogEnd: NoOffset, Err: "NOT_LEADER_OR_FOLLOWER"})
	s := NewSnapshot(o)
	if len(s.Partitions) != 4 {
		t.Fatalf("a partition error lost rows: %d", len(s.Partitions))
	}
	for _, p := range s.Partitions {
		if p.Partition == 2 && p.Topic == "orders" && (p.Err != "NOT_LEADER_OR_FOLLOWER" || p.Lag != 0) {
			t.Errorf("p2 = %+v", p)
		}
		if p.Partition == 1 && p.Topic == "orders" && p.Err == "" {
			t.Errorf("p1 without offsets carries no error: %+v", p)
		}
	}
}

func TestStateText(t *testing.T) {
	for state, want := range map[string]string{
		StateEmpty: "has no active members", StatePreparingRebalance: "is rebalancing",
		StateCompletingRebalance: "is rebalancing", StateDead: "does not exist", StateStable: "Stable",
	} {
		if got := (Group{State: state}).StateText(); got != want {
			t.Errorf("%s: %q, want %q", state, got, want)
		}
	}
}

func TestFormatTable(t *testing.T) {
	s := NewSnapshot(sampleObservation())
	out := FormatTable(s)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID LAG-AGE STATUS" {
		t.Fatalf("header = %q", lines[0])
	}
	if got := strings.Join(strings.Fields(lines[1]), " "); got != "order-workers old 0 5 5 0 - - - 0s -" {
		t.Errorf("unowned row = %q", got)
	}
	// Nothing committed: the lag counts from the log start, marked, with
	// the footnote under the table.
	if got := strings.Join(strings.Fields(lines[3]), " "); got != "order-workers orders 1 - 50 30* consumer-a-1111 /10.0.0.1 consumer-a - -" {
		t.Errorf("uncommitted row = %q", got)
	}
	if n := len(lines); n < 3 || lines[n-2] != "" || lines[n-1] != LagFromStartNote {
		t.Fatalf("table does not end with a blank line and %q:\n%s", LagFromStartNote, out)
	}
	lines = lines[:len(lines)-2]
	// Columns line up: every row starts its TOPIC column at the same byte.
	col := strings.Index(lines[0], "TOPIC")
	for _, l := range lines[1:] {
		if l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("misaligned row %q", l)
		}
	}

	s.Group.State = StateEmpty
	if !strings.Contains(FormatTable(s), "Consumer group 'order-workers' has no active members.") {
		t.Error("no Empty line")
	}
	s.Group.State = StatePreparingRebalance
	if !strings.Contains(FormatTable(s), "Warning: Consumer group 'order-workers' is rebalancing.") {
		t.Error("no rebalancing line")
	}
}

func TestJSONShape(t *testing.T) {
	b, err := MarshalJSONSnapshot(NewSnapshot(sampleObservation()))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"group", "state", "protocol_type", "assignor", "taken_at", "total_lag", "members", "partitions"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing %q", k)
		}
	}
	if got["taken_at"] != "2026-11-29T10:00:00Z" {
		t.Errorf("taken_at = %v", got["taken_at"])
	}
	parts := got["partitions"].([]any)
	unowned := parts[0].(map[string]any)
	for _, k := range []string{"member_id", "client_id", "host"} {
		if v, ok := unowned[k]; !ok || v != nil {
			t.Errorf("unowned partition %q = %v (present %v), want null", k, v, ok)
		}
	}
	uncommitted := parts[2].(map[string]any)
	if v, ok := uncommitted["committed"]; !ok || v != nil {
		t.Errorf("uncommitted partition committed = %v, want null", v)
	}
	if uncommitted["client_id"] != "consumer-a" || uncommitted["lag"] != 30.0 || uncommitted["log_start"] != 20.0 || uncommitted["log_end"] != 50.0 {
		t.Errorf("partition = %v", uncommitted)
	}
	m := got["members"].([]any)[0].(map[string]any)
	if m["member_id"] != "consumer-a-1111" || m["lag"] != 40.0 || len(m["partitions"].([]any)) != 2 {
		t.Errorf("member = %v", m)
	}
}

// A committed offset past log-end (the log was truncated by an unclean
// leader election, or the topic recreated) is not "lag 0, all well": the
// consumer's position is out of range and it will reset.
func TestCommittedPastLogEnd(t *testing.T) {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	s := NewSnapshot(Observation{
		Group: Group{ID: "g", State: StateEmpty},
	}.With(Readings{
		Committed: map[TopicPartition]int64{tp: 30},
		Offsets:   map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: 20}},
	}))
	p := s.Partitions[0]
	if p.Lag != 0 || !strings.Contains(p.Err, "past log-end 20") {
		t.Errorf("lag %d err %q, want lag 0 and an error saying the commit is past log-end", p.Lag, p.Err)
	}
	// The --once table does not print that lag 0 as if all were well: LAG
	// is "-" and the error follows the table.
	out := FormatTable(s)
	var row []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "g ") {
			row = strings.Fields(l)
		}
	}
	if len(row) < 6 || row[5] != "-" || !strings.Contains(out, "\nerror orders/0: committed offset 30 is past log-end 20") {
		t.Errorf("table:\n%s", out)
	}
}

func TestFormatTableUnknownState(t *testing.T) {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	s := NewSnapshot(Observation{
		Group: Group{ID: "g", State: StateUnknown},
	}.With(Readings{
		Committed: map[TopicPartition]int64{tp: 5},
		Offsets:   map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: 20}},
	}))
	out := FormatTable(s)
	if !strings.Contains(out, "Consumer group 'g' is not a classic group") || !strings.Contains(out, "15") {
		t.Errorf("table:\n%s\nwant a state line saying members are unknown, and lag 15", out)
	}
}

// A broker answering offsets near the int64 limit must not make a total
// smaller than one of its parts; offsets no log can have are errors, not lag.
func TestSnapshotHostileOffsets(t *testing.T) {
	const huge = math.MaxInt64 - 10
	o := Observation{
		TakenAt: t0,
		Group:   Group{ID: "g", State: StateStable},
		Members: []Member{{MemberID: "m", ClientID: "c", Partitions: []TopicPartition{tp("t", 0), tp("t", 1), tp("t", 2), tp("t", 3)}}},
	}.With(Readings{
		Committed: map[TopicPartition]int64{
			tp("t", 0): 0, tp("t", 1): 0, tp("t", 2): 5, tp("t", 3): -7,
		},
		Offsets: map[TopicPartition]PartitionOffsets{
			tp("t", 0): {LogStart: 0, LogEnd: huge},
			tp("t", 1): {LogStart: 0, LogEnd: huge},
			tp("t", 2): {LogStart: 100, LogEnd: 50},
			tp("t", 3): {LogStart: 0, LogEnd: 10},
		},
	})
	s := NewSnapshot(o)
	if s.TotalLag < s.MaxLag || s.TotalLag != math.MaxInt64 {
		t.Errorf("total lag %d, max lag %d: the total must saturate at MaxInt64", s.TotalLag, s.MaxLag)
	}
	if s.Members[0].Lag != math.MaxInt64 {
		t.Errorf("member lag %d, want saturated", s.Members[0].Lag)
	}
	for _, p := range s.Partitions[2:] {
		if p.Err == "" || p.Lag != 0 || p.LogEnd != NoOffset {
			t.Errorf("%v: err %q lag %d log-end %d; want an error and no lag", p.TopicPartition, p.Err, p.Lag, p.LogEnd)
		}
	}
	if !strings.Contains(s.Partitions[2].Err, "log-end 50 is below log-start 100") {
		t.Errorf("p2 error %q", s.Partitions[2].Err)
	}
	if !strings.Contains(s.Partitions[3].Err, "impossible committed offset -7") {
		t.Errorf("p3 error %q", s.Partitions[3].Err)
	}
	// The overview sums a group the same way.
	ov := NewOverviewHistory(HistoryOptions{}).Observe(&OverviewObservation{
		TakenAt: t0,
		Groups: []OverviewGroup{OverviewGroupOf(GroupSummary{ID: "g", State: StateStable},
			map[TopicPartition]int64{tp("t", 0): 0, tp("t", 1): 0}, nil, nil, nil)},
		Offsets: map[TopicPartition]PartitionOffsets{tp("t", 0): {LogStart: 0, LogEnd: huge}, tp("t", 1): {LogStart: 0, LogEnd: huge}},
	})
	if ov[0].TotalLag != math.MaxInt64 || ov[0].MaxLag != huge {
		t.Errorf("overview total lag %d, max %d; want saturated total", ov[0].TotalLag, ov[0].MaxLag)
	}
}

// A partition whose commit could not be read has an unknown lag: not its
// whole log counted from the start, nor in the totals, nor an age.
func TestUnreadableCommitLagUnknown(t *testing.T) {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	ok := TopicPartition{Topic: "orders", Partition: 1}
	s := NewSnapshot(Observation{
		TakenAt: time.Unix(1_000_000, 0),
		Group:   Group{ID: "g", State: StateStable},
		Members: []Member{{MemberID: "m", ClientID: "c", Partitions: []TopicPartition{tp, ok}}},
	}.With(Readings{
		Committed:       map[TopicPartition]int64{ok: 90},
		CommitErrs:      map[TopicPartition]string{tp: "TOPIC_AUTHORIZATION_FAILED"},
		Offsets:         map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: 500}, ok: {LogStart: 0, LogEnd: 100}},
		OldestTimestamp: map[TopicPartition]time.Time{tp: time.Unix(0, 0), ok: time.Unix(999_990, 0)},
	}))
	p := s.Partitions[0]
	if p.Err == "" || p.Lag != 0 || p.LagFromStart || p.CountsFromStart() || p.LagAgeKnown {
		t.Errorf("unreadable commit: err %q lag %d from start %v age known %v", p.Err, p.Lag, p.LagFromStart, p.LagAgeKnown)
	}
	if s.TotalLag != 10 || s.MaxLag != 10 || s.LagFromStart() || s.Members[0].Lag != 10 || s.MaxLagAge != 10*time.Second {
		t.Errorf("totals %d max %d from start %v member %d max age %s: want only the readable partition's 10, 10s", s.TotalLag, s.MaxLag, s.LagFromStart(), s.Members[0].Lag, s.MaxLagAge)
	}
}
