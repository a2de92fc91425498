package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// OverviewSource is what the overview needs from a poller
// (kafka.OverviewWatcher satisfies it).
type OverviewSource interface {
	Overview(ctx context.Context) ([]model.GroupSummary, error)
}

// overview is the root's state when it started with no group: every group
// of the cluster in one pane, and, after enter, one group watched by a
// child App until esc brings the overview back.
type overview struct {
	src  OverviewSource
	pane GroupsPane

	seq     uint64 // overview poll loop step, as App.seq
	polling bool

	groups   []model.GroupSummary
	has      bool // a poll succeeded
	err      error
	failures int
	lastGood time.Time
	retryAt  time.Time

	// group is the child watching one group, nil on the overview; release
	// frees its source. childSeq keeps the poll sequences of successive
	// children apart, so a late answer to a closed child is dropped by the
	// next one.
	group    *App
	release  func()
	childSeq uint64
}

// overviewMsg carries the result of one overview poll.
type overviewMsg struct {
	Seq    uint64
	Groups []model.GroupSummary
	Err    error
}

// overviewTickMsg asks for the next overview poll.
type overviewTickMsg struct {
	Seq       uint64
	Remaining time.Duration
}

// NewOverview returns the root model showing every group of the cluster,
// polled from src. opts.Group is ignored; opts.WatchGroup opens one.
func NewOverview(src OverviewSource, opts Options) *App {
	opts.Group = ""
	a := New(nil, opts)
	a.keys.Open.SetEnabled(opts.WatchGroup != nil)
	a.ov = &overview{src: src, pane: NewGroupsPane(a.styles, a.keys)}
	return a
}

func (a *App) overviewInit() tea.Cmd {
	return a.overviewPollNow()
}

func (a *App) overviewPollNow() tea.Cmd {
	ov := a.ov
	if ov.polling || a.ctx.Err() != nil {
		return nil
	}
	ov.seq++
	ov.polling = true
	src, seq, timeout := ov.src, ov.seq, a.opts.Timeout
	ctx := a.ctx
	return func() tea.Msg {
		pctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		gs, err := src.Overview(pctx)
		return overviewMsg{Seq: seq, Groups: gs, Err: err}
	}
}

func overviewTick(d time.Duration, seq uint64) tea.Cmd {
	step := min(d, clockInterval)
	return tea.Tick(step, func(time.Time) tea.Msg { return overviewTickMsg{Seq: seq, Remaining: d - step} })
}

// overviewUpdate is Update in the overview: its own messages and keys are
// handled here, the rest goes to the group being watched, if any.
func (a *App) overviewUpdate(msg tea.Msg) tea.Cmd {
	ov := a.ov
	now := a.opts.Now()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height, a.ready = max(msg.Width, 0), max(msg.Height, 0), true
		if ov.group != nil {
			_, cmd = ov.group.Update(msg)
		}
	case tea.KeyPressMsg:
		cmd = a.overviewKey(msg)
	case overviewMsg:
		if msg.Seq != ov.seq {
			return nil
		}
		ov.polling = false
		if msg.Err != nil {
			ov.err = msg.Err
			ov.failures++
		} else {
			ov.err, ov.failures = nil, 0
			ov.groups, ov.has, ov.lastGood = msg.Groups, true, now
			ov.pane.SetRows(ov.groups)
		}
		ov.pane.SetStale(ov.err != nil && ov.has)
		if ov.group == nil && a.ctx.Err() == nil {
			delay := OverviewPollDelay(a.opts.Interval, len(ov.groups), ov.failures)
			ov.retryAt = now.Add(delay)
			ov.seq++
			cmd = overviewTick(delay, ov.seq)
		}
	case overviewTickMsg:
		if msg.Seq != ov.seq || ov.polling || ov.group != nil || a.ctx.Err() != nil {
			return nil
		}
		if msg.Remaining > 0 {
			cmd = overviewTick(msg.Remaining, ov.seq)
		} else {
			cmd = a.overviewPollNow()
		}
	default:
		if ov.group != nil {
			_, cmd = ov.group.Update(msg)
		}
	}
	a.overviewLayout(now)
	return cmd
}

func (a *App) overviewKey(msg tea.KeyPressMsg) tea.Cmd {
	ov := a.ov
	if g := ov.group; g != nil {
		// esc clears the group's filter first; while it is typed, every
		// key is the filter's.
		busy := g.rows.editing || (msg.String() == "esc" && g.rows.query != "")
		if !busy && key.Matches(msg, g.keys.Back) {
			a.closeGroup()
			return a.overviewPollNow()
		}
		_, cmd := g.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, a.keys.Quit):
		a.cancel()
		return tea.Quit
	case key.Matches(msg, a.keys.Help):
		a.help.ShowAll = !a.help.ShowAll
	case key.Matches(msg, a.keys.Open):
		if id, ok := ov.pane.Selected(); ok {
			return a.openGroup(id)
		}
	default:
		ov.pane, _ = ov.pane.Update(msg)
	}
	return nil
}

// openGroup switches to watching group id: a child App, the single-group
// view, polling a source made by Options.WatchGroup. The overview stops
// polling meanwhile.
func (a *App) openGroup(id string) tea.Cmd {
	ov := a.ov
	src, release := a.opts.WatchGroup(id)
	opts := a.opts
	opts.Group = id
	opts.Context = a.ctx
	opts.WatchGroup = nil
	g := New(src, opts)
	g.keys.Back.SetEnabled(true)
	ov.childSeq += 1 << 32
	g.seq = ov.childSeq
	ov.group, ov.release = g, release
	ov.seq++ // the overview's pending tick or answer is now stale
	ov.polling = false
	if a.ready {
		g.Update(tea.WindowSizeMsg{Width: a.width, Height: a.height})
	}
	return g.Init()
}

