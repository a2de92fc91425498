package ui

import "charm.land/bubbles/v2/help"

// pageFrame is what the overview and the group page keep of the root's
// state alike: the size the root gives them and their help, one line or
// full (`?`). Both lay themselves out anew when either changes: layout is
// the page's relayout.
type pageFrame struct {
	width, height int
	help          help.Model
	layout        func()
}

// SetSize sizes the page.
func (f *pageFrame) SetSize(w, h int) {
	f.width, f.height = max(w, 0), max(h, 0)
	f.layout()
}

// SetFullHelp shows the full help (`?`) or the one-line help.
func (f *pageFrame) SetFullHelp(on bool) {
	f.help.ShowAll = on
	f.layout()
}
