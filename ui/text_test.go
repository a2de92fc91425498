package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model/testutil"
)

// textWidth and truncate take shortcuts; they must agree with ansi's
// code-point functions (the width rule the renderer and the terminal
// share) on everything the UI renders.
func TestTextWidthMatchesANSI(t *testing.T) {
	in := []string{
		"", "plain", "█████░░░ ◀", "▸order", "消費者-甲", "worker-🚀-b", "e\u0301", "⚠\ufe0f",
		"\x1b[31mred\x1b[m", "\x1b[1;38;5;200mx\x1b[0m", "tab\there", "\x1b]8;;http://x\x07link\x1b]8;;\x07",
	}
	for _, st := range states {
		for _, noColor := range []bool{false, true} {
			clk := testutil.NewClock(t0)
			a := New(Watch{Group: "order-workers", Source: &fakeSource{results: st.polls}}, Options{Brokers: testBrokers, NoColor: noColor, Now: clk.Now})
			a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			feed(t, a, a.Init())
			in = append(in, strings.Split(a.View().Content, "\n")...)
		}
	}
	for _, s := range in {
		if got, want := textWidth(s), ansi.StringWidthWc(s); got != want {
			t.Errorf("textWidth(%q) = %d, ansi.StringWidthWc = %d", s, got, want)
		}
	}
	for _, s := range []string{"order-rebalancing", "ab", "x", ""} {
		for w := 0; w <= len(s)+1; w++ {
			if got, want := truncate(s, w, ellipsis), ansi.TruncateWc(s, w, ellipsis); got != want {
				t.Errorf("truncate(%q, %d) = %q, ansi.TruncateWc = %q", s, w, got, want)
			}
		}
	}
}

func TestCellPadsToCells(t *testing.T) {
	tests := []struct {
		s     string
		w     int
		right bool
		want  string
	}{
		{"abc", 5, false, "abc  "},
		{"abc", 5, true, "  abc"},
		{"abcdef", 4, false, "abc…"},
		{"消費者", 7, false, "消費者 "},
		{"消費者", 5, false, "消費…"},
		{"x", 0, false, ""},
	}
	for _, tt := range tests {
		if got := cell(tt.s, tt.w, tt.right); got != tt.want {
			t.Errorf("cell(%q, %d, %v) = %q, want %q", tt.s, tt.w, tt.right, got, tt.want)
		}
	}
}
