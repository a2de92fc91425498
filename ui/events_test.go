package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

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
	clk := &clock{t: t0.Add(2 * time.Second)}
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
