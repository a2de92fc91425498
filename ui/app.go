// Package ui is kgwatch's terminal interface: a thin Bubble Tea root model
// showing one page at a time, the overview of every group or the view of
// one group, each polling a source it is given.
package ui

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// Source is what the group page needs from a poller (kafka.Watcher
// satisfies it). A group that does not exist is a Snapshot whose Group is
// not Exists(), not an error.
type Source interface {
	Poll(ctx context.Context) (model.Snapshot, error)
}

// ObservationSource is a Source whose polls the page builds itself
// (kafka.Watcher): Observe reads a poll, and the page builds its snapshot
// on its update loop, in the rows of the one it shows
// (model.SnapshotBuilder): one set of rows, not one shown while the next
// is built (39 MB at 100,000 partitions). An observation must stay as
// read until the next Observe.
type ObservationSource interface {
	Source
	Observe(ctx context.Context) (model.Observation, error)
}

// OverviewSource is what the overview needs from a poller
// (kafka.OverviewWatcher satisfies it): each poll's raw read, which the
// page judges (model.OverviewPipeline). Batched reports whether the last
// Overview read each coordinator's commits in one request (OffsetFetch
// v8+): then it polls at --interval; else it sends one request per group
// and polls no faster than 100 of those a second.
type OverviewSource interface {
	Overview(ctx context.Context) (model.OverviewObservation, error)
	Batched() bool
}

// Options configure what every page shares.
type Options struct {
	Brokers  []string
	Interval time.Duration // poll interval
	Timeout  time.Duration // per poll
	// Judging is how the pages judge their polls (`--stall-after`, …).
	model.Judging
	// NoColor forces monochrome styles; main sets it from NO_COLOR != "".
	NoColor bool
	// Now is the clock; nil means time.Now. Tests pass a fixed clock.
	Now func() time.Time
	// Recording, with --record, says how the recording goes: the
	// headers show it, so a recording that stopped (a full disk) is seen
	// when it stops, not when kgwatch exits. Nil: not recording.
	Recording func() RecordingStatus
}

// RecordingStatus is what --record has written so far.
type RecordingStatus struct {
	Path  string
	Bytes int64 // written to the file (compressed)
	// Err is the write that stopped the recording (nil while it goes);
	// Until is the time of the last record the file holds before it.
	Err   error
	Until time.Time
}

// recordingNow is how the recording goes now; the zero status (no Path)
// without one. A header reads it once a render, so its mark and its
// banner agree.
func recordingNow(rec func() RecordingStatus) RecordingStatus {
	if rec == nil {
		return RecordingStatus{}
	}
	return rec()
}

// recordingSegment is the headers' "● rec x.kgw 1.2 MB" while a recording
// goes, "" without one or once it stopped (the banner says that).
func recordingSegment(st Styles, r RecordingStatus) string {
	if r.Path == "" || r.Err != nil {
		return ""
	}
	return st.StateBad.Render(glyphRecording+" rec ") + st.Value.Render(recordingName(r.Path)+" "+model.Bytes(r.Bytes))
}

// recordingBanner is the headers' line once a recording stopped: what
// stopped it and how far the file goes.
func recordingBanner(st Styles, r RecordingStatus, w int) string {
	if r.Err == nil {
		return ""
	}
	upTo := "nothing after its header"
	if !r.Until.IsZero() {
		upTo = "up to " + r.Until.Format("15:04:05")
	}
	// The system's reason ("no space left on device"): the path is said
	// after it.
	why := r.Err
	var pe *fs.PathError
	if errors.As(why, &pe) {
		why = pe.Err
	}
	msg := glyphError + " recording stopped: " + flatText(why.Error()) + " · " + recordingName(r.Path) + " holds " + upTo + " · the watch goes on"
	return st.Banner.Render(cell(msg, w, false))
}

// recordingName is the file's name as the header shows it: printable, and
// cut to 24 cells from the left (the end of a path names the file).
func recordingName(path string) string {
	name := model.Printable(path)
	if textWidth(name) > 24 {
		name = ellipsis + ansi.TruncateLeftWc(name, textWidth(name)-23, "")
	}
	return name
}

func (o Options) withDefaults() Options {
	o.Interval, o.Timeout = cmp.Or(o.Interval, model.DefaultInterval), cmp.Or(o.Timeout, model.DefaultTimeout)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.StallAfter <= 0 {
		o.StallAfter = model.DefaultStallAfter
	}
	return o
}

// FrameRate is how many times a second, at most, the screen is drawn:
// bubbletea's renderer wakes this often to look for a new frame, whether
// one came or not. Its default, 60, cost a tenth of the 10k TUI's CPU
// (6.0-6.6% of a core against 5.5-5.9% at 30, side by side; 0.3 points
// watching an idle group) for frames that change a few times a second;
// at 30 a key is on screen within 33 ms of its update.
const FrameRate = 30

