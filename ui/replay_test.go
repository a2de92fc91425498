package ui

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// memReader reads a recording held in memory.
type memReader struct{ *record.Reader }

func (memReader) Close() error { return nil }

// recording is a recording of order-workers: the group stable, consumer-c
// joining, a failed poll, the group back with consumer-c gone; with a demo
// read and a kill when demo is set.
func recording(t *testing.T, demo bool) (data []byte, end time.Time) {
	t.Helper()
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Group: "order-workers", Brokers: testBrokers, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	snap := func(s model.Snapshot, sec float64) {
		s.TakenAt, s.CompletedAt = at(sec).Add(-10*time.Millisecond), at(sec)
		if err := w.Snapshot(at(sec), "order-workers", s); err != nil {
			t.Fatal(err)
		}
	}
	snap(stableSnapshot(), 1)
	if demo {
		w.DemoStatus(at(1.2), model.DemoStatus{Rate: 5, HasLedger: true,
			Ledger:    model.Ledger{Produced: 4242, Processed: 4240, InFlight: 2},
			Consumers: []model.DemoConsumer{{ClientID: "consumer-a", State: model.DemoRunning}, {ClientID: "consumer-b", State: model.DemoKilled, KilledAt: at(1.2)}}})
		w.DemoAction(at(1.2), model.DemoAction{Kind: model.DemoKill, ClientID: "consumer-b"}, model.DemoOutcome{}, "")
		w.Event(at(1.2), "order-workers", model.Event{Time: at(1.2), Type: model.EventDemoKilled, ClientID: "consumer-b", Detail: "consumer-b killed: connections cut, no LeaveGroup"})
	}
	snap(stableSnapshot(), 2)
	snap(rebalancingSnapshot(), 3)
	// A poll begun at 3.2s that failed at 4s: the outage's least counts
	// from its start, as the live watch counted it.
	w.PollFailed(at(3.2), at(4), "order-workers", "dial tcp 127.0.0.1:19092: connection refused")
	snap(stableSnapshot(), 5)
	snap(stableSnapshot(), 8)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), at(8)
}

// replayApp plays data on the wall clock clk, sized 120×40.
func replayApp(t *testing.T, data []byte, end time.Time, clk *clock, demo bool) *App {
	t.Helper()
	r := Replay{
		Group: "order-workers", Start: t0, End: end, Wall: clk.Now, Demo: demo,
		DemoSettings: DemoSettings{SessionTimeout: 3 * time.Second, Commit: "after"},
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			return memReader{rd}, err
		},
	}
	a := NewReplay(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if a.Init() == nil && settle(a) == nil {
		t.Fatal("the replay does not start playing")
	}
	return a
}

// tickAfter moves the wall clock on by d and delivers the replay's tick.
func tickAfter(a *App, clk *clock, d time.Duration) {
	clk.Set(clk.Now().Add(d))
	a.Update(replayTickMsg{d: a.replay, seq: a.replay.seq})
}

var replayKeys = map[string]tea.KeyPressMsg{
	"space": {Code: tea.KeySpace}, "left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight},
	"home": {Code: tea.KeyHome}, "end": {Code: tea.KeyEnd},
}

func replayPress(a *App, k string) tea.Cmd {
	m, ok := replayKeys[k]
	if !ok {
		m = keyPress(k)
	}
	_, cmd := a.Update(m)
	if a.replay.busy() {
		return settle(a)
	}
	return cmd
}

// settle waits for the replay's seek running off the loop, if any, and
// hands its end to the loop as the program would; it returns what that
// gave (the clock's next tick).
func settle(a *App) tea.Cmd {
	var cmd tea.Cmd
	for a.replay.busy() {
		job := a.replay.job
		<-job.done
		_, cmd = a.Update(replaySeekedMsg{d: a.replay, job: job})
	}
	return cmd
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func wantOnScreen(t *testing.T, a *App, what string, wants ...string) string {
	t.Helper()
	s := plain(a)
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Fatalf("%s: %q not on screen:\n%s", what, w, s)
		}
	}
	return s
}

