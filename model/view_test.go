package model

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

func viewRows() []PartitionLag {
	row := func(topic string, p int32, owner string, lag int64, st Status) PartitionLag {
		r := PartitionLag{TopicPartition: TopicPartition{Topic: topic, Partition: p}, Lag: lag, Status: st}
		if owner != "" {
			r.MemberID, r.ClientID, r.Host = owner+"-0001", owner, "/10.0.0."+owner[len(owner)-1:]
		}
		return r
	}
	rows := []PartitionLag{
		row("orders", 2, "consumer-b", 10, StatusOK),
		row("orders", 0, "consumer-a", 500, StatusLagging),
		row("Payments", 1, "", 40, StatusUnowned),
		row("orders", 1, "consumer-a", 0, StatusOK),
		row("payments", 0, "consumer-b", 500, StatusStalled),
	}
	rows[0].LagAge, rows[0].LagAgeKnown = 5*time.Second, true
	rows[1].LagAge, rows[1].LagAgeKnown = 2*time.Minute, true
	rows[2].LagAgeGone = true  // deleted by retention before it was read
	rows[3].LagAgeKnown = true // lag 0: age 0
	return rows
}

func names[R PartitionLag | *PartitionLag](rows []R) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		var p *PartitionLag
		switch r := any(r).(type) {
		case PartitionLag:
			p = &r
		case *PartitionLag:
			p = r
		}
		out[i] = fmt.Sprintf("%s/%d", p.Topic, p.Partition)
	}
	return out
}

// ptrs points at each of rows, as the UI hands rows to SortPartitions.
func ptrs(rows []PartitionLag) []*PartitionLag {
	out := make([]*PartitionLag, len(rows))
	for i := range rows {
		out[i] = &rows[i]
	}
	return out
}

func TestSortPartitions(t *testing.T) {
	tests := []struct {
		key  SortKey
		want []string
	}{
		// ties on lag fall back to topic, partition
		{SortByLag, []string{"orders/0", "payments/0", "Payments/1", "orders/2", "orders/1"}},
		// gone first, then known ages, then lag of unknown age, then no lag
		{SortByLagAge, []string{"Payments/1", "orders/0", "orders/2", "payments/0", "orders/1"}},
		{SortByPartition, []string{"Payments/1", "orders/0", "orders/1", "orders/2", "payments/0"}},
		{SortByOwner, []string{"orders/0", "orders/1", "orders/2", "payments/0", "Payments/1"}},
	}
	for _, tt := range tests {
		t.Run(tt.key.String(), func(t *testing.T) {
			rows := ptrs(viewRows())
			SortPartitions(rows, tt.key)
			if got := names(rows); !slices.Equal(got, tt.want) {
				t.Errorf("sorted by %s: %v, want %v", tt.key, got, tt.want)
			}
			// each pointer keeps its whole row
			for _, r := range rows {
				if r.Topic == "payments" && r.Partition == 0 && (r.ClientID != "consumer-b" || r.Lag != 500) {
					t.Errorf("row torn apart: %+v", r)
				}
			}
		})
	}
	if SortByOwner.Next() != SortByLag || SortByLag.Next() != SortByLagAge {
		t.Error("Next does not cycle lag → lag age → partition → owner → lag")
	}
}

func TestFilterPartitions(t *testing.T) {
	tests := []struct {
		query   string
		onlyLag bool
		want    []string
	}{
		{"", false, []string{"orders/2", "orders/0", "Payments/1", "orders/1", "payments/0"}},
		{"", true, []string{"orders/2", "orders/0", "Payments/1", "payments/0"}},
		{"PAY", false, []string{"Payments/1", "payments/0"}},
		{"consumer-a", false, []string{"orders/0", "orders/1"}},
		{"consumer-a", true, []string{"orders/0"}},
		{"stall", false, []string{"payments/0"}},
		{"unowned", false, []string{"Payments/1"}},
		{"10.0.0.b", false, []string{"orders/2", "payments/0"}},
		{"orders  consumer-b", false, []string{"orders/2"}},
		{"nothing", false, []string{}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q/%v", tt.query, tt.onlyLag), func(t *testing.T) {
			rows := viewRows()
			got := AppendFiltered(nil, rows, tt.query, tt.onlyLag)
			if !slices.Equal(names(got), tt.want) {
				t.Errorf("filter %q onlyLag=%v: %v, want %v", tt.query, tt.onlyLag, names(got), tt.want)
			}
			if !slices.Equal(names(rows), names(viewRows())) {
				t.Error("AppendFiltered changed its input")
			}
			first := viewRows()[0]
			buf := append(make([]*PartitionLag, 0, 8), &first)
			if got := AppendFiltered(buf, rows, tt.query, tt.onlyLag); !slices.Equal(names(got[1:]), tt.want) || names(got)[0] != "orders/2" {
				t.Errorf("AppendFiltered: %v", names(got))
			}
		})
	}
}

func TestContainsFold(t *testing.T) {
	tests := []struct {
		s, sub string
		want   bool
	}{
		{"Orders", "ord", true},
		{"orders", "ders", true},
		{"orders", "orderss", false},
		{"ordors", "ders", false},
		{"주문-Orders", "orders", true},
		{"주문-Orders", "주문", true},
		{"x", "", true},
	}
	for _, tt := range tests {
		if got := containsFold(tt.s, tt.sub); got != tt.want {
			t.Errorf("containsFold(%q, %q) = %v", tt.s, tt.sub, got)
		}
	}
}
