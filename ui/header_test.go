package ui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// The header says what a rebalance is doing in its protocol's terms: a
// consumer-protocol group's Assigning and Reconciling (with how many
// members are behind the target assignment), a classic group's two
// phases; the whole sentence where the first line holds it and the lag,
// shorter words where it does not; never the bare "is rebalancing
// (Reconciling)".
func TestHeaderRebalanceWords(t *testing.T) {
	obs := func(edit func(*model.Observation)) model.Snapshot {
		o := reconcilingObservation()
		edit(&o)
		return model.NewSnapshot(o)
	}
	oneBehind := obs(func(o *model.Observation) { // consumer-b has let p2 go
		o.Members[1].MemberEpoch, o.Members[1].Partitions = 8, o.Members[1].TargetPartitions
	})
	noneBehind := obs(func(o *model.Observation) { o.Members = nil })
	assigning := obs(func(o *model.Observation) { o.Group.State, o.Group.Epoch = model.StateAssigning, 9 })
	classic := func(state string) model.Snapshot {
		return obs(func(o *model.Observation) {
			o.Group.State, o.Group.Type, o.Group.Epoch, o.Group.AssignmentEpoch, o.Group.Assignor = state, model.TypeClassic, 0, 0, "range"
			for i := range o.Members {
				o.Members[i].MemberEpoch, o.Members[i].Partitions, o.Members[i].TargetPartitions = 0, nil, nil
			}
		})
	}
	tests := []struct {
		name  string
		snap  model.Snapshot
		width int
		want  string
	}{
		{"reconciling", reconcilingSnapshot(), 120, "◐ reconciling: 2 members taking up their new assignment"},
		{"reconciling", reconcilingSnapshot(), 80, "◐ 2 members reconciling"},
		{"reconciling", reconcilingSnapshot(), 40, "◐ reconciling"},
		{"one behind", oneBehind, 120, "◐ reconciling: 1 member taking up its new assignment"},
		{"one behind", oneBehind, 80, "◐ 1 member reconciling"},
		{"none behind yet", noneBehind, 120, "◐ reconciling: members taking up their new assignment"},
		{"assigning", assigning, 120, "◐ assigning: the coordinator is computing the new assignment"},
		{"assigning", assigning, 80, "◐ assigning"},
		{"preparing", classic(model.StatePreparingRebalance), 120, "◐ preparing rebalance: waiting for members to rejoin"},
		{"preparing", classic(model.StatePreparingRebalance), 80, "◐ preparing rebalance"},
		{"completing", classic(model.StateCompletingRebalance), 120, "◐ completing rebalance: waiting for the leader's assignment"},
		{"completing", classic(model.StateCompletingRebalance), 80, "◐ completing rebalance"},
		{"completing", classic(model.StateCompletingRebalance), 40, "◐ rebalancing"},
	}
	// A recording's mark, which goes to the second line when the first is
	// full, does not cost the rebalance its words.
	recording := func() RecordingStatus { return RecordingStatus{Path: "incident.kgw", Bytes: 123_456} }
	for _, tt := range tests {
		for _, rec := range []func() RecordingStatus{nil, recording} {
			h := NewHeader(NewStyles(true))
			h.SetSize(tt.width, 2)
			h.SetState(WatchState{Group: "order-workers", Snap: tt.snap, HasSnap: true, LastGood: t0, Now: t0, Recording: recordingNow(rec)})
			first, _, _ := strings.Cut(ansi.Strip(h.View()), "\n")
			if !strings.Contains(first, tt.want+" · lag ") || strings.Contains(first, "is rebalancing") {
				t.Errorf("%s at %d columns (recording %v): first line %q, want %q then the lag", tt.name, tt.width, rec != nil, first, tt.want)
			}
		}
	}
}

// The overview's STATE cell marks a consumer-protocol group's Assigning
// and Reconciling as rebalancing, as a classic group's two phases, not
// with the "?" of a state kgwatch does not know.
func TestOverviewStateRebalancing(t *testing.T) {
	for _, state := range []string{model.StatePreparingRebalance, model.StateCompletingRebalance, model.StateAssigning, model.StateReconciling} {
		g := model.GroupSummary{ID: "g", State: state, Type: model.TypeConsumer}
		if text, sev := groupState(&g, true); text != glyphRebalance+" is rebalancing" || sev != 1 {
			t.Errorf("%s: %q (severity %d), want %q (1)", state, text, sev, glyphRebalance+" is rebalancing")
		}
		if text, _ := groupState(&g, false); text != glyphRebalance+" "+state {
			t.Errorf("%s, short: %q", state, text)
		}
	}
}

