package model

import "testing"

// TestKinds: each known type has one kind, named on screen unless it is
// classic; no type is read as classic; a type kgwatch does not know can
// show nothing but its name.
func TestKinds(t *testing.T) {
	seen := map[GroupType]bool{}
	for _, k := range Kinds() {
		if k.Type == "" || seen[k.Type] {
			t.Errorf("kind %q: empty or declared twice", k.Type)
		}
		seen[k.Type] = true
		if !k.Type.Known() || k.Type.Kind() != k {
			t.Errorf("%s: lookup gives %+v", k.Type, k.Type.Kind())
		}
		if (k.Label == "") != (k.Type == TypeClassic) {
			t.Errorf("%s: label %q (only classic goes unnamed in TYPE)", k.Type, k.Label)
		}
		if k.TargetAssignment && !k.CoordinatorAssigned {
			t.Errorf("%s: a target assignment without the coordinator assigning", k.Type)
		}
	}
	for _, typ := range []GroupType{TypeClassic, TypeConsumer, TypeShare, TypeStreams} {
		if !seen[typ] {
			t.Errorf("%s has no kind", typ)
		}
	}
	if k := GroupType("").Kind(); k != TypeClassic.Kind() || GroupType("").Known() {
		t.Errorf("no type: %+v, want classic's kind (and not known)", k)
	}
	if k := GroupType("future").Kind(); GroupType("future").Known() || k != (Kind{Type: "future", Label: "future"}) {
		t.Errorf("an unknown type: %+v, want a kind that shows only its name", k)
	}
}

// TestKindCapabilities: what a group can show follows its kind.
func TestKindCapabilities(t *testing.T) {
	for _, c := range []struct {
		g              Group
		known, byCoord bool
		generation     int32
		stateText      string
	}{
		{Group{Type: TypeClassic, State: StatePreparingRebalance, Generation: 7}, false, false, 7, "is rebalancing"},
		{Group{Type: TypeClassic, State: StateStable, Generation: 7, AssignmentEpoch: 9}, true, false, 7, StateStable},
		{Group{Type: TypeConsumer, State: StateReconciling, Generation: 7, AssignmentEpoch: 9}, true, true, 9, "is rebalancing"},
		{Group{Type: TypeShare, State: StateEmpty, AssignmentEpoch: 3}, true, true, 3, "has no active members"},
		{Group{Type: TypeStreams, State: StateReconciling, Epoch: 5, AssignmentEpoch: 4}, true, true, 4, "is rebalancing"},
		{Group{Type: TypeStreams, State: StateNotReady, AssignmentEpoch: 2}, true, true, 2, "is not ready: its internal topics are missing or misconfigured"},
		{Group{Type: TypeStreams, State: StateUnknown}, false, true, 0, "is a streams group kgwatch cannot describe: members unknown"},
		{Group{State: StateUnknown}, false, false, 0, "has commits but is not a classic group: members unknown"},
		{Group{Type: "future", State: StateUnknown}, false, false, 0, "has commits but is not a classic group: members unknown"},
		{Group{Type: TypeConsumer, State: StateDead}, false, true, 0, "does not exist"},
	} {
		g := c.g
		if got := g.AssignmentsKnown(); got != c.known {
			t.Errorf("%s %s: AssignmentsKnown %v, want %v", g.Type, g.State, got, c.known)
		}
		if got := g.CoordinatorAssigned(); got != c.byCoord {
			t.Errorf("%s %s: CoordinatorAssigned %v, want %v", g.Type, g.State, got, c.byCoord)
		}
		if got := g.RebalanceGeneration(); got != c.generation {
			t.Errorf("%s %s: RebalanceGeneration %d, want %d", g.Type, g.State, got, c.generation)
		}
		if got := g.StateText(); got != c.stateText {
			t.Errorf("%s %s: StateText %q, want %q", g.Type, g.State, got, c.stateText)
		}
	}
}
