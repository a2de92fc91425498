package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// scroller keeps a cursor inside a list of n rows and the window of height
// rows that shows it. Panes embed one; only the rows in Window are rendered.
type scroller struct {
	n      int // number of rows
	height int // rows that fit on screen
	cursor int
	offset int // first visible row
}

// SetLen changes the row count and keeps cursor and window valid.
func (s *scroller) SetLen(n int) {
	s.n = max(n, 0)
	s.clamp()
}

// SetHeight changes the window height and keeps the cursor visible.
func (s *scroller) SetHeight(h int) {
	s.height = max(h, 0)
	s.clamp()
}

// Move moves the cursor by d rows.
func (s *scroller) Move(d int) {
	s.cursor += d
	s.clamp()
}

// Page moves the cursor and the window by d pages.
func (s *scroller) Page(d int) {
	step := max(s.height, 1) * d
	s.offset += step
	s.cursor += step
	s.clamp()
}

// Top moves to the first row, Bottom to the last.
func (s *scroller) Top()    { s.cursor, s.offset = 0, 0; s.clamp() }
func (s *scroller) Bottom() { s.cursor = s.n - 1; s.clamp() }

// SetCursor puts the cursor on row i.
func (s *scroller) SetCursor(i int) {
	s.cursor = i
	s.clamp()
}

// Cursor returns the selected row, -1 when there are no rows.
func (s *scroller) Cursor() int {
	if s.n == 0 {
		return -1
	}
	return s.cursor
}

// Window returns the half-open range of visible rows.
func (s *scroller) Window() (start, end int) {
	return s.offset, min(s.offset+s.height, s.n)
}

func (s *scroller) clamp() {
	if s.n == 0 {
		s.cursor, s.offset = 0, 0
		return
	}
	s.cursor = min(max(s.cursor, 0), s.n-1)
	if s.height <= 0 {
		s.offset = s.cursor
		return
	}
	s.offset = min(max(s.offset, 0), max(s.n-s.height, 0))
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+s.height {
		s.offset = s.cursor - s.height + 1
	}
}

// handleListKey applies a list key to s and reports whether it was one.
func (s *scroller) handleListKey(msg tea.KeyPressMsg, keys ListKeyMap) bool {
	switch {
	case key.Matches(msg, keys.Up):
		s.Move(-1)
	case key.Matches(msg, keys.Down):
		s.Move(1)
	case key.Matches(msg, keys.PageUp):
		s.Page(-1)
	case key.Matches(msg, keys.PageDown):
		s.Page(1)
	case key.Matches(msg, keys.Home):
		s.Top()
	case key.Matches(msg, keys.End):
		s.Bottom()
	default:
		return false
	}
	return true
}
