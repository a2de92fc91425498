package model

import (
	"strings"
	"testing"
	"time"
)

func TestFormatOverview(t *testing.T) {
	got := FormatOverview([]GroupSummary{
		{ID: "order-workers", State: StateStable, Members: 2, TotalLag: 1234},
		{ID: "billing", State: StateEmpty, TotalLag: 7, Err: "commits: Not Coordinator For Group"},
	})
	want := "GROUP         STATE  MEMBERS TOTAL-LAG\n" +
		"order-workers Stable       2      1234\n" +
		"billing       Empty        0         7  (commits: Not Coordinator For Group)\n"
	if got != want {
		t.Fatalf("FormatOverview:\n%s\nwant:\n%s", got, want)
	}
	if got := FormatOverview(nil); got != "No consumer groups.\n" {
		t.Fatalf("FormatOverview(nil) = %q", got)
	}
}

func TestMarshalJSONOverview(t *testing.T) {
	b, err := MarshalJSONOverview(nil)
	if err != nil || string(b) != "[]\n" {
		t.Fatalf("MarshalJSONOverview(nil) = %q, %v; want []", b, err)
	}
	b, err = MarshalJSONOverview([]GroupSummary{{ID: "g", State: StateEmpty, Partitions: 3, Committed: 2, TotalLag: 9, MaxLag: 6}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"group": "g"`, `"state": "Empty"`, `"total_lag": 9`, `"max_lag": 6`, `"committed_partitions": 2`, `"members": 0`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "error") {
		t.Errorf("JSON has an error field for a group without error:\n%s", b)
	}
}

func TestGroupSummaryStateText(t *testing.T) {
	for state, want := range map[string]string{StateStable: "Stable", StateEmpty: "has no active members", StatePreparingRebalance: "is rebalancing", StateDead: "does not exist"} {
		if got := (GroupSummary{State: state}).StateText(); got != want {
			t.Errorf("StateText(%s) = %q, want %q", state, got, want)
		}
	}
}

// TYPE appears once some group is not classic.
func TestFormatOverviewTypes(t *testing.T) {
	got := FormatOverview([]GroupSummary{
		{ID: "orders", State: StateStable, Type: TypeConsumer, Members: 2, TotalLag: 5},
		{ID: "jobs", State: StateEmpty, Type: TypeShare},
		{ID: "old", State: StateEmpty},
	})
	want := "GROUP  STATE  MEMBERS TOTAL-LAG TYPE\n" +
		"orders Stable       2         5 consumer\n" +
		"jobs   Empty        0         0 share\n" +
		"old    Empty        0         0 -\n"
	if got != want {
		t.Fatalf("FormatOverview:\n%q\nwant:\n%q", got, want)
	}
	b, err := MarshalJSONOverview([]GroupSummary{{ID: "jobs", State: StateEmpty, Type: TypeShare}})
	if err != nil || !strings.Contains(string(b), `"group_type": "share"`) {
		t.Fatalf("JSON %s (%v) lacks group_type share", b, err)
	}
}

// GroupWorse is the order of GroupsByStatus: a group is worse than every
// group sorted after it, and than none sorted before it.
func TestGroupWorseIsTheStatusOrder(t *testing.T) {
	gs := []GroupSummary{
		{ID: "ok-idle", Status: StatusOK},
		{ID: "ok-old", Status: StatusOK, TotalLag: 3, MaxLagAge: time.Hour, MaxLagAgeKnown: true},
		{ID: "ok-big", Status: StatusOK, TotalLag: 900, MaxLagAge: time.Second, MaxLagAgeKnown: true},
		{ID: "ok-unknown-age", Status: StatusOK, TotalLag: 50},
		{ID: "lagging", Status: StatusLagging, TotalLag: 10, MaxLagAge: 10 * time.Second, MaxLagAgeKnown: true},
		{ID: "stopped", Status: StatusStopped, TotalLag: 1, MaxLagAge: time.Second, MaxLagAgeKnown: true},
		{ID: "unjudged", TotalLag: 5000},
	}
	SortGroupsBy(gs, GroupsByStatus)
	for i := range gs {
		for j := range gs {
			if got := GroupWorse(&gs[i], &gs[j]); got != (i < j) {
				t.Errorf("GroupWorse(%s, %s) = %v; sorted at %d and %d", gs[i].ID, gs[j].ID, got, i, j)
			}
		}
	}
	if gs[0].ID != "stopped" {
		t.Errorf("first %s, want stopped", gs[0].ID)
	}
}
