package headless

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// fakeSource replays scripted polls; the last one repeats.
type fakeSource struct {
	mu      sync.Mutex
	results []pollResult
}

type pollResult struct {
	snap model.Snapshot
	err  error
}

func (f *fakeSource) Poll(ctx context.Context) (model.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.results[0]
	if len(f.results) > 1 {
		f.results = f.results[1:]
	}
	return r.snap, r.err
}

type clock = testutil.Clock

func tp(topic string, p int32) model.TopicPartition {
	return model.TopicPartition{Topic: topic, Partition: p}
}

func groupSnapshot(state string, members ...model.Member) model.Snapshot {
	const topic = "order-rebalancing"
	obs := model.Observation{
		TakenAt: t0,
		Group:   model.Group{ID: "order-workers", State: state, ProtocolType: "consumer", Assignor: "range"},
		Members: members,
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{tp(topic, 0): 10, tp(topic, 1): 20, tp(topic, 2): 30},
		Offsets: map[model.TopicPartition]model.PartitionOffsets{
			tp(topic, 0): {LogStart: 0, LogEnd: 12}, tp(topic, 1): {LogStart: 0, LogEnd: 20}, tp(topic, 2): {LogStart: 0, LogEnd: 31},
		},
	})
	return model.NewSnapshot(obs)
}

func stableSnapshot() model.Snapshot {
	const topic = "order-rebalancing"
	return groupSnapshot(model.StateStable,
		model.Member{MemberID: "consumer-a-1", ClientID: "consumer-a", Partitions: []model.TopicPartition{tp(topic, 0), tp(topic, 1)}},
		model.Member{MemberID: "consumer-b-2", ClientID: "consumer-b", Partitions: []model.TopicPartition{tp(topic, 2)}})
}

func rebalancingSnapshot() model.Snapshot {
	return groupSnapshot(model.StatePreparingRebalance,
		model.Member{MemberID: "consumer-a-1", ClientID: "consumer-a"},
		model.Member{MemberID: "consumer-b-2", ClientID: "consumer-b"},
		model.Member{MemberID: "consumer-c-3", ClientID: "consumer-c"})
}

func emptySnapshot() model.Snapshot { return groupSnapshot(model.StateEmpty) }

