package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// The replay's controls: the clock (play, pause, speed), its keys, the
// REPLAY line over the page, and the demo as recorded.

// play starts the clock.
func (d *replayDriver) play() tea.Cmd {
	if !d.now.Before(d.r.End) {
		// At the end, play starts over.
		return d.background(d.r.Start, true, func(ctx context.Context) { d.seek(ctx, d.r.Start) })
	}
	d.clock.setPaused(false)
	return d.tick()
}

// replayJob is a seek running off the update loop: reading and feeding
// the records up to where it goes takes as long as the records take (a
// long recording's end, going back), and keys and signals must not wait
// for it. Until it ends the pages and the driver's reading are the job's
// goroutine's: the loop draws the page as it last drew it, quits at once
// (cancelling the job, which stops after the record it feeds), and keeps
// any other key for when the job ends; a key that seeks cancels it
// first.
type replayJob struct {
	cancel     context.CancelFunc
	done       chan struct{}
	to         time.Time // where it goes (zero: the next stop, found on the way)
	start, end time.Time
	play       bool // the clock plays on after it
	keys       []tea.KeyPressMsg
}

// replaySeekedMsg says that a job has ended.
type replaySeekedMsg struct {
	d   *replayDriver
	job *replayJob
}

// maxQueuedKeys bounds the keys kept while a job runs.
const maxQueuedKeys = 32

// background runs fn (a seek) off the update loop as a job; the clock
// stands meanwhile, and plays on after when play is set.
func (d *replayDriver) background(to time.Time, play bool, fn func(ctx context.Context)) tea.Cmd {
	d.pause()
	ctx, cancel := context.WithCancel(d.app.ctx)
	job := &replayJob{cancel: cancel, done: make(chan struct{}), to: to, start: d.r.Start, end: d.r.End, play: play}
	d.job = job
	go func() {
		defer close(job.done)
		fn(ctx)
	}()
	return func() tea.Msg {
		<-job.done
		return replaySeekedMsg{d: d, job: job}
	}
}

// busy reports whether a job runs.
func (d *replayDriver) busy() bool { return d != nil && d.job != nil }

// seeked takes the pages back from a job that has ended, and handles the
// keys pressed meanwhile.
func (d *replayDriver) seeked(m replaySeekedMsg) tea.Cmd {
	if m.d != d || m.job != d.job {
		return nil
	}
	job := d.job
	d.job = nil
	job.cancel()
	a := d.app
	a.resize() // the window may have changed meanwhile
	var cmds []tea.Cmd
	if job.play && d.now.Before(d.r.End) {
		d.clock.setPaused(false)
		cmds = append(cmds, d.tick())
	}
	for i, k := range job.keys {
		if d.job != nil { // a key started another: it takes the rest
			d.job.keys = append(d.job.keys, job.keys[i:]...)
			break
		}
		cmds = append(cmds, a.handleKey(k))
	}
	return tea.Batch(cmds...)
}

// queue keeps a key pressed while a job runs; a key that seeks elsewhere
// (home, end, back) cancels the job, which then stands where it stopped.
// Steps forward (→, >) add up: three → go three stops on.
func (d *replayDriver) queue(msg tea.KeyPressMsg) {
	switch msg.String() {
	case "left", "home", "end", "<", ",":
		d.job.cancel()
	}
	if len(d.job.keys) < maxQueuedKeys {
		d.job.keys = append(d.job.keys, msg)
	}
}

// stop cancels the job running, if any, and waits for it to let go of
// the pages (it stops after the record it is feeding).
func (d *replayDriver) stop() {
	if d == nil || d.job == nil {
		return
	}
	d.job.cancel()
	<-d.job.done
	d.job = nil
}

func (d *replayDriver) tick() tea.Cmd {
	d.seq++
	seq := d.seq
	d.ticking = true
	return tea.Tick(replayTick, func(time.Time) tea.Msg { return replayTickMsg{d: d, seq: seq} })
}

func (d *replayDriver) pause() {
	d.clock.setPaused(true)
	d.seq++ // the tick in flight is stale
	d.ticking = false
}

