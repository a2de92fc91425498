package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A long group name is cut in the window title, to 200 cells ending
// in …; a short one is whole.
func TestWindowTitleCapped(t *testing.T) {
	const prefix = "kgwatch · " // 10 cells
	room := 200 - 10 - 1        // cells left for the name, before …
	for _, tt := range []struct {
		group, want string
	}{
		{"order-workers", prefix + "order-workers"},
		{strings.Repeat("g", 10_000), prefix + strings.Repeat("g", room) + "…"},
		{strings.Repeat("組", 10_000), prefix + strings.Repeat("組", room/2) + "…"},
	} {
		a := New(Watch{Group: tt.group, Source: &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}},
			Options{Brokers: []string{"b:9092"}, Interval: time.Second, Timeout: time.Second})
		a.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		got := a.View().WindowTitle
		if got != tt.want || ansi.StringWidth(got) > 200 {
			t.Errorf("title %.60q… (%d cells), want %.60q… (%d cells)", got, ansi.StringWidth(got), tt.want, ansi.StringWidth(tt.want))
		}
	}
}
