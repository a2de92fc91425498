package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// The tick that starts a poll paints nothing new: the frame stays the one
// the last answer (or clock step) drew, so bubbletea does not repaint it,
// at every interval, on both pages; the clock steps between polls still
// count the age up, and a poll left unanswered moves it at its first
// clock step. The tick that starts a retry does paint: the failed poll's
// banner stops counting down to it. Before, every poll drew two frames, the second only to say
// "updated 0.3s ago" until the answer came a moment later.
func TestPollStartPaintsNothing(t *testing.T) {
	for _, iv := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second} {
		t.Run("group/"+iv.String(), func(t *testing.T) {
			clk := testutil.NewClock(t0)
			good := pollResult{snap: stableSnapshot()}
			src := &fakeSource{results: []pollResult{good, good, good, good, {err: errors.New("boom")}, good}}
			a := New(Watch{Group: "order-workers", Source: src}, Options{
				Brokers: testBrokers, Interval: iv, Timeout: time.Minute, Now: clk.Now,
			})
			a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			feed(t, a, a.Init())
			p := a.group.poll
			pollsStartingUnpainted(t, a, clk, 3,
				func() time.Time { return p.RetryAt },
				func(remaining time.Duration) tea.Msg { return tickOf(a, p.seq, remaining) },
				func() tea.Msg { return clockOf(a) })
			retryPaints(t, a, clk, func() time.Time { return p.RetryAt },
				func(remaining time.Duration) tea.Msg { return tickOf(a, p.seq, remaining) })
		})
		t.Run("overview/"+iv.String(), func(t *testing.T) {
			clk := testutil.NewClock(t0)
			good := overviewResult{groups: overviewGroups()}
			src := &fakeOverview{results: []overviewResult{good, good, good, good, {err: errors.New("boom")}, good}}
			a := NewOverview(src, (&watched{}).watchGroup, Options{Brokers: testBrokers, Interval: iv, Timeout: time.Minute, Now: clk.Now})
			a.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
			feedOverview(t, a, a.Init())
			p := a.overview.poll
			pollsStartingUnpainted(t, a, clk, 3,
				func() time.Time { return p.RetryAt },
				func(remaining time.Duration) tea.Msg {
					return pollTickMsg[model.OverviewObservation]{p: p, seq: p.seq, remaining: remaining}
				},
				func() tea.Msg { return pollClockMsg[model.OverviewObservation]{p: p, seq: p.seq} })
			retryPaints(t, a, clk, func() time.Time { return p.RetryAt },
				func(remaining time.Duration) tea.Msg {
					return pollTickMsg[model.OverviewObservation]{p: p, seq: p.seq, remaining: remaining}
				})
		})
	}
}

// retryPaints runs a's next poll, which fails, and its retry: the tick
// that starts the retry paints the frame again, its banner no longer
// counting down to a retry already running.
func retryPaints(t *testing.T, a *App, clk *clock, retryAt func() time.Time, tick func(remaining time.Duration) tea.Msg) {
	t.Helper()
	clk.Set(retryAt())
	_, cmd := a.Update(tick(0))
	if cmd == nil {
		t.Fatal("the due tick started no poll")
	}
	a.Update(cmd()) // it fails
	if !strings.Contains(plain(a), "poll failed, retry in") {
		t.Fatalf("a failed poll's frame lacks its retry:\n%s", plain(a))
	}
	due := retryAt()
	for at := clk.Now().Add(clockInterval); at.Before(due); at = at.Add(clockInterval) {
		clk.Set(at)
		a.Update(tick(due.Sub(at)))
	}
	before := a.View().Content
	clk.Set(due)
	if _, cmd := a.Update(tick(0)); cmd == nil {
		t.Fatal("the due tick started no retry")
	}
	if a.View().Content == before || strings.Contains(plain(a), "retry in") {
		t.Fatalf("the tick starting the retry left the countdown up:\n%s", plain(a))
	}
}

