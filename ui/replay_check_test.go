package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// variedRecording is order-workers polled every second for secs
// seconds with keyframes every 4 polls or more: rebalances (consumer-c
// joining and leaving), failed polls and an outage, and in demo mode demo reads, actions and
// events between.
func variedRecording(t testing.TB, secs int, demo bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Group: "order-workers", Brokers: testBrokers, Interval: time.Second, Keyframes: 4})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for s := 1; s <= secs; s++ {
		switch {
		case s%23 == 7 || s >= 50 && s < 85: // an outage of 35 polls holds a keyframe
			if err := w.PollFailed(at(s).Add(-800*time.Millisecond), at(s), "order-workers", "dial tcp 127.0.0.1:19092: connection refused"); err != nil {
				t.Fatal(err)
			}
			continue
		case demo && s%11 == 3:
			w.DemoStatus(at(s), model.DemoStatus{Rate: float64(s % 7), HasLedger: true,
				Ledger:    model.Ledger{Produced: int64(100 * s), Processed: int64(100*s - s%9)},
				Consumers: []model.DemoConsumer{{ClientID: "consumer-a", State: model.DemoRunning}, {ClientID: "consumer-b", State: model.DemoKilled, KilledAt: at(s)}}})
			w.DemoAction(at(s), model.DemoAction{Kind: model.DemoKill, ClientID: "consumer-b"}, model.DemoOutcome{}, "")
			w.Event(at(s), "order-workers", model.Event{Time: at(s), Type: model.EventDemoKilled, ClientID: "consumer-b", Detail: "consumer-b killed"})
		}
		snap := stableSnapshot()
		if s%17 == 5 || s%17 == 6 {
			snap = rebalancingSnapshot()
		}
		for i := range snap.Partitions {
			snap.Partitions[i].LogEnd += int64(s * 3)
			snap.Partitions[i].Committed += int64(s*3 - s%4)
			snap.Partitions[i].Lag = snap.Partitions[i].LogEnd - snap.Partitions[i].Committed
		}
		snap.TakenAt, snap.CompletedAt = at(s).Add(-10*time.Millisecond), at(s)
		if err := w.Snapshot(at(s), "order-workers", snap); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// memOpens are a Replay's Open and, with resume, Resume, reading data.
func memOpens(data []byte, resume bool) (open func() (ReplayReader, error), res func(record.Mark) (ReplayReader, error)) {
	open = func() (ReplayReader, error) {
		rd, err := record.NewReader(bytes.NewReader(data))
		return memReader{rd}, err
	}
	if resume {
		res = func(m record.Mark) (ReplayReader, error) {
			rd, err := record.Resume(bytes.NewReader(data), m)
			return memReader{rd}, err
		}
	}
	return open, res
}

// playing starts r sized w×h, as the program starts a replay.
func playing(r Replay, opts Options, w, h int) *App {
	a := NewReplay(r, opts)
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	a.Init()
	settle(a)
	return a
}

// checkedReplay plays data; resume: with checkpoints (one at every
// keyframe), else fed from the start on every seek back.
func checkedReplay(t testing.TB, data []byte, secs int, demo, resume bool) *App {
	t.Helper()
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	r := Replay{
		Group: "order-workers", Start: t0, End: t0.Add(time.Duration(secs) * time.Second), Wall: clk.Now, Paused: true,
		Demo: demo, DemoSettings: DemoSettings{SessionTimeout: 3 * time.Second, Commit: "after"},
		checkCost: 1,
	}
	r.Open, r.Resume = memOpens(data, resume)
	a := playing(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second}, 120, 40)
	return a
}

// indexed waits for a's first pass to read the recording through.
func indexed(t testing.TB, a *App) *replayIndex {
	t.Helper()
	ix := a.replay.index
	if ix == nil {
		t.Fatal("no first pass")
	}
	testutil.WaitFor(t, time.Minute, "the first pass", func() bool {
		_, done := ix.stops(false)
		return done
	})
	return ix
}

// seekTo seeks a to t off the loop, as a key does, and waits for it.
func seekTo(a *App, t time.Time) {
	d := a.replay
	d.background(t, false, func(ctx context.Context) { d.seek(ctx, t) })
	settle(a)
}

// sameReplay fails unless a and b show the same screen, timeline and
// stops.
func sameReplay(t *testing.T, what string, a, b *App) {
	t.Helper()
	if !a.replay.now.Equal(b.replay.now) {
		t.Fatalf("%s: at %s, fed from the start %s", what, a.replay.now.Sub(t0), b.replay.now.Sub(t0))
	}
	if sa, sb := plain(a), plain(b); sa != sb {
		t.Fatalf("%s: the screen from a checkpoint:\n%s\nfed from the start:\n%s", what, sa, sb)
	}
	ea, eb := a.group.pipe.Timeline().Events(), b.group.pipe.Timeline().Events()
	if !reflect.DeepEqual(ea, eb) {
		t.Fatalf("%s: %d events from a checkpoint, %d fed from the start", what, len(ea), len(eb))
	}
	if !slices.Equal(a.replay.points, b.replay.points) || !slices.Equal(a.replay.rebalances, b.replay.rebalances) {
		t.Fatalf("%s: stops %v / %v from a checkpoint, %v / %v fed from the start", what, a.replay.points, a.replay.rebalances, b.replay.points, b.replay.rebalances)
	}
	// And from here on too: the pipeline and the state go on alike.
	if sa, sb := a.group.pipe.Rebalances(), b.group.pipe.Rebalances(); !reflect.DeepEqual(sa, sb) {
		t.Fatalf("%s: rebalance stats %+v from a checkpoint, %+v fed from the start", what, sa, sb)
	}
}

