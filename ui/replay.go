package ui

import (
	"context"
	"errors"
	"io"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
)

// Replay is a recording to play (`kgwatch replay FILE`): the same pages as
// a live watch, fed from the recording as a virtual clock passes its
// records, with no cluster. Main opens the file.
type Replay struct {
	// Group is the group recorded; Overview an overview recording, whose
	// groups open as they were recorded.
	Group    string
	Overview bool
	// Start is when the recording began, End its last record.
	Start, End time.Time
	// Open reads the recording from its start: the replay reads it
	// forwards, and again from the start to go back.
	Open func() (ReplayReader, error)
	// Resume reads the recording on from a keyframe its reader marked
	// (record.Reader.Mark); nil: it is read from its start only, and
	// has no checkpoints (ui/replaycheck.go).
	Resume func(record.Mark) (ReplayReader, error)
	// Demo: a demo recording, its ledger and notes played too.
	Demo         bool
	DemoSettings DemoSettings
	// Speed is the speed to start at (zero: 1×); From where (zero:
	// Start); Paused starts paused.
	Speed  float64
	From   time.Time
	Paused bool
	// Groups are the groups recorded (an overview recording records
	// those opened from it).
	Groups []string
	// EndNote, when the recording does not end cleanly, says so at its
	// end ("cut short after 12:03:04").
	EndNote string
	// Wall is the real clock the virtual one runs on (nil: time.Now).
	Wall func() time.Time
	// checkCost spaces the checkpoints (zero: replayCheckCost); tests
	// take one at every keyframe.
	checkCost int64
}

// ReplayReader reads a recording's records in order (model/record's
// Reader, and the file it reads).
type ReplayReader interface {
	Next() (record.Record, error)
	Close() error
}

// replaySpeeds are the speeds + and - step through.
var replaySpeeds = []float64{1, 2, 4, 10, 60}

// replayTick is how often the virtual clock moves the pages on.
const replayTick = 100 * time.Millisecond

// NewReplay returns the root model playing r.
func NewReplay(r Replay, opts Options) *App {
	if r.Wall == nil {
		r.Wall = time.Now
	}
	if r.Speed <= 0 {
		r.Speed = 1
	}
	if r.End.Before(r.Start) {
		r.End = r.Start
	}
	d := &replayDriver{r: r, now: r.Start}
	d.clock = playClock{wall: r.Wall, speed: r.Speed, paused: true}
	d.clock.set(r.Start)
	opts.Now = d.Now
	a := newApp(opts)
	a.replay, d.app = d, a
	if r.Overview {
		a.open = d.openGroup
		a.keys.Open.SetEnabled(true)
		a.keys.Back.SetEnabled(true)
		a.overview = newOverviewPage(a.ctx, d, a.opts, a.styles, true)
	} else {
		a.group = d.newPage(r.Group, false)
	}
	return a
}

// replayDriver plays a recording into the App's pages: it owns the
// virtual clock (the pages' Options.Now), reads the records as the clock
// passes them and feeds each to its page as the live watch fed it (the
// group page's applySnapshot, applyError and fileEvent; the demo panel;
// the overview). Going back rebuilds the pages from the start: the
// pipeline is deterministic, so the same records give the same screen.
type replayDriver struct {
	r     Replay
	app   *App
	clock playClock
	now   time.Time // the time the pages see

	rd      ReplayReader
	next    *record.Record // read, not yet due
	done    bool           // no more records
	readErr error          // why reading stopped early
	lastAt  time.Time      // the time of the last record read

	// points are the times of the records that gave timeline events,
	// in order, up to now: ← and → jump between them; rebalances those
	// that began a rebalance, for < and >.
	points, rebalances []time.Time

	// grRec is the group page's record being fed: what its source
	// answers (a snapshot, or a failed poll).
	grRec *record.Record
	// job is the seek running off the update loop (nil: none); the
	// pages and the fields above are its until it ends. lastPage is
	// the page as last drawn, shown meanwhile.
	job                 *replayJob
	lastPage, lastTitle string
	pw, ph              int // the pages' size, as the loop last set it

	demo replayDemo
	// ovRec is the overview's last record by now: what its source
	// answers (a read, groups judged when recorded, or a failure).
	ovRec  *record.Record
	groups []model.GroupSummary // the overview shown as of now
	ovOK   bool                 // the last overview poll succeeded

	// index is the first pass's (nil: none, ui/replaycheck.go);
	// restored counts the seeks that started from a checkpoint.
	index    *replayIndex
	restored int

	seq      uint64 // tick loop step; other ticks are stale
	ticking  bool
	notice   string
	noticeAt time.Time // wall clock
}

// Now is the virtual clock as the pages see it.
func (d *replayDriver) Now() time.Time { return d.now }

// Overview is the overview page's source: the poll recorded last by now,
// as its live source answered it (the page judges a read as the live page
// did, with its own pipeline).
func (d *replayDriver) Overview(context.Context) (model.OverviewObservation, error) {
	rec := d.ovRec
	switch {
	case rec == nil:
		return model.OverviewObservation{}, errors.New("replay: no overview recorded by now")
	case rec.Kind == record.KindOverviewFailed:
		return model.OverviewObservation{}, errors.New(rec.Err)
	case rec.Kind == record.KindOverview:
		return model.OverviewObservation{Judged: rec.Groups}, nil // format 2
	}
	return rec.Overview, nil
}