// ProgramOptions returns the tea.Program options the UI needs: the frame
// rate, and with NoColor an output profile that drops colour even where
// the terminal has it.
func ProgramOptions(opts Options) []tea.ProgramOption {
	o := []tea.ProgramOption{tea.WithFPS(FrameRate)}
	if opts.NoColor {
		o = append(o, tea.WithColorProfile(colorprofile.Ascii))
	}
	return o
}

// App is the root model, the only tea.Model of the UI. It holds the window
// size, the keys that work everywhere (quit, help) and which page shows:
// the overview (when started without a group) or a group page. Pages are
// siblings; the root opens a group page when the overview asks (enter) and
// closes it when the group page asks (esc).
type App struct {
	opts   Options
	styles Styles
	keys   KeyMap
	ctx    context.Context
	cancel context.CancelFunc

	width, height int
	ready         bool // a WindowSizeMsg arrived
	fullHelp      bool

	// overview is nil when the app watches one group from the start;
	// group is nil while the overview shows. open makes the group page's
	// watch, release frees it.
	overview *OverviewPage
	group    *GroupPage
	// compare is `kgwatch demo --compare`: groups side by side, the only
	// page then.
	compare *ComparePage
	open    func(group string) (Watch, func())
	release func()

	// quitAsked is when q or ctrl+c was pressed once in demo mode, which
	// asks again before quitting (zero: not asked).
	quitAsked time.Time

	// replay, when a recording plays (ui/replay.go), feeds the pages and
	// takes its keys first; nil when watching live.
	replay *replayDriver
}

// quitConfirmFor is how long a first q or ctrl+c in demo mode waits for
// the second.
const quitConfirmFor = 3 * time.Second

// New returns the root model watching one group.
func New(w Watch, opts Options) *App {
	a := newApp(opts)
	a.group = newGroupPage(a.ctx, w, a.opts, a.styles, false)
	return a
}

// NewOverview returns the root model showing every group of the cluster,
// polled from src; enter opens one, with the watch open makes for it.
func NewOverview(src OverviewSource, open func(group string) (Watch, func()), opts Options) *App {
	a := newApp(opts)
	a.open = open
	a.keys.Open.SetEnabled(open != nil)
	a.keys.Back.SetEnabled(open != nil)
	a.overview = newOverviewPage(a.ctx, src, a.opts, a.styles, open != nil)
	return a
}

func newApp(opts Options) *App {
	opts = opts.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &App{opts: opts, styles: NewStyles(opts.NoColor), keys: DefaultKeyMap(), ctx: ctx, cancel: cancel}
}

// Close stops every poll in flight and frees the open group's source.
// Quitting with q or ctrl+c does it too.
func (a *App) Close() {
	a.replay.stop() // a seek in flight lets go of the pages first
	a.closeGroup()
	a.cancel()
}

// Init starts the page showing.
func (a *App) Init() tea.Cmd {
	if a.replay != nil {
		return a.replay.init()
	}
	if a.compare != nil {
		return a.compare.Init()
	}
	if a.group != nil {
		return a.group.Init()
	}
	return a.overview.Init()
}

// Update handles one message: window size and the global keys here, the
// rest in the pages (each ignores what is not its own).
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.width, a.height, a.ready = max(msg.Width, 0), max(msg.Height, 0), true
		if !a.replay.busy() { // else sized once the seek ends
			a.resize()
		}
		return a, nil
	case tea.KeyPressMsg:
		return a, a.handleKey(msg)
	}
	if cmd, ok := a.replay.update(msg); ok {
		return a, cmd
	}
	if a.compare != nil {
		return a, a.compare.Update(msg)
	}
	var cmds []tea.Cmd
	if a.group != nil {
		cmds = append(cmds, a.group.Update(msg))
	}
	if a.overview != nil {
		cmds = append(cmds, a.overview.Update(msg))
	}
	return a, tea.Batch(cmds...)
}

