package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kgwatch/kgwatch/model"
)

// OverviewPage shows every group of the cluster in one pane, polled from
// its source and judged by one model.OverviewPipeline; enter asks the root
// to open the selected group.
type OverviewPage struct {
	opts      Options
	keys      KeyMap
	styles    Styles
	pageFrame // size and help: SetSize, SetFullHelp
	ctx       context.Context
	poll      *poller[model.OverviewObservation]
	pipe      *model.OverviewPipeline
	src       OverviewSource
	pane      GroupsPane

	groups []model.GroupSummary // as the pipeline judged the last good poll
	has    bool                 // a poll succeeded
	paused bool                 // a group page shows: no polling
	// The view of the groups: sort (o; from model.DefaultGroupSort, the
	// group in trouble first), filter (/: id, state, status or type), only with
	// lag (l).
	sort    model.GroupSortKey
	onlyLag bool
	filter  textFilter

	headerText   string
	helpText     string
	bodyW, bodyH int
}

// overviewFetchesPerSecond bounds the overview's polling of brokers too
// old to read many groups' commits in one OffsetFetch (before v8): each
// group costs a request there, so a cluster of many groups is polled more
// slowly rather than harder.
const overviewFetchesPerSecond = 100

// OverviewPollDelay is the overview's next poll delay: as a group's
// (model.NextPollDelay); when the commits were not read batched, the
// interval is never shorter than one OffsetFetch per group at
// overviewFetchesPerSecond, and the retries after failures are capped at
// that interval too, so they poll no harder than a healthy overview does.
func OverviewPollDelay(base time.Duration, groups, failures int, took time.Duration, batched bool) time.Duration {
	if !batched {
		base = max(base, time.Duration(groups)*time.Second/overviewFetchesPerSecond)
	}
	return model.NextPollDelay(model.Group{}, base, failures, took)
}

func newOverviewPage(ctx context.Context, src OverviewSource, opts Options, st Styles, canOpen bool) *OverviewPage {
	km := DefaultKeyMap()
	km.Open.SetEnabled(canOpen)
	h := help.New()
	h.Styles = st.Help
	o := &OverviewPage{opts: opts, keys: km, styles: st, pane: NewGroupsPane(st, km), ctx: ctx, src: src, sort: model.DefaultGroupSort}
	o.pageFrame = pageFrame{help: h, layout: o.relayout}
	o.start()
	return o
}

// start makes the page's poller and pipeline anew: no poll yet.
func (o *OverviewPage) start() {
	o.poll = newPoller(o.ctx, o.opts.Timeout, o.src.Overview)
	o.pipe = model.NewOverviewPipeline(model.OverviewPipelineOptions{History: o.opts.History()})
	o.groups, o.has = nil, false
}

// Init starts the poll loop.
func (o *OverviewPage) Init() tea.Cmd { return o.poll.now(o.opts.Now()) }

// Title is the window title.
func (o *OverviewPage) Title() string { return "kgwatch · all groups" }

// Pause stops polling while a group page shows; pollNow resumes.
func (o *OverviewPage) Pause() {
	o.paused = true
	o.poll.seq++ // the pending tick or answer is now stale
	o.poll.polling = false
}

// pollNow polls at once (back from a group).
func (o *OverviewPage) pollNow() tea.Cmd {
	o.paused = false
	return o.poll.now(o.opts.Now())
}

// restart forgets every poll, as a page just opened, keeping the view
// (sort, filter, only lag, the cursor): a replay going back plays its
// records again from the start.
func (o *OverviewPage) restart() {
	o.start()
	o.pane.SetStale(false)
	o.refresh()
}

// pollSync polls the source at once, on the caller's goroutine, and takes
// its answer as a live poll's: a replay feeds its records so, its clock
// at each. It returns the groups shown after; the next poll is left to
// the caller.
func (o *OverviewPage) pollSync() []model.GroupSummary {
	o.Update(o.poll.sync(o.opts.Now()))
	return o.groups
}

