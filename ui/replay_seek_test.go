package ui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// gatedReader reads a recording and stops before record n until gate
// closes (a long recording's decoding, held still); blocked closes when
// it waits there.
type gatedReader struct {
	*record.Reader
	n             int
	gate, blocked chan struct{}
}

func (g *gatedReader) Next() (record.Record, error) {
	if g.n--; g.n == 0 {
		close(g.blocked)
		<-g.gate
	}
	return g.Reader.Next()
}

func (*gatedReader) Close() error { return nil }

// quietRecording is order-workers polled every second for secs seconds,
// a rebalance (consumer-c joins, then leaves) beginning at each second of
// rebalances.
func quietRecording(t testing.TB, secs int, rebalances ...int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Group: "order-workers", Brokers: testBrokers, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	rb := map[int]bool{}
	for _, s := range rebalances {
		rb[s] = true
	}
	for s := 1; s <= secs; s++ {
		snap := stableSnapshot()
		if rb[s] {
			snap = rebalancingSnapshot()
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

// `end` on a recording whose reading takes long (here: held still) leaves
// the update loop free: the key returns at once, the page as it was
// stays on screen with the seek said, q quits at once, and closing the
// app stops the seek where it stood rather than reading the rest.
func TestReplaySeekLeavesKeysAndQuitFree(t *testing.T) {
	data := quietRecording(t, 60)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	var gr *gatedReader
	r := Replay{
		Group: "order-workers", Start: t0, End: t0.Add(60 * time.Second), Wall: clk.Now, Paused: true,
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			gr = &gatedReader{Reader: rd, n: 10, gate: make(chan struct{}), blocked: make(chan struct{})}
			return gr, err
		},
	}
	a := NewReplay(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Init()
	returned := make(chan tea.Cmd, 1)
	go func() { _, cmd := a.Update(tea.KeyPressMsg{Code: tea.KeyEnd}); returned <- cmd }()
	<-gr.blocked // the seek is reading, held still
	var cmd tea.Cmd
	select {
	case cmd = <-returned:
	case <-time.After(10 * time.Second): // a guard against a hang, not a timing
		t.Fatal("end blocked the update loop while the recording was read")
	}
	if cmd == nil || !a.replay.busy() {
		t.Fatal("end did not seek off the update loop")
	}
	wantOnScreen(t, a, "while seeking", "seeking to 1:00 / 1:00", "q quits")
	_, cmd = a.Update(keyPress("q"))
	if cmd == nil {
		t.Fatal("q did nothing while seeking")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit while seeking")
	}
	close(gr.gate)
	a.Close()
	if a.replay.busy() || !a.replay.now.Before(t0.Add(60*time.Second)) {
		t.Fatalf("the seek read on to %s after q", a.replay.now.Sub(t0))
	}
}

// A key pressed while a seek runs waits for it; a seek key cancels it
// and then acts from where it stopped.
func TestReplayKeysWaitForTheSeek(t *testing.T) {
	data := quietRecording(t, 30, 12)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	var gr *gatedReader
	r := Replay{
		Group: "order-workers", Start: t0, End: t0.Add(30 * time.Second), Wall: clk.Now, Paused: true,
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			if gr != nil { // read again (home): not held
				return memReader{rd}, err
			}
			gr = &gatedReader{Reader: rd, n: 5, gate: make(chan struct{}), blocked: make(chan struct{})}
			return gr, err
		},
	}
	a := NewReplay(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Init()
	a.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	<-gr.blocked
	a.Update(tea.KeyPressMsg{Code: tea.KeyHome}) // cancels end, then goes home
	a.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	close(gr.gate)
	settle(a)
	wantOnScreen(t, a, "home after end", "0:00 / 0:30")
	replayPress(a, ">")
	wantOnScreen(t, a, "> after home", "0:12 / 0:30", "consumer-c")
}

// > and < jump between the rebalances' starts, past the other events
// (→ stops at each); the help line names them.
func TestReplayJumpsByRebalance(t *testing.T) {
	data := quietRecording(t, 30, 5, 6, 20)
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	r := Replay{
		Group: "order-workers", Start: t0, End: t0.Add(30 * time.Second), Wall: clk.Now, Paused: true,
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			return memReader{rd}, err
		},
	}
	a := playing(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second}, 160, 40)
	wantOnScreen(t, a, "at the start", "</> rebalance")
	replayPress(a, ">")
	wantOnScreen(t, a, ">", "0:05 / 0:30")
	replayPress(a, "right") // the rebalance's end: an event, not a rebalance
	wantOnScreen(t, a, "→", "0:07 / 0:30")
	replayPress(a, "home")
	replayPress(a, ">")
	replayPress(a, ".")
	wantOnScreen(t, a, "> >", "0:20 / 0:30")
	replayPress(a, "<")
	wantOnScreen(t, a, "> > <", "0:05 / 0:30")
	replayPress(a, ",")
	wantOnScreen(t, a, "> > < <", "0:00 / 0:30")
	replayPress(a, "end")
	replayPress(a, "<")
	wantOnScreen(t, a, "end <", "0:20 / 0:30")
}

// busyRecording is a group of parts busy partitions polled every second
// for secs seconds, written by the real writer (keyframes as it writes
// them). The snapshots are made as NewSnapshot made the first, the
// offsets moved (a snapshot a poll made afresh took most of the build).
func busyRecording(b testing.TB, parts, secs int) []byte {
	b.Helper()
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Group: "g", Brokers: testBrokers, Interval: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	var tps []model.TopicPartition
	for i := range parts {
		tps = append(tps, tp(fmt.Sprintf("topic-%d", i%10), int32(i/10)))
	}
	obs := model.Observation{TakenAt: t0, Brokers: testBrokers,
		Group:   model.Group{ID: "g", State: model.StateStable, ProtocolType: "consumer", Assignor: "range", Coordinator: "127.0.0.1:29092"},
		Members: []model.Member{{MemberID: "m-1", ClientID: "c-1", Host: "/127.0.0.1", Partitions: tps}}}
	for i, p := range tps {
		obs.SetOffsets(p, model.PartitionOffsets{LogEnd: int64(i)})
		obs.SetCommitted(p, int64(i))
	}
	first := model.NewSnapshot(obs)
	rng := rand.New(rand.NewPCG(1, 2))
	for s := 1; s <= secs; s++ {
		at := t0.Add(time.Duration(s) * time.Second)
		snap := first
		snap.TakenAt, snap.CompletedAt = at, at
		snap.Partitions = make([]model.PartitionLag, len(first.Partitions))
		for i := range snap.Partitions {
			// Each partition moves a few records a poll, its commit
			// a little behind: ~3 KB a poll, as BenchmarkStablePoll's
			// busy polls.
			p := &first.Partitions[i]
			p.LogEnd += int64(rng.IntN(8))
			p.Committed = p.LogEnd - int64(rng.IntN(3))
			p.Lag = p.LogEnd - p.Committed
			snap.Partitions[i] = *p
		}
		if err := w.Snapshot(at, "g", snap); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// seekApp plays data, a recording of group g from t0 for secs seconds,
// sized 120x40, once its first pass has read it.
func seekApp(b *testing.B, data []byte, secs int) *App {
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	r := Replay{Group: "g", Start: t0, End: t0.Add(time.Duration(secs) * time.Second), Wall: clk.Now, Paused: true}
	r.Open, r.Resume = memOpens(data, true)
	a := playing(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second}, 120, 40)
	indexed(b, a) // the first pass's checkpoints: a seek feeds one span at most
	return a
}

// BenchmarkReplaySeekEnd is `end` then `home` on a recording of 1,000
// busy partitions polled every second for 10 minutes, once the first
// pass has read it: how long a seek runs off the loop (the loop itself
// answers at once).
func BenchmarkReplaySeekEnd(b *testing.B) {
	const secs = 600
	data := busyRecording(b, 1000, secs)
	b.ReportMetric(float64(len(data)), "file-bytes")
	a := seekApp(b, data, secs)
	defer a.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		replayPress(a, "end")
		replayPress(a, "home")
	}
}

// BenchmarkReplaySeekHour: end, and a jump back, on an hour of 1,000 busy
// partitions polled every second, once the first pass has read it: ms a
// seek (run off the loop), and what the checkpoints hold.
func BenchmarkReplaySeekHour(b *testing.B) {
	const secs = 3600
	data := busyRecording(b, 1000, secs)
	a := seekApp(b, data, secs)
	defer a.Close()
	ix := a.replay.index
	held := func(b *testing.B) {
		b.ReportMetric(float64(len(data))/1e6, "file-MB")
		b.ReportMetric(float64(ix.held)/1e6, "checkpoint-MB")
		b.ReportMetric(float64(len(ix.checks)), "checkpoints")
	}
	back := t0.Add(37*time.Minute + 13*time.Second)
	b.Run("end", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			b.StopTimer()
			replayPress(a, "home")
			b.StartTimer()
			replayPress(a, "end")
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/seek")
		held(b)
	})
	b.Run("back", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			b.StopTimer()
			replayPress(a, "end")
			b.StartTimer()
			seekTo(a, back)
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/seek")
		held(b)
	})
	if a.replay.restored == 0 {
		b.Fatal("no seek started from a checkpoint")
	}
}
