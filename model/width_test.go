package model

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// widthNames are names whose width a grapheme count gets wrong on a
// terminal that counts code points (tmux, xterm, VTE): a letter and 40
// spacing marks (41 cells, 1 grapheme), a thumbs-up with a skin tone (4
// cells, 2 by grapheme), a decomposed Hangul syllable, a trigram, Hindi.
var widthNames = []string{
	"plain-group",
	"a" + strings.Repeat("\u0903", 40),
	"\U0001F44D\U0001F3FD-team",
	"\u1100\u1161\u11a8",
	"\u2630 trigram",
	"\u0915\u093f\u0936\u094b\u0930",
	"\u0928\u092e\u0938\u094d\u0924\u0947",
}

// columnStarts returns, for each line holding marker, the cell (counted
// as a terminal counting code points does) at which marker begins.
func columnStarts(t *testing.T, out, marker string) []int {
	t.Helper()
	var starts []int
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, marker); i >= 0 {
			starts = append(starts, ansi.StringWidthWc(l[:i]))
		}
	}
	return starts
}

func assertAligned(t *testing.T, what, out, marker string, rows int) {
	t.Helper()
	starts := columnStarts(t, out, marker)
	if len(starts) != rows {
		t.Fatalf("%s: %d rows hold %q, want %d:\n%s", what, len(starts), marker, rows, out)
	}
	for i, s := range starts {
		if s != starts[0] {
			t.Errorf("%s: row %d's column %q starts at cell %d, row 0's at %d: a name pushed it off its column:\n%s", what, i, marker, s, starts[0], out)
		}
	}
}

// The --once tables pad by the terminal's count: every row's columns start
// at the same cell whatever the names.
func TestOnceTablesAlignHostileWidths(t *testing.T) {
	var gs []GroupSummary
	for _, n := range widthNames {
		gs = append(gs, GroupSummary{ID: n, State: "Stable", Members: 1, TotalLag: 7})
	}
	ov := FormatOverview(gs)
	assertAligned(t, "overview", ov, "Stable", len(gs))

	var parts []PartitionLag
	for i, n := range widthNames {
		parts = append(parts, PartitionLag{TopicPartition: TopicPartition{Topic: n, Partition: int32(i)}, Committed: 1, LogEnd: 2, Lag: 1, ClientID: "c-" + n, Host: "/h" + n, MemberID: "m-" + n})
	}
	table := FormatTable(Snapshot{Group: Group{ID: "g", State: StateStable}, Partitions: parts})
	assertAligned(t, "group table", table, " /h", len(parts)) // HOST follows CONSUMER-ID
}

// Width counts code points as terminals do; Printable leaves nothing whose
// count the renderer and a wcwidth terminal dispute.
func TestWidth(t *testing.T) {
	for s, want := range map[string]int{
		"orders": 6, "消費者": 6, "a\u0903": 2, "\U0001F44D\U0001F3FD": 4, "e\u0301": 1, "\x1b[31mred\x1b[m": 3,
	} {
		if got := Width(s); got != want {
			t.Errorf("Width(%q) = %d, want %d", s, got, want)
		}
	}
	if got := Printable("a" + strings.Repeat("\u0903", 40)); Width(got) != 1+maxMarks+6*(40-maxMarks) {
		t.Errorf("40 spacing marks: %q (%d cells)", got, Width(got))
	}
	for _, r := range []rune{0x115f, 0x1160, 0x11a8, 0x3164, 0xffa0, 0x2800, 0x2630, 0x3248, 0xd7b0, 0x1d165, 0x1d300, 0x0378} {
		if got := Printable(string(r)); got != escapeRune(r) {
			t.Errorf("Printable(%U) = %q, want the escape", r, got)
		}
	}
}
