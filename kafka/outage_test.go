package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui/headless"
)

// syncBuffer is a bytes.Buffer safe to read while RunEvents writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freezer stops a kfake cluster answering, as kill -STOP stops a broker:
// every request waits until thaw, and is answered then. armed, it freezes
// at the next group describe (the first request of a poll), so the freeze
// falls between two polls: one frozen halfway, with some leaders' answers
// in, is partly good data, and counts as a good poll.
type freezer struct {
	mu      sync.Mutex
	armed   bool
	frozeAt time.Time
	thaw    chan struct{} // nil: not frozen
}

func (f *freezer) control(req kmsg.Request) (kmsg.Response, error, bool) {
	f.mu.Lock()
	if f.armed {
		switch req.(type) {
		case *kmsg.DescribeGroupsRequest, *kmsg.ConsumerGroupDescribeRequest, *kmsg.ShareGroupDescribeRequest:
			f.armed, f.frozeAt, f.thaw = false, time.Now(), make(chan struct{})
		}
	}
	ch := f.thaw
	f.mu.Unlock()
	if ch != nil {
		<-ch
	}
	return nil, nil, false
}

// freeze freezes the cluster at the next poll's start and returns when it
// did.
func (f *freezer) freeze(t *testing.T) time.Time {
	t.Helper()
	f.mu.Lock()
	f.armed = true
	f.mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		at, frozen := f.frozeAt, f.thaw != nil
		f.mu.Unlock()
		if frozen {
			return at
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no poll began within 5s: the freezer never froze")
	return time.Time{}
}

func (f *freezer) unfreeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.thaw)
	f.thaw = nil
}

// A cluster that stops answering for a while, from one poll on (kill -STOP, then -CONT):
// --events says connection_lost once the polls fail, and connection_restored
// when the first poll after the thaw has its answer, dated then, with the
// outage's length from the last good poll: within a poll of the truth.
func TestEventsOutageTimes(t *testing.T) {
	tc := newTestCluster(t, false)
	tc.createTopic(t, "orders", 3)
	tc.produce(t, "orders", 0, 10, time.Now())
	tc.commit(t, "billing", "orders", map[int]int64{0: 4})
	var fz freezer
	tc.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		return fz.control(req)
	})
	defer func() {
		fz.mu.Lock()
		frozen := fz.thaw != nil
		fz.mu.Unlock()
		if frozen {
			fz.unfreeze()
		}
	}()

	const (
		interval = 200 * time.Millisecond
		// A poll of a frozen broker hangs until this timeout; the backoff
		// (1s, 2s) counts from each poll's start, so a poll is in flight
		// when the broker thaws, and answered at once.
		timeout   = 2 * time.Second
		freezeFor = 4500 * time.Millisecond
	)
	w := NewWatcher(Config{Brokers: tc.addrs, Group: "billing", Timeout: timeout})
	defer w.Close()
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- headless.RunEvents(ctx, w, headless.Options{Group: "billing", Interval: interval, Timeout: timeout}, &out, &errOut)
	}()
	waitLine := func(typ string, within time.Duration) map[string]any {
		t.Helper()
		deadline := time.Now().Add(within)
		for time.Now().Before(deadline) {
			for _, line := range strings.Split(out.String(), "\n") {
				var e map[string]any
				if json.Unmarshal([]byte(line), &e) == nil && e["type"] == typ {
					return e
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("no %s within %s; stdout:\n%s\nstderr:\n%s", typ, within, out.String(), errOut.String())
		return nil
	}
	waitLine("watch_started", 5*time.Second)
	time.Sleep(3 * interval) // a few good polls
	frozeAt := fz.freeze(t)
	time.Sleep(freezeFor - time.Since(frozeAt))
	thawedAt := time.Now()
	fz.unfreeze()
	restored := waitLine("connection_restored", 5*time.Second)
	lost := waitLine("connection_lost", time.Second)
	cancel()
	<-done

	when := func(e map[string]any) time.Time {
		ts, err := time.Parse(model.EventTimeLayout, e["time"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	slack := interval + 300*time.Millisecond
	if lt := when(lost); lt.Before(frozeAt) || lt.After(thawedAt) {
		t.Errorf("connection_lost at %s, want during the freeze (%s … %s)", lt.Format(time.StampMilli), frozeAt.Format(time.StampMilli), thawedAt.Format(time.StampMilli))
	}
	rt := when(restored)
	if rt.Before(thawedAt) || rt.After(thawedAt.Add(slack)) {
		t.Errorf("connection_restored at %s, want once the broker answered again (%s, within %s)", rt.Format(time.StampMilli), thawedAt.Format(time.StampMilli), slack)
	}
	got := time.Duration(restored["duration_ms"].(float64)) * time.Millisecond
	truth := thawedAt.Sub(frozeAt)
	if got < truth-slack || got > truth+slack {
		t.Errorf("connection_restored says the outage lasted %s; the broker was frozen %s (%s … %s); events:\n%s", got, truth,
			frozeAt.Format(time.StampMilli), thawedAt.Format(time.StampMilli), out.String())
	}
}