func TestReplayPlaysPausesJumpsAndRewinds(t *testing.T) {
	data, end := recording(t, false)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	a := replayApp(t, data, end, clk, false)
	wantOnScreen(t, a, "at the start", "▶ REPLAY", t0.Local().Format("2006-01-02 15:04:05"), "0:00 / 0:08", "1×")

	// Playing: the clock passes the first poll.
	tickAfter(a, clk, 1500*time.Millisecond)
	s := wantOnScreen(t, a, "after 1.5s", "0:01 / 0:08", "consumer-a", "watching order-workers")
	if strings.Contains(s, "consumer-c") {
		t.Fatalf("consumer-c before it joined:\n%s", s)
	}

	// Paused, the wall clock moves and the recording does not.
	replayPress(a, "space")
	tickAfter(a, clk, 5*time.Second)
	wantOnScreen(t, a, "paused", "⏸ REPLAY", "paused", "0:01 / 0:08")

	// → to the next event: consumer-c joins at 0:03.
	replayPress(a, "right")
	wantOnScreen(t, a, "after →", "0:03 / 0:08", "consumer-c joined")
	// → again: the failed poll, and its banner.
	replayPress(a, "right")
	wantOnScreen(t, a, "after → →", "0:04 / 0:08", "connection lost", "poll failed")
	// ← back to the join, the pages rebuilt from the start: no outage yet.
	replayPress(a, "left")
	s = wantOnScreen(t, a, "after ←", "0:03 / 0:08", "consumer-c joined")
	if strings.Contains(s, "connection lost") || strings.Contains(s, "poll failed") {
		t.Fatalf("← kept what came after:\n%s", s)
	}

	// Speed up, then play on: 2× runs 2s of recording in 1s.
	replayPress(a, "+")
	wantOnScreen(t, a, "after +", "2×")
	if cmd := replayPress(a, "space"); cmd == nil {
		t.Fatal("space did not start the clock again")
	}
	tickAfter(a, clk, time.Second)
	wantOnScreen(t, a, "2× for 1s", "0:05 / 0:08", "connection restored")
	replayPress(a, "-")
	replayPress(a, "-")
	wantOnScreen(t, a, "after - -", "1×")

	replayPress(a, "end")
	wantOnScreen(t, a, "at the end", "■ REPLAY", "end of recording", "0:08 / 0:08")
	replayPress(a, "home")
	s = wantOnScreen(t, a, "back home", "0:00 / 0:08")
	if strings.Contains(s, "consumer-a") {
		t.Fatalf("home kept the polls:\n%s", s)
	}
	if !strings.Contains(a.View().WindowTitle, "REPLAY") {
		t.Errorf("window title %q does not say REPLAY", a.View().WindowTitle)
	}
}

// TestReplayViewsWorkAsLive: the lanes, the members pane and the timeline
// answer their keys in a replay, and sort and filter survive going back.
// The replay bounds an outage as the live watch did: from the start of
// the first failed poll (3.2s) to the failure (4s), at most from the last
// good poll (3s) to the next (5s).
func TestReplayBoundsAnOutageAsLive(t *testing.T) {
	data, end := recording(t, false)
	a := replayApp(t, data, end, testutil.NewClock(time.Unix(1_000_000, 0)), false)
	replayPress(a, "end")
	wantOnScreen(t, a, "outage", "connection restored after 0.80s–2.00s")
}

func TestReplayViewsWorkAsLive(t *testing.T) {
	data, end := recording(t, false)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	a := replayApp(t, data, end, clk, false)
	replayPress(a, "end")
	replayPress(a, "v")
	wantOnScreen(t, a, "lanes", "Ownership lanes")
	replayPress(a, "v")
	replayPress(a, "/")
	for _, r := range "payments" {
		replayPress(a, string(r))
	}
	a.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	s := wantOnScreen(t, a, "filtered", "payments")
	if strings.Contains(s, "order-rebalancing         0") {
		t.Fatalf("the filter shows other topics:\n%s", s)
	}
	replayPress(a, "left") // back: the page is rebuilt, the filter kept
	s = plain(a)
	if !strings.Contains(s, "payments") || strings.Contains(s, "order-rebalancing         0") {
		t.Fatalf("going back lost the filter:\n%s", s)
	}
	replayPress(a, "tab")
	replayPress(a, "tab")
	wantOnScreen(t, a, "timeline focused", "■ Timeline")
}

func TestReplayOfADemo(t *testing.T) {
	data, end := recording(t, true)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	a := replayApp(t, data, end, clk, true)
	tickAfter(a, clk, 1400*time.Millisecond)
	wantOnScreen(t, a, "after the kill", "produced 4,242", "consumer-b killed: no LeaveGroup, the group waits 3s", "✗ killed · evicted in 2.8s")
	replayPress(a, "end")
	wantOnScreen(t, a, "once the line is gone", "replay: the demo keys are off")

	replayPress(a, "n")
	wantOnScreen(t, a, "n in a replay", "replay: n (add consumer) does nothing here")
	if s := plain(a); strings.Contains(s, "n add consumer") {
		t.Errorf("help lists a demo key that does nothing:\n%s", s)
	}

	// q quits at once: a replay is not a demo to lose.
	if cmd := replayPress(a, "q"); cmd == nil {
		t.Fatal("q did not quit the replay")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q asked for confirmation in a replay")
	}
}

