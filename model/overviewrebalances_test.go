package model

import (
	"testing"
	"time"
)

// The overview counts each group's rebalances by its generation's moves
// between polls (it sees no timeline): unknown at the first poll, then the
// moves of the last 10 minutes, at every poll interval; a classic group
// whose generation is never told by the rebalances the polls see.
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
			// kafka-go's generation is never told: the rebalances the polls
			// see are counted instead (none here: Stable, 2 members).
			if !gs[1].RebalancesKnown || gs[1].Rebalances != 0 {
				t.Errorf("kafka-go: %d (known %v), want 0 seen", gs[1].Rebalances, gs[1].RebalancesKnown)
			}
			if !gs[2].RebalancesKnown || gs[2].Rebalances != 0 {
				t.Errorf("kip848: %d (known %v), want 0", gs[2].Rebalances, gs[2].RebalancesKnown)
			}
		})
	}
}

// A classic group whose clients tell no generation (librdkafka, kafka-go)
// is counted by what the polls see of it: entering a rebalance, or its
// member count changed between two Stable polls; not a poll that stays in
// one rebalance.
func TestOverviewCountsSeenRebalances(t *testing.T) {
	h := NewOverviewHistory(HistoryOptions{})
	var gs []GroupSummary
	for i, st := range []struct {
		state   string
		members int
	}{
		{StateStable, 2}, {StatePreparingRebalance, 2}, {StatePreparingRebalance, 2}, {StateCompletingRebalance, 3},
		{StateStable, 3}, {StateStable, 2}, {StateStable, 2}, {StatePreparingRebalance, 1}, {StateStable, 1},
	} {
		gs = h.Observe(&OverviewObservation{TakenAt: tl0.Add(time.Duration(i) * time.Second), Groups: []OverviewGroup{
			{Summary: GroupSummary{ID: "rdkafka", State: st.state, Type: TypeClassic, Members: st.members}},
		}})
	}
	if !gs[0].RebalancesKnown || gs[0].Rebalances != 3 {
		t.Errorf("%d rebalances (known %v), want 3: two seen begun, one between Stable polls", gs[0].Rebalances, gs[0].RebalancesKnown)
	}
}

// A group that tells its generation while Stable (franz-go, Java) and
// none while rebalancing is counted by the generation alone: a poll caught
// mid-rebalance does not restart the count (generation 7 → unknown → 8 is
// one rebalance, not seven).
func TestOverviewGenerationUnknownMidRebalance(t *testing.T) {
	h := NewOverviewHistory(HistoryOptions{})
	var gs []GroupSummary
	for i, st := range []struct {
		state string
		gen   int32
	}{{StateStable, 7}, {StateStable, 7}, {StatePreparingRebalance, 0}, {StateStable, 8}} {
		gs = h.Observe(&OverviewObservation{TakenAt: tl0.Add(time.Duration(i) * time.Second), Groups: []OverviewGroup{
			{Summary: GroupSummary{ID: "java", State: st.state, Type: TypeClassic, Members: 2, Generation: st.gen}},
		}})
	}
	if gs[0].Rebalances != 1 {
		t.Errorf("%d rebalances, want 1 (7 → 8)", gs[0].Rebalances)
	}
}
