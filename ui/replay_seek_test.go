package ui

import (
	"bytes"
	"fmt"
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
	a := NewReplay(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	a.Init()
	settle(a)
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

// busyRecording is a group of parts partitions over 10 topics, every
// offset moving each 1s poll, for secs seconds.
func busyRecording(b testing.TB, parts, secs int) []byte {
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Group: "g", Brokers: testBrokers, Interval: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	var tps []model.TopicPartition
	for i := range parts {
		tps = append(tps, tp(fmt.Sprintf("topic-%d", i%10), int32(i/10)))
	}
	for s := 1; s <= secs; s++ {
		at := t0.Add(time.Duration(s) * time.Second)
		obs := model.Observation{TakenAt: at, Brokers: testBrokers,
			Group:     model.Group{ID: "g", State: model.StateStable, ProtocolType: "consumer", Assignor: "range", Coordinator: "127.0.0.1:29092"},
			Members:   []model.Member{{MemberID: "m-1", ClientID: "c-1", Host: "/127.0.0.1", Partitions: tps}},
			Committed: map[model.TopicPartition]int64{}, Offsets: map[model.TopicPartition]model.PartitionOffsets{}}
		for i, p := range tps {
			end := int64(s*(100+i%7)) + int64(i)
			obs.Offsets[p] = model.PartitionOffsets{LogEnd: end}
			obs.Committed[p] = end - int64(s%5)
		}
		snap := model.NewSnapshot(obs)
		snap.CompletedAt = at
		if err := w.Snapshot(at, "g", snap); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkReplaySeekEnd is `end` then `home` on a recording of 1,000
// busy partitions polled every second for 10 minutes, once the first
// pass has read it: how long a seek runs off the loop (the loop itself
// answers at once).
func BenchmarkReplaySeekEnd(b *testing.B) {
	const secs = 600
	data := busyRecording(b, 1000, secs)
	b.ReportMetric(float64(len(data)), "file-bytes")
	clk := testutil.NewClock(time.Unix(1_000_000, 0))
	r := Replay{
		Group: "g", Start: t0, End: t0.Add(secs * time.Second), Wall: clk.Now, Paused: true,
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			return memReader{rd}, err
		},
		Resume: func(m record.Mark) (ReplayReader, error) {
			rd, err := record.Resume(bytes.NewReader(data), m)
			return memReader{rd}, err
		},
	}
	a := NewReplay(r, Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second})
	defer a.Close()
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Init()
	settle(a)
	indexed(b, a) // the first pass's checkpoints: a seek feeds one span at most
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		replayPress(a, "end")
		replayPress(a, "home")
	}
}
