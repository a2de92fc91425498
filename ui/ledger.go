package ui

import (
	"slices"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// LedgerPane shows demo mode's exact ledger (produced, processed,
// duplicates, lost, commit failures, in flight), the producer's state, the
// commit mode, and the last action's message. It takes one to three lines:
// counts; producer and commit mode; the message (before any, the member
// the keys act on). With two lines the producer's gives way; with one the
// message takes the place of the counts while it shows.
type LedgerPane struct {
	styles   Styles
	width    int
	lines    int
	st       model.DemoStatus
	has      bool
	settings DemoSettings
	flash    string
	flashErr bool
	hint     string
	// perGroup: compare mode, where each group has a ledger of its own on
	// its line; this pane says what is common (produced).
	perGroup bool
}

// NewLedgerPane returns an empty ledger pane.
func NewLedgerPane(st Styles) LedgerPane { return LedgerPane{styles: st} }

// SetSize sets the width and the number of lines (0 hides the pane).
func (p *LedgerPane) SetSize(w, lines int) {
	p.width, p.lines = max(w, 0), min(max(lines, 0), 3)
}

// SetState replaces what the pane shows.
func (p *LedgerPane) SetState(st model.DemoStatus, has bool, set DemoSettings, flash string, flashErr bool, hint string) {
	p.st, p.has, p.settings, p.flash, p.flashErr, p.hint = st, has, set, flash, flashErr, hint
}

// Height is the number of lines View renders.
func (p LedgerPane) Height() int {
	if p.width <= 0 {
		return 0
	}
	return p.lines
}

// View renders the pane.
func (p LedgerPane) View() string {
	if p.width <= 0 || p.lines <= 0 {
		return ""
	}
	counts, producer, flash := p.countsLine(), p.producerLine(), p.flashLine()
	var lines []string
	switch p.lines {
	case 3:
		lines = []string{counts, producer, flash}
	case 2:
		lines = []string{counts, flash}
	default:
		if p.flash != "" {
			lines = []string{flash}
		} else {
			lines = []string{counts}
		}
	}
	for i, l := range lines {
		lines[i] = cell(l, p.width, false)
	}
	return strings.Join(lines, "\n")
}

// countsLine is "■ Ledger  produced 1,234 · processed 1,230 · …", in
// shorter words when the full ones do not fit.
func (p LedgerPane) countsLine() string {
	st := p.styles
	title := st.PaneTitle.Render("◆ Ledger")
	if !p.has || !p.st.HasLedger {
		return title + " " + st.Muted.Render("reading the demo…")
	}
	l := p.st.Ledger
	if p.perGroup {
		return title + "  " + st.Label.Render("produced ") + st.Value.Render(model.Thousands(l.Produced)) +
			st.Muted.Render(" · each group's processed, duplicates and lost are on its line")
	}
	type item struct {
		long, medium, short string
		n                   int64
		bad                 bool // a nonzero count is a problem worth a glyph
		glyph               string
		warn                bool // warning rather than failure colour
	}
	items := []item{
		{"produced", "produced", "prod", l.Produced, false, "", false},
		{"processed", "processed", "done", l.Processed, false, "", false},
		{"duplicates", "dup", "dup", l.Duplicates, true, glyphStale, true},
		{"lost", "lost", "lost", l.Lost, true, glyphKilled, false},
		{"commit failures", "commit fail", "cfail", l.CommitFailures, true, glyphStale, true},
		{"in flight", "in flight", "wip", l.InFlight, false, "", false},
	}
	if l.Outside > 0 {
		// Committed past by a member the demo did not start: processed
		// outside the demo, not lost.
		items = slices.Insert(items, 2, item{"outside the demo", "outside", "outside", l.Outside, false, "", false})
	}
	render := func(size int) string {
		parts := make([]string, len(items))
		for i, it := range items {
			word := [...]string{it.long, it.medium, it.short}[size]
			n := model.Thousands(it.n)
			switch {
			case it.bad && it.n > 0 && it.warn:
				parts[i] = st.StateWarn.Render(it.glyph + " " + word + " " + n)
			case it.bad && it.n > 0:
				parts[i] = st.StateBad.Render(it.glyph + " " + word + " " + n)
			default:
				parts[i] = st.Label.Render(word+" ") + st.Value.Render(n)
			}
		}
		return strings.Join(parts, st.Separator.Render(" · "))
	}
	// Longest words first, then without the title, then shorter words.
	var line string
	for _, size := range []int{0, 1, 2} {
		counts := render(size)
		for _, l := range []string{title + "  " + counts, counts} {
			if line = l; textWidth(l) <= p.width {
				return line
			}
		}
	}
	return line
}

// producerLine is the producer's state and the commit mode.
func (p LedgerPane) producerLine() string {
	st := p.styles
	set := p.settings
	var segs []string
	switch {
	case !p.has:
		segs = append(segs, st.Label.Render("producer ")+st.Muted.Render("…"))
	case p.st.Paused:
		segs = append(segs, st.StateWarn.Render("‖ producer paused")+st.Muted.Render(" (rate "+producerRate(p.st.Rate)+")"))
	case p.st.Rate == 0:
		segs = append(segs, st.StateWarn.Render("‖ producer at 0/s"))
	default:
		segs = append(segs, st.StateOK.Render("▶ producer "+producerRate(p.st.Rate)))
	}
	if set.BrokerHeartbeat > 0 {
		segs = append(segs, p.brokerTimeouts(p.width-textWidth(segs[0])-3))
	}
	segs = append(segs, p.playSegments()...)
	if p.has && p.st.HotKey {
		segs = append(segs, st.StateWarn.Render("hot key ON")+st.Muted.Render(": most orders → one partition"))
	} else if p.has {
		segs = append(segs, st.Label.Render("hot key ")+st.Value.Render("off"))
	}
	commit := "commit after processing (at-least-once)"
	if set.Commit == "before" {
		commit = "commit before processing (at-most-once)"
	}
	if set.CommitDelay > 0 {
		commit += " · commit delay " + model.Setting(set.CommitDelay)
	}
	segs = append(segs, st.Value.Render(commit))
	if set.SessionTimeout > 0 && set.BrokerHeartbeat == 0 {
		segs = append(segs, st.Label.Render("session timeout ")+st.Value.Render(model.Setting(set.SessionTimeout)))
	}
	if set.MaxPollInterval > 0 {
		segs = append(segs, st.Label.Render("max.poll.interval ")+st.Value.Render(model.Setting(set.MaxPollInterval)))
	}
	return joinFitting(segs, st.Separator.Render(" · "), p.width)
}

// brokerTimeouts says, in at most w cells if it can, that a
// consumer-protocol group's session timeout and heartbeat interval are the
// broker's: its consumers send neither.
func (p LedgerPane) brokerTimeouts(w int) string {
	st, set := p.styles, p.settings
	session, hb := model.Setting(set.SessionTimeout), model.Setting(set.BrokerHeartbeat)
	long := st.Label.Render("on the broker: ") +
		st.Label.Render("group.consumer.session.timeout.ms ") + st.Value.Render(session) + st.Separator.Render(" · ") +
		st.Label.Render("group.consumer.heartbeat.interval.ms ") + st.Value.Render(hb)
	short := st.Label.Render("broker: session timeout ") + st.Value.Render(session) +
		st.Label.Render(" · heartbeat ") + st.Value.Render(hb)
	for _, s := range []string{long, short + st.Muted.Render(" (group.consumer.*)")} {
		if textWidth(s) <= w {
			return s
		}
	}
	return short
}

// flashLine is the last action's message, or a hint while there is none.
func (p LedgerPane) flashLine() string {
	st := p.styles
	switch {
	case p.flash == "":
		return st.Muted.Render("  " + flatText(p.hint))
	case p.flashErr:
		return st.Err.Render(glyphError + " " + flatText(p.flash))
	default:
		return st.StateOK.Render("» ") + st.Value.Render(flatText(p.flash))
	}
}

// joinFitting joins the segments that fit in w, in order, dropping the
// rest from the end.
func joinFitting(segs []string, sep string, w int) string {
	s, _ := fitting(segs, sep, w)
	return s
}

// fitting is joinFitting, also returning how many segments it took (the
// first always, cut to w by the caller if it must be).
func fitting(segs []string, sep string, w int) (string, int) { return fitSegments(segs, sep, w, -1, 0) }

// fitSegments is fitting with gapW cells kept free before segment gap
// (none when gap < 0).
func fitSegments(segs []string, sep string, w, gap, gapW int) (string, int) {
	var b strings.Builder
	used, n := 0, 0
	for i, s := range segs {
		if i == gap {
			used += gapW
		}
		sw := textWidth(s)
		if i > 0 {
			sw += textWidth(sep)
		}
		if i > 0 && used+sw > w {
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s)
		used += sw
		n++
	}
	return b.String(), n
}
