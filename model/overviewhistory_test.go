package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// op is one partition of an overview group: committed (NoOffset: none),
// log start and end, whether a member owns it, and the time of the record
// at the committed offset (zero: not read).
type op struct {
	committed, logStart, logEnd int64
	owned                       bool
	ts                          time.Time
}

// ovObs is one overview poll at t0+at of one group g, partition i of
// parts being orders/i.
func ovObs(at time.Duration, state string, members int, parts []op) *OverviewObservation {
	g := mapGroup{
		Summary:   GroupSummary{ID: "g", State: state, Type: TypeClassic, Members: members},
		Committed: map[TopicPartition]int64{},
		Assigned:  map[TopicPartition]bool{},
	}
	o := &OverviewObservation{TakenAt: ht0.Add(at), Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
	for i, p := range parts {
		tp := TopicPartition{Topic: "orders", Partition: int32(i)}
		po := PartitionOffsets{LogStart: NoOffset, LogEnd: p.logEnd}
		oldest := p.committed
		if p.committed >= 0 {
			g.Committed[tp] = p.committed
		} else {
			po.LogStart, oldest = p.logStart, p.logStart
		}
		if p.owned {
			g.Assigned[tp] = true
		}
		o.Offsets[tp] = po
		if !p.ts.IsZero() {
			o.Records[RecordAt{tp, oldest}] = RecordStamp{Time: p.ts}
		}
	}
	o.Groups = []OverviewGroup{g.group()}
	return o
}

// aged is partition p of a producer, committed at c, owned, with the
// record at c's time known when it has lag.
func aged(at time.Duration, p produced, c int64) op {
	o := op{committed: c, logEnd: p.end(at), owned: true}
	if c < o.logEnd {
		o.ts = p.writtenAt(c)
	}
	return o
}

func observe1(h *OverviewHistory, o *OverviewObservation) GroupSummary { return h.Observe(o)[0] }

// A group that owns partitions and never committed: its lag counts from
// the log start, as the group view counts it, and is flagged.
func TestObserveNeverCommitted(t *testing.T) {
	o := ovObs(0, StateStable, 1, []op{
		{committed: NoOffset, logStart: 0, logEnd: 20, owned: true, ts: ht0.Add(-time.Minute)},
		{committed: NoOffset, logStart: 5, logEnd: 25, owned: true},
		{committed: NoOffset, logStart: 10, logEnd: 30, owned: true},
	})
	s := o.Summarize(HistoryOptions{})[0]
	if s.TotalLag != 60 || s.MaxLag != 20 || !s.LagFromStart || s.FromStartPartitions != 3 || s.Partitions != 3 || s.Committed != 0 {
		t.Fatalf("summary %+v: want total 60 from the log start over 3 partitions, flagged", s)
	}
	if !s.MaxLagAgeKnown || s.MaxLagAge != time.Minute {
		t.Errorf("max lag age %v (known %v), want 1m: the record at the log start", s.MaxLagAge, s.MaxLagAgeKnown)
	}
	if s.Status != StatusLagging {
		t.Errorf("status %s, want LAGGING (owned, the record at a log start a minute old, nothing committed)", s.Status)
	}
	// The group view's rule, from the same offsets: the same total.
	snap := NewSnapshot(Observation{
		TakenAt: ht0,
		Group:   Group{ID: "g", State: StateStable},
		Members: []Member{{MemberID: "m", Partitions: []TopicPartition{{"orders", 0}, {"orders", 1}, {"orders", 2}}}},
	}.With(Readings{
		Offsets: map[TopicPartition]PartitionOffsets{{"orders", 0}: {0, 20, ""}, {"orders", 1}: {5, 25, ""}, {"orders", 2}: {10, 30, ""}},
	}))
	if snap.TotalLag != s.TotalLag {
		t.Errorf("group view total %d, overview %d", snap.TotalLag, s.TotalLag)
	}
	b, err := MarshalJSONOverview([]GroupSummary{s})
	if err != nil || !strings.Contains(string(b), `"lag_from_start": true`) || !strings.Contains(string(b), `"from_start_partitions": 3`) {
		t.Errorf("JSON %s (%v) lacks lag_from_start", b, err)
	}
	out := FormatOverview([]GroupSummary{s})
	if !strings.Contains(out, " 60* ") || !strings.HasSuffix(out, "\n"+LagFromStartNote+"\n") {
		t.Errorf("table does not mark 60* with the footnote:\n%s", out)
	}
}

// Observe counts lag, its age and the partitions from the log start as
// NewSnapshot does, over random groups: owned, targeted, committed (some
// below the log start), unreadable, share lag, records read or not.
func TestObserveMatchesNewSnapshot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	at := ht0.Add(time.Hour)
	for i := 0; i < 2000; i++ {
		n := 1 + rng.IntN(8)
		g := mapGroup{Summary: GroupSummary{ID: "g", State: StateStable, Members: 1},
			Committed: map[TopicPartition]int64{}, Assigned: map[TopicPartition]bool{}, ShareLag: map[TopicPartition]int64{}}
		ov := &OverviewObservation{TakenAt: at, Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
		obs := Observation{
			TakenAt: at,
			Group:   Group{ID: "g", State: StateStable},
		}.With(Readings{
			Committed:        map[TopicPartition]int64{},
			Offsets:          map[TopicPartition]PartitionOffsets{},
			ShareLag:         map[TopicPartition]int64{},
			OldestTimestamp:  map[TopicPartition]time.Time{},
			OldestGone:       map[TopicPartition]bool{},
			OldestMarkerOnly: map[TopicPartition]bool{},
		})
		m := Member{MemberID: "m"}
		for p := 0; p < n; p++ {
			tp := TopicPartition{Topic: "orders", Partition: int32(p)}
			start := int64(rng.IntN(20))
			end := start + int64(rng.IntN(30))
			committed := NoOffset
			if rng.IntN(3) > 0 {
				committed = int64(rng.IntN(int(end) + 2))
				g.Committed[tp] = committed
				obs.SetCommitted(tp, committed)
				if rng.IntN(5) == 0 {
					l := int64(rng.IntN(10))
					g.ShareLag[tp] = l
					obs.SetShareLag(tp, l)
				}
			}
			switch rng.IntN(4) {
			case 0:
				g.Assigned[tp] = true
				m.Partitions = append(m.Partitions, tp)
			case 1:
				if committed == NoOffset {
					g.Assigned[tp] = false // a target only
					m.TargetPartitions = append(m.TargetPartitions, tp)
				}
			}
			if _, row := g.Assigned[tp]; !row && committed == NoOffset {
				continue
			}
			full := PartitionOffsets{LogStart: start, LogEnd: end}
			if rng.IntN(8) == 0 {
				full = PartitionOffsets{LogStart: NoOffset, LogEnd: NoOffset, Err: "log offsets: unreadable"}
			}
			obs.SetOffsets(tp, full)
			seen := full // the overview asks the log start only without a commit
			if committed >= 0 && full.Err == "" {
				seen.LogStart = NoOffset
			}
			ov.Offsets[tp] = seen
			oldest := committed
			if oldest < 0 {
				oldest = start
			}
			if full.Err != "" || oldest >= end || oldest < start {
				continue // nothing to read, or known gone
			}
			switch rng.IntN(4) {
			case 0:
				ts := at.Add(-time.Duration(rng.IntN(100)) * time.Second)
				obs.SetOldestTimestamp(tp, ts)
				ov.Records[RecordAt{tp, oldest}] = RecordStamp{Time: ts}
			case 1:
				obs.SetOldestMarkerOnly(tp)
				ov.Records[RecordAt{tp, oldest}] = RecordStamp{MarkersOnly: true}
			case 2:
				obs.SetOldestGone(tp)
				ov.Records[RecordAt{tp, oldest}] = RecordStamp{Gone: true}
			}
		}
		obs.Members = []Member{m}
		ov.Groups = []OverviewGroup{g.group()}
		snap := NewSnapshot(obs)
		s := ov.Summarize(HistoryOptions{})[0]
		from := 0
		for _, r := range snap.Partitions {
			if r.LagFromStart && r.LogEnd >= 0 {
				from++
			}
		}
		if s.TotalLag != snap.TotalLag || s.MaxLag != snap.MaxLag || s.MaxLagAge != snap.MaxLagAge ||
			s.MaxLagAgeKnown != snap.MaxLagAgeKnown || s.FromStartPartitions != from || s.Partitions != len(snap.Partitions) {
			t.Fatalf("case %d: overview %+v\ngroup view: total %d max %d age %v/%v from start %d rows %d\n%+v",
				i, s, snap.TotalLag, snap.MaxLag, snap.MaxLagAge, snap.MaxLagAgeKnown, from, len(snap.Partitions), snap.Partitions)
		}
	}
}

// OldestRecords names each record the lag ages need once, and only for
// rows with lag.
func TestOldestRecords(t *testing.T) {
	o := ovObs(0, StateStable, 1, []op{
		{committed: 4, logEnd: 10},                                 // lag: the record at 4
		{committed: 7, logEnd: 7},                                  // no lag
		{committed: NoOffset, logStart: 3, logEnd: 9, owned: true}, // from the log start: 3
		{committed: 2, logEnd: -1},                                 // log end unknown
	})
	g2 := o.Groups[0]
	g2.Summary.ID = "g2"
	o.Groups = append(o.Groups, g2) // same offsets: the same records
	got := o.OldestRecords()
	want := map[RecordAt]bool{{TopicPartition{"orders", 0}, 4}: true, {TopicPartition{"orders", 2}, 3}: true}
	if len(got) != len(want) {
		t.Fatalf("OldestRecords = %v, want %v", got, want)
	}
	for _, r := range got {
		if !want[r] {
			t.Errorf("OldestRecords names %v, want only %v", r, want)
		}
	}
}

// One poll (--once) tells every status but STALLED and REWOUND: records
// an hour old are LAGGING from the first poll, whatever the group's state.
func TestObserveOnePoll(t *testing.T) {
	old := ht0.Add(-time.Hour)
	for _, tt := range []struct {
		name    string
		state   string
		members int
		parts   []op
		want    Status
	}{
		{"empty with lag", StateEmpty, 0, []op{{committed: 1, logEnd: 9, ts: old}}, StatusStopped},
		{"empty caught up", StateEmpty, 0, []op{{committed: 9, logEnd: 9}}, StatusOK},
		{"stable, lag on a partition nobody owns", StateStable, 2, []op{{committed: 1, logEnd: 9, owned: true, ts: old}, {committed: 1, logEnd: 9, ts: old}}, StatusUnowned},
		{"rebalancing: owners unknown", StatePreparingRebalance, 2, []op{{committed: 1, logEnd: 9, ts: old}}, StatusLagging},
		{"stable, owned, an hour behind", StateStable, 1, []op{{committed: 1, logEnd: 9, owned: true, ts: old}}, StatusLagging},
		{"stable, owned, records 2s old", StateStable, 1, []op{{committed: 1, logEnd: 9, owned: true, ts: ht0.Add(-2 * time.Second)}}, StatusOK},
		{"unknown type, commits", StateUnknown, 0, []op{{committed: 1, logEnd: 9, ts: old}}, StatusLagging},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := ovObs(0, tt.state, tt.members, tt.parts).Summarize(HistoryOptions{})[0]
			if s.Status != tt.want {
				t.Errorf("status %s, want %s", s.Status, tt.want)
			}
		})
	}
}

