package ui

import (
	"fmt"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyView is one place a user presses keys in: how to get there from a
// fresh app, and the keys its help offers.
type keyView struct {
	name  string
	build func(t *testing.T) *App
	keys  func(a *App) []key.Binding
}

func helpKeys(groups [][]key.Binding) []key.Binding {
	var out []key.Binding
	for _, g := range groups {
		for _, b := range g {
			if b.Enabled() {
				out = append(out, b)
			}
		}
	}
	return out
}

func groupKeys(a *App) []key.Binding {
	return helpKeys(a.group.keys.FullHelp(a.group.demo.bindings(false)))
}

// tabTo focuses pane p of the group page.
func tabTo(a *App, p pane) {
	for range numPanes {
		if a.group.focus == p {
			return
		}
		a.Update(keyPress("tab"))
	}
}

// keyViews are the group page's panes and views, in and out of demo mode,
// a filter applied, and the overview.
func keyViews() []keyView {
	group := func(demo bool, setup func(a *App)) func(t *testing.T) *App {
		return func(t *testing.T) *App {
			a := stableApp(t, demo, 120, 40)
			setup(a)
			return a
		}
	}
	return []keyView{
		{"table", group(false, func(*App) {}), groupKeys},
		{"members", group(false, func(a *App) { tabTo(a, paneMembers) }), groupKeys},
		{"timeline", group(false, func(a *App) { tabTo(a, paneTimeline) }), groupKeys},
		{"lanes", group(false, func(a *App) { a.Update(keyPress("v")) }), groupKeys},
		{"filtered", group(false, func(a *App) {
			for _, k := range []string{"/", "p", "a", "y", "enter"} {
				a.Update(keyPress(k))
			}
		}), groupKeys},
		{"demo table", group(true, func(*App) {}), groupKeys},
		{"demo members", group(true, func(a *App) { tabTo(a, paneMembers) }), groupKeys},
		{"overview", func(t *testing.T) *App {
			a, _ := overviewApp(t, &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, &watched{}, 120, 40)
			return a
		}, func(a *App) []key.Binding { return helpKeys(a.overview.keys.OverviewFullHelp()) }},
	}
}

// pressKey sends the first key of b as a terminal would, runs what it
// asks of the demo (an action and its answer), and reports whether it
// quit.
func pressKey(t *testing.T, a *App, b key.Binding) (quit bool) {
	k := b.Keys()[0]
	msg := keyPress(k)
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		msg = tea.KeyPressMsg{Code: tea.KeyEscape}
	case "backspace":
		msg = tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	_, cmd := a.Update(msg)
	if cmd == nil {
		return false
	}
	switch m := cmd().(type) {
	case tea.QuitMsg:
		return true
	case demoActionMsg:
		a.Update(m)
	}
	return false
}

// Every key the help offers, in every pane and view, does something the
// user sees (or quits), from the top of a list or from its bottom: none
// is offered that does nothing.
func TestEveryKeyInHelpAnswers(t *testing.T) {
	for _, v := range keyViews() {
		keys := v.keys(v.build(t))
		if len(keys) < 5 {
			t.Fatalf("%s: only %d keys in help: the test reads the wrong help", v.name, len(keys))
		}
		for _, b := range keys {
			t.Run(fmt.Sprintf("%s/%s", v.name, b.Help().Key), func(t *testing.T) {
				answered := false
				for _, start := range []string{"home", "end"} {
					a := v.build(t)
					if start == "end" {
						a.Update(keyPress(start))
					}
					if a.overview != nil && a.group == nil {
						a.Update(keyPress("j")) // off the first row, so up and home move
					}
					before := plain(a)
					if pressKey(t, a, b) || plain(a) != before {
						answered = true
						break
					}
				}
				if !answered {
					t.Errorf("%s: %q (%s) changes nothing on screen", v.name, b.Help().Key, b.Help().Desc)
				}
			})
		}
	}
}

// A key that cannot act where it is pressed says why instead of doing
// nothing: sort, filter and only-lag in the lanes.
func TestKeysOffInAViewSayWhy(t *testing.T) {
	for _, k := range []string{"o", "/", "l"} {
		a := stableApp(t, false, 120, 40)
		a.Update(keyPress("v"))
		before := plain(a)
		a.Update(keyPress(k))
		if after := plain(a); after == before {
			t.Errorf("%s in the lanes: nothing on screen", k)
		}
	}
}