// Poll is the group page's source: the group's record being fed, as its
// live source answered it.
func (d *replayDriver) Poll(context.Context) (model.Snapshot, error) {
	switch rec := d.grRec; {
	case rec == nil:
		return model.Snapshot{}, errors.New("replay: no poll recorded by now")
	case rec.Kind == record.KindFailed:
		return model.Snapshot{}, errors.New(rec.Err)
	default:
		return rec.Snapshot, nil
	}
}

// Batched: the replay's overview is read from the recording, never
// throttled.
func (d *replayDriver) Batched() bool { return true }

// replayTickMsg moves the virtual clock on.
type replayTickMsg struct {
	d   *replayDriver
	seq uint64
}

// newPage returns a group page fed by the replay: no poller, no demo
// refresh loop (Init is never called), demo keys off.
func (d *replayDriver) newPage(group string, back bool) *GroupPage {
	w := Watch{Group: group, Source: d}
	if d.r.Demo {
		w.Demo, w.DemoSettings = &d.demo, d.r.DemoSettings
	}
	a := d.app
	g := newGroupPage(a.ctx, w, a.opts, a.styles, back)
	if g.demo != nil {
		g.demo.replay = true
		for i := range g.demo.keys {
			g.demo.keys[i].binding.SetEnabled(false) // help lists no key that does nothing
		}
	}
	// space, home and end are the replay's (the table keeps g and G).
	g.keys.PageDown.SetHelp("pgdn", "page down")
	g.keys.Home.SetHelp("g", "top")
	g.keys.End.SetHelp("G", "bottom")
	g.SetFullHelp(a.fullHelp)
	g.SetSize(d.pw, d.ph)
	return g
}

// init opens the recording and plays it from r.From.
func (d *replayDriver) init() tea.Cmd {
	from := d.r.From
	if from.IsZero() || from.Before(d.r.Start) {
		from = d.r.Start
	}
	d.seek(context.Background(), d.r.Start) // opens it: nothing to feed yet
	d.startIndex()
	if from.Equal(d.r.Start) {
		if d.r.Paused || !d.now.Before(d.r.End) {
			return nil
		}
		return d.play()
	}
	return d.background(from, !d.r.Paused, func(ctx context.Context) { d.seek(ctx, from) })
}

// open (re)starts reading from the start.
func (d *replayDriver) open() {
	if d.rd != nil {
		d.rd.Close()
	}
	d.rd, d.next, d.done, d.readErr, d.points, d.rebalances, d.lastAt = nil, nil, false, nil, nil, nil, time.Time{}
	rd, err := d.r.Open()
	if err != nil {
		d.done, d.readErr = true, err
		return
	}
	d.rd = rd
}