// Update handles one message; messages of other pages are ignored.
func (o *OverviewPage) Update(msg tea.Msg) tea.Cmd {
	now := o.opts.Now()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		cmd = o.handleKey(msg)
	case tea.PasteMsg:
		if took, _ := o.filter.typed(msg); !took {
			return nil
		}
	case pollResultMsg[model.OverviewObservation]:
		obs, err, took, ok := o.poll.result(msg, now)
		if !ok {
			return nil
		}
		if err == nil {
			o.groups, o.has = o.pipe.Observe(&obs), true
			o.refresh()
		}
		o.pane.SetStale(err != nil && o.has)
		if !o.paused {
			cmd = o.poll.schedule(now, OverviewPollDelay(o.opts.Interval, len(o.groups), o.poll.Failures, took, o.src.Batched()))
		}
	case pollTickMsg[model.OverviewObservation]:
		if o.paused {
			return nil
		}
		if o.poll.starts(msg) && o.poll.Err == nil {
			// A poll starting after a good one shows nothing new: no
			// relayout, so the frame (its header's age too) is the last
			// one, not painted again; a retry shows (GroupPage.Update).
			return o.poll.tick(msg, now)
		}
		cmd = o.poll.tick(msg, now)
	case pollClockMsg[model.OverviewObservation]:
		var ok bool
		if cmd, ok = o.poll.clockTick(msg); !ok {
			return nil
		}
	default:
		return nil
	}
	o.relayout()
	return cmd
}

func (o *OverviewPage) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if took, changed := o.filter.typed(msg); took {
		if changed {
			o.refresh()
		}
		return nil
	}
	switch {
	case key.Matches(msg, o.keys.Sort):
		o.sort = o.sort.Next()
	case key.Matches(msg, o.keys.Filter):
		o.filter.open()
	case key.Matches(msg, o.keys.OnlyLag):
		o.onlyLag = !o.onlyLag
	case key.Matches(msg, o.keys.ClearFilter) && o.filter.query != "":
		o.filter.query = ""
	default:
		o.pane, _ = o.pane.Update(msg)
		return nil
	}
	o.refresh()
	return nil
}

// Capturing reports whether keys go to the filter being typed.
func (o *OverviewPage) Capturing() bool { return o.filter.editing }

// refresh hands the pane the groups as the view shows them: in the
// default view (the pipeline's order, nothing filtered) the pipeline's
// slice itself, which nothing writes to, not a sorted copy of 5,000 rows a
// poll.
func (o *OverviewPage) refresh() {
	var rows []model.GroupSummary
	if o.sort == model.GroupsByStatus && o.filter.query == "" && !o.onlyLag && sortedByStatus(o.groups) {
		rows = o.groups
	} else {
		rows = model.ViewGroups(o.groups, o.sort, o.filter.query, o.onlyLag)
	}
	desc := "sort: " + o.sort.String()
	if o.filter.query != "" {
		desc += " · filter \"" + model.Printable(o.filter.query) + "\""
	}
	if o.onlyLag {
		desc += " · only lag"
	}
	empty := ""
	switch {
	case len(rows) > 0 || len(o.groups) == 0:
	case o.filter.query != "" && o.onlyLag:
		empty = "no group with lag matches \"" + model.Printable(o.filter.query) + "\" (esc clears the filter, l shows all)"
	case o.filter.query != "":
		empty = "no group matches \"" + model.Printable(o.filter.query) + "\" (esc clears the filter)"
	case o.onlyLag:
		empty = "no group has lag (l shows all " + model.Count(len(o.groups), "group") + ")"
	}
	o.pane.SetRows(rows)
	o.pane.SetView(desc, empty, len(o.groups))
	o.keys.ClearFilter.SetEnabled(o.filter.query != "")
}

// sortedByStatus reports whether gs is in model.GroupsByStatus order, as
// OverviewPipeline.Observe gives it (a recording's judged groups were
// sorted when judged, perhaps by an older order: those are checked, one
// comparison a row, rather than trusted).
func sortedByStatus(gs []model.GroupSummary) bool {
	for i := 1; i < len(gs); i++ {
		if model.GroupWorse(&gs[i], &gs[i-1]) {
			return false
		}
	}
	return true
}

// Selected returns the id of the group under the cursor.
func (o *OverviewPage) Selected() (string, bool) { return o.pane.Selected() }

