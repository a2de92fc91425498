package model

import (
	"testing"
	"time"
)

// The overview counts each group's rebalances by its generation's moves
// between polls (it sees no timeline): unknown at the first poll and for
// a group whose generation is never told, then the moves of the last 10
// minutes, at every poll interval.
func TestOverviewCountsRebalancesByGeneration(t *testing.T) {
	for _, iv := range []time.Duration{100 * time.Millisecond, time.Second, 10 * time.Second} {
		t.Run(iv.String(), func(t *testing.T) {
			h := NewOverviewHistory(HistoryOptions{})
			poll := func(i int, gen int32) []GroupSummary {
				o := &OverviewObservation{TakenAt: tl0.Add(time.Duration(i) * iv), Groups: []OverviewGroup{
					{Summary: GroupSummary{ID: "flappy", State: StateStable, Type: TypeClassic, Members: 2, Generation: gen}},
					{Summary: GroupSummary{ID: "kafka-go", State: StateStable, Type: TypeClassic, Members: 2}},
					{Summary: GroupSummary{ID: "kip848", State: StateStable, Type: TypeConsumer, Members: 2, Generation: 40}},
				}}
				return h.Observe(o)
			}
			if gs := poll(0, 3); gs[0].RebalancesKnown || gs[0].Generation != 3 {
				t.Fatalf("first poll: %+v, want the generation known, no count", gs[0])
			}
			var gs []GroupSummary
			for i, gen := range []int32{3, 5, 6, 6, 9, 9} {
				gs = poll(i+1, gen)
			}
			if !gs[0].RebalancesKnown || gs[0].Rebalances != 6 {
				t.Errorf("flappy: %d rebalances (known %v), want 6: 3 → 9", gs[0].Rebalances, gs[0].RebalancesKnown)
			}
			if gs[1].RebalancesKnown {
				t.Errorf("kafka-go's generation is never told: its count must be unknown, got %d", gs[1].Rebalances)
			}
			if !gs[2].RebalancesKnown || gs[2].Rebalances != 0 {
				t.Errorf("kip848: %d (known %v), want 0", gs[2].Rebalances, gs[2].RebalancesKnown)
			}
		})
	}
}