// TestReplayStopsAtADamagedRecord: a recording that cannot be read to
// its end plays up to its last good record and says where it stops.
func TestReplayStopsAtADamagedRecord(t *testing.T) {
	data, end := recording(t, false)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	for name, open := range map[string]func() (ReplayReader, error){
		"unreadable": func() (ReplayReader, error) { return nil, errors.New("open x.kgw: permission denied") },
		"cut short": func() (ReplayReader, error) {
			// Cut inside the last records (where a cut falls between
			// two, the file only lacks its end mark: cut more).
			for n := 20; n < len(data); n += 5 {
				rd, err := record.NewReader(bytes.NewReader(data[:len(data)-n]))
				if err != nil {
					return nil, err
				}
				var end error
				for end == nil {
					_, end = rd.Next()
				}
				if de := (*record.DamagedError)(nil); errors.As(end, &de) && de.Truncated {
					rd, err := record.NewReader(bytes.NewReader(data[:len(data)-n]))
					return memReader{rd}, err
				}
			}
			return nil, errors.New("no cut makes a record short")
		},
		// The poll at 5s has a byte too many: End (8s) is past what
		// can be played.
		"corrupt midway": func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(corruptRecord(t, data, 5)))
			return memReader{rd}, err
		},
	} {
		a := NewReplay(Replay{Group: "order-workers", Start: t0, End: end, Wall: clk.Now, Open: open}, Options{Brokers: testBrokers})
		a.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
		a.Init()
		replayPress(a, "end")
		want := "the recording stops here: open x.kgw: permission denied"
		switch name {
		case "cut short":
			want = "the recording stops here: the last record is cut short"
		case "corrupt midway":
			want = "the recording stops here: a record is corrupt (a poll: 1 bytes left over)"
		}
		s := wantOnScreen(t, a, name, want)
		if name == "corrupt midway" && !strings.Contains(s, "0:04 / 0:04") {
			t.Errorf("%s: the position is not at the last good record (the failed poll at 0:04):\n%s", name, firstLine(s))
		}
		if name == "corrupt midway" {
			// Played rather than jumped to: the clock stops there too.
			replayPress(a, "home")
			replayPress(a, "space")
			for range 6 {
				tickAfter(a, clk, 2*time.Second)
			}
			s := wantOnScreen(t, a, name+", played", want, "0:04 / 0:04")
			if strings.Contains(s, "playing") {
				t.Errorf("%s: still playing past the damage:\n%s", name, firstLine(s))
			}
		}
	}
}

// corruptRecord is data with a byte added to the body of its n-th record
// (the header is the 0th).
func corruptRecord(t *testing.T, data []byte, n int) []byte {
	t.Helper()
	nl := bytes.IndexByte(data, '\n')
	z, err := gzip.NewReader(bytes.NewReader(data[nl+1:]))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.Write(data[:nl+1])
	zw := gzip.NewWriter(&out)
	for i := 0; len(raw) > 0; i++ {
		size, w := binary.Uvarint(raw[1:])
		body := raw[1+w : 1+w+int(size)]
		if i == n {
			body = append(append([]byte(nil), body...), 0)
		}
		zw.Write(append(binary.AppendUvarint([]byte{raw[0]}, uint64(len(body))), body...))
		raw = raw[1+w+int(size):]
	}
	zw.Close()
	return out.Bytes()
}

func TestStepSpeed(t *testing.T) {
	for _, c := range []struct {
		from float64
		up   bool
		want float64
	}{
		{1, true, 2}, {2, true, 4}, {4, true, 10}, {10, true, 60}, {60, true, 60}, {3, true, 4}, {100, true, 100},
		{60, false, 10}, {1, false, 1}, {3, false, 2}, {0.5, false, 0.5}, {0.5, true, 1},
	} {
		if got := stepSpeed(c.from, c.up); got != c.want {
			t.Errorf("stepSpeed(%g, %v) = %g, want %g", c.from, c.up, got, c.want)
		}
	}
}