// STALLED once a lagging partition's commit has not moved for StallAfter,
// whether or not the group's other partitions commit; a commit, or lag 0,
// restarts the clock.
func TestOverviewStalled(t *testing.T) {
	h := NewOverviewHistory(HistoryOptions{StallAfter: 30 * time.Second})
	p := produced{rate: 10}
	var st Status
	for at := time.Duration(0); at <= 40*time.Second; at += time.Second {
		// p0 keeps up; p1 is stuck at 5 (a poison message) while records
		// keep coming.
		s := observe1(h, ovObs(at, StateStable, 2, []op{aged(at, p, p.end(at)), aged(at, p, 5)}))
		st = s.Status
		switch {
		case at < 30*time.Second && st == StatusStalled:
			t.Fatalf("at %s: STALLED before --stall-after", at)
		case at >= 30*time.Second && st != StatusStalled:
			t.Fatalf("at %s: %s, want STALLED (p1 unmoved 30s with lag)", at, st)
		}
	}
	// p1 commits: the stall ends.
	s := observe1(h, ovObs(41*time.Second, StateStable, 2, []op{aged(41*time.Second, p, p.end(41*time.Second)), aged(41*time.Second, p, 6)}))
	if s.Status == StatusStalled {
		t.Errorf("after p1's commit moved: %s", s.Status)
	}
}

