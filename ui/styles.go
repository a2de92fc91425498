package ui

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
	"github.com/kgwatch/kgwatch/model"
)

// Glyphs carry meaning that colour only repeats: every state, level and
// marker has a character or word, so NO_COLOR and monochrome terminals lose
// nothing.
const (
	glyphBarFull   = "█"
	glyphBarTrack  = "░"
	glyphWorst     = "◀"
	glyphCursor    = "▸"
	glyphFocused   = "■"
	glyphUnfocused = "□"
	glyphStable    = "●"
	glyphEmpty     = "○"
	glyphRebalance = "◐"
	glyphWaiting   = "◌"
	glyphStale     = "⚠"
	// glyphUnanswered marks data a poll in flight leaves old, as the
	// poll_unanswered event's glyph does.
	glyphUnanswered = "⋯"
	glyphError      = "!"
	glyphRecording  = "●"
	glyphFromStart  = "*"
	ellipsis        = "…"
)

// Styles holds every style the UI renders with. It is built once by
// NewStyles and passed down by value; View code never creates styles.
type Styles struct {
	NoColor bool

	App lipgloss.Style // frame around the whole screen

	Title        lipgloss.Style // "kgwatch"
	Group        lipgloss.Style // group id in the header
	Label        lipgloss.Style // "lag", "brokers" ...
	Value        lipgloss.Style
	Muted        lipgloss.Style
	Separator    lipgloss.Style
	StateOK      lipgloss.Style // Stable
	StateWarn    lipgloss.Style // rebalancing, Empty
	StateBad     lipgloss.Style // does not exist
	Banner       lipgloss.Style // connection lost / stale data
	PaneTitle    lipgloss.Style // focused pane title
	PaneTitleOff lipgloss.Style // unfocused pane title
	ColHeader    lipgloss.Style
	Selected     lipgloss.Style // cursor row in the focused pane
	Owner        lipgloss.Style
	Unowned      lipgloss.Style
	LagNone      lipgloss.Style // lag bar track / zero lag
	LagLow       lipgloss.Style
	LagMid       lipgloss.Style
	LagHigh      lipgloss.Style
	Worst        lipgloss.Style // worst-partition marker
	Err          lipgloss.Style // per-partition error
	Placeholder  lipgloss.Style // centred body messages

	Help help.Styles

	// Paints of the styles the table draws on every visible row.
	lagNone, lagLow, lagMid, lagHigh paint
	worst, err, unowned              paint
	stateOK, stateWarn, stateBad     paint
	// statuses paints each partition status (statusPaint).
	statuses map[model.Status]paint
}

// paint is a style reduced to the escape sequences around its text. Rows
// are styled with it instead of Style.Render, which costs microseconds a
// call; it is only valid for single-line text without tabs.
type paint struct{ pre, post string }

func newPaint(st lipgloss.Style) paint {
	r := st.Render("x")
	i := strings.Index(r, "x")
	if i < 0 {
		return paint{}
	}
	return paint{pre: r[:i], post: r[i+1:]}
}

// Render styles s.
func (p paint) Render(s string) string {
	if p.pre == "" && p.post == "" {
		return s
	}
	return p.pre + s + p.post
}

// NewStyles builds the style set. With noColor every style is monochrome:
// only bold, faint and reverse remain, and glyphs carry the meaning.
func NewStyles(noColor bool) Styles {
	fg := func(s lipgloss.Style, c color.Color) lipgloss.Style {
		if noColor {
			return s
		}
		return s.Foreground(c)
	}
	base := lipgloss.NewStyle()
	s := Styles{NoColor: noColor}
	s.App = base
	s.Title = fg(base.Bold(true), lipgloss.Magenta)
	s.Group = base.Bold(true)
	s.Label = fg(base, lipgloss.BrightBlack)
	s.Value = base
	s.Muted = fg(base, lipgloss.BrightBlack)
	if noColor {
		s.Muted = base.Faint(true)
		s.Label = base
	}
	s.Separator = s.Muted
	s.StateOK = fg(base.Bold(true), lipgloss.Green)
	s.StateWarn = fg(base.Bold(true), lipgloss.Yellow)
	s.StateBad = fg(base.Bold(true), lipgloss.Red)
	s.Banner = fg(base.Bold(true), lipgloss.Yellow)
	if noColor {
		s.Banner = base.Bold(true).Reverse(true)
	}
	s.PaneTitle = fg(base.Bold(true), lipgloss.Cyan)
	s.PaneTitleOff = s.Muted
	s.ColHeader = fg(base.Bold(true), lipgloss.BrightBlack)
	if noColor {
		s.ColHeader = base.Bold(true)
	}
	s.Selected = base.Reverse(true)
	s.Owner = base
	s.Unowned = s.Muted
	s.LagNone = fg(base, lipgloss.BrightBlack)
	if noColor {
		s.LagNone = base
	}
	s.LagLow = fg(base, lipgloss.Green)
	s.LagMid = fg(base, lipgloss.Yellow)
	s.LagHigh = fg(base, lipgloss.Red)
	s.Worst = fg(base.Bold(true), lipgloss.Red)
	if noColor {
		s.Worst = base.Bold(true)
	}
	s.Err = fg(base, lipgloss.Red)
	s.Placeholder = s.Muted

	s.Help = help.Styles{
		Ellipsis:       s.Muted,
		ShortKey:       fg(base, lipgloss.Cyan),
		ShortDesc:      s.Muted,
		ShortSeparator: s.Muted,
		FullKey:        fg(base, lipgloss.Cyan),
		FullDesc:       s.Muted,
		FullSeparator:  s.Muted,
	}
	if noColor {
		s.Help.ShortKey = base.Bold(true)
		s.Help.FullKey = base.Bold(true)
		s.Help.ShortDesc = base
		s.Help.FullDesc = base
	}
	s.lagNone, s.lagLow, s.lagMid, s.lagHigh = newPaint(s.LagNone), newPaint(s.LagLow), newPaint(s.LagMid), newPaint(s.LagHigh)
	s.worst, s.err, s.unowned = newPaint(s.Worst), newPaint(s.Err), newPaint(s.Unowned)
	s.stateOK, s.stateWarn, s.stateBad = newPaint(s.StateOK), newPaint(s.StateWarn), newPaint(s.StateBad)
	// The statuses by severity: OK green, LAGGING and UNOWNED yellow,
	// STALLED and STOPPED red, REWOUND magenta. Colour only repeats what
	// the glyph and the word say.
	status := func(c color.Color, bold bool) paint { return newPaint(fg(base.Bold(bold), c)) }
	s.statuses = map[model.Status]paint{
		model.StatusOK:      status(lipgloss.Green, false),
		model.StatusLagging: status(lipgloss.Yellow, false),
		model.StatusUnowned: status(lipgloss.Yellow, false),
		model.StatusStalled: status(lipgloss.Red, true),
		model.StatusRewound: status(lipgloss.Magenta, true),
		model.StatusStopped: status(lipgloss.Red, true),
	}
	return s
}
