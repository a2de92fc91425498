package kafka

import (
	"slices"
	"testing"

	"github.com/kgwatch/kgwatch/model"
)

// TestGroupKindsMatchModel: every type the model says kgwatch describes
// has a reader here, and every reader a described model kind, once, with
// a describe; classic DescribeGroups is asked first (its answer tells a
// classic group from any other, classicAnswer).
func TestGroupKindsMatchModel(t *testing.T) {
	for _, k := range model.Kinds() {
		if _, ok := kindOf(k.Type); ok != k.Described {
			t.Errorf("%s: model says described %v, kafka reader %v", k.Type, k.Described, ok)
		}
	}
	seen := map[model.GroupType]bool{}
	for _, k := range groupKinds {
		if !k.typ.Known() || !k.typ.Kind().Described {
			t.Errorf("reader for %q, which the model does not describe", k.typ)
		}
		if seen[k.typ] {
			t.Errorf("%s read twice", k.typ)
		}
		seen[k.typ] = true
		if k.describe == nil || k.describeMany == nil {
			t.Errorf("%s: no describe, or none for the overview", k.typ)
		}
	}
	if first := groupKinds[0].typ; first != model.TypeClassic {
		t.Errorf("detection starts with %s, want classic", first)
	}
}

// TestDetectOrder: the type last learned is asked first, the rest in
// detection order; an unknown or no type asks in detection order.
func TestDetectOrder(t *testing.T) {
	types := func(ks []groupKind) []model.GroupType {
		var out []model.GroupType
		for _, k := range ks {
			out = append(out, k.typ)
		}
		return out
	}
	for _, c := range []struct {
		first model.GroupType
		want  []model.GroupType
	}{
		{"", []model.GroupType{model.TypeClassic, model.TypeConsumer, model.TypeShare, model.TypeStreams}},
		{model.TypeStreams, []model.GroupType{model.TypeStreams, model.TypeClassic, model.TypeConsumer, model.TypeShare}},
		{model.TypeClassic, []model.GroupType{model.TypeClassic, model.TypeConsumer, model.TypeShare, model.TypeStreams}},
		{model.TypeShare, []model.GroupType{model.TypeShare, model.TypeClassic, model.TypeConsumer, model.TypeStreams}},
		{"future", []model.GroupType{model.TypeClassic, model.TypeConsumer, model.TypeShare, model.TypeStreams}},
	} {
		if got := types(detectOrder(c.first)); !slices.Equal(got, c.want) {
			t.Errorf("detectOrder(%q) = %v, want %v", c.first, got, c.want)
		}
	}
}