// update handles the driver's messages.
func (d *replayDriver) update(msg tea.Msg) (tea.Cmd, bool) {
	if d == nil {
		return nil, false
	}
	if m, ok := msg.(replaySeekedMsg); ok {
		return d.seeked(m), true
	}
	if d.busy() {
		return nil, true // the pages are the job's
	}
	m, ok := msg.(replayTickMsg)
	if !ok {
		return nil, false
	}
	if m.d != d || m.seq != d.seq || d.clock.paused {
		return nil, true
	}
	t := d.clock.now()
	if !t.Before(d.r.End) {
		d.seek(context.Background(), d.r.End)
		d.pause()
		return nil, true
	}
	d.advance(context.Background(), t)
	return d.tick(), true
}

// key handles the replay's keys; it reports false for any other.
func (d *replayDriver) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "space":
		if d.clock.paused {
			return d.play(), true
		}
		d.pause()
		d.relayout()
		return nil, true
	case "right":
		return d.background(time.Time{}, !d.clock.paused, func(ctx context.Context) { d.seek(ctx, d.nextStop(ctx, &d.points)) }), true
	case "left":
		t := prevStop(d.points, d.now, d.r.Start)
		return d.background(t, !d.clock.paused, func(ctx context.Context) { d.seek(ctx, t) }), true
	case ">", ".":
		return d.background(time.Time{}, !d.clock.paused, func(ctx context.Context) { d.seek(ctx, d.nextStop(ctx, &d.rebalances)) }), true
	case "<", ",":
		t := prevStop(d.rebalances, d.now, d.r.Start)
		return d.background(t, !d.clock.paused, func(ctx context.Context) { d.seek(ctx, t) }), true
	case "home":
		return d.background(d.r.Start, !d.clock.paused, func(ctx context.Context) { d.seek(ctx, d.r.Start) }), true
	case "end":
		return d.background(d.r.End, false, func(ctx context.Context) { d.seek(ctx, d.r.End) }), true
	case "+", "=":
		d.clock.setSpeed(stepSpeed(d.clock.speed, true))
	case "-", "_":
		d.clock.setSpeed(stepSpeed(d.clock.speed, false))
	default:
		if g := d.app.group; g != nil && g.demo != nil && !g.Capturing() {
			for _, k := range g.demo.keys {
				if slices.Contains(k.binding.Keys(), msg.String()) {
					g.demo.show("replay: "+msg.String()+" ("+k.binding.Help().Desc+") does nothing here, this is a recording of what happened", true, d.now)
					g.relayout()
					return nil, true
				}
			}
		}
		return nil, false
	}
	d.relayout()
	return nil, true
}

// nextStop is the time of the first record after now that adds to stops
// (d.points: gives events; d.rebalances: begins a rebalance): the first
// pass's, once it has read the recording through, else found by feeding
// the records on the way; the end when there is none, where it stopped
// when ctx ends.
func (d *replayDriver) nextStop(ctx context.Context, stops *[]time.Time) time.Time {
	// The first pass knows them all: no feeding on the way (of an
	// overview recording, while the overview shows).
	if all, ok := d.index.stops(stops == &d.rebalances); ok && (!d.r.Overview || d.app.group == nil) {
		if i, _ := slices.BinarySearchFunc(all, d.now, func(s, now time.Time) int {
			if s.After(now) {
				return 1
			}
			return -1
		}); i < len(all) {
			return all[i]
		}
		return d.r.End
	}
	n := len(*stops)
	for ctx.Err() == nil {
		rec := d.peek()
		if rec == nil {
			return d.r.End
		}
		d.next = nil
		d.apply(rec)
		if len(*stops) > n {
			return (*stops)[len(*stops)-1]
		}
	}
	return d.now
}

// prevStop is the last of stops before now; start when there is none.
func prevStop(stops []time.Time, now, start time.Time) time.Time {
	for i := len(stops) - 1; i >= 0; i-- {
		if stops[i].Before(now) {
			return stops[i]
		}
	}
	return start
}

// stepSpeed is the next speed up or down the ladder from s.
func stepSpeed(s float64, up bool) float64 {
	if up {
		for _, v := range replaySpeeds {
			if v > s {
				return v
			}
		}
		return max(s, replaySpeeds[len(replaySpeeds)-1])
	}
	for i := len(replaySpeeds) - 1; i >= 0; i-- {
		if replaySpeeds[i] < s {
			return replaySpeeds[i]
		}
	}
	return min(s, replaySpeeds[0])
}

func clampTime(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		return lo
	}
	if t.After(hi) {
		return hi
	}
	return t
}