// relayout sizes the pane between the header and the help.
func (o *OverviewPage) relayout() {
	w, h := o.width, o.height
	o.headerText = o.header(w)
	headH := blockHeight(o.headerText)
	o.helpText = ""
	if h-headH >= 4 {
		if o.help.ShowAll {
			o.help.SetWidth(w)
			o.helpText = o.help.FullHelpView(o.keys.OverviewFullHelp())
			if lipgloss.Height(o.helpText) > h-headH-3 {
				o.helpText = ""
			}
		}
		if o.helpText == "" {
			o.helpText = o.shortHelp(w)
		}
	}
	if f := o.filter.line(w, o.styles, "group id, state, status or type"); f != "" && h-headH >= 2 {
		o.helpText = f // typing goes there: it replaces the help
	}
	helpH := blockHeight(o.helpText)
	o.bodyW, o.bodyH = w, max(h-headH-helpH, 0)
	o.pane.SetSize(o.bodyW, o.bodyH)
	o.pane.SetNow(o.opts.Now())
}

// shortHelp is the one-line help: the keys, then help and quit, which are
// never cut.
func (o *OverviewPage) shortHelp(w int) string {
	var bs []key.Binding
	if o.pane.Len() > 0 { // no group to move to or open: no such keys
		bs = o.keys.OverviewShortHelp()
	}
	return shortHelpKeeping(&o.help, w, bs, o.keys.Help, o.keys.Quit)
}

// header is the summary line and, after a failed poll, a banner.
func (o *OverviewPage) header(w int) string {
	if w <= 0 {
		return ""
	}
	now := o.opts.Now()
	st, p := o.styles, o.poll
	rec := recordingNow(o.opts.Recording)
	segs := []string{st.Title.Render("kgwatch"), st.Group.Render("all groups")}
	if o.has {
		var total int64
		for _, g := range o.groups {
			total = model.AddLag(total, g.TotalLag)
		}
		segs = append(segs, st.Value.Render(model.Count(len(o.groups), "group")),
			st.Label.Render("total lag ")+st.Value.Render(model.Thousands(total)))
		segs = append(segs, dataAge(st, now, p.LastGood, p.Err != nil, o.unanswered(now)))
	}
	if rec := recordingSegment(st, rec); rec != "" {
		segs = append(segs, rec)
	}
	segs = append(segs, st.Label.Render("brokers ")+st.Value.Render(brokerList(o.opts.Brokers, w-len("brokers "))))
	line := strings.Join(segs, st.Separator.Render(" · "))
	lines := []string{truncate(line, w, ellipsis)}
	if p.Err != nil {
		msg := glyphStale + " poll failed"
		if wait := p.RetryAt.Sub(now); wait > 0 {
			msg += ", retry in " + model.Age(wait)
		}
		if p.Failures > 1 {
			msg += " (attempt " + strconv.Itoa(p.Failures+1) + ")"
		}
		msg += ": " + flatText(p.Err.Error())
		lines = append(lines, st.Banner.Render(cell(msg, w, false)))
	}
	if p.Err == nil && o.has && o.unanswered(now) {
		started, _ := p.inFlight()
		lines = append(lines, waitingBanner(st, now, started, w))
	}
	if b := recordingBanner(st, rec, w); b != "" {
		lines = append(lines, b)
	}
	return strings.Join(lines, "\n")
}

// unanswered reports whether the poll in flight leaves the groups on
// screen older than a few intervals (the group header's rule).
func (o *OverviewPage) unanswered(now time.Time) bool {
	started, polling := o.poll.inFlight()
	return polling && unanswered(now, o.poll.LastGood, started, o.opts.Interval)
}

// View renders the page.
func (o *OverviewPage) View() string {
	if o.width == 0 || o.height == 0 {
		return ""
	}
	var body string
	brokers := strings.Join(printableAll(o.opts.Brokers), ",")
	switch {
	case !o.has && o.poll.Err != nil:
		body = center("cannot reach "+brokers+" yet; retrying", o.bodyW, o.bodyH)
	case !o.has:
		body = center("connecting to "+brokers+"…", o.bodyW, o.bodyH)
	case len(o.groups) == 0:
		body = center("no consumer groups yet · polling every "+o.opts.Interval.String(), o.bodyW, o.bodyH)
	default:
		body = o.pane.View()
	}
	var b strings.Builder
	b.WriteString(o.headerText)
	if o.bodyH > 0 {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(padLines(body, o.bodyH))
	}
	if o.helpText != "" {
		b.WriteByte('\n')
		b.WriteString(o.helpText)
	}
	return b.String()
}
