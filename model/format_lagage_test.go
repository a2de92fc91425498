package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestJSONLagAge: lag_age_ms per partition (0 without lag, null when
// unknown or gone, with lag_age_gone), max_lag_age_ms for the group.
func TestJSONLagAge(t *testing.T) {
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	tp := func(p int32) TopicPartition { return TopicPartition{Topic: "orders", Partition: p} }
	s := NewSnapshot(Observation{
		TakenAt: at,
		Group:   Group{ID: "g", State: StateEmpty},
	}.With(Readings{
		Committed: map[TopicPartition]int64{tp(0): 10, tp(1): 20, tp(2): 5, tp(3): 1},
		Offsets: map[TopicPartition]PartitionOffsets{
			tp(0): {LogStart: 0, LogEnd: 15}, tp(1): {LogStart: 0, LogEnd: 20},
			tp(2): {LogStart: 8, LogEnd: 30}, tp(3): {LogStart: 0, LogEnd: 9},
		},
		OldestTimestamp: map[TopicPartition]time.Time{tp(0): at.Add(-124 * time.Second)},
	}))
	b, err := MarshalJSONSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		MaxLagAgeMs *int64 `json:"max_lag_age_ms"`
		Partitions  []struct {
			LagAgeMs   *int64 `json:"lag_age_ms"`
			LagAgeGone bool   `json:"lag_age_gone"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if j.MaxLagAgeMs == nil || *j.MaxLagAgeMs != 124000 {
		t.Errorf("max_lag_age_ms = %v, want 124000", j.MaxLagAgeMs)
	}
	p := j.Partitions
	switch {
	case p[0].LagAgeMs == nil || *p[0].LagAgeMs != 124000:
		t.Errorf("p0 lag_age_ms %v, want 124000", p[0].LagAgeMs)
	case p[1].LagAgeMs == nil || *p[1].LagAgeMs != 0:
		t.Errorf("p1 (no lag) lag_age_ms %v, want 0", p[1].LagAgeMs)
	case p[2].LagAgeMs != nil || !p[2].LagAgeGone:
		t.Errorf("p2 (commit below log start) lag_age_ms %v gone %v, want null and gone", p[2].LagAgeMs, p[2].LagAgeGone)
	case p[3].LagAgeMs != nil || p[3].LagAgeGone:
		t.Errorf("p3 (no timestamp) lag_age_ms %v gone %v, want null", p[3].LagAgeMs, p[3].LagAgeGone)
	}
	if !strings.Contains(string(b), `"lag_age_ms": null`) {
		t.Errorf("unknown lag age is not written as null:\n%s", b)
	}
}
