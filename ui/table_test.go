package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// The bar says how long the oldest unprocessed record has waited, on a
// fixed scale: lag in flight is one cell, minutes behind a long bar even
// alone, and a row's bar depends on nothing but the row.
func TestLagBarByAge(t *testing.T) {
	tb := NewTable(NewStyles(true), DefaultKeyMap())
	const w = 42 // 40 cells of bar and the marker
	row := func(lag int64, age time.Duration, known bool) model.PartitionLag {
		return model.PartitionLag{Lag: lag, LogEnd: 1000, LagAge: age, LagAgeKnown: known, Status: model.StatusOK}
	}
	cells := func(p model.PartitionLag) int {
		got := ansi.Strip(tb.bar(&p, w, true))
		if textWidth(got) != w {
			t.Fatalf("bar %q is %d cells, want %d", got, textWidth(got), w)
		}
		return strings.Count(got, glyphBarFull) + strings.Count(got, glyphBarByLag)
	}
	tests := []struct {
		p    model.PartitionLag
		want int
	}{
		{row(0, 0, true), 0},
		{row(1, 300*time.Millisecond, true), 1}, // in flight
		{row(5000, 4*time.Second, true), 1},     // many messages, none waiting long
		{row(3, 30*time.Second, true), 11},      // the first segment's end: 1 + 40/4... of 39 cells
		{row(3, 10*time.Minute, true), 30},      // the third mark
		{row(3, 3*time.Hour, true), 40},         // an hour or more: all
		{model.PartitionLag{Lag: 9, LogEnd: 9, LagAgeGone: true}, 40},
	}
	for _, tt := range tests {
		if got := cells(tt.p); got != tt.want {
			t.Errorf("lag %d aged %s (known %v, gone %v): %d cells, want %d", tt.p.Lag, tt.p.LagAge, tt.p.LagAgeKnown, tt.p.LagAgeGone, got, tt.want)
		}
	}
	prev := 0
	for a := time.Second; a < 2*time.Hour; a = a * 3 / 2 {
		n := cells(row(10, a, true))
		if n < prev {
			t.Fatalf("the bar shrank from %d to %d cells as the age grew to %s", prev, n, a)
		}
		prev = n
	}
	// No age known: lag decades, drawn ▒ so it does not pass for an age.
	if got := ansi.Strip(tb.bar(&model.PartitionLag{Lag: 500, LogEnd: 600}, w, true)); !strings.HasPrefix(got, glyphBarByLag) || strings.Contains(got, glyphBarFull) {
		t.Errorf("bar with no known age = %q, want ▒ cells", got)
	}
	p := model.PartitionLag{Lag: 5, Err: "OFFSET_NOT_AVAILABLE"}
	if got := ansi.Strip(tb.bar(&p, 12, true)); !strings.HasPrefix(got, "! OFFSET_") {
		t.Errorf("bar with an error = %q, want the error", got)
	}
}

// The bar is coloured by status: one cell of OK lag in the OK colour, a
// stalled partition's in the STALLED colour.
func TestBarColourByStatus(t *testing.T) {
	st := NewStyles(false)
	tb := NewTable(st, DefaultKeyMap())
	ok := model.PartitionLag{Lag: 1, LogEnd: 10, Status: model.StatusOK, LagAgeKnown: true, LagAge: time.Second}
	if bar := tb.bar(&ok, 12, true); !strings.Contains(bar, st.lagLow.pre+"█"+st.lagLow.post) || strings.Contains(bar, "██") {
		t.Errorf("OK lag in flight: %q, want one cell in the OK colour", bar)
	}
	stalled := model.PartitionLag{Lag: 3, LogEnd: 10, Status: model.StatusStalled, LagAgeKnown: true, LagAge: 45 * time.Second}
	if bar := tb.bar(&stalled, 12, true); !strings.Contains(bar, st.statusPaint(model.StatusStalled).pre+"█") {
		t.Errorf("STALLED: %q, want its cells in the STALLED colour", bar)
	}
	if st.statusPaint(model.StatusStalled) == st.lagLow {
		t.Fatal("STALLED and OK share a colour: the test cannot fail")
	}
}