// TestReplayOfAnOverview: an overview recording shows the overview as it
// was polled; enter opens a group recorded from it, fed from the start up
// to now; one never opened says so; esc goes back.
func TestReplayOfAnOverview(t *testing.T) {
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Overview: true, Brokers: testBrokers, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	groups := func(lag int64) []model.GroupSummary {
		return []model.GroupSummary{
			{ID: "order-workers", State: model.StateStable, Members: 2, Partitions: 7, Committed: 6, TotalLag: lag},
			{ID: "billing", State: model.StateEmpty, Partitions: 1, Committed: 1, TotalLag: 3},
		}
	}
	w.Overview(at(1), groups(527))
	w.Overview(at(2), groups(527))
	s := stableSnapshot()
	s.TakenAt, s.CompletedAt = at(3), at(3)
	w.Snapshot(at(3), "order-workers", s)
	w.OverviewFailed(at(4), "dial tcp: connection refused")
	w.Overview(at(5), groups(9000))
	w.Close()
	data := buf.Bytes()
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	a := NewReplay(Replay{
		Overview: true, Groups: []string{"order-workers"}, Start: t0, End: at(5), Wall: clk.Now,
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			return memReader{rd}, err
		},
	}, Options{Brokers: testBrokers, Interval: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Init()
	tickAfter(a, clk, 1500*time.Millisecond)
	wantOnScreen(t, a, "the overview", "all groups", "order-workers", "billing", "updated 0.5s ago")
	replayPress(a, "space")
	replayPress(a, "right") // the next change of the overview: the failed poll
	wantOnScreen(t, a, "→", "0:04 / 0:05", "poll failed")
	replayPress(a, "right")
	wantOnScreen(t, a, "→ →", "0:05 / 0:05", "9,000")

	replayPress(a, "home")
	tickAfter(a, clk, 0)
	replayPress(a, "right")
	replayPress(a, "right")
	// order-workers has the most lag: the cursor is on it.
	a.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	settle(a) // fed off the loop up to now
	wantOnScreen(t, a, "the group opened", "kgwatch · order-workers", "consumer-a", "watching order-workers")
	a.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	wantOnScreen(t, a, "back", "all groups", "billing")
	replayPress(a, "j")
	a.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	settle(a)
	wantOnScreen(t, a, "a group never opened", "billing was not opened while recording")
}

// TestReplayFitsEverySize: the REPLAY line and the page fit the terminal,
// down to nothing, at every step of a recording.
func TestReplayFitsEverySize(t *testing.T) {
	data, end := recording(t, true)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	a := replayApp(t, data, end, clk, true)
	for _, sz := range [][2]int{{120, 40}, {80, 24}, {40, 10}, {20, 3}, {1, 1}, {0, 0}} {
		a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		replayPress(a, "home")
		for range 8 {
			checkFits(t, plain(a), sz[0], sz[1])
			replayPress(a, "right")
		}
		if sz[1] >= 3 && sz[0] >= 20 && !strings.Contains(firstLine(plain(a)), "REPLAY") {
			t.Errorf("%dx%d: no REPLAY on the first line:\n%s", sz[0], sz[1], plain(a))
		}
	}
}

// A replayed overview shows its polls as the live one does: in the
// viewer's sort, through the viewer's filter, which the next recorded poll
// keeps (it set the rows as recorded, undoing both).
func TestReplayedOverviewKeepsTheView(t *testing.T) {
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Overview: true, Brokers: testBrokers, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	groups := func(lag int64) []model.GroupSummary {
		return []model.GroupSummary{
			{ID: "billing", State: model.StateEmpty, Partitions: 1, Committed: 1, TotalLag: 3},
			{ID: "order-workers", State: model.StateStable, Members: 2, Partitions: 7, Committed: 6, TotalLag: lag},
		}
	}
	w.Overview(at(1), groups(527))
	w.Overview(at(2), groups(600))
	w.Overview(at(3), groups(9000))
	w.Close()
	data := buf.Bytes()
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	a := NewReplay(Replay{
		Overview: true, Start: t0, End: at(3), Wall: clk.Now,
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			return memReader{rd}, err
		},
	}, Options{Brokers: testBrokers, Interval: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Init()
	tickAfter(a, clk, 1500*time.Millisecond)
	if s := plain(a); strings.Index(s, "order-workers") > strings.Index(s, "billing") {
		t.Errorf("the overview is in the recorded order, not sorted (by status, then lag):\n%s", s)
	}
	for _, k := range []string{"/", "b", "i", "l", "l", "enter"} {
		a.Update(ovKey(k))
	}
	replayPress(a, "right")
	s := wantOnScreen(t, a, "filtered, one poll on", "filter \"bill\"", "billing")
	if strings.Contains(s, "order-workers") {
		t.Errorf("the next recorded poll undid the filter:\n%s", s)
	}
}