// A seek from a checkpoint shows what a seek feeding the recording from
// its start shows: the same screen, timeline and stops, wherever it goes
// and by whichever key; and it goes on alike as it plays on. Demo
// recordings too (the demo panel is checkpointed).
func TestReplayCheckpointSeeksAsFromTheStart(t *testing.T) {
	for _, demo := range []bool{false, true} {
		t.Run(fmt.Sprintf("demo=%v", demo), func(t *testing.T) {
			const secs = 120
			data := variedRecording(t, secs, demo)
			a, b := checkedReplay(t, data, secs, demo, true), checkedReplay(t, data, secs, demo, false)
			defer a.Close()
			defer b.Close()
			ix := indexed(t, a)
			// Keyframes every 4 to 32 polls (the writer waits while the
			// polls change little).
			if n := len(ix.checks); n < 3 {
				t.Fatalf("%d checkpoints in 120 polls", n)
			}
			for _, k := range []string{"end", "home", ">", ".", "right", "end", "<", ",", "left", "left"} {
				replayPress(a, k)
				replayPress(b, k)
				sameReplay(t, k, a, b)
			}
			for _, s := range []int{97, 38, 39, 71, 5, 118, 64, 0, 120, 3, 80, 60, 88} {
				at := t0.Add(time.Duration(s) * time.Second)
				seekTo(a, at)
				seekTo(b, at)
				sameReplay(t, fmt.Sprintf("seek to %ds", s), a, b)
			}
			// At each checkpoint's time: restored, nothing fed after.
			for i, c := range ix.checks {
				seekTo(a, c.at)
				seekTo(b, c.at)
				sameReplay(t, fmt.Sprintf("seek to checkpoint %d, %s", i, c.at.Sub(t0)), a, b)
			}
			if a.replay.restored < 10 {
				t.Fatalf("%d seeks from a checkpoint: the test shows too little", a.replay.restored)
			}
			if b.replay.restored != 0 {
				t.Fatal("a replay without Resume restored a checkpoint")
			}
			// Playing on from a restored checkpoint: the same too.
			seekTo(a, t0.Add(41*time.Second))
			seekTo(b, t0.Add(41*time.Second))
			for s := 42; s < 60; s += 3 {
				a.replay.advance(context.Background(), t0.Add(time.Duration(s)*time.Second))
				b.replay.advance(context.Background(), t0.Add(time.Duration(s)*time.Second))
				sameReplay(t, fmt.Sprintf("played on to %ds", s), a, b)
			}
		})
	}
}

// gatedOpens is a recording whose second reading (the first pass's) is
// held still at its 20th record until gate closes.
type gatedOpens struct {
	mu   sync.Mutex
	data []byte
	n    int
	gr   *gatedReader
}

func (g *gatedOpens) open() (ReplayReader, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	rd, err := record.NewReader(bytes.NewReader(g.data))
	if g.n != 2 {
		return memReader{rd}, err
	}
	return g.gr, err
}

// Keys are answered while the first pass reads: the seeks feed as
// without it, and the jumps then use what it found.
func TestReplayKeysAnsweredDuringTheFirstPass(t *testing.T) {
	const secs = 60
	data := variedRecording(t, secs, false)
	g := &gatedOpens{data: data, gr: &gatedReader{n: 20, gate: make(chan struct{}), blocked: make(chan struct{})}}
	rd, _ := record.NewReader(bytes.NewReader(data))
	g.gr.Reader = rd
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	r := Replay{
		Group: "order-workers", Start: t0, End: t0.Add(secs * time.Second), Wall: clk.Now, Paused: true,
		checkCost: 1,
	}
	_, r.Resume = memOpens(data, true)
	r.Open = g.open
	a := NewReplay(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second})
	defer a.Close()
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Init()
	settle(a)
	<-g.gr.blocked // the first pass is held
	replayPress(a, "end")
	wantOnScreen(t, a, "end during the first pass", "1:00 / 1:00")
	replayPress(a, "<")
	wantOnScreen(t, a, "< during the first pass", "0:39 / 1:00") // the outage from 0:50 on
	replayPress(a, "home")
	replayPress(a, ">")
	wantOnScreen(t, a, "> during the first pass", "0:05 / 1:00")
	close(g.gr.gate)
	indexed(t, a)
	replayPress(a, ">")
	wantOnScreen(t, a, "> after the first pass", "0:22 / 1:00")
	replayPress(a, "end")
	replayPress(a, "<")
	wantOnScreen(t, a, "end < after the first pass", "0:39 / 1:00")
	if a.replay.restored == 0 {
		t.Fatal("no seek after the first pass started from a checkpoint")
	}
}

