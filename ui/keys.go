package ui

import "charm.land/bubbles/v2/key"

// KeyMap lists every key binding of the TUI. Bindings that do not apply are
// disabled rather than removed, so help shows only keys that work.
type KeyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Home     key.Binding
	End      key.Binding
	NextPane key.Binding
	// PrevPane is shift+tab, back through the panes; help lists tab only.
	PrevPane key.Binding
	Help     key.Binding
	// CloseHelp is how the full help lists the help key: ? or esc
	// close it (the root matches esc only while the full help shows).
	CloseHelp key.Binding
	Quit      key.Binding
	// Lanes toggles the ownership lanes in place of the table and members.
	Lanes key.Binding
	// ZoomIn and ZoomOut change the time a lane's cell stands for (the
	// lanes start fitted to what was watched).
	ZoomIn  key.Binding
	ZoomOut key.Binding

	// Sort, Filter, OnlyLag and ClearFilter change the partition table's
	// view (ui/filter.go).
	Sort        key.Binding
	Filter      key.Binding
	OnlyLag     key.Binding
	ClearFilter key.Binding

	// Open watches the group under the cursor (overview only); Back
	// returns from a group to the overview (only in a group opened from
	// it). Both are disabled elsewhere.
	Open key.Binding
	Back key.Binding
}

// DefaultKeyMap returns the standard bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:          bind("↑/k", "up", "up", "k"),
		Down:        bind("↓/j", "down", "down", "j"),
		PageUp:      bind("pgup", "page up", "pgup", "ctrl+b"),
		PageDown:    bind("pgdn", "page down", "pgdown", "ctrl+f", "space"),
		Home:        bind("home/g", "top", "home", "g"),
		End:         bind("end/G", "bottom", "end", "G"),
		NextPane:    bind("tab", "switch pane", "tab"),
		PrevPane:    bind("shift+tab", "previous pane", "shift+tab"),
		Sort:        bind("o", "sort", "o"),
		Filter:      bind("/", "filter", "/"),
		OnlyLag:     bind("l", "only lag", "l"),
		ClearFilter: disabled(bind("esc", "clear filter", "esc")), // until a filter is applied
		Lanes:       bind("v", "lanes", "v"),
		ZoomIn:      disabled(bind("+/-", "zoom lanes", "+", "=")), // until the lanes show
		ZoomOut:     disabled(bind("-", "zoom out", "-", "_")),
		Help:        bind("?", "help", "?"),
		CloseHelp:   bind("?/esc", "close help", "?", "esc"),
		Quit:        bind("q", "quit", "q", "ctrl+c"),
		Open:        disabled(bind("enter", "watch group", "enter")),
		Back:        disabled(bind("esc/⌫", "all groups", "esc", "backspace")),
	}
}

// bind returns a binding of keys that help lists as help and desc.
func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// disabled returns b disabled, for a key a page enables where it applies.
func disabled(b key.Binding) key.Binding {
	b.SetEnabled(false)
	return b
}

// ShortHelp is the group page's one-line help after the keys of demo mode
// (none outside it), without the help and quit keys: they come after it,
// where they are never cut (ui/layout.go shortHelp).
func (k KeyMap) ShortHelp(demo []key.Binding) []key.Binding {
	return append(demo, k.Back, k.Up, k.Down, k.Sort, k.Filter, k.OnlyLag, k.NextPane, k.Lanes)
}

// FullHelp is the help shown after `?`, one column per group, the keys of
// demo mode (none outside it) first, four to a column.
func (k KeyMap) FullHelp(demo []key.Binding) [][]key.Binding {
	var cols [][]key.Binding
	for i := 0; i < len(demo); i += 4 {
		cols = append(cols, demo[i:min(i+4, len(demo))])
	}
	return append(cols, [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.Home, k.End, k.NextPane, k.Lanes, k.ZoomIn},
		{k.Sort, k.Filter, k.OnlyLag, k.ClearFilter},
		{k.Back, k.CloseHelp, k.Quit},
	}...)
}

// OverviewShortHelp is the overview's one-line help, without the help and
// quit keys (as ShortHelp).
func (k KeyMap) OverviewShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Open, k.Sort, k.Filter, k.OnlyLag}
}

// OverviewFullHelp is the overview's help after `?`.
func (k KeyMap) OverviewFullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.Home, k.End, k.Open},
		{k.Sort, k.Filter, k.OnlyLag, k.ClearFilter},
		{k.CloseHelp, k.Quit},
	}
}
