package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// ListKeyMap is the keys a list pane owns: they move its cursor and its
// window. Like bubbles' list.KeyMap and table.KeyMap, it is the pane's
// own, taken from the global KeyMap when the pane is made, and it is a
// help.KeyMap.
type ListKeyMap struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding
}

// List returns the list panes' bindings of k.
func (k KeyMap) List() ListKeyMap {
	return ListKeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Home: k.Home, End: k.End}
}

// ShortHelp lists the cursor's keys.
func (k ListKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Up, k.Down} }

// FullHelp lists every key of the pane.
func (k ListKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}}
}

// listPane is what the list panes share: their rows, a cursor and window
// over them (scroller) and the keys that move it, as bubbles' list and
// table keep items, cursor and KeyMap together. A pane embeds one for its
// row type, and keeps only what its rows mean: its Selected (a row, or
// its id) and Update (its own type) are one line over select and
// handleKey; Len comes with it.
type listPane[T any] struct {
	rows []T
	sc   scroller
	keys ListKeyMap
}

// newListPane returns an empty list moved by km's list keys.
func newListPane[T any](km KeyMap) listPane[T] { return listPane[T]{keys: km.List()} }

// Len returns the number of rows.
func (l listPane[T]) Len() int { return len(l.rows) }

// setRows replaces the rows. The row under the cursor stays under it when
// same finds it among the new rows (at the same index first).
func (l *listPane[T]) setRows(rows []T, same func(a, b T) bool) {
	cur, had := l.selected()
	i := l.sc.Cursor()
	l.replace(rows)
	if !had || i < len(rows) && same(rows[i], cur) {
		return
	}
	for j := range rows {
		if same(rows[j], cur) {
			l.sc.SetCursor(j)
			return
		}
	}
}

// replace replaces the rows and only keeps the cursor in range: for a
// pane whose selection follows a rule of its own (members by id, the
// timeline its newest event), which then puts the cursor with setCursor.
func (l *listPane[T]) replace(rows []T) {
	l.rows = rows
	l.sc.SetLen(len(rows))
}

// setCursor puts the cursor on row i.
func (l *listPane[T]) setCursor(i int) { l.sc.SetCursor(i) }

// cursor returns the index of the row under the cursor, -1 when there are
// no rows.
func (l listPane[T]) cursor() int { return l.sc.Cursor() }

// selected returns the row under the cursor.
func (l listPane[T]) selected() (T, bool) {
	i := l.sc.Cursor()
	if i < 0 || i >= len(l.rows) {
		var zero T
		return zero, false
	}
	return l.rows[i], true
}

// setHeight sets how many rows the window shows.
func (l *listPane[T]) setHeight(h int) { l.sc.SetHeight(max(h, 0)) }

// window returns the first visible row's index and the visible rows.
func (l listPane[T]) window() (start int, visible []T) {
	start, end := l.sc.Window()
	return start, l.rows[start:end]
}

// isCursor reports whether row i of the list is under the cursor.
func (l listPane[T]) isCursor(i int) bool { return i == l.sc.Cursor() }

// handleKey moves the cursor for a list key and reports whether msg was
// one.
func (l *listPane[T]) handleKey(msg tea.Msg) bool {
	k, ok := msg.(tea.KeyPressMsg)
	return ok && l.sc.handleListKey(k, l.keys)
}