func TestSelectionFollowsPartitionAcrossPolls(t *testing.T) {
	tb := NewTable(NewStyles(true), DefaultKeyMap())
	tb.SetSize(80, 10)
	rows := rowPtrs(stableSnapshot().Partitions)
	tb.SetRows(rows)
	tb.setCursor(2) // order-rebalancing 2
	want := rows[2].TopicPartition
	// The next poll lists the partitions in another order.
	next := append([]*model.PartitionLag(nil), rows...)
	for i, j := 0, len(next)-1; i < j; i, j = i+1, j-1 {
		next[i], next[j] = next[j], next[i]
	}
	tb.SetRows(next)
	if p, ok := tb.Selected(); !ok || p.TopicPartition != want {
		t.Fatalf("selected %v after reorder, want %v", p.TopicPartition, want)
	}
	tb.SetRows(next[:1])
	if _, ok := tb.Selected(); !ok {
		t.Fatal("no selection after the selected partition vanished")
	}
	tb.SetRows(nil)
	if _, ok := tb.Selected(); ok {
		t.Fatal("selection in an empty table")
	}

	m := NewMembers(NewStyles(true), DefaultKeyMap())
	m.SetSize(80, 10)
	ms := stableSnapshot().Members
	m.SetMembers(ms)
	m.sc.SetCursor(1)
	m.SetMembers([]model.Member{ms[1], ms[0]})
	if got, _ := m.Selected(); got.MemberID != ms[1].MemberID {
		t.Fatalf("selected member %s after reorder, want %s", got.ClientID, ms[1].ClientID)
	}
}

// rowPtrs points at each of rows, as the group page hands them to the table.
func rowPtrs(rows []model.PartitionLag) []*model.PartitionLag {
	out := make([]*model.PartitionLag, len(rows))
	for i := range rows {
		out[i] = &rows[i]
	}
	return out
}

// TestStatusColumnHoldsItsWidth: a partition turning LAGGING (the longest
// status word) does not move the header or any other column.
func TestStatusColumnHoldsItsWidth(t *testing.T) {
	for _, w := range []int{120, 80} {
		tb := NewTable(NewStyles(true), DefaultKeyMap())
		tb.SetSize(w, 10)
		rows := stableSnapshot().Partitions
		for i := range rows {
			rows[i].Status = model.StatusOK
		}
		tb.SetRows(rowPtrs(rows))
		header := func() string { return strings.Split(ansi.Strip(tb.View()), "\n")[1] }
		calm := header()
		lagging := append([]model.PartitionLag(nil), rows...)
		lagging[1].Status = model.StatusLagging
		tb.SetRows(rowPtrs(lagging))
		if got := header(); got != calm {
			t.Errorf("%d columns: header moved when a partition turned LAGGING:\n%s\n%s", w, calm, got)
		}
	}
}

// TestEveryStatusPainted: each status the model has is painted, in
// colour and without; a new status without a paint fails here.
func TestEveryStatusPainted(t *testing.T) {
	color, mono := NewStyles(false), NewStyles(true)
	for _, st := range model.Statuses() {
		if _, ok := mono.statuses[st]; !ok {
			t.Errorf("%s: no paint without colour", st)
		}
		if p := color.statusPaint(st); p.pre == "" {
			t.Errorf("%s: no colour", st)
		}
	}
}

// With no worst partition, the header's third line still says when some
// partitions could not be read (their lag is unknown, not zero), and when
// the group falls behind while its lag is only in flight so far.
func TestNoWorstTextSaysWhatIsUnknown(t *testing.T) {
	s := model.Snapshot{Partitions: []model.PartitionLag{
		{TopicPartition: tp("orders", 0), LogEnd: 20, Committed: 20},
		{TopicPartition: tp("orders", 1), LogEnd: 20, Committed: 30, Err: "committed offset 30 is past log-end 20"},
		{TopicPartition: tp("orders", 2), LogEnd: model.NoOffset, Committed: 5, Err: "log offsets: NOT_LEADER_OR_FOLLOWER"},
	}}
	if got, want := noWorstText(&s, factsOf(&s, 0).unreadable), "worst: none, no partition lags · ! 2 partitions unreadable: lag unknown"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	s = model.Snapshot{TotalLag: 3, FallingBehind: true, Partitions: []model.PartitionLag{{TopicPartition: tp("orders", 0), LogEnd: 23, Committed: 20, Lag: 3}}}
	if got := noWorstText(&s, factsOf(&s, 0).unreadable); got != "worst: none yet, lag only in flight (but the group falls behind)" {
		t.Errorf("falling behind: %q", got)
	}
}