// A commit going back is REWOUND for Window, then no longer; a truncated
// log explains a lower commit.
func TestOverviewRewound(t *testing.T) {
	h := NewOverviewHistory(HistoryOptions{})
	step := func(at time.Duration, c, end int64) Status {
		return observe1(h, ovObs(at, StateStable, 1, []op{{committed: c, logEnd: end, owned: true, ts: ht0.Add(at - time.Second)}})).Status
	}
	step(0, 100, 100)
	if st := step(time.Second, 40, 100); st != StatusRewound {
		t.Fatalf("commit 100 → 40: %s, want REWOUND", st)
	}
	if st := step(5*time.Second, 100, 100); st != StatusRewound {
		t.Errorf("5s after the rewind: %s, want REWOUND still (it sticks for the window)", st)
	}
	if st := step(12*time.Second, 100, 100); st != StatusOK {
		t.Errorf("11s after the rewind: %s, want OK", st)
	}
	if st := step(13*time.Second, 10, 20); st == StatusRewound {
		t.Errorf("log truncated (end 100 → 20) and commit with it: REWOUND")
	}
}

// A group whose partitions are written 1,000/s and consumed 30/s after a
// minute of keeping up turns LAGGING within 5s of falling behind (the
// group view's TestFallingBehindFlagsWithinSeconds, at group level).
func TestOverviewFallingBehindFlagsWithinSeconds(t *testing.T) {
	h := NewOverviewHistory(HistoryOptions{})
	p := produced{rate: 1000}
	var flagged time.Duration = -1
	var c int64
	for at := time.Duration(0); at <= 70*time.Second; at += time.Second {
		if at <= 60*time.Second {
			c = p.end(at)
		} else {
			c += 30
		}
		s := observe1(h, ovObs(at, StateStable, 1, []op{aged(at, p, c), aged(at, p, p.end(at))}))
		if at <= 60*time.Second && s.Status != StatusOK {
			t.Fatalf("at %s, caught up: %s", at, s.Status)
		}
		if at > 60*time.Second && s.Status == StatusLagging && flagged < 0 {
			flagged = at - 60*time.Second
		}
	}
	if flagged < 0 || flagged > 5*time.Second {
		t.Fatalf("1,000/s produced against 30/s consumed flagged LAGGING after %s, want within 5s", flagged)
	}
}

// Consumers keeping up with 1,000/s, committing every 200ms, 5s or 8s with
// jitter in what each poll sees, stay OK over five minutes of polls.
func TestOverviewKeepingUpNeverFlaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, every := range []time.Duration{200 * time.Millisecond, 5 * time.Second, 8 * time.Second} {
		t.Run(fmt.Sprint(every), func(t *testing.T) {
			h := NewOverviewHistory(HistoryOptions{})
			p := produced{rate: 1000}
			at := time.Duration(0)
			for at < 5*time.Minute {
				at += 700*time.Millisecond + time.Duration(rng.IntN(600))*time.Millisecond
				commitAt := at.Truncate(every)
				n := int64(commitAt / every)
				c := max(p.end(commitAt-time.Duration(n*7919%300)*time.Millisecond), 0)
				// Two partitions, the second's commits lagging by
				// another jitter.
				c2 := max(p.end(commitAt-time.Duration(n*6007%300)*time.Millisecond), 0)
				s := observe1(h, ovObs(at, StateStable, 2, []op{aged(at, p, c), aged(at, p, c2)}))
				if s.Status != StatusOK {
					t.Fatalf("at %s: %s (lag %d, age %s) for consumers keeping up", at, s.Status, s.TotalLag, s.MaxLagAge)
				}
			}
		})
	}
}

// After its only consumer dies (no more commits) while records keep
// coming, the group turns LAGGING well before a 10s session timeout ends,
// lag ages known or not.
func TestOverviewDeadMemberFlagsBeforeSessionTimeout(t *testing.T) {
	for _, ages := range []bool{true, false} {
		h := NewOverviewHistory(HistoryOptions{})
		p := produced{rate: 5}
		var flagged time.Duration = -1
		var c int64
		for at := time.Duration(0); at <= 40*time.Second; at += time.Second {
			if at <= 20*time.Second {
				c = p.end(at)
			}
			part := aged(at, p, c)
			if !ages {
				part.ts = time.Time{}
			}
			s := observe1(h, ovObs(at, StateStable, 1, []op{part}))
			if at > 20*time.Second && s.Status != StatusOK && flagged < 0 {
				flagged = at - 20*time.Second
			}
		}
		if flagged < 0 || flagged >= 10*time.Second {
			t.Errorf("ages known %v: flagged %s after the death, want well before 10s", ages, flagged)
		}
	}
}

// A partition whose offsets cannot be read for a poll keeps its stall
// clock and verdict rather than flap to OK.
func TestOverviewUnreadableKeepsVerdict(t *testing.T) {
	h := NewOverviewHistory(HistoryOptions{StallAfter: 5 * time.Second})
	old := ht0.Add(-time.Hour)
	for at := time.Duration(0); at <= 6*time.Second; at += time.Second {
		observe1(h, ovObs(at, StateStable, 1, []op{{committed: 3, logEnd: 9, owned: true, ts: old}}))
	}
	o := ovObs(7*time.Second, StateStable, 1, []op{{committed: 3, logEnd: 9, owned: true}})
	o.Offsets[TopicPartition{"orders", 0}] = PartitionOffsets{LogStart: NoOffset, LogEnd: NoOffset, Err: "log offsets: leader gone"}
	o.LogErr = "leader 127.0.0.1:9092: connection refused"
	s := observe1(h, o)
	if s.Status != StatusStalled {
		t.Errorf("unreadable for a poll: %s, want STALLED kept", s.Status)
	}
	if !strings.Contains(s.Err, "log end of 1 partition unknown: leader 127.0.0.1:9092") {
		t.Errorf("err %q does not say the log end is unknown and why", s.Err)
	}
	if s := observe1(h, ovObs(8*time.Second, StateStable, 1, []op{{committed: 3, logEnd: 9, owned: true, ts: old}})); s.Status != StatusStalled {
		t.Errorf("readable again: %s, want STALLED (the clock kept running)", s.Status)
	}
}