// A recording of format 1 has no keyframes: a seek back feeds it from
// its start, and shows what it showed; only end has a checkpoint, the
// first pass's last.
func TestReplayOldFormatSeeks(t *testing.T) {
	data, err := os.ReadFile("../model/record/testdata/format1.kgw")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := record.Scan(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	h := sum.Header
	replay := func(resume bool) *App {
		clk := testutil.NewClock(time.Unix(1_000_000, 0))
		r := Replay{
			Group: h.Group, Start: h.Started, End: sum.Last, Wall: clk.Now, Paused: true,
			checkCost: 1,
		}
		r.Open, _ = memOpens(data, false)
		if resume {
			r.Resume = func(record.Mark) (ReplayReader, error) {
				return nil, errors.New("a format 1 recording has no keyframe")
			}
		}
		a := playing(r, Options{Brokers: h.Brokers, Interval: h.Interval, Timeout: time.Second}, 120, 40)
		return a
	}
	a, b := replay(true), replay(false)
	defer a.Close()
	defer b.Close()
	ix := indexed(t, a)
	if len(ix.checks) != 1 || !ix.checks[0].final {
		t.Fatalf("%d checkpoints in a recording without keyframes, want the last alone", len(ix.checks))
	}
	for _, k := range []string{"end", "home", "right", "end", "left", "home", "end"} {
		replayPress(a, k)
		replayPress(b, k)
		sameReplay(t, k, a, b)
	}
	mid := h.Started.Add(sum.Last.Sub(h.Started) / 2)
	seekTo(a, mid)
	seekTo(b, mid)
	sameReplay(t, "the middle", a, b)
	if a.replay.restored != 3 {
		t.Fatalf("%d seeks from a checkpoint, want the 3 ends", a.replay.restored)
	}
}

// An overview recording's seeks from a checkpoint show what feeding it
// from the start shows, while the overview shows; with a group open the
// seeks feed from the start, as before.
func TestReplayOverviewCheckpointSeeksAsFromTheStart(t *testing.T) {
	const secs = 90
	opts := Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Judging: model.Judging{StallAfter: 3 * time.Second}}
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Overview: true, Brokers: testBrokers, Interval: time.Second, StallAfter: opts.StallAfter, Keyframes: 3})
	if err != nil {
		t.Fatal(err)
	}
	for sec := 1; sec <= secs; sec++ {
		at := t0.Add(time.Duration(sec) * time.Second)
		if sec%13 == 4 || sec >= 40 && sec < 52 {
			if err := w.OverviewFailed(at, "dial tcp: connection refused"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		o := rawOverview(min(sec%29, 9)) // the same groups for a while
		o.TakenAt = at
		if err := w.OverviewPoll(at, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	replay := func(resume bool) *App {
		r := Replay{
			Overview: true, Start: t0, End: t0.Add(secs * time.Second), Paused: true, Wall: testutil.NewClock(time.Unix(1_000_000, 0)).Now,
			checkCost: 1,
		}
		r.Open, r.Resume = memOpens(data, resume)
		a := playing(r, opts, 120, 30)
		return a
	}
	a, b := replay(true), replay(false)
	defer a.Close()
	defer b.Close()
	ix := indexed(t, a)
	if len(ix.checks) < 5 {
		t.Fatalf("%d checkpoints in %d polls", len(ix.checks), secs)
	}
	same := func(what string) {
		t.Helper()
		if !a.replay.now.Equal(b.replay.now) {
			t.Fatalf("%s: at %s, fed from the start %s", what, a.replay.now.Sub(t0), b.replay.now.Sub(t0))
		}
		if sa, sb := plain(a), plain(b); sa != sb {
			t.Fatalf("%s: the screen from a checkpoint:\n%s\nfed from the start:\n%s", what, sa, sb)
		}
		if !slices.Equal(a.replay.points, b.replay.points) {
			t.Fatalf("%s: stops %v from a checkpoint, %v fed from the start", what, a.replay.points, b.replay.points)
		}
	}
	for _, k := range []string{"end", "home", "right", "right", "end", "left", "left", "home"} {
		replayPress(a, k)
		replayPress(b, k)
		same(k)
	}
	for _, s := range []int{70, 12, 45, 46, 88, 3, 60, 0, 90, 51} {
		at := t0.Add(time.Duration(s) * time.Second)
		seekTo(a, at)
		seekTo(b, at)
		same(fmt.Sprintf("seek to %ds", s))
	}
	// At each checkpoint's time: restored, nothing fed after.
	for i, c := range ix.checks {
		seekTo(a, c.at)
		seekTo(b, c.at)
		same(fmt.Sprintf("seek to checkpoint %d, %s", i, c.at.Sub(t0)))
	}
	if a.replay.restored < 8 {
		t.Fatalf("%d seeks from a checkpoint: the test shows too little", a.replay.restored)
	}
}
