package ui

import (
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
		d.seek(d.r.Start) // at the end, play starts over
	}
	d.clock.setPaused(false)
	return d.tick()
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
	m, ok := msg.(replayTickMsg)
	if !ok || d == nil {
		return nil, false
	}
	if m.d != d || m.seq != d.seq || d.clock.paused {
		return nil, true
	}
	t := d.clock.now()
	if !t.Before(d.r.End) {
		d.seek(d.r.End)
		d.pause()
		return nil, true
	}
	d.advance(t)
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
		d.seek(d.nextPoint())
	case "left":
		d.seek(d.prevPoint())
	case "home":
		d.seek(d.r.Start)
	case "end":
		d.seek(d.r.End)
		d.pause()
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

// nextPoint is the time of the first record after now that gives events,
// feeding the records on the way; the end when there is none.
func (d *replayDriver) nextPoint() time.Time {
	n := len(d.points)
	for {
		rec := d.peek()
		if rec == nil {
			return d.r.End
		}
		d.next = nil
		d.apply(rec)
		if len(d.points) > n {
			d.show()
			return d.points[len(d.points)-1]
		}
	}
}

// prevPoint is the time of the last record before now that gave events;
// the start when there is none.
func (d *replayDriver) prevPoint() time.Time {
	for i := len(d.points) - 1; i >= 0; i-- {
		if d.points[i].Before(d.now) {
			return d.points[i]
		}
	}
	return d.r.Start
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
		segs = append(segs, st.Muted.Render("space "+play+" · ←/→ event · +/- speed · home/end"))
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
