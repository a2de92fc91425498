package model

import (
	"strings"
	"testing"
)

// Names that would draw as blanks, or as another name, are quoted; the
// quoted forms differ from each other.
func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"orders":     "orders",
		"":           `""`,
		"   ":        `"   "`,
		"\u3000":     `"\u3000"`,
		" orders":    `" orders"`,
		"orders ":    `"orders "`,
		`"orders"`:   `"\"orders\""`,
		"\u3164":     `\u3164`,
		"\u115f":     `\u115f`,
		"\u2800":     `\u2800`,
		"a b":        "a b",
		"\x1b[2J ":   `"␛[2J "`,
		"東京\u3000本社": "東京\u3000本社",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
		if got := Name(in); !IsPrintable(got) {
			t.Errorf("Name(%q) = %q is not printable", in, got)
		}
	}
	seen := map[string]string{}
	for _, in := range []string{"", " ", "  ", "\u3000", "\u3164", "\u115f", "\u2800", "\u3164\u3164", "\"\"", "\" \""} {
		got := Name(in)
		if other, ok := seen[got]; ok {
			t.Errorf("Name(%q) and Name(%q) both draw %q", in, other, got)
		}
		seen[got] = in
	}
}

// A pathological name is cut to the column's cap with a visible "…"; the
// --once overview of a 1 MiB name stays small.
func TestNameCell(t *testing.T) {
	long := strings.Repeat("g", 1<<20)
	if got := NameCell(long, 10); got != "ggggggggg…" {
		t.Errorf("NameCell(1 MiB, 10) = %q", got)
	}
	if got := NameCell("short", 10); got != "short" {
		t.Errorf("NameCell(short) = %q", got)
	}
	if got := NameCell(strings.Repeat("表", 40), 11); Width(got) > 11 || !strings.HasSuffix(got, "…") {
		t.Errorf("wide name cut to %q (%d cells)", got, Width(got))
	}
	ov := FormatOverview([]GroupSummary{{ID: long, State: "Empty"}, {ID: "small", State: "Stable"}})
	if len(ov) > 1000 {
		t.Fatalf("--once overview of a 1 MiB group name is %d bytes", len(ov))
	}
	if !strings.Contains(ov, strings.Repeat("g", MaxNameCells-1)+"…") {
		t.Errorf("the long name is not shown cut:\n%.300s", ov)
	}
	assertAligned(t, "overview", ov, "Stable", 1)
	if got := columnStarts(t, ov, "Empty")[0]; got != columnStarts(t, ov, "Stable")[0] {
		t.Errorf("STATE columns differ: %d and %d", got, columnStarts(t, ov, "Stable")[0])
	}
}
