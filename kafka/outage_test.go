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

// outageRun is what --events said of one freeze of the cluster.
type outageRun struct {
	frozeAt, thawedAt time.Time
	lost, restored    map[string]any
	out, errOut       string
}

// runOutage watches group billing with --events, lets a few polls pass,
// freezes the cluster at a poll's start for freezeFor and waits for the
// connection_restored.
func runOutage(t *testing.T, interval, timeout, freezeFor time.Duration) outageRun {
	t.Helper()
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

	w := NewWatcher(Config{Brokers: tc.addrs, Group: "billing", Timeout: timeout})
	defer w.Close()
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- headless.RunEvents(ctx, w, headless.Options{Group: "billing", Interval: interval, Timeout: timeout}, &out, &errOut)
	}()
	defer func() {
		cancel()
		<-done
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
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("no %s within %s; stdout:\n%s\nstderr:\n%s", typ, within, out.String(), errOut.String())
		return nil
	}
	var r outageRun
	waitLine("watch_started", 5*time.Second)
	time.Sleep(3 * interval) // a few good polls
	r.frozeAt = fz.freeze(t)
	time.Sleep(freezeFor - time.Since(r.frozeAt))
	r.thawedAt = time.Now()
	fz.unfreeze()
	r.restored = waitLine("connection_restored", freezeFor+5*time.Second)
	r.lost = waitLine("connection_lost", time.Second)
	r.out, r.errOut = out.String(), errOut.String()
	return r
}

func eventTime(t *testing.T, e map[string]any) time.Time {
	t.Helper()
	ts, err := time.Parse(model.EventTimeLayout, e["time"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func eventMS(t *testing.T, e map[string]any, field string) time.Duration {
	t.Helper()
	v, ok := e[field].(float64)
	if !ok {
		t.Fatalf("%s has no %s: %v", e["type"], field, e)
	}
	return time.Duration(v) * time.Millisecond
}

// A cluster that stops answering for a while, from one poll on (kill -STOP, then -CONT):
// --events says connection_lost once the polls fail, and connection_restored
// when the first poll after the thaw has its answer, dated then, with the
// outage's length from the last good poll: within a poll of the truth.
func TestEventsOutageTimes(t *testing.T) {
	const (
		interval = 200 * time.Millisecond
		// A poll of a frozen broker hangs until this timeout; the retries
		// count from each poll's start, so a poll is in flight when the
		// broker thaws, and answered at once.
		timeout   = 2 * time.Second
		freezeFor = 4500 * time.Millisecond
	)
	r := runOutage(t, interval, timeout, freezeFor)
	frozeAt, thawedAt := r.frozeAt, r.thawedAt
	slack := interval + 300*time.Millisecond
	if lt := eventTime(t, r.lost); lt.Before(frozeAt) || lt.After(thawedAt) {
		t.Errorf("connection_lost at %s, want during the freeze (%s … %s)", lt.Format(time.StampMilli), frozeAt.Format(time.StampMilli), thawedAt.Format(time.StampMilli))
	}
	rt := eventTime(t, r.restored)
	if rt.Before(thawedAt) || rt.After(thawedAt.Add(slack)) {
		t.Errorf("connection_restored at %s, want once the broker answered again (%s, within %s)", rt.Format(time.StampMilli), thawedAt.Format(time.StampMilli), slack)
	}
	got := eventMS(t, r.restored, "duration_ms")
	truth := thawedAt.Sub(frozeAt)
	if got < truth-slack || got > truth+slack {
		t.Errorf("connection_restored says the outage lasted %s; the broker was frozen %s (%s … %s); events:\n%s", got, truth,
			frozeAt.Format(time.StampMilli), thawedAt.Format(time.StampMilli), r.out)
	}
}

// A freeze that outlasts the retries' growth: with a short --timeout the
// polls fail fast (at 0.5s, 1.5s, 3.5s into the freeze) and the old
// backoff, 1s, 2s, 4s from each poll's start, put the next poll 7s in, so
// a 3.7s freeze was reported at 7s, as lasting ~7.2s, 3.3s late. The
// retries are capped at about the poll interval (1s at least): the
// restore comes within a retry of the thaw, its duration_ms (the most the
// outage lasted) within a poll interval and a retry of the truth, its
// min_duration_ms (the least: polls failed from the first failed poll's
// start to the last failure) no more than the truth and within a retry
// and a timeout of it.
func TestEventsOutageRestoredWithinARetry(t *testing.T) {
	const (
		interval  = 200 * time.Millisecond
		timeout   = 500 * time.Millisecond
		freezeFor = 3700 * time.Millisecond
		slack     = 400 * time.Millisecond // scheduling under load (-race, 2 cores shared)
	)
	retry := model.RetryCap(interval)
	r := runOutage(t, interval, timeout, freezeFor)
	truth := r.thawedAt.Sub(r.frozeAt)
	rt := eventTime(t, r.restored)
	most := eventMS(t, r.restored, "duration_ms")
	least := eventMS(t, r.restored, "min_duration_ms")
	t.Logf("frozen %s; restore %s after the thaw; reported %s–%s (%s)", truth.Round(time.Millisecond),
		rt.Sub(r.thawedAt).Round(time.Millisecond), least, most, r.restored["detail"])
	if late := rt.Sub(r.thawedAt); late < 0 || late > retry+slack {
		t.Errorf("connection_restored %s after the thaw, want within a retry (%s) and %s; events:\n%s\nstderr:\n%s", late, retry, slack, r.out, r.errOut)
	}
	if most < truth || most > truth+interval+retry+slack {
		t.Errorf("duration_ms %s for a %s freeze, want at least it and within a poll interval and a retry (%s)", most, truth, interval+retry)
	}
	// The freeze began at the first failed poll's start (the freezer
	// stops the poll's first request), so the least is within a
	// millisecond's rounding of it or below.
	if least > truth+time.Millisecond || least < truth-retry-timeout-slack || least > most {
		t.Errorf("min_duration_ms %s for a %s freeze (duration_ms %s), want at most it and within a retry and a timeout of it", least, truth, most)
	}
	if d, _ := r.restored["detail"].(string); !strings.HasPrefix(d, "connection restored after ") {
		t.Errorf("detail %q", d)
	}
}
