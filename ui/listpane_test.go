package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// A list pane keeps the row under the cursor under it when the rows move,
// clamps it when that row goes, and moves it by its own keys only.
func TestListPaneKeepsSelection(t *testing.T) {
	same := func(a, b string) bool { return a == b }
	l := newListPane[string](DefaultKeyMap())
	l.setHeight(2)
	if _, ok := l.selected(); ok || l.Len() != 0 {
		t.Fatalf("empty list: selected %v, len %d", ok, l.Len())
	}
	l.setRows([]string{"a", "b", "c"}, same)
	for _, k := range []tea.KeyPressMsg{{Code: tea.KeyDown}, {Code: 'j', Text: "j"}} {
		if !l.handleKey(k) {
			t.Fatalf("%v is not a list key", k)
		}
	}
	if got, _ := l.selected(); got != "c" {
		t.Fatalf("two downs from a: %q, want c", got)
	}
	if start, vis := l.window(); start != 1 || len(vis) != 2 {
		t.Errorf("window %d %v, want the cursor in view: b c", start, vis)
	}
	l.setRows([]string{"c", "a", "b"}, same)
	if got, _ := l.selected(); got != "c" || !l.isCursor(0) {
		t.Errorf("c moved to the top: selected %q", got)
	}
	l.setRows([]string{"x"}, same)
	if got, ok := l.selected(); !ok || got != "x" {
		t.Errorf("c gone: selected %q %v, want the one row left", got, ok)
	}
	if l.handleKey(tea.KeyPressMsg{Code: 'q', Text: "q"}) {
		t.Error("q moved the list")
	}
}

// replace leaves the selection to the pane's own rule: the cursor keeps
// its index (clamped to the rows) rather than following its row, until
// setCursor moves it.
func TestListPaneReplaceKeepsIndex(t *testing.T) {
	l := newListPane[string](DefaultKeyMap())
	l.setHeight(3)
	l.replace([]string{"a", "b", "c"})
	l.setCursor(2)
	l.replace([]string{"c", "a", "b"})
	if got, _ := l.selected(); got != "b" || l.cursor() != 2 {
		t.Errorf("after replace: selected %q at %d, want b at 2 (the index kept)", got, l.cursor())
	}
	l.replace([]string{"x"})
	if got, _ := l.selected(); got != "x" || l.cursor() != 0 {
		t.Errorf("one row left: selected %q at %d, want x at 0", got, l.cursor())
	}
	l.replace(nil)
	if _, ok := l.selected(); ok || l.cursor() != -1 {
		t.Errorf("no rows: selected %v at %d, want none at -1", ok, l.cursor())
	}
}