// The header's second line keeps its items when "falling behind" comes
// and goes: their room is kept while there is no verdict. A long group
// name gives way to the state and status after it.
func TestHeaderHoldsItsItems(t *testing.T) {
	for _, w := range []int{120, 80} {
		snap := stableSnapshot()
		snap.ConsumeRate = model.Rate{PerSec: 47, Known: true}
		snap.ProduceRate = model.Rate{PerSec: 74, Known: true}
		st := WatchState{Brokers: testBrokers, Group: "order-workers", Interval: time.Second, Snap: snap, HasSnap: true, LastGood: t0, Now: t0}
		line2 := func(s WatchState) string {
			h := NewHeader(NewStyles(true))
			h.SetSize(w, 3)
			h.SetState(s)
			return strings.Split(ansi.Strip(h.View()), "\n")[1]
		}
		calm := line2(st)
		st.Snap.FallingBehind = true
		behind := line2(st)
		if strings.Replace(behind, " · falling behind", "", 1) != calm {
			t.Errorf("%d columns: the second line changed with the verdict:\n%q\n%q", w, calm, behind)
		}
		st.Group = strings.Repeat("g", 500)
		first := strings.Split(ansi.Strip(func() string {
			h := NewHeader(NewStyles(true))
			h.SetSize(w, 3)
			h.SetState(st)
			return h.View()
		}()), "\n")[0]
		if !strings.Contains(first, "● Stable") || !strings.Contains(first, "lag 527") {
			t.Errorf("%d columns: a long group name pushed the state out: %q", w, first)
		}
	}
}

// The topic is never cut while every row has the one topic: its column
// shows whole or gives way first, to the title naming it; with several
// topics it stays, whatever the width.
func TestTopicGivesWayWhole(t *testing.T) {
	rows := func(topics ...string) []*model.PartitionLag {
		var out []*model.PartitionLag
		for i, tp := range topics {
			out = append(out, &model.PartitionLag{
				TopicPartition: model.TopicPartition{Topic: tp, Partition: int32(i)},
				ClientID:       "consumer-a", MemberID: "m-a", Committed: 10, LogEnd: 12, Lag: 2,
				LagAge: time.Second, LagAgeKnown: true, Status: model.StatusOK,
			})
		}
		return out
	}
	view := func(w int, r []*model.PartitionLag, cutOK bool) (title, header string) {
		tb := NewTable(NewStyles(true), DefaultKeyMap())
		tb.SetSize(w, 10)
		tb.SetRows(r)
		lines := strings.Split(ansi.Strip(tb.View()), "\n")
		for _, l := range lines[2:] {
			if !cutOK && strings.Contains(l, ellipsis) {
				t.Errorf("width %d: a topic cut mid-word: %q", w, l)
			}
		}
		return lines[0], lines[1]
	}
	one := rows("order-rebalancing", "order-rebalancing", "order-rebalancing")
	title, header := view(80, one, false)
	if strings.HasPrefix(strings.TrimSpace(header), "TOPIC") || !strings.Contains(title, "in order-rebalancing") {
		t.Errorf("80 wide, one topic: want the topic in the title, not a column:\n%s\n%s", title, header)
	}
	if !strings.Contains(header, "LAG AGE") || !strings.Contains(header, "OWNER") {
		t.Errorf("80 wide, one topic: the columns a speaker needs are missing: %q", header)
	}
	title, header = view(160, one, false)
	if !strings.HasPrefix(strings.TrimSpace(header), "TOPIC") || strings.Contains(title, " in order-") {
		t.Errorf("160 wide, one topic: want the whole topic column:\n%s\n%s", title, header)
	}
	_, header = view(80, rows("order-rebalancing", "payments", "order-rebalancing"), true)
	if !strings.HasPrefix(strings.TrimSpace(header), "TOPIC") {
		t.Errorf("80 wide, several topics: the topic column went: %q", header)
	}
}
