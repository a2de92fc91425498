package ui

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
)

// A replay's index and checkpoints. On open, a first pass reads the
// recording through once, off the update loop, feeding its own page as
// the viewer's is fed: it notes every point and rebalance the jumps stop
// at (so end, > and → know where they go before the viewer gets there),
// and at the recording's keyframes (model/record/keyframe.go), spaced by
// the work of feeding the records between (replayCheckCost), it keeps a
// checkpoint: a deep copy of what the page was fed into (its pipeline,
// WatchState, poll count and demo panel) and of the driver's. A seek
// restores the nearest checkpoint at or before where it goes and reads
// on from its keyframe: it feeds at most one span, never the recording
// from its start.
//
// A recording without keyframes (formats 1-3), or of the overview, has
// no checkpoint: it seeks as before, feeding from the start.

// replayCheckCost spaces the checkpoints by the work between: a record
// costs 64 and a snapshot a unit a partition more; at 1,000 busy
// partitions (~1.4 ms a poll) this is ~60 polls, ~80 ms of feeding.
const replayCheckCost = 60_000

// replayCheckBudget bounds what the checkpoints hold: past it every
// other one goes, and the spacing doubles.
const replayCheckBudget = 256 << 20

// replayIndex is what the first pass has found so far. Its fields are
// its mutex's; a checkpoint, once kept, never changes.
type replayIndex struct {
	mu     sync.Mutex
	checks []*replayCheck
	held   int64 // the checkpoints' bytes
	cost   int64 // the spacing, doubled past the budget
	// points and rebalances are the stops found so far (up to the last
	// checkpoint); done: the pass read the recording through, and they
	// are all of them.
	done               bool
	points, rebalances []time.Time
}

// replayCheck is a checkpoint: the page and the driver as the records up
// to at left them, the next record the first of mark's keyframe.
type replayCheck struct {
	at    time.Time
	mark  record.Mark
	pipe  *model.Pipeline
	st    *WatchState
	poll  pollState
	demo  *demoPanel // nil outside demo mode
	demoS *model.DemoStatus
	// ov is the overview page's, in an overview recording (pipe and st
	// are then nil).
	ov *overviewCheck
	// points and rebalances are how many of the stops came by then.
	points, rebalances int
	bytes              int64
	// final: the last checkpoint, after the last record (mark is
	// none); the recording ends at end, readErr why it ended early.
	final   bool
	end     time.Time
	readErr error
}

// overviewCheck is what the overview page and the driver were fed of
// the overview's polls.
type overviewCheck struct {
	pipe   *model.OverviewPipeline
	groups []model.GroupSummary // the page's: as judged
	has    bool
	rec    *record.Record // the driver's ovRec
	shown  []model.GroupSummary
	ok     bool
}

// gridWidths is what a pane's grid remembers of the widths its columns
// needed (grid.go): a column keeps a width for a while, so the widths
// shown depend on the frames drawn before, the viewer's. A page made
// afresh from a checkpoint keeps them, as the page fed on would (going
// back, the grid starts over by itself).
type gridWidths struct {
	seen    []int
	seenAt  []time.Time
	lastNow time.Time
}

func widthsOf[T any](g *grid[T]) gridWidths {
	return gridWidths{seen: slices.Clone(g.seen), seenAt: slices.Clone(g.seenAt), lastNow: g.lastNow}
}

func setWidths[T any](g *grid[T], w gridWidths) {
	if len(w.seen) == len(g.seen) && len(w.seenAt) == len(g.seenAt) {
		copy(g.seen, w.seen)
		copy(g.seenAt, w.seenAt)
		g.lastNow = w.lastNow
	}
}

// pollState is what a page's poller counts of the polls fed to it.
type pollState struct {
	failures          int
	err               error
	lastGood, retryAt time.Time
}

// marker is a ReplayReader that tells its keyframes (record.Reader).
type marker interface {
	Mark() (record.Mark, bool)
}

