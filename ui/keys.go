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
		Up: key.NewBinding(
			key.WithKeys("up", "k"),
			key.WithHelp("↑/k", "up"),
		),
		Down: key.NewBinding(
			key.WithKeys("down", "j"),
			key.WithHelp("↓/j", "down"),
		),
		PageUp: key.NewBinding(
			key.WithKeys("pgup", "ctrl+b"),
			key.WithHelp("pgup", "page up"),
		),
		PageDown: key.NewBinding(
			key.WithKeys("pgdown", "ctrl+f", "space"),
			key.WithHelp("pgdn", "page down"),
		),
		Home: key.NewBinding(
			key.WithKeys("home", "g"),
			key.WithHelp("home/g", "top"),
		),
		End: key.NewBinding(
			key.WithKeys("end", "G"),
			key.WithHelp("end/G", "bottom"),
		),
		NextPane: key.NewBinding(
			key.WithKeys("tab"),
			key.WithHelp("tab", "switch pane"),
		),
		PrevPane: key.NewBinding(
			key.WithKeys("shift+tab"),
			key.WithHelp("shift+tab", "previous pane"),
		),
		Sort: key.NewBinding(
			key.WithKeys("o"),
			key.WithHelp("o", "sort"),
		),
		Filter: key.NewBinding(
			key.WithKeys("/"),
			key.WithHelp("/", "filter"),
		),
		OnlyLag: key.NewBinding(
			key.WithKeys("l"),
			key.WithHelp("l", "only lag"),
		),
		ClearFilter: key.NewBinding(
			key.WithKeys("esc"),
			key.WithHelp("esc", "clear filter"),
			key.WithDisabled(), // until a filter is applied
		),
		Lanes: key.NewBinding(
			key.WithKeys("v"),
			key.WithHelp("v", "lanes"),
		),
		ZoomIn: key.NewBinding(
			key.WithKeys("+", "="),
			key.WithHelp("+/-", "zoom lanes"),
			key.WithDisabled(), // until the lanes show
		),
		ZoomOut: key.NewBinding(
			key.WithKeys("-", "_"),
			key.WithHelp("-", "zoom out"),
			key.WithDisabled(),
		),
		Help: key.NewBinding(
			key.WithKeys("?"),
			key.WithHelp("?", "help"),
		),
		CloseHelp: key.NewBinding(
			key.WithKeys("?", "esc"),
			key.WithHelp("?/esc", "close help"),
		),
		Quit: key.NewBinding(
			key.WithKeys("q", "ctrl+c"),
			key.WithHelp("q", "quit"),
		),
		Open: key.NewBinding(
			key.WithKeys("enter"),
			key.WithHelp("enter", "watch group"),
			key.WithDisabled(),
		),
		Back: key.NewBinding(
			key.WithKeys("esc", "backspace"),
			key.WithHelp("esc/⌫", "all groups"),
			key.WithDisabled(),
		),
	}
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