// closeGroup stops watching the open group, if any.
func (a *App) closeGroup() {
	ov := a.ov
	if ov == nil || ov.group == nil {
		return
	}
	ov.group.Close()
	if ov.release != nil {
		ov.release()
	}
	ov.group, ov.release = nil, nil
}

// overviewLayout sizes the pane between the header and the help.
func (a *App) overviewLayout(now time.Time) {
	ov := a.ov
	fw, fh := a.styles.App.GetFrameSize()
	w, h := max(a.width-fw, 0), max(a.height-fh, 0)
	a.headerText = a.overviewHeader(w, now)
	headH := 0
	if a.headerText != "" {
		headH = lipgloss.Height(a.headerText)
	}
	a.helpText = ""
	if h-headH >= 4 {
		if a.help.ShowAll {
			a.help.SetWidth(w)
			a.helpText = a.help.FullHelpView(a.keys.OverviewFullHelp())
			if lipgloss.Height(a.helpText) > h-headH-3 {
				a.helpText = ""
			}
		}
		if a.helpText == "" {
			a.helpText = a.overviewShortHelp(w)
		}
	}
	helpH := 0
	if a.helpText != "" {
		helpH = lipgloss.Height(a.helpText)
	}
	a.bodyW, a.bodyH = w, max(h-headH-helpH, 0)
	ov.pane.SetSize(a.bodyW, a.bodyH)
}

// overviewShortHelp is the one-line help: the keys, then help and quit,
// which are never cut.
func (a *App) overviewShortHelp(w int) string {
	keep := []key.Binding{a.keys.Help, a.keys.Quit}
	tail := a.help.ShortHelpView(keep)
	sep := a.help.Styles.ShortSeparator.Render(a.help.ShortSeparator)
	rest := w - lipgloss.Width(tail) - lipgloss.Width(sep)
	head := ""
	if a.ov.pane.Len() > 0 { // no group to move to or open: no such keys
		a.help.SetWidth(max(rest, 0))
		head = a.help.ShortHelpView(a.keys.OverviewShortHelp())
	}
	a.help.SetWidth(w)
	if rest <= 0 || head == "" || lipgloss.Width(head) > rest {
		return ansi.Truncate(tail, w, ellipsis)
	}
	return head + sep + tail
}

// overviewHeader is the summary line and, after a failed poll, a banner.
func (a *App) overviewHeader(w int, now time.Time) string {
	if w <= 0 {
		return ""
	}
	ov, st := a.ov, a.styles
	segs := []string{st.Title.Render("kgwatch"), st.Group.Render("all groups")}
	if ov.has {
		var total int64
		for _, g := range ov.groups {
			total += g.TotalLag
		}
		segs = append(segs, st.Value.Render(model.Count(len(ov.groups), "group")),
			st.Label.Render("total lag ")+st.Value.Render(model.Thousands(total)))
		age := ageText(now.Sub(ov.lastGood))
		if ov.err != nil {
			segs = append(segs, st.Banner.Render(glyphStale+" stale "+age))
		} else {
			segs = append(segs, st.Label.Render("updated ")+st.Value.Render(age+" ago"))
		}
	}
	segs = append(segs, st.Label.Render("brokers ")+st.Value.Render(brokerList(a.opts.Brokers, w-len("brokers "))))
	line := strings.Join(segs, st.Separator.Render(" · "))
	lines := []string{ansi.Truncate(line, w, ellipsis)}
	if ov.err != nil {
		msg := glyphStale + " poll failed"
		if wait := ov.retryAt.Sub(now); wait > 0 {
			msg += ", retry in " + ageText(wait)
		}
		if ov.failures > 1 {
			msg += " (attempt " + strconv.Itoa(ov.failures+1) + ")"
		}
		msg += ": " + oneLine(ov.err.Error())
		lines = append(lines, st.Banner.Render(cell(msg, w, false)))
	}
	return strings.Join(lines, "\n")
}

// overviewView renders the overview, or the group opened from it.
func (a *App) overviewView() tea.View {
	ov := a.ov
	if ov.group != nil {
		return ov.group.View()
	}
	v := tea.NewView(a.overviewRender())
	v.AltScreen = true
	v.WindowTitle = "kgwatch · all groups"
	return v
}

func (a *App) overviewRender() string {
	if !a.ready {
		return "kgwatch: starting…"
	}
	ov := a.ov
	fw, fh := a.styles.App.GetFrameSize()
	w, h := max(a.width-fw, 0), max(a.height-fh, 0)
	if w == 0 || h == 0 {
		return ""
	}
	var body string
	brokers := strings.Join(printableAll(a.opts.Brokers), ",")
	switch {
	case !ov.has && ov.err != nil:
		body = center("cannot reach "+brokers+" yet; retrying", a.bodyW, a.bodyH)
	case !ov.has:
		body = center("connecting to "+brokers+"…", a.bodyW, a.bodyH)
	case len(ov.groups) == 0:
		body = center("no consumer groups yet · polling every "+a.opts.Interval.String(), a.bodyW, a.bodyH)
	default:
		body = ov.pane.View()
	}
	var b strings.Builder
	b.WriteString(a.headerText)
	if a.bodyH > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(padLines(body, a.bodyH))
	}
	if a.helpText != "" {
		b.WriteByte('\n')
		b.WriteString(a.helpText)
	}
	return a.styles.App.Render(fitBlock(b.String(), w, h))
}