// lockedBuffer is a bytes.Buffer safe to read while RunEvents writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRunEventsWritesJSONLines(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:29092: connect: connection refused")
	at := func(d time.Duration, s model.Snapshot) model.Snapshot { s.TakenAt = t0.Add(d); return s }
	src := &fakeSource{results: []pollResult{
		{snap: at(0, stableSnapshot())},
		{snap: at(time.Second, rebalancingSnapshot())},
		{err: refused},
		{err: refused},
		{snap: at(4*time.Second, emptySnapshot())},
	}}
	clk := testutil.NewClock(t0.Add(2 * time.Second))
	demo := make(chan model.Event, 1)
	demo <- model.Event{Type: model.EventDemoKilled, ClientID: "consumer-b", Detail: "consumer-b killed"}
	var out, errOut lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// A short interval: backoff after the two failures is 1s + 2s.
		done <- RunEvents(ctx, src, Options{Group: "order-workers", Interval: 10 * time.Millisecond, Now: clk.Now, Events: demo}, &out, &errOut)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), `"group_empty"`) {
		if time.Now().After(deadline) {
			t.Fatalf("no group_empty after 10s; stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunEvents = %v after cancel, want nil", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("RunEvents did not return after cancel")
	}

	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct {
			Time  string `json:"time"`
			Type  string `json:"type"`
			Group string `json:"group"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line is not JSON: %q: %v", line, err)
		}
		if e.Group != "order-workers" || e.Time == "" {
			t.Errorf("line lacks group or time: %q", line)
		}
		types = append(types, e.Type)
	}
	got := strings.Join(types, " ")
	for _, want := range []string{
		"watch_started",
		"demo_killed",
		"rebalance_started",
		"connection_lost connection_restored",
		"group_empty",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("events %q lack %q", got, want)
		}
	}
	if !strings.HasPrefix(got, "watch_started") && !strings.HasPrefix(got, "demo_killed watch_started") {
		t.Errorf("events start %q", got)
	}
	if n := strings.Count(got, "connection_lost"); n != 1 {
		t.Errorf("%d connection_lost for one outage", n)
	}
	errLines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(errLines) != 2 || !strings.Contains(errLines[0], "connection refused") || !strings.Contains(errLines[1], "attempt 2") {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}

// A reader that never reads (a full pipe) must not keep --events from
// ending: cancelled, RunEvents returns within about its grace and says on
// stderr how many events it could not write.
func TestRunEventsEndsWithStalledReader(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}, {snap: rebalancingSnapshot()}, {snap: stableSnapshot()}}}
	// Events far larger than the pipe's buffer: the writer blocks.
	big := make(chan model.Event, 200)
	for i := range 200 {
		big <- model.Event{Type: model.EventDemoDuplicate, ClientID: "consumer-a", Detail: strings.Repeat("x", 4096) + fmt.Sprint(i)}
	}
	var errOut lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunEvents(ctx, src, Options{Group: "order-workers", Interval: 100 * time.Millisecond, Events: big, Queue: 8, Grace: 200 * time.Millisecond}, w, &errOut)
	}()
	time.Sleep(300 * time.Millisecond) // the pipe fills and the writer blocks
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunEvents = %v, want nil", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("RunEvents did not end within 2s of the signal while its reader stalled")
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("RunEvents took %s to end, want under a second", took)
	}
	if !strings.Contains(errOut.String(), "not written: stdout was not being read") {
		t.Errorf("stderr does not say events were lost: %q", errOut.String())
	}
}

// failingSource fails every poll; each poll takes, on clk, the next of
// took (the last repeats).
type failingSource struct {
	clk  *clock
	took []time.Duration
	err  error
}

func (f *failingSource) Poll(ctx context.Context) (model.Snapshot, error) {
	f.clk.Advance(f.took[0])
	if len(f.took) > 1 {
		f.took = f.took[1:]
	}
	return model.Snapshot{}, f.err
}

// A failed poll's line on stderr says the wait as the countdown does
// (tenths, never "1.998765433s"), "retrying now" when the poll took
// longer than the backoff (never "retrying in 0s"), and the error's tabs
// and line breaks as ␉ ␊, on one line.
func TestRunEventsRetryLine(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &failingSource{clk: clk, took: []time.Duration{1500 * time.Millisecond, 1234567 * time.Nanosecond},
		err: errors.New("describe group \"a\tb\nc\": refused")}
	var out, errOut lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunEvents(ctx, src, Options{Group: "g", Interval: time.Second, Now: clk.Now}, &out, &errOut)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(errOut.String(), "\n") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("not two failures after 10s; stderr:\n%s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(errOut.String(), "\n")
	for i, want := range []string{
		`kgwatch: poll g (attempt 1, retrying now): describe group "a␉b␊c": refused`,
		`kgwatch: poll g (attempt 2, retrying in 1.0s): describe group "a␉b␊c": refused`, // capped at the interval
	} {
		if lines[i] != want {
			t.Errorf("line %d: %q\nwant      %q", i+1, lines[i], want)
		}
	}
}

// A stdout that cannot be written ends RunEvents with the write's error
// at once, not at the next event (a stable group may give none for
// hours).
func TestRunEventsStdoutFails(t *testing.T) {
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	broken := errors.New("broken pipe")
	done := make(chan error, 1)
	go func() {
		done <- RunEvents(context.Background(), src, Options{Group: "g", Interval: time.Hour}, failWriter{broken}, io.Discard)
	}()
	select {
	case err := <-done:
		if !errors.Is(err, broken) {
			t.Errorf("RunEvents = %v, want the write's error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("RunEvents still running 5s after its first write failed")
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// hangingSource answers as its script says, each poll taking its took on
// clk: a frozen broker's polls hang until their timeout.
type hangingSource struct {
	clk     *clock
	results []pollResult
	took    []time.Duration
}

func (h *hangingSource) Poll(ctx context.Context) (model.Snapshot, error) {
	start := h.clk.Now()
	h.clk.Advance(h.took[0])
	r := h.results[0]
	if len(h.results) > 1 {
		h.results, h.took = h.results[1:], h.took[1:]
	}
	r.snap.TakenAt = start
	return r.snap, r.err
}

// --events gives an outage's bounds: the polls failed from the first failed
// poll's start (0s: it hung until its 2s timeout, as did the four after it,
// to 10s), so at least 10s; the first good one after answered at 10.3s, so
// at most 10.3s. Counted from when the first failure was seen (2s), the
// least would have been 8s.
func TestRunEventsOutageBounds(t *testing.T) {
	clk := testutil.NewClock(t0)
	hung := errors.New("describe group \"order-workers\": i/o timeout")
	src := &hangingSource{clk: clk,
		results: []pollResult{{snap: stableSnapshot()}, {err: hung}, {err: hung}, {err: hung}, {err: hung}, {err: hung}, {snap: stableSnapshot()}},
		took:    []time.Duration{0, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 300 * time.Millisecond}}
	var out, errOut lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunEvents(ctx, src, Options{Group: "order-workers", Interval: model.MinInterval, Now: clk.Now}, &out, &errOut)
	}()
	var restored map[string]any
	deadline := time.Now().Add(10 * time.Second)
	for restored == nil {
		if time.Now().After(deadline) {
			t.Fatalf("no connection_restored after 10s; stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			var e map[string]any
			if json.Unmarshal([]byte(line), &e) == nil && e["type"] == "connection_restored" {
				restored = e
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if restored["min_duration_ms"] != 10000.0 || restored["duration_ms"] != 10300.0 || restored["detail"] != "connection restored after 10.0s–10.3s" {
		t.Errorf("connection_restored %v, want min_duration_ms 10000, duration_ms 10300", restored)
	}
}

// frozenSource answers its first poll, then freezes on the second: it
// moves clk by freeze and answers only once release is closed (a
// cluster under SIGSTOP for less than --timeout). Later polls answer at
// once.
type frozenSource struct {
	clk     *clock
	freeze  time.Duration
	release chan struct{}
	mu      sync.Mutex
	polls   int
}

func (f *frozenSource) Poll(ctx context.Context) (model.Snapshot, error) {
	f.mu.Lock()
	f.polls++
	n := f.polls
	f.mu.Unlock()
	if n == 2 {
		f.clk.Advance(f.freeze)
		select {
		case <-f.release:
		case <-ctx.Done():
			return model.Snapshot{}, ctx.Err()
		}
	}
	return stableSnapshot(), nil
}

// --events writes poll_unanswered while a poll is in flight past three
// intervals (at least 3s), before the poll answers or fails, and
// poll_answered when it answers: a freeze shorter than --timeout is in
// the stream (before, the poll simply took longer and nothing was said).
func TestRunEventsUnansweredPoll(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &frozenSource{clk: clk, freeze: 4 * time.Second, release: make(chan struct{})}
	var out, errOut lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunEvents(ctx, src, Options{Group: "order-workers", Interval: model.MinInterval, Timeout: time.Minute,
			Now: clk.Now, Tick: 5 * time.Millisecond}, &out, &errOut)
	}()
	waitFor := func(typ string) map[string]any {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			for _, line := range strings.Split(out.String(), "\n") {
				var e map[string]any
				if json.Unmarshal([]byte(line), &e) == nil && e["type"] == typ {
					return e
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("no %s after 10s; stdout:\n%s\nstderr:\n%s", typ, out.String(), errOut.String())
		return nil
	}
	unanswered := waitFor("poll_unanswered")
	if unanswered["duration_ms"] != 4000.0 || unanswered["detail"] != "the cluster has not answered a poll for 4.00s" {
		t.Errorf("poll_unanswered %v, want duration_ms 4000", unanswered)
	}
	clk.Advance(2 * time.Second)
	close(src.release)
	answered := waitFor("poll_answered")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if answered["duration_ms"] != 6000.0 {
		t.Errorf("poll_answered %v, want duration_ms 6000", answered)
	}
	if n := strings.Count(out.String(), `"poll_unanswered"`); n != 1 {
		t.Errorf("%d poll_unanswered lines, want 1:\n%s", n, out.String())
	}
}