// checkFor returns the last checkpoint at or before t; nil when none.
func (ix *replayIndex) checkFor(t time.Time) *replayCheck {
	if ix == nil {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	i, _ := slices.BinarySearchFunc(ix.checks, t, func(c *replayCheck, t time.Time) int { return c.at.Compare(t) })
	// checks[i] is the first at or after t.
	if i < len(ix.checks) && ix.checks[i].at.Equal(t) {
		return ix.checks[i]
	}
	if i == 0 {
		return nil
	}
	return ix.checks[i-1]
}

// stops returns the index's stops (points, or rebalances) when the pass
// is done.
func (ix *replayIndex) stops(rebalances bool) ([]time.Time, bool) {
	if ix == nil {
		return nil, false
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if !ix.done {
		return nil, false
	}
	if rebalances {
		return ix.rebalances, true
	}
	return ix.points, true
}

// keep adds c, and the stops found before it, thinning the checkpoints
// out past the budget.
func (ix *replayIndex) keep(c *replayCheck, points, rebalances []time.Time) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.points = append(ix.points, points[len(ix.points):]...)
	ix.rebalances = append(ix.rebalances, rebalances[len(ix.rebalances):]...)
	ix.checks = append(ix.checks, c)
	ix.held += c.bytes
	for ix.held > replayCheckBudget && len(ix.checks) > 1 {
		kept := ix.checks[:0]
		ix.held = 0
		for i, c := range ix.checks {
			if i%2 == 0 {
				kept = append(kept, c)
				ix.held += c.bytes
			}
		}
		clear(ix.checks[len(kept):])
		ix.checks = kept
		ix.cost *= 2
	}
}

func (ix *replayIndex) spacing() int64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.cost
}

// startIndex starts the first pass, when the recording can be resumed
// at its keyframes. Of an overview recording, the pass plays the
// overview with no group open: its checkpoints and stops are the
// viewer's while the overview shows.
func (d *replayDriver) startIndex() {
	if d.r.Resume == nil {
		return
	}
	ix := &replayIndex{cost: replayCheckCost}
	if d.r.checkCost > 0 {
		ix.cost = d.r.checkCost
	}
	d.index = ix
	ctx := d.app.ctx
	go d.indexPass(ctx, ix)
}

// indexPass is the first pass: a driver of its own, with a page of its
// own (no size: it draws nothing), fed every record.
func (d *replayDriver) indexPass(ctx context.Context, ix *replayIndex) {
	sd := &replayDriver{r: d.r, now: d.r.Start}
	opts := d.app.opts
	opts.Now = sd.Now
	sd.app = newApp(opts)
	defer sd.app.cancel()
	sd.app.replay = sd
	if d.r.Overview {
		sd.app.overview = newOverviewPage(sd.app.ctx, sd, sd.app.opts, sd.app.styles, true)
	} else {
		sd.app.group = sd.newPage(d.r.Group, false)
	}
	sd.open()
	if sd.rd == nil {
		return
	}
	defer sd.rd.Close()
	mk, ok := sd.rd.(marker)
	if !ok {
		return
	}
	var cost int64
	for ctx.Err() == nil {
		if cost >= ix.spacing() {
			if m, ok := mk.Mark(); ok {
				c, err := sd.checkpoint(m)
				if err != nil {
					break // no checkpoint: seeks feed from the start
				}
				ix.keep(c, sd.points, sd.rebalances)
				cost = 0
			}
		}
		rec := sd.peek()
		if rec == nil {
			break
		}
		sd.next = nil
		sd.apply(rec)
		cost += 64 + int64(len(rec.Snapshot.Partitions))
	}
	if ctx.Err() != nil {
		return
	}
	// One more after the last record: end restores it, feeding none.
	if c, err := sd.checkpoint(record.Mark{}); err == nil {
		c.final, c.end, c.readErr = true, sd.r.End, sd.readErr
		ix.keep(c, sd.points, sd.rebalances)
	}
	ix.mu.Lock()
	ix.done, ix.points, ix.rebalances = true, sd.points, sd.rebalances
	ix.mu.Unlock()
}

// checkpoint copies the first pass's page and driver as they stand,
// before the keyframe m.
func (d *replayDriver) checkpoint(m record.Mark) (*replayCheck, error) {
	c := &replayCheck{at: d.now, mark: m, points: len(d.points), rebalances: len(d.rebalances)}
	var n int64
	var err error
	if o := d.app.overview; o != nil {
		c.poll = pollState{failures: o.poll.Failures, err: o.poll.Err, lastGood: o.poll.LastGood, retryAt: o.poll.RetryAt}
		oc := overviewCheck{has: o.has, ok: d.ovOK, groups: o.groups, rec: d.ovRec, shown: d.groups, pipe: o.pipe}
		if c.ov, n, err = model.Clone(&oc); err != nil {
			return nil, err
		}
		c.bytes += n
		return c, nil
	}
	g := d.app.group
	c.poll = pollState{failures: g.poll.Failures, err: g.poll.Err, lastGood: g.poll.LastGood, retryAt: g.poll.RetryAt}
	if c.pipe, n, err = model.Clone(g.pipe); err != nil {
		return nil, err
	}
	c.bytes += n
	if c.st, n, err = model.Clone(&g.st); err != nil {
		return nil, err
	}
	c.bytes += n
	if g.demo != nil {
		if c.demo, n, err = model.Clone(g.demo); err != nil {
			return nil, err
		}
		c.bytes += n
		st := d.demo.Status(false)
		if c.demoS, n, err = model.Clone(&st); err != nil {
			return nil, err
		}
		c.bytes += n
	}
	return c, nil
}

