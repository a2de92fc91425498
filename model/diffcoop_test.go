package model

import (
	"slices"
	"strings"
	"testing"
)

// movesSummaryOf is movesSummary of moves.
func movesSummaryOf(moves []Move) string {
	om := make([]ownerMove, len(moves))
	for i, m := range moves {
		om[i].Move = m
	}
	return movesSummary(om)
}

// Three members join a cooperative-sticky group one by one, over
// generations (simulated clock, polls as a watch sees them): every
// partition that changes owner is one move, in one rebalance_completed's
// moves and one partition_moved, dated when it left its owner (the revoke
// phase), not when the next round assigned it.
func TestCooperativeThreeMemberMoves(t *testing.T) {
	a, b, c := "consumer-a", "consumer-b", "consumer-c"
	coop := func(sec float64, state string, members ...Member) Snapshot {
		return snapN(sec, state, 8, "cooperative-sticky", members...)
	}
	type move struct {
		p        int32
		from, to string
		at       float64 // when it left its owner
	}
	tests := []struct {
		name  string
		snaps []Snapshot
		want  []move
	}{
		{
			name: "each join's two rounds seen apart",
			snaps: []Snapshot{
				coop(0, empty),
				coop(1, preparing, mem(a)),
				coop(1.2, stable, mem(a, 0, 1, 2, 3, 4, 5, 6, 7)),
				// b joins: a revokes p4–p7, then b gets them.
				coop(3, preparing, mem(a), mem(b)),
				coop(3.2, stable, mem(a, 0, 1, 2, 3), mem(b)),
				coop(3.4, preparing, mem(a), mem(b)),
				coop(3.6, stable, mem(a, 0, 1, 2, 3), mem(b, 4, 5, 6, 7)),
				// c joins: a revokes p3, b p7; the assign round between polls.
				coop(6, preparing, mem(a), mem(b), mem(c)),
				coop(6.2, stable, mem(a, 0, 1, 2), mem(b, 4, 5, 6), mem(c)),
				coop(7.2, stable, mem(a, 0, 1, 2), mem(b, 4, 5, 6), mem(c, 3, 7)),
			},
			want: []move{
				{0, "", a, 1.2}, {1, "", a, 1.2}, {2, "", a, 1.2}, {3, "", a, 1.2},
				{4, "", a, 1.2}, {5, "", a, 1.2}, {6, "", a, 1.2}, {7, "", a, 1.2},
				{4, a, b, 3.2}, {5, a, b, 3.2}, {6, a, b, 3.2}, {7, a, b, 3.2},
				{3, a, c, 6.2}, {7, b, c, 6.2},
			},
		},
		{
			// c joins while b's assign round runs: that round gives b
			// part of what a revoked and revokes p3 for c; p6 and p7 wait
			// unowned through it.
			name: "third member joins during the second's assign round",
			snaps: []Snapshot{
				coop(0, stable, mem(a, 0, 1, 2, 3, 4, 5, 6, 7)),
				coop(1, preparing, mem(a), mem(b)),
				coop(1.2, stable, mem(a, 0, 1, 2, 3), mem(b)),
				coop(1.4, preparing, mem(a), mem(b), mem(c)),
				coop(1.6, stable, mem(a, 0, 1, 2), mem(b, 4, 5), mem(c)),
				coop(1.8, preparing, mem(a), mem(b), mem(c)),
				coop(2.0, stable, mem(a, 0, 1, 2), mem(b, 4, 5), mem(c, 3, 6, 7)),
			},
			want: []move{
				{4, a, b, 1.2}, {5, a, b, 1.2},
				{3, a, c, 1.6}, {6, a, c, 1.2}, {7, a, c, 1.2},
			},
		},
		{
			// b leaves as c joins: the revoke round gives c three of b's
			// partitions at once (moves it completes, said in its
			// detail), leaves p7 unowned and takes p3 from a, which the
			// next round gives c: each one move, dated by the revoke.
			name: "a member leaves during the revoke round",
			snaps: []Snapshot{
				coop(0, stable, mem(a, 0, 1, 2, 3), mem(b, 4, 5, 6, 7)),
				coop(1, preparing, mem(a), mem(c)),
				coop(1.2, stable, mem(a, 0, 1, 2), mem(c, 4, 5, 6)),
				coop(1.4, preparing, mem(a), mem(c)),
				coop(1.6, stable, mem(a, 0, 1, 2), mem(c, 3, 4, 5, 6, 7)),
			},
			want: []move{
				{4, b, c, 1.2}, {5, b, c, 1.2}, {6, b, c, 1.2}, {7, b, c, 1.2}, {3, a, c, 1.2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTracker("order-workers", 0)
			var listed, moved []move
			for _, s := range tt.snaps {
				for _, e := range tr.Observe(s) {
					switch e.Type {
					case EventRebalanceCompleted:
						if e.Phase == PhaseRevoke && len(e.Moves) > 0 && !strings.Contains(e.Detail, movesSummaryOf(e.Moves)) {
							t.Errorf("revoke round lists moves %v its detail does not say: %q", e.Moves, e.Detail)
						}
						for _, m := range e.Moves {
							listed = append(listed, move{p: m.Partition, from: m.From, to: m.To})
						}
					case EventPartitionMoved:
						if e.Time.After(s.TakenAt) {
							t.Errorf("p%d moved at %v, after the poll that saw it (%v)", e.Partitions[0].Partition, e.Time, s.TakenAt)
						}
						moved = append(moved, move{e.Partitions[0].Partition, e.From, e.To, e.Time.Sub(at(0)).Seconds()})
					}
				}
			}
			byMove := func(x, y move) int {
				if x.at != y.at {
					return int((x.at - y.at) * 1000)
				}
				return int(x.p - y.p)
			}
			slices.SortFunc(moved, byMove)
			want := slices.Clone(tt.want)
			slices.SortFunc(want, byMove)
			if !slices.Equal(moved, want) {
				t.Errorf("partition_moved:\n %v\nwant\n %v", moved, want)
			}
			for i := range want {
				want[i].at = 0
			}
			slices.SortFunc(want, byMove)
			slices.SortFunc(listed, byMove)
			if !slices.Equal(listed, want) {
				t.Errorf("rebalance_completed moves (%d):\n %v\nwant (%d)\n %v", len(listed), listed, len(want), want)
			}
			// The timeline holds the backdated moves in time order.
			evs := tr.Timeline().Events()
			for i := 1; i < len(evs); i++ {
				if evs[i].Time.Before(evs[i-1].Time) {
					t.Fatalf("timeline out of order at %d: %v before %v", i, evs[i].Time, evs[i-1].Time)
				}
			}
		})
	}
}