// pollsStartingUnpainted runs polls polls of a's page on clk: the clock
// steps while it waits for the next (retryAt) change the frame, the due
// tick does not, the poll's first clock step does, and the answer does.
func pollsStartingUnpainted(t *testing.T, a *App, clk *clock, polls int, retryAt func() time.Time, tick func(remaining time.Duration) tea.Msg, clockStep func() tea.Msg) {
	t.Helper()
	frame := func() string { return a.View().Content }
	for n := range polls {
		answered := clk.Now()
		if !strings.Contains(plain(a), "updated 0.0s ago") {
			t.Fatalf("poll %d: the answer's frame lacks \"updated 0.0s ago\":\n%s", n, plain(a))
		}
		due := retryAt()
		// The wait, a clock step a second (poller.after).
		for at := answered.Add(clockInterval); at.Before(due); at = at.Add(clockInterval) {
			before := frame()
			clk.Set(at)
			a.Update(tick(due.Sub(at)))
			want := fmt.Sprintf("updated %s ago", model.Since(at.Sub(answered)))
			if frame() == before || !strings.Contains(plain(a), want) {
				t.Fatalf("poll %d, +%v of the wait: the frame did not count the age up to %q:\n%s", n, at.Sub(answered), want, plain(a))
			}
		}
		before := frame()
		clk.Set(due)
		_, cmd := a.Update(tick(0))
		if cmd == nil {
			t.Fatalf("poll %d: the due tick started no poll", n)
		}
		if got := frame(); got != before {
			t.Fatalf("poll %d: the tick starting the poll painted a new frame:\n%s\nwas:\n%s", n, ansi.Strip(got), ansi.Strip(before))
		}
		msg := cmd()
		if n == polls-1 {
			// The last one goes unanswered for a clock step.
			clk.Set(due.Add(clockInterval))
			a.Update(clockStep())
			want := model.Since(due.Add(clockInterval).Sub(answered))
			if frame() == before || !strings.Contains(plain(a), want) {
				t.Fatalf("a poll unanswered for a clock step: the frame does not say the data is %s old:\n%s", want, plain(a))
			}
		}
		a.Update(msg)
	}
}

// frameCounter counts the frames a program draws: bubbletea's renderer
// writes each in one Write.
type frameCounter struct {
	mu     sync.Mutex
	frames int
}

func (c *frameCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frames++
	return len(p), nil
}

func (c *frameCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frames
}

// busyModel changes its view every 2 ms: a program showing it draws as
// many frames as its frame rate lets it.
type busyModel struct{ n int }

type busyTick struct{}

func busyNext() tea.Cmd {
	return tea.Tick(2*time.Millisecond, func(time.Time) tea.Msg { return busyTick{} })
}

func (m *busyModel) Init() tea.Cmd { return busyNext() }

func (m *busyModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(busyTick); ok {
		m.n++
		return m, busyNext()
	}
	return m, nil
}

func (m *busyModel) View() tea.View { return tea.NewView(strconv.Itoa(m.n)) }

// TestFrameRateIsCapped: a program run with the UI's options draws at
// most FrameRate frames a second however often its view changes (at
// bubbletea's default it drew 60, a tenth of the 10k TUI's CPU). Only an
// upper bound is checked: a slow machine draws fewer, never more.
func TestFrameRateIsCapped(t *testing.T) {
	const run = 600 * time.Millisecond
	w := &frameCounter{}
	opts := append(ProgramOptions(Options{}), tea.WithInput(nil), tea.WithOutput(w), tea.WithWindowSize(80, 24), tea.WithoutSignals())
	p := tea.NewProgram(&busyModel{}, opts...)
	go func() {
		time.Sleep(run)
		p.Quit()
	}()
	start := time.Now()
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	// The frames of the time it ran at FrameRate (a late Quit lets it
	// run longer, never draw faster), plus the first and the last.
	took := time.Since(start)
	if limit := int(took.Seconds()*FrameRate) + 3; w.count() > limit {
		t.Fatalf("%d frames in %s, want at most %d (%d a second)", w.count(), took, limit, FrameRate)
	}
	if w.count() < 2 {
		t.Fatalf("%d frames in %s: the program drew nothing, the test proves nothing", w.count(), run)
	}
}