func (a *App) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if a.replay.busy() {
		// A seek runs off the loop, the pages its: q answers at once,
		// the rest waits for it.
		if key.Matches(msg, a.keys.Quit) {
			return a.quit()
		}
		a.replay.queue(msg)
		return nil
	}
	capturing := a.group != nil && a.group.Capturing() || a.group == nil && a.overview != nil && a.overview.Capturing()
	switch {
	case key.Matches(msg, a.keys.Quit) && (!capturing || msg.String() == "ctrl+c"):
		return a.quit()
	case key.Matches(msg, a.keys.Help) && !capturing,
		// esc closes the full help first (before it clears a filter or
		// goes back to the overview), as it closes what is open.
		key.Matches(msg, a.keys.CloseHelp) && a.fullHelp && !capturing:
		a.fullHelp = !a.fullHelp
		if a.compare != nil {
			a.compare.SetFullHelp(a.fullHelp)
		}
		if a.group != nil {
			a.group.SetFullHelp(a.fullHelp)
		}
		if a.overview != nil {
			a.overview.SetFullHelp(a.fullHelp)
		}
		return nil
	}
	a.quitAsked = time.Time{}
	if a.replay != nil && !capturing {
		if cmd, ok := a.replay.key(msg); ok {
			return cmd
		}
	}
	if a.compare != nil {
		return a.compare.Update(msg)
	}
	// Which page shows is the root's: enter on the overview opens the
	// selected group, esc or backspace on a group opened from it goes
	// back (unless the group page takes the key: a filter to clear).
	switch {
	case a.group == nil && a.open != nil && key.Matches(msg, a.keys.Open) && !capturing:
		if id, ok := a.overview.Selected(); ok {
			return a.openGroup(id)
		}
		return nil
	case a.group != nil && a.overview != nil && key.Matches(msg, a.keys.Back) && !a.group.TakesKey(msg):
		a.closeGroup()
		a.overview.SetSize(a.pageSize())
		if a.replay != nil {
			return nil // the replay feeds it
		}
		return a.overview.pollNow()
	case a.group != nil:
		return a.group.Update(msg)
	}
	return a.overview.Update(msg)
}

// quit quits; in demo mode it asks once first, so a speaker's ctrl+c meant
// for a consumer (the field note's "Ctrl+C on consumer B") does not end
// the show.
func (a *App) quit() tea.Cmd {
	now := a.opts.Now()
	demo := a.replay == nil && (a.compare != nil || a.group != nil && a.group.watch.Demo != nil)
	if demo && (a.quitAsked.IsZero() || now.Sub(a.quitAsked) > quitConfirmFor) {
		a.quitAsked = now
		const ask = "press q or ctrl+c again to quit the demo (x stops a consumer gracefully)"
		if a.compare != nil {
			a.compare.notice(ask)
		} else {
			a.group.notice(ask)
		}
		return nil
	}
	a.cancel()
	return tea.Quit
}

// openGroup shows the group page of id, watching what a.open makes for
// it. The overview stops polling meanwhile.
func (a *App) openGroup(id string) tea.Cmd {
	if a.open == nil {
		return nil
	}
	if a.replay != nil {
		return a.replay.openPage(id)
	}
	w, release := a.open(id)
	a.overview.Pause()
	a.group = newGroupPage(a.ctx, w, a.opts, a.styles, true)
	a.release = release
	a.group.SetFullHelp(a.fullHelp)
	a.group.SetSize(a.pageSize())
	return a.group.Init()
}

// closeGroup closes the group page opened from the overview, if any, and
// releases its source.
func (a *App) closeGroup() {
	if a.group == nil || a.overview == nil {
		return
	}
	a.group.Close()
	if a.release != nil {
		a.release()
	}
	a.group, a.release = nil, nil
}

// pageSize is the page's share of the window: inside the frame style.
func (a *App) pageSize() (w, h int) {
	fw, fh := a.styles.App.GetFrameSize()
	return max(a.width-fw, 0), max(a.height-fh-a.replay.barHeight(), 0)
}

func (a *App) resize() {
	w, h := a.pageSize()
	if a.replay != nil {
		a.replay.pw, a.replay.ph = w, h // the pages a seek builds
	}
	if a.compare != nil {
		a.compare.SetSize(w, h)
	}
	if a.group != nil {
		a.group.SetSize(w, h)
	}
	if a.overview != nil {
		a.overview.SetSize(w, h)
	}
}

// View renders the page showing. Until the first WindowSizeMsg it is a
// placeholder.
func (a *App) View() tea.View {
	var content, title string
	switch {
	case !a.ready:
		content = "kgwatch: starting…"
	case a.replay.busy():
		// The pages are the seek's: the page as last drawn.
		content, title = a.frame(a.replay.lastPage), a.replay.lastTitle
	case a.compare != nil:
		content, title = a.frame(a.compare.View()), a.compare.Title()
	case a.group != nil:
		content, title = a.frame(a.group.View()), a.group.Title()
	default:
		content, title = a.frame(a.overview.View()), a.overview.Title()
	}
	if a.replay != nil {
		a.replay.lastTitle = title
		title = "REPLAY · " + title
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.WindowTitle = truncate(title, maxTitle, ellipsis)
	return v
}

// maxTitle is the most cells of the window title: a group named with
// 10,000 characters made a 10,000-character OSC 2 on every frame; no
// window shows more than this.
const maxTitle = 200

// frame clips the page to the window and wraps it in the frame style.
func (a *App) frame(page string) string {
	w, h := a.pageSize()
	if a.replay != nil && w > 0 {
		a.replay.lastPage = page
		page = a.replay.bar(w) + "\n" + fitBlock(page, w, h)
		h += a.replay.barHeight()
	}
	if w == 0 || h == 0 {
		return ""
	}
	return a.styles.App.Render(fitBlock(page, w, h))
}