// barHeight is the replay bar's height: one line over the page.
func (d *replayDriver) barHeight() int {
	if d == nil {
		return 0
	}
	return 1
}

// bar is the replay's line over the page: REPLAY, the recorded wall-clock
// time, where in the recording, the speed and the keys.
func (d *replayDriver) bar(w int) string {
	st := d.app.styles
	if j := d.job; j != nil {
		to := "the next stop"
		if !j.to.IsZero() {
			to = playPos(j.to.Sub(j.start)) + " / " + playPos(j.end.Sub(j.start))
		}
		segs := []string{st.Banner.Render("⏩ REPLAY"), st.Label.Render("seeking to " + to + "…"), st.Muted.Render("q quits · keys wait for it")}
		return truncate(strings.Join(segs, st.Separator.Render(" · ")), w, ellipsis)
	}
	glyph, state := "▶", "playing"
	switch {
	case d.readErr != nil && d.done && d.next == nil && !d.now.Before(d.r.End):
		glyph, state = "■", "the recording stops here: "+flatText(d.readErr.Error())
	case !d.now.Before(d.r.End):
		glyph, state = "■", "end of recording"
		if d.r.EndNote != "" {
			state += " (" + d.r.EndNote + ")"
		}
	case d.clock.paused:
		glyph, state = "⏸", "paused"
	}
	speed := strconv.FormatFloat(d.clock.speed, 'f', -1, 64) + "×"
	segs := []string{
		st.Banner.Render(glyph + " REPLAY"),
		st.Value.Render(d.now.Format("2006-01-02 15:04:05")),
		st.Value.Render(playPos(d.now.Sub(d.r.Start)) + " / " + playPos(d.r.End.Sub(d.r.Start))),
		st.Value.Render(speed),
		st.Label.Render(state),
	}
	if d.notice != "" && d.r.Wall().Sub(d.noticeAt) < flashFor {
		segs = append(segs, st.Banner.Render(d.notice))
	} else {
		play := "pause"
		if d.clock.paused {
			play = "play"
		}
		segs = append(segs, st.Muted.Render("space "+play+" · ←/→ event · </> rebalance · +/- speed · home/end"))
	}
	return truncate(strings.Join(segs, st.Separator.Render(" · ")), w, ellipsis)
}

// playPos is a position in the recording as players show it: "1:30",
// "1:02:03".
func playPos(d time.Duration) string {
	d = max(d, 0).Truncate(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}

// playClock is the virtual clock: it runs at speed from pos, set when
// the wall clock read anchor, unless paused.
type playClock struct {
	wall   func() time.Time
	pos    time.Time
	anchor time.Time
	speed  float64
	paused bool
}

func (c *playClock) now() time.Time {
	if c.paused {
		return c.pos
	}
	return c.pos.Add(time.Duration(float64(c.wall().Sub(c.anchor)) * c.speed))
}

func (c *playClock) set(t time.Time) { c.pos, c.anchor = t, c.wall() }

func (c *playClock) setPaused(p bool) {
	c.set(c.now())
	c.paused = p
}

func (c *playClock) setSpeed(s float64) {
	c.set(c.now())
	c.speed = s
}

// replayDemo is the demo as recorded: its last read, for the demo panel.
// Its actions do nothing (the keys are the driver's, and say so).
type replayDemo struct {
	mu sync.Mutex
	st model.DemoStatus
}

func (r *replayDemo) set(s model.DemoStatus) {
	r.mu.Lock()
	r.st = s
	r.mu.Unlock()
}

func (r *replayDemo) Status(bool) model.DemoStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st
}

func (r *replayDemo) Act(model.DemoAction) (model.DemoOutcome, error) {
	return model.DemoOutcome{}, errors.New("replay: the demo keys do nothing, this is a recording")
}

// replayed shows a recorded demo action's line, as the key said it live.
func (p *demoPanel) replayed(a model.DemoAction, out model.DemoOutcome, errText string, now time.Time) {
	if errText != "" {
		p.show(errText, true, now)
		return
	}
	for _, k := range p.keys {
		if k.act(a.ClientID, a.Rate).Kind == a.Kind {
			p.show(k.say(out, a, sayCtx{set: p.set, group: p.group, status: p.status}), false, now)
			return
		}
	}
}