// peek returns the next record without taking it; nil at the end. A
// recording that cannot be read past a record ends there, wherever its
// End said it did: the clock stops at its last good record, and the bar
// says why.
func (d *replayDriver) peek() *record.Record {
	if d.next == nil && !d.done {
		rec, err := d.rd.Next()
		if err != nil {
			d.done = true
			if !errors.Is(err, io.EOF) && !errors.Is(err, record.ErrUnfinished) {
				d.readErr = err
				if end := maxTime(d.lastAt, d.r.Start); end.Before(d.r.End) {
					d.r.End = end
				}
			}
			return nil
		}
		d.next, d.lastAt = &rec, rec.At
	}
	return d.next
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// advance feeds every record due by t, then sets the clock the pages see
// to t. When ctx ends it stops after the record it is feeding, the pages
// as of that record.
func (d *replayDriver) advance(ctx context.Context, t time.Time) {
	for ctx.Err() == nil {
		rec := d.peek()
		if rec == nil || rec.At.After(t) {
			break
		}
		d.next = nil
		d.apply(rec)
	}
	if ctx.Err() == nil {
		d.now = clampTime(t, d.r.Start, d.r.End) // End may have come nearer
	}
	d.relayout()
}

// seek moves to t: from the last checkpoint by then when there is one
// past now or t is before now, else forwards by feeding the records up to
// it, or backwards by rebuilding the pages from the start. Cut short by
// ctx, it stands where it stopped.
func (d *replayDriver) seek(ctx context.Context, t time.Time) {
	t = clampTime(t, d.r.Start, d.r.End)
	c := d.index.checkFor(t)
	switch {
	case c != nil && (d.rd != nil || d.done) && (t.Before(d.now) || c.at.After(d.now)) && d.restore(c) == nil:
	case d.rd == nil && !d.done || t.Before(d.now):
		d.rebuild()
	}
	d.advance(ctx, t)
	d.clock.set(d.now)
}

// rebuild starts the pages over, keeping what the viewer chose to see
// (the pane, the lanes, the sort and filter, help), and the recording
// from its start.
func (d *replayDriver) rebuild() {
	d.open()
	d.newPages()
}

// newPages starts the pages over, as rebuild does, the reading left as
// it is.
func (d *replayDriver) newPages() {
	a := d.app
	d.grRec = nil
	d.now = d.r.Start
	d.demo.set(model.DemoStatus{})
	d.ovRec, d.groups, d.ovOK = nil, nil, false
	if o := a.overview; o != nil {
		o.restart()
	}
	old := a.group
	if old == nil {
		return
	}
	g := d.newPage(old.watch.Group, old.keys.Back.Enabled())
	g.rows = old.rows
	if old.showLanes {
		g.toggleLanes()
	}
	g.setFocus(old.focus)
	old.Close()
	a.group = g
}

// apply feeds one record to its page, at its time, as the live watch fed
// it: a poll through the page's source, an outside event as the live
// page's events channel brings it, the demo's read as its refresh.
func (d *replayDriver) apply(rec *record.Record) {
	a := d.app
	d.now = rec.At
	switch rec.Kind {
	case record.KindDemoStatus:
		d.demo.set(rec.Demo)
		if g := a.group; g != nil && g.demo != nil {
			g.Update(demoStatusMsg{p: g.demo, Seq: g.demo.seq, Status: rec.Demo})
		}
		return
	case record.KindDemoAction:
		if g := a.group; g != nil && g.demo != nil {
			g.demo.replayed(rec.Action, rec.Outcome, rec.Err, rec.At)
		}
		return
	case record.KindOverviewPoll, record.KindOverview, record.KindOverviewFailed:
		d.ovRec = rec
		ok := rec.Kind != record.KindOverviewFailed
		o := a.overview
		if o == nil {
			return
		}
		// Polled as the live page polls its source: judged by the
		// page's pipeline, then its sort, filter and only-lag.
		groups := o.pollSync()
		// While the overview shows, a change in it is a point → and ←
		// stop at.
		if a.group == nil && (ok && !slices.Equal(d.groups, groups) || !ok && d.ovOK) {
			d.point(rec.At, false)
		}
		if ok {
			d.groups = groups
		}
		d.ovOK = ok
		return
	}
	g := a.group
	if g == nil || rec.Group != g.watch.Group {
		return // a group of the overview not open now
	}
	tl := g.pipe.Timeline()
	n := tl.Len()
	var last model.Event
	if n > 0 {
		last = tl.At(n - 1)
	}
	switch rec.Kind {
	case record.KindSnapshot, record.KindFailed:
		d.grRec = rec
		started := rec.Started // a failure's (format 1: its At)
		if started.IsZero() {
			started = rec.At // a snapshot's poll is dated when it answered
		}
		g.pollSync(started)
		d.grRec = nil
	case record.KindEvent:
		g.Update(eventMsg{ctx: g.ctx, Event: rec.Event})
	}
	if evs := newEvents(tl, n, last); len(evs) > 0 {
		d.point(rec.At, slices.ContainsFunc(evs, func(e model.Event) bool { return e.Type == model.EventRebalanceStarted }))
	}
}

// newEvents are the events tl gained since it held n, the newest last.
func newEvents(tl *model.Timeline, n int, last model.Event) []model.Event {
	m := tl.Len()
	if m > n {
		out := make([]model.Event, 0, m-n)
		for i := n; i < m; i++ {
			out = append(out, tl.At(i))
		}
		return out
	}
	// Full: it dropped as many as it gained; they follow last.
	var out []model.Event
	for i := m - 1; i >= 0; i-- {
		e := tl.At(i)
		if sameEvent(&e, &last) {
			break
		}
		out = append(out, e)
	}
	slices.Reverse(out)
	return out
}

// point notes that something happened at t, a stop for ← and →; a
// rebalance began then too, a stop for < and >.
func (d *replayDriver) point(t time.Time, rebalance bool) {
	if len(d.points) == 0 || t.After(d.points[len(d.points)-1]) {
		d.points = append(d.points, t)
	}
	if rebalance && (len(d.rebalances) == 0 || t.After(d.rebalances[len(d.rebalances)-1])) {
		d.rebalances = append(d.rebalances, t)
	}
}

// relayout lays the pages out again at the clock's time.
func (d *replayDriver) relayout() {
	if g := d.app.group; g != nil {
		g.relayout()
	}
	if o := d.app.overview; o != nil {
		o.relayout()
	}
}

// openGroup is the overview's enter in an overview recording: the group
// page of group, fed with the group's records from the start up to now.
func (d *replayDriver) openGroup(group string) (Watch, func()) { return Watch{Group: group}, nil }

// openPage opens the page of group from the overview (App.openGroup).
func (d *replayDriver) openPage(group string) tea.Cmd {
	a := d.app
	a.overview.Pause()
	a.group = d.newPage(group, true)
	t := d.now
	return d.background(t, !d.clock.paused, func(ctx context.Context) {
		d.rebuild()
		d.advance(ctx, t)
		if !slices.Contains(d.r.Groups, group) {
			d.say(model.Printable(group) + " was not opened while recording: nothing recorded of it")
		}
	})
}

// say shows a line of the replay's in its bar for a while.
func (d *replayDriver) say(s string) { d.notice, d.noticeAt = s, d.r.Wall() }
