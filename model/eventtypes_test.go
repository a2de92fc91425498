package model

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Every event type declared in event.go is in the registry, with a glyph
// of one cell and a sentence: a type added without them fails here, not on
// screen as a silent fallback.
func TestEventRegistryComplete(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "event.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[EventType]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != len(vs.Names) {
			return true
		}
		for i, name := range vs.Names {
			if !strings.HasPrefix(name.Name, "Event") {
				continue
			}
			if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				declared[EventType(strings.Trim(lit.Value, `"`))] = true
			}
		}
		return true
	})
	if len(declared) < 20 {
		t.Fatalf("found only %d event types in event.go: the parse is wrong", len(declared))
	}
	seen := map[EventType]bool{}
	glyphs := map[string]EventType{}
	for _, s := range EventTypes() {
		if !declared[s.Type] {
			t.Errorf("registry has %q, which event.go does not declare", s.Type)
		}
		if seen[s.Type] {
			t.Errorf("%q registered twice", s.Type)
		}
		seen[s.Type] = true
		if ansi.StringWidth(s.Glyph) != 1 || !IsPrintable(s.Glyph) {
			t.Errorf("%q: glyph %q is not one printable cell", s.Type, s.Glyph)
		}
		if other, dup := glyphs[s.Glyph]; dup {
			t.Errorf("%q and %q share the glyph %q", s.Type, other, s.Glyph)
		}
		glyphs[s.Glyph] = s.Type
		if len(s.Means) < 10 {
			t.Errorf("%q: no sentence says what it means", s.Type)
		}
	}
	for typ := range declared {
		if _, ok := typ.Spec(); !ok {
			t.Errorf("event type %q is not in the registry (model/eventtypes.go): give it a glyph, a class, its JSON fields and a sentence", typ)
		}
	}
}
