package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

func TestLagBar(t *testing.T) {
	tb := NewTable(NewStyles(true), DefaultKeyMap())
	tests := []struct {
		lag, max int64
		want     string
	}{
		{100, 100, "██████████ ◀"},
		{50, 100, "█████░░░░░  "},
		{1, 100, "█░░░░░░░░░  "}, // any lag shows at least one cell
		{0, 100, "░░░░░░░░░░  "},
		{0, 0, "░░░░░░░░░░  "},
	}
	for _, tt := range tests {
		p := model.PartitionLag{Lag: tt.lag, LogEnd: 1000}
		got := ansi.Strip(tb.bar(&p, 12, tt.max, true))
		if got != tt.want {
			t.Errorf("bar(lag %d of %d) = %q, want %q", tt.lag, tt.max, got, tt.want)
		}
		if w := textWidth(got); w != 12 {
			t.Errorf("bar(lag %d of %d) is %d cells, want 12", tt.lag, tt.max, w)
		}
	}
	p := model.PartitionLag{Lag: 5, Err: "OFFSET_NOT_AVAILABLE"}
	if got := ansi.Strip(tb.bar(&p, 12, 5, true)); !strings.HasPrefix(got, "! OFFSET_") {
		t.Errorf("bar with an error = %q, want the error", got)
	}
}

func TestSelectionFollowsPartitionAcrossPolls(t *testing.T) {
	tb := NewTable(NewStyles(true), DefaultKeyMap())
	tb.SetSize(80, 10)
	rows := stableSnapshot().Partitions
	tb.SetRows(rows)
	tb.sc.SetCursor(2) // order-rebalancing 2
	want := rows[2].TopicPartition
	// The next poll lists the partitions in another order.
	next := append([]model.PartitionLag(nil), rows...)
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