// restore sets the pages and the reading to checkpoint c: a page made
// afresh, keeping what the viewer chose to see as rebuild does, given a
// copy of c's state (c stays as it is, for the next seek), and the
// recording read on from c's keyframe.
func (d *replayDriver) restore(c *replayCheck) error {
	if c.ov != nil {
		return d.restoreOverview(c)
	}
	pipe, _, err := model.Clone(c.pipe)
	if err != nil {
		return err
	}
	st, _, err := model.Clone(c.st)
	if err != nil {
		return err
	}
	var demo *demoPanel
	var demoS model.DemoStatus
	if c.demo != nil {
		if demo, _, err = model.Clone(c.demo); err != nil {
			return err
		}
		s, _, err := model.Clone(c.demoS)
		if err != nil {
			return err
		}
		demoS = *s
	}
	old := d.app.group
	table, members := widthsOf(&old.table.grid), widthsOf(&old.members.grid)
	if err := d.resume(c); err != nil {
		return err
	}
	d.now = c.at
	d.demo.set(demoS)
	g := d.app.group
	if demo != nil {
		demo.d = &d.demo
		g.demo = demo
	}
	setWidths(&g.table.grid, table)
	setWidths(&g.members.grid, members)
	g.restore(pipe, *st, c.poll)
	d.restored++
	return nil
}

// resume reads the recording on from c, and starts the pages over: the
// driver as the first pass was at c.
func (d *replayDriver) resume(c *replayCheck) error {
	var rd ReplayReader
	if !c.final {
		var err error
		if rd, err = d.r.Resume(c.mark); err != nil {
			return err
		}
	}
	if d.rd != nil {
		d.rd.Close()
	}
	d.rd, d.next, d.done, d.readErr, d.lastAt = rd, nil, c.final, c.readErr, c.at
	if c.final && c.end.Before(d.r.End) {
		d.r.End = c.end
	}
	d.points, d.rebalances = d.index.stopsUpTo(c)
	d.newPages()
	return nil
}

// restoreOverview is restore in an overview recording, while the
// overview shows (the first pass opened no group).
func (d *replayDriver) restoreOverview(c *replayCheck) error {
	o := d.app.overview
	if d.app.group != nil || o == nil {
		return errors.New("replay: a group page shows, the checkpoints are the overview's")
	}
	oc, _, err := model.Clone(c.ov)
	if err != nil {
		return err
	}
	if err := d.resume(c); err != nil {
		return err
	}
	d.now = c.at
	d.ovRec, d.groups, d.ovOK = oc.rec, oc.shown, oc.ok
	o.pipe, o.groups, o.has = oc.pipe, oc.groups, oc.has
	o.poll.Failures, o.poll.Err, o.poll.LastGood, o.poll.RetryAt = c.poll.failures, c.poll.err, c.poll.lastGood, c.poll.retryAt
	o.pane.SetStale(oc.rec != nil && !oc.ok && oc.has)
	o.refresh()
	o.relayout()
	d.restored++
	return nil
}

// stopsUpTo returns copies of the first pass's stops up to c.
func (ix *replayIndex) stopsUpTo(c *replayCheck) (points, rebalances []time.Time) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return slices.Clone(ix.points[:c.points]), slices.Clone(ix.rebalances[:c.rebalances])
}

// restore shows, on a page just made, a replay's checkpoint: the
// pipeline and the state its polls left, and the panes as they showed
// them.
func (g *GroupPage) restore(pipe *model.Pipeline, st WatchState, ps pollState) {
	g.pipe = pipe
	showLanes := g.showLanes
	g.lanes = NewLanes(g.styles, g.keys, pipe.Lanes())
	g.showLanes = false
	if showLanes {
		g.toggleLanes()
	}
	g.poll.Failures, g.poll.Err, g.poll.LastGood, g.poll.RetryAt = ps.failures, ps.err, ps.lastGood, ps.retryAt
	g.st = st
	if st.HasSnap {
		g.showSnapshot(st.Snap, false) // resets what a good poll resets
		g.st = st
	}
	g.showEvents()
	g.table.SetStale(st.Err != nil)
	g.members.SetStale(st.Err != nil)
	g.relayout()
}