// TestHeaderKeepsTheAssignor: a cooperative group's assignor stays on the
// second line at 120 columns once the rates show (it said "(cooperative)"
// after "cooperative-sticky" and gave way), and a cooperative group whose
// assignor's name does not say so is still marked.
func TestHeaderKeepsTheAssignor(t *testing.T) {
	for _, c := range []struct{ assignor, want string }{
		{"cooperative-sticky", "assignor cooperative-sticky"},
		{"custom", "assignor custom (cooperative)"},
	} {
		snap := stableSnapshot()
		snap.ConsumeRate = model.Rate{PerSec: 5, Known: true}
		snap.ProduceRate = model.Rate{PerSec: 5, Known: true}
		snap.Group.Assignor, snap.Group.Cooperative = c.assignor, true
		h := NewHeader(NewStyles(true))
		h.SetSize(120, 3)
		h.SetState(WatchState{Brokers: testBrokers, Group: "order-workers", Interval: time.Second, Snap: snap, HasSnap: true, LastGood: t0, Now: t0})
		line2 := strings.Split(ansi.Strip(h.View()), "\n")[1]
		if !strings.Contains(line2, c.want) || strings.Contains(line2, "cooperative-sticky (cooperative)") {
			t.Errorf("%s: %q, want %q on it", c.assignor, line2, c.want)
		}
	}
}

// TestHeaderSaysTheKind: the header names the group's kind and shows
// what it has: a share group its epoch (no target: it has none) and no
// assignor, a streams group its epochs (group, target, topology) and no
// assignor, a consumer group being migrated how many members are still
// classic, a classic group its assignor and no epoch.
func TestHeaderSaysTheKind(t *testing.T) {
	for _, c := range []struct {
		typ       model.GroupType
		want, not []string
		classic   int // members still classic, of 3
	}{
		{model.TypeShare, []string{"share group (KIP-932)", "epoch 4"}, []string{"target", "assignor"}, 0},
		{model.TypeStreams, []string{"streams group (KIP-1071)", "epoch 4, target 5, topology 2"}, []string{"assignor", "migrating"}, 0},
		{model.TypeConsumer, []string{"migrating: 2 of 3 members still classic"}, nil, 2},
		{model.TypeConsumer, []string{"epoch 4"}, []string{"migrating", "topology"}, 0},
		{model.TypeClassic, []string{"assignor simple"}, []string{"epoch", "group (", "migrating"}, 0},
	} {
		snap := stableSnapshot()
		snap.Group.Type, snap.Group.Assignor, snap.Group.Epoch, snap.Group.AssignmentEpoch = c.typ, "simple", 4, 5
		if c.typ == model.TypeStreams {
			snap.Group.TopologyEpoch, snap.Group.Topology = 2, []model.Subtopology{{ID: "0", SourceTopics: []string{"orders"}}}
		}
		snap.Members = append(snap.Members[:0:0], snap.Members...)
		for len(snap.Members) < 3 {
			snap.Members = append(snap.Members, model.Member{MemberID: "extra-" + strconv.Itoa(len(snap.Members))})
		}
		for i := range snap.Members {
			snap.Members[i].Protocol = map[bool]string{true: model.ProtocolClassic, false: model.ProtocolConsumer}[i < c.classic]
		}
		h := NewHeader(NewStyles(true))
		h.SetSize(200, 3)
		h.SetState(WatchState{Brokers: testBrokers, Group: "order-workers", Interval: time.Second, Snap: snap, HasSnap: true, LastGood: t0, Now: t0})
		line2 := strings.Split(ansi.Strip(h.View()), "\n")[1]
		for _, w := range c.want {
			if !strings.Contains(line2, w) {
				t.Errorf("%s: %q lacks %q", c.typ, line2, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(line2, n) {
				t.Errorf("%s: %q says %q", c.typ, line2, n)
			}
		}
	}
}

// The demo's first seconds: nothing committed and nothing to read reads
// "lag 0", not "lag 0*" with a footnote about nothing; once records wait
// on a never-committed partition, the mark and the table's note come back.
func TestHeaderHoldsTheFromStartMarkAtZero(t *testing.T) {
	for _, lag := range []int64{0, 3} {
		s := stableSnapshot()
		s.TotalLag = lag
		for i := range s.Partitions {
			p := &s.Partitions[i]
			p.LagFromStart, p.LogEnd, p.Lag = true, lag, 0
		}
		s.Partitions[0].Lag = lag
		h := NewHeader(NewStyles(true))
		h.SetSize(120, 2)
		h.SetState(WatchState{Group: "order-workers", Snap: s, HasSnap: true, LastGood: t0, Now: t0})
		out := ansi.Strip(h.View())
		want, not := "lag 0", "lag 0*"
		if lag > 0 {
			want, not = "lag 3*", "lag 3 "
		}
		if !strings.Contains(out, want) || strings.Contains(out, not) {
			t.Errorf("lag %d from the log start: header %q, want %q and not %q", lag, out, want, not)
		}
		if got := lagText(&s.Partitions[1]); got != "0" {
			t.Errorf("an empty never-committed partition's LAG cell reads %q, want 0", got)
		}
	}
}