// Groups and partitions that leave are forgotten: one back later starts
// afresh.
func TestOverviewForgets(t *testing.T) {
	h := NewOverviewHistory(HistoryOptions{StallAfter: 5 * time.Second})
	old := ht0.Add(-time.Hour)
	stuck := []op{{committed: 3, logEnd: 9, owned: true, ts: old}}
	for at := time.Duration(0); at <= 6*time.Second; at += time.Second {
		observe1(h, ovObs(at, StateStable, 1, stuck))
	}
	h.Observe(&OverviewObservation{TakenAt: ht0.Add(7 * time.Second)}) // the group is gone
	if len(h.groups) != 0 {
		t.Fatalf("%d groups remembered after all left", len(h.groups))
	}
	// Its records an hour old, it is LAGGING at once, not STALLED.
	if s := observe1(h, ovObs(8*time.Second, StateStable, 1, stuck)); s.Status != StatusLagging {
		t.Errorf("back after leaving: %s, want LAGGING (a new stall clock)", s.Status)
	}
	// An older poll restarts the history.
	if s := observe1(h, ovObs(0, StateStable, 1, stuck)); s.Status != StatusLagging {
		t.Errorf("after a poll from the past: %s", s.Status)
	}
}

// The overview's status sort puts the group in trouble first: worst
// status, then the oldest lag, then the most lag; lag age sorts groups
// with a known age first.
func TestSortGroupsByStatus(t *testing.T) {
	gs := []GroupSummary{
		{ID: "fine", Status: StatusOK, TotalLag: 900, MaxLagAge: time.Second, MaxLagAgeKnown: true},
		{ID: "slow", Status: StatusLagging, TotalLag: 50, MaxLagAge: time.Minute, MaxLagAgeKnown: true},
		{ID: "slower", Status: StatusLagging, TotalLag: 40, MaxLagAge: 2 * time.Minute, MaxLagAgeKnown: true},
		{ID: "unaged", Status: StatusLagging, TotalLag: 5000},
		{ID: "stopped", Status: StatusStopped, TotalLag: 3},
		{ID: "idle", Status: StatusOK, MaxLagAgeKnown: true},
	}
	ids := func(gs []GroupSummary) string {
		var out []string
		for _, g := range gs {
			out = append(out, g.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(ViewGroups(gs, GroupsByStatus, "", false)); got != "stopped,slower,slow,unaged,fine,idle" {
		t.Errorf("by status: %s", got)
	}
	if got := ids(ViewGroups(gs, GroupsByLagAge, "", false)); got != "slower,slow,fine,unaged,stopped,idle" {
		t.Errorf("by lag age: %s", got)
	}
	if got := ids(ViewGroups(gs, GroupsByStatus, "lagging", false)); got != "slower,slow,unaged" {
		t.Errorf("filtered by status word: %s", got)
	}
	if DefaultGroupSort != GroupsByStatus || GroupsByStatus.Next() != GroupsByLagAge || GroupsByLagAge.Next() != GroupsByRebalances ||
		GroupsByRebalances.Next() != GroupsByLag || GroupsByName.Next() != GroupsByStatus {
		t.Error("o does not cycle status → lag age → rebalances → total lag → … → name → status")
	}
	if GroupsByStatus.String() != "status" || GroupsByLagAge.String() != "lag age" {
		t.Errorf("names %q, %q", GroupsByStatus, GroupsByLagAge)
	}
}

// The overview's JSON carries status and max_lag_age_ms (null when not
// known or not annotated).
func TestMarshalJSONOverviewStatus(t *testing.T) {
	b, err := MarshalJSONOverview([]GroupSummary{
		{ID: "a", State: StateEmpty, TotalLag: 9, Status: StatusStopped, MaxLagAge: 1500 * time.Millisecond, MaxLagAgeKnown: true},
		{ID: "b", State: StateStable},
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Status       *string `json:"status"`
		MaxLagAgeMs  *int64  `json:"max_lag_age_ms"`
		LagFromStart *bool   `json:"lag_from_start"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	if rows[0].Status == nil || *rows[0].Status != "STOPPED" || rows[0].MaxLagAgeMs == nil || *rows[0].MaxLagAgeMs != 1500 || rows[0].LagFromStart != nil {
		t.Errorf("row a: %s", b)
	}
	if rows[1].Status != nil || rows[1].MaxLagAgeMs != nil {
		t.Errorf("row b: status and age not null: %s", b)
	}
}

// The table shows STATUS and MAX-LAG-AGE once groups have them.
func TestFormatOverviewStatus(t *testing.T) {
	got := FormatOverview([]GroupSummary{
		{ID: "billing", State: StateEmpty, TotalLag: 7, Status: StatusStopped, MaxLagAge: 3 * time.Minute, MaxLagAgeKnown: true},
		{ID: "new", State: StateStable, Members: 1, TotalLag: 60, LagFromStart: true, FromStartPartitions: 3, Status: StatusOK},
	})
	want := "GROUP   STATE  STATUS    MEMBERS TOTAL-LAG MAX-LAG-AGE\n" +
		"billing Empty  ⊘ STOPPED       0         7       3m00s\n" +
		"new     Stable ✓ OK            1       60*           -\n" +
		LagFromStartNote + "\n"
	if got != want {
		t.Fatalf("FormatOverview:\n%s\nwant:\n%s", got, want)
	}
}

// FormatTable adds the footnote only when a row counts from the log start.
func TestFormatTableNoFootnoteWhenCommitted(t *testing.T) {
	s := NewSnapshot(Observation{
		TakenAt: ht0,
		Group:   Group{ID: "g", State: StateEmpty},
	}.With(Readings{
		Committed: map[TopicPartition]int64{{"orders", 0}: 3},
		Offsets:   map[TopicPartition]PartitionOffsets{{"orders", 0}: {0, 9, ""}},
	}))
	if out := FormatTable(s); strings.Contains(out, "*") || strings.Contains(out, LagFromStartNote) {
		t.Errorf("committed rows marked:\n%s", out)
	}
}

// Poll after poll of random groups (producers and consumers of varying
// speed, commits stopping, rewinding, partitions unowned, the group
// emptying or rebalancing, offsets unreadable for a poll), the overview's
// status of a group is the group view's (History.Annotate's Snapshot
// status) every poll.
func TestOverviewStatusMatchesGroupView(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for run := 0; run < 200; run++ {
		n := 1 + rng.IntN(4)
		opts := HistoryOptions{StallAfter: time.Duration(5+rng.IntN(30)) * time.Second}
		view, ov := NewHistory(opts), NewOverviewHistory(opts)
		produce := make([]float64, n)
		consume := make([]float64, n)
		ends := make([]int64, n)
		commits := make([]int64, n)
		owned := make([]bool, n)
		for i := range n {
			produce[i] = float64(rng.IntN(50))
			consume[i] = produce[i] * (0.5 + rng.Float64())
			commits[i] = NoOffset
			owned[i] = rng.IntN(5) > 0
		}
		state, members := StateStable, 2
		at := time.Duration(0)
		for poll := 0; poll < 120; poll++ {
			at += time.Duration(300+rng.IntN(1500)) * time.Millisecond
			secs := at.Seconds()
			switch rng.IntN(40) {
			case 0:
				state, members = StateEmpty, 0
			case 1:
				state, members = StatePreparingRebalance, 2
			case 2, 3:
				state, members = StateStable, 2
			}
			obs := Observation{
				TakenAt: ht0.Add(at),
				Group:   Group{ID: "g", State: state},
			}.With(Readings{
				Committed:       map[TopicPartition]int64{},
				Offsets:         map[TopicPartition]PartitionOffsets{},
				OldestTimestamp: map[TopicPartition]time.Time{},
			})
			m := Member{MemberID: "m"}
			o := &OverviewObservation{TakenAt: obs.TakenAt, Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
			g := mapGroup{Summary: GroupSummary{ID: "g", State: state, Members: members},
				Committed: map[TopicPartition]int64{}, Assigned: map[TopicPartition]bool{}}
			for i := range n {
				tp := TopicPartition{Topic: "orders", Partition: int32(i)}
				ends[i] = max(ends[i], int64(produce[i]*secs))
				switch r := rng.IntN(30); {
				case r == 0 && commits[i] > 10:
					commits[i] -= 10 // rewound
				case r < 3:
					// no commit this poll
				case rng.IntN(3) > 0 || commits[i] >= 0:
					commits[i] = min(max(commits[i], int64(consume[i]*secs)), ends[i])
				}
				if owned[i] && state == StateStable {
					m.Partitions = append(m.Partitions, tp)
					g.Assigned[tp] = true
				}
				off := PartitionOffsets{LogStart: 0, LogEnd: ends[i]}
				if rng.IntN(25) == 0 {
					off = PartitionOffsets{LogStart: NoOffset, LogEnd: NoOffset, Err: "log offsets: unreadable"}
				}
				if commits[i] >= 0 {
					obs.SetCommitted(tp, commits[i])
					g.Committed[tp] = commits[i]
				}
				if commits[i] < 0 && !g.Assigned[tp] {
					continue // not a row
				}
				obs.SetOffsets(tp, off)
				seen := off
				if commits[i] >= 0 && off.Err == "" {
					seen.LogStart = NoOffset
				}
				o.Offsets[tp] = seen
				oldest := max(commits[i], 0)
				if off.Err == "" && oldest < ends[i] && rng.IntN(4) > 0 {
					ts := ht0.Add(time.Duration(float64(oldest) / max(produce[i], 1) * float64(time.Second)))
					obs.SetOldestTimestamp(tp, ts)
					o.Records[RecordAt{tp, oldest}] = RecordStamp{Time: ts}
				}
			}
			if state == StateStable || state == StatePreparingRebalance {
				obs.Members = []Member{m, {MemberID: "m2"}}
			}
			o.Groups = []OverviewGroup{g.group()}
			snap := NewSnapshot(obs)
			view.Annotate(&snap)
			s := ov.Observe(o)[0]
			if s.Status != snap.Status || s.TotalLag != snap.TotalLag {
				t.Fatalf("run %d poll %d at %s (%s): overview %s lag %d, group view %s lag %d\n%+v", run, poll, at, state, s.Status, s.TotalLag, snap.Status, snap.TotalLag, snap.Partitions)
			}
		}
	}
}

// The overview judges a handover as the group view does: a partition
// another member takes, committing at its own slower pace, stays OK in
// both (the overview flagged it LAGGING for a moment: its rows carried no
// owner, so the cadence was the old owner's). A new owner that never
// commits is flagged in both.
func TestOverviewLearnsANewOwnersCadence(t *testing.T) {
	p := produced{rate: 10}
	tp := TopicPartition{Topic: "orders", Partition: 0}
	for _, dies := range []bool{false, true} {
		ov, gv := NewOverviewHistory(HistoryOptions{}), NewHistory(HistoryOptions{})
		var ovFlag, gvFlag time.Duration = -1, -1
		for at := time.Second; at < 90*time.Second; at += time.Second {
			member, c := "fast", p.end(at)-2
			if at >= 40*time.Second {
				member, c = "slow", p.end(at.Truncate(5*time.Second))
				if dies {
					c = p.end(40*time.Second) - 2
				}
			}
			o := ovObs(at, StateStable, 1, []op{aged(at, p, c)})
			for i := range o.Groups[0].Parts {
				if o.Groups[0].Parts[i].TopicPartition == tp {
					o.Groups[0].Parts[i].Owner = member
				}
			}
			if st := ov.Observe(o)[0].Status; st != StatusOK && ovFlag < 0 {
				ovFlag = at
			}
			s := agedSnap(at, p, c)
			s.Members[0].MemberID, s.Partitions[0].MemberID = member, member
			gv.Annotate(&s)
			if st := s.Status; st != StatusOK && gvFlag < 0 {
				gvFlag = at
			}
		}
		if !dies && (ovFlag >= 0 || gvFlag >= 0) {
			t.Errorf("handover to a 5s committer: overview flagged at %s, group view at %s (-1s: never), want never", ovFlag, gvFlag)
		}
		if dies && (ovFlag < 40*time.Second || gvFlag < 40*time.Second || ovFlag-gvFlag > 2*time.Second || gvFlag-ovFlag > 2*time.Second) {
			t.Errorf("a new owner that never commits: overview flagged at %s, group view at %s, want both after 40s, together", ovFlag, gvFlag)
		}
	}
}

// TestOldestRecordsAsTheRowsSay: OldestRecords, which reads only the
// offsets of each row, names the records the rows eachRow fills would
// (oldest of each, once each) over random polls: commits, assigned
// partitions without one, offsets missing, impossible or with an error,
// a share group's broker lag.
func TestOldestRecordsAsTheRowsSay(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 5000))
	pick := func(vs ...int64) int64 { return vs[rng.IntN(len(vs))] }
	for poll := 0; poll < 300; poll++ {
		o := &OverviewObservation{TakenAt: ht0, Offsets: map[TopicPartition]PartitionOffsets{}}
		numbers := []int32{0, 1, 2, 3, -1, tableParts} // and two no table holds
		for _, topic := range []string{"a", "b", "c"} {
			for _, p := range numbers {
				if rng.IntN(6) == 0 {
					continue // not read
				}
				o.Offsets[TopicPartition{topic, p}] = PartitionOffsets{LogStart: pick(NoOffset, 0, 3, 9, -7), LogEnd: pick(NoOffset, 0, 5, 10, -3)}
			}
		}
		var mgs []mapGroup
		for g := 0; g < 8; g++ {
			og := mapGroup{Summary: GroupSummary{ID: fmt.Sprint("g", g)}}
			for k := 0; k < rng.IntN(8); k++ {
				tp := TopicPartition{[]string{"a", "b", "d"}[rng.IntN(3)], numbers[rng.IntN(len(numbers))]}
				switch rng.IntN(3) {
				case 0:
					if og.Committed == nil {
						og.Committed = map[TopicPartition]int64{}
					}
					og.Committed[tp] = pick(NoOffset, -5, 0, 2, 4, 8, 12)
				case 1:
					if og.Assigned == nil {
						og.Assigned = map[TopicPartition]bool{}
					}
					og.Assigned[tp] = rng.IntN(2) == 0
				default:
					if og.ShareLag == nil {
						og.ShareLag = map[TopicPartition]int64{}
					}
					og.ShareLag[tp] = pick(-1, 0, 3)
				}
			}
			o.Groups = append(o.Groups, og.group())
			mgs = append(mgs, og)
		}
		want := map[RecordAt]bool{}
		var row PartitionLag
		for i := range mgs {
			o.eachRow(&mgs[i], &row, func(r *PartitionLag, _ bool) {
				if at, ok := oldest(r); ok {
					want[at] = true
				}
			})
		}
		got := o.OldestRecords()
		if len(got) != len(want) {
			t.Fatalf("poll %d: %d records %v, the rows name %d %v", poll, len(got), got, len(want), want)
		}
		for _, at := range got {
			if !want[at] {
				t.Fatalf("poll %d: %v named, no row's oldest (%v)", poll, at, want)
			}
		}
	}
}

// TestOldestRecordsOfManyOffsetsOfAPartition: groups waiting at many
// offsets of one partition (past the search of a few) have each record
// named once.
func TestOldestRecordsOfManyOffsetsOfAPartition(t *testing.T) {
	tp := TopicPartition{"orders", 0}
	o := &OverviewObservation{TakenAt: ht0, Offsets: map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: 50}}}
	for i := 0; i < 120; i++ {
		o.Groups = append(o.Groups, OverviewGroupOf(GroupSummary{ID: fmt.Sprint("g", i)}, map[TopicPartition]int64{tp: int64(i % 60)}, nil, nil, nil))
	}
	got := o.OldestRecords()
	seen := map[int64]bool{}
	for _, at := range got {
		if at.TopicPartition != tp || at.Offset < 0 || at.Offset >= 50 || seen[at.Offset] {
			t.Fatalf("%v named (of %v)", at, got)
		}
		seen[at.Offset] = true
	}
	if len(seen) != 50 {
		t.Fatalf("%d records named, want 50 (offsets 0-49; 50-59 are the log end and past it): %v", len(seen), got)
	}
}

func pick2(rng *rand.Rand, a, b string) string {
	if rng.IntN(2) == 0 {
		return a
	}
	return b
}

// TestGroupTrackFindsEachPartitionsOwnState: a group's partitions are
// found by search while few and by index past smallGroup, and each keeps
// its own state as partitions come and go across that size.
func TestGroupTrackFindsEachPartitionsOwnState(t *testing.T) {
	var gt groupTrack
	tp := func(i int) TopicPartition { return TopicPartition{Topic: fmt.Sprint("t", i%3), Partition: int32(i)} }
	check := func(poll int64, live func(int) bool) {
		t.Helper()
		for i := 0; i < 40; i++ {
			if !live(i) {
				continue
			}
			before := len(gt.parts)
			pt := gt.part(tp(i), i%4) // a hint right at times, wrong at others
			if len(gt.parts) != before || pt.tp != tp(i) || pt.rewoundFrom != int64(i) {
				t.Fatalf("poll %d: partition %d found %+v (tracks %d → %d)", poll, i, pt.tp, before, len(gt.parts))
			}
			pt.poll = poll
		}
	}
	add := func(poll int64, live func(int) bool) {
		for i := 0; i < 40; i++ {
			if live(i) {
				pt := gt.part(tp(i), i-1)
				if pt.rewoundFrom == 0 {
					pt.rewoundFrom = int64(i) // its own mark
				}
				pt.poll = poll
			}
		}
	}
	all := func(i int) bool { return i > 0 && i < 30 }
	few := func(i int) bool { return i%7 == 1 && i < 30 }
	add(1, few)
	check(1, few)
	if gt.index != nil {
		t.Fatalf("%d partitions indexed", len(gt.parts))
	}
	add(2, all)
	check(2, all)
	if gt.index == nil || len(gt.parts) != 29 {
		t.Fatalf("%d partitions, indexed %v", len(gt.parts), gt.index != nil)
	}
	check(3, few)
	gt.forget(3)
	if gt.index != nil || len(gt.parts) != 5 {
		t.Fatalf("after forgetting: %d partitions, indexed %v", len(gt.parts), gt.index != nil)
	}
	check(4, few)
	add(5, all)
	check(5, all)
}

// mapGroup is an overview group as the tests write it: its partitions in
// maps, by partition (OverviewGroupOf makes the group). The reference
// rows below are read from the maps, as observe read them before a
// group's partitions were a sorted slice.
type mapGroup struct {
	Summary             GroupSummary
	Committed, ShareLag map[TopicPartition]int64
	Assigned            map[TopicPartition]bool
	Owner               map[TopicPartition]string
}

func (g mapGroup) group() OverviewGroup {
	return OverviewGroupOf(g.Summary, g.Committed, g.ShareLag, g.Assigned, g.Owner)
}

// The reference the history's eachRow is checked against
// (TestObserveRowsAsTheGroupViewSays): the group view's rows of g, each
// partition's offsets looked up in the poll's map, as observe found them
// before they were filed by topic number.

// row fills r with partition tp of g as NewSnapshot computes its lag:
// committed (NoOffset: none), log offsets, lag (from the log start with no
// commit; a share group's from the broker).
func (o *OverviewObservation) row(r *PartitionLag, g *mapGroup, tp TopicPartition, committed int64) {
	*r = PartitionLag{TopicPartition: tp, Committed: committed, LogStart: NoOffset, LogEnd: NoOffset}
	if off, ok := o.Offsets[tp]; ok {
		r.LogStart, r.LogEnd, r.Err = off.LogStart, off.LogEnd, off.Err
	}
	if bad := impossibleOffsets(r.Committed, r.LogStart, r.LogEnd); bad != "" {
		r.Err = joinErr(r.Err, bad)
		r.Committed, r.LogStart, r.LogEnd = max(r.Committed, NoOffset), NoOffset, NoOffset
	}
	r.Lag, r.LagFromStart = Lag(r.Committed, r.LogStart, r.LogEnd)
	if l, ok := g.ShareLag[tp]; ok && l >= 0 && r.LogEnd >= 0 {
		r.Lag, r.LagFromBroker = l, true
	}
}

// eachRow calls f with every row the group view would show for g, its
// lag computed (row) in r, and whether a member owns it.
func (o *OverviewObservation) eachRow(g *mapGroup, r *PartitionLag, f func(r *PartitionLag, owned bool)) {
	listed := 0 // committed partitions that are assigned too
	for tp, c := range g.Committed {
		o.row(r, g, tp, c)
		r.MemberID = g.Owner[tp]
		owned, ok := g.Assigned[tp]
		if ok {
			listed++
		}
		f(r, owned)
	}
	if listed == len(g.Assigned) {
		return // every assigned partition has a commit: no row left
	}
	for tp, owned := range g.Assigned {
		if _, ok := g.Committed[tp]; ok {
			continue
		}
		o.row(r, g, tp, NoOffset)
		r.MemberID = g.Owner[tp]
		f(r, owned)
	}
}

// recordAge fills r's lag age from the poll's record at its oldest
// offset, found in Records by name: the reference ageOf, which finds it
// by topic number, is checked against.
func (o *OverviewObservation) recordAge(r *PartitionLag) {
	var rs RecordStamp
	var has bool
	if at, ok := oldest(r); ok {
		rs, has = o.Records[at]
	}
	r.LagMarkersOnly = r.Lag > 0 && has && rs.MarkersOnly
	hasTS := has && !rs.Gone && !rs.MarkersOnly && !rs.Time.IsZero()
	r.LagAge, r.LagAgeKnown, r.LagAgeGone = LagAge(*r, o.TakenAt, rs.Time, hasTS, has && rs.Gone)
}

// The rows observe judges (the history's eachRow, offsets found by topic
// number) are the group view's (the poll's map), poll after poll of
// random groups: topics coming and going, partitions without offsets,
// partitions past the table and below 0, share lag, owners; and their
// lag ages are those of the records the poll's map holds.
func TestObserveRowsAsTheGroupViewSays(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 19))
	h := NewOverviewHistory(HistoryOptions{})
	parts := []int32{0, 1, 2, 3, 7, tableParts - 1, tableParts, -1}
	for poll := 0; poll < 200; poll++ {
		o := &OverviewObservation{TakenAt: ht0.Add(time.Duration(poll) * time.Second), Offsets: map[TopicPartition]PartitionOffsets{}}
		topics := []string{"a", "b", "c", fmt.Sprintf("t%d", poll%9)}[:1+rng.IntN(4)]
		tp := func() TopicPartition {
			return TopicPartition{Topic: topics[rng.IntN(len(topics))], Partition: parts[rng.IntN(len(parts))]}
		}
		for range rng.IntN(20) {
			end := int64(rng.IntN(100)) - 1
			o.Offsets[tp()] = PartitionOffsets{LogStart: int64(rng.IntN(50)) - 1, LogEnd: end}
		}
		o.Records = map[RecordAt]RecordStamp{}
		for range rng.IntN(40) {
			at := RecordAt{TopicPartition: tp(), Offset: int64(rng.IntN(60)) - 1}
			o.Records[at] = RecordStamp{Time: o.TakenAt.Add(-time.Duration(rng.IntN(90)) * time.Second), Gone: rng.IntN(6) == 0, MarkersOnly: rng.IntN(6) == 0}
		}
		var mgs []mapGroup
		for gi := range 1 + rng.IntN(6) {
			g := mapGroup{Summary: GroupSummary{ID: fmt.Sprintf("g%d", gi), State: StateStable, Type: TypeClassic, Members: 1}}
			if rng.IntN(2) == 0 {
				g.Committed = map[TopicPartition]int64{}
				for range rng.IntN(8) {
					g.Committed[tp()] = int64(rng.IntN(120)) - 1
				}
			}
			if rng.IntN(2) == 0 {
				g.Assigned, g.Owner, g.ShareLag = map[TopicPartition]bool{}, map[TopicPartition]string{}, map[TopicPartition]int64{}
				for range rng.IntN(8) {
					p := tp()
					g.Assigned[p], g.Owner[p] = rng.IntN(2) == 0, pick2(rng, "m1", "m2")
					if rng.IntN(3) == 0 {
						g.ShareLag[p] = int64(rng.IntN(10)) - 1
					}
				}
			}
			o.Groups = append(o.Groups, g.group())
			mgs = append(mgs, g)
		}
		h.Observe(o)
		for i := range o.Groups {
			g := &mgs[i]
			type row struct {
				PartitionLag
				owned bool
			}
			want := map[TopicPartition]row{}
			var r PartitionLag
			o.eachRow(g, &r, func(r *PartitionLag, owned bool) {
				o.recordAge(r)
				want[r.TopicPartition] = row{*r, owned}
			})
			got := map[TopicPartition]row{}
			h.eachRow(o, o.Groups[i].Parts, h.groups[g.Summary.ID], func(r *PartitionLag, pt *partTrack, owned bool) {
				if pt.tp != r.TopicPartition {
					t.Fatalf("poll %d: row %v has the track of %v", poll, r.TopicPartition, pt.tp)
				}
				h.ageOf(o, r, pt)
				got[r.TopicPartition] = row{*r, owned}
			})
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("poll %d group %s: rows\n%v\nwant\n%v", poll, g.Summary.ID, got, want)
			}
		}
	}
}

// TestOverviewPartsMergeAsMaps: parts listed in any order, a partition
// several times, merge as the watcher's maps by partition took them: a
// later commit or share lag replaces an earlier one, a partition is
// assigned when any part says so and owned when any owns it, and its
// owner is the first member to own it. Observe judges parts out of order
// as it judges them merged.
func TestOverviewPartsMergeAsMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 48))
	for run := 0; run < 3000; run++ {
		var parts []OverviewPart
		committed, shareLag := map[TopicPartition]int64{}, map[TopicPartition]int64{}
		assigned, owner := map[TopicPartition]bool{}, map[TopicPartition]string{}
		for range rng.IntN([]int{12, 60}[run%2]) { // past a sort by insertion
			tp := TopicPartition{Topic: pick2(rng, "a", "b"), Partition: int32(rng.IntN(4)) - 1}
			switch rng.IntN(4) {
			case 0:
				c := int64(rng.IntN(30)) - 2
				parts = append(parts, OverviewPart{TopicPartition: tp, Committed: c, HasCommit: true})
				committed[tp] = c
			case 1:
				c, l := int64(rng.IntN(30)), int64(rng.IntN(9))-1
				parts = append(parts, OverviewPart{TopicPartition: tp, Committed: c, HasCommit: true, ShareLag: l, HasShareLag: true})
				committed[tp], shareLag[tp] = c, l
			case 2:
				m := pick2(rng, "m1", "m2")
				parts = append(parts, OverviewPart{TopicPartition: tp, Owner: m, Assigned: true, Owned: true})
				assigned[tp] = true
				if _, ok := owner[tp]; !ok {
					owner[tp] = m
				}
			default:
				parts = append(parts, OverviewPart{TopicPartition: tp, Assigned: true})
				if _, ok := assigned[tp]; !ok {
					assigned[tp] = false
				}
			}
		}
		g := OverviewGroupOf(GroupSummary{ID: "g"}, committed, shareLag, assigned, owner)
		raw := slices.Clone(parts)
		got := OverviewParts(parts)
		if !slices.Equal(got, g.Parts) {
			t.Fatalf("run %d: %+v merged\n%+v\nwant\n%+v", run, raw, got, g.Parts)
		}
		if !partsInOrder(got) || !slices.Equal(OverviewParts(slices.Clone(got)), got) {
			t.Fatalf("run %d: merged parts not in order, or merged again differ: %+v", run, got)
		}

		// The same poll, its parts as listed and as merged.
		o := func(ps []OverviewPart) *OverviewObservation {
			o := &OverviewObservation{TakenAt: ht0, Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
			for _, topic := range []string{"a", "b"} {
				for p := int32(-1); p < 3; p++ {
					o.Offsets[TopicPartition{topic, p}] = PartitionOffsets{LogStart: 1, LogEnd: 20}
				}
			}
			o.Groups = []OverviewGroup{{Summary: GroupSummary{ID: "g", State: StateStable, Members: 1}, Parts: ps}}
			return o
		}
		listed := slices.Clone(raw)
		a := NewOverviewHistory(HistoryOptions{}).Observe(o(listed))
		b := NewOverviewHistory(HistoryOptions{}).Observe(o(got))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("run %d: parts as listed judged %+v, merged %+v", run, a, b)
		}
		if !slices.Equal(listed, raw) {
			t.Fatalf("run %d: Observe changed the parts it was given", run)
		}
	}
}

// TestOverviewForgetsTopicsGone: on a cluster whose topics come and go
// (each poll's groups read a window of topics that moves on), the topic
// registry holds about what the polls name, not every topic ever seen,
// and numbering the topics afresh changes no summary: a history that
// forgets them every few topics answers as one that never does.
func TestOverviewForgetsTopicsGone(t *testing.T) {
	defer func(s int) { topicSlack = s }(topicSlack)
	poll := func(n int) *OverviewObservation {
		rng := rand.New(rand.NewPCG(uint64(n), 19))
		o := &OverviewObservation{TakenAt: ht0.Add(time.Duration(n) * time.Second), Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
		first := n / 3 // three topics a poll; one more every three polls
		tp := func() TopicPartition {
			return TopicPartition{Topic: fmt.Sprintf("t%d", first+rng.IntN(3)), Partition: int32(rng.IntN(4))}
		}
		for range 12 {
			o.Offsets[tp()] = PartitionOffsets{LogStart: NoOffset, LogEnd: int64(n + rng.IntN(20))}
		}
		for range 6 {
			o.Records[RecordAt{TopicPartition: tp(), Offset: int64(n + rng.IntN(20) - 10)}] = RecordStamp{Time: o.TakenAt.Add(-time.Duration(rng.IntN(90)) * time.Second)}
		}
		for gi := range 3 {
			g := mapGroup{
				Summary:   GroupSummary{ID: fmt.Sprintf("g%d", gi), State: StateStable, Type: TypeClassic, Members: 1},
				Committed: map[TopicPartition]int64{}, Assigned: map[TopicPartition]bool{}, Owner: map[TopicPartition]string{},
			}
			for range 5 {
				p := tp()
				g.Committed[p] = int64(n + rng.IntN(20) - 10)
				g.Assigned[p], g.Owner[p] = rng.IntN(4) > 0, "m1"
			}
			o.Groups = append(o.Groups, g.group())
		}
		return o
	}
	forgets, keeps := NewOverviewHistory(HistoryOptions{}), NewOverviewHistory(HistoryOptions{})
	const slack = 4
	for n := range 3000 {
		topicSlack = slack
		got := forgets.Observe(poll(n))
		topicSlack = 1 << 30
		want := keeps.Observe(poll(n))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("poll %d: forgetting topics gave\n%+v\nnever forgetting\n%+v", n, got, want)
		}
		if max := 2*forgets.live + slack + 4; len(forgets.topics) > max || len(forgets.offs) > max+1 {
			t.Fatalf("poll %d: %d topics and %d offset tables held, %d named by the poll", n, len(forgets.topics), len(forgets.offs), forgets.live)
		}
	}
	if len(keeps.topics) < 900 {
		t.Fatalf("the history that never forgets holds %d topics: the polls did not churn them", len(keeps.topics))
	}
}
