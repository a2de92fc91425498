package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// eventLine is the part of an --events line the test reads.
type eventLine struct {
	Time     string `json:"time"`
	Type     string `json:"type"`
	Group    string `json:"group"`
	ClientID string `json:"client_id"`
	MemberID string `json:"member_id"`
	Detail   string `json:"detail"`
	Inferred *bool  `json:"inferred"`
}

func TestEventsAgainstDemoCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster")
	}
	d := startDemo(t)
	brokers := strings.Join(d.Brokers(), ",")

	pr, pw := io.Pipe()
	var stderr lockedWriter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- runContext(ctx, []string{"-group", d.Group(), "-brokers", brokers, "--events", "-i", "200ms"}, pw, &stderr)
		pw.Close()
	}()
	lines := make(chan eventLine, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var e eventLine
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Errorf("not a JSON line: %q: %v", sc.Text(), err)
				continue
			}
			if e.Time == "" || e.Group != d.Group() || e.Inferred == nil {
				t.Errorf("line lacks time, group or inferred: %q", sc.Text())
			}
			if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil {
				t.Errorf("time %q is not RFC 3339: %v", e.Time, err)
			}
			lines <- e
		}
	}()
	var seen []string
	next := func(what string, match func(eventLine) bool) eventLine {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case e, ok := <-lines:
				if !ok {
					t.Fatalf("output ended waiting for %s; saw %v; stderr %q", what, seen, stderr.String())
				}
				seen = append(seen, e.Type+":"+e.ClientID)
				if match(e) {
					return e
				}
			case <-deadline:
				t.Fatalf("no %s within 30s; saw %v; stderr %q", what, seen, stderr.String())
			}
		}
	}

	first := next("watch_started", func(eventLine) bool { return true })
	if first.Type != "watch_started" {
		t.Fatalf("first event %q, want watch_started", first.Type)
	}
	id, err := d.Spawn()
	if err != nil {
		t.Fatal(err)
	}
	joined := next("member_joined "+id, func(e eventLine) bool { return e.Type == "member_joined" && e.ClientID == id })
	if joined.MemberID == "" {
		t.Errorf("member_joined without member_id")
	}
	next("rebalance_completed after the join", func(e eventLine) bool { return e.Type == "rebalance_completed" })

	if err := d.Stop(id); err != nil {
		t.Fatal(err)
	}
	next("member_left "+id, func(e eventLine) bool { return e.Type == "member_left" && e.ClientID == id })

	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit %d after interrupt, want 0; stderr %q", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--events did not stop after the context ended")
	}
	for range lines { // drain: every remaining line is checked too
	}
}

// lockedWriter collects stderr safely while run writes to it.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
