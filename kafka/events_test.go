package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	kafka "github.com/segmentio/kafka-go"

	"github.com/kgwatch/kgwatch/model"
)

// These tests run the timeline end to end: kafka-go consumers in a kfake
// group, a Watcher polling it on kgwatch's cadence, a model.Tracker turning
// the snapshots into events.

// rebalancePoll is the poll interval while the group rebalances, as the UI
// and --events use (ui.FastInterval).
const rebalancePoll = 200 * time.Millisecond

// seenEvent is an event and the wall-clock time the watch reported it.
type seenEvent struct {
	model.Event
	seen time.Time
}

// eventWatch polls a group in the background and keeps its events.
type eventWatch struct {
	mu     sync.Mutex
	events []seenEvent
	cancel context.CancelFunc
	done   chan struct{}
}

// watchEvents starts polling group every interval (rebalancePoll while it
// rebalances) until the test ends.
func watchEvents(t *testing.T, tc *testCluster, group string, interval time.Duration) *eventWatch {
	w := newTestWatcher(t, tc, group)
	tr := model.NewTracker(group, 0)
	ctx, cancel := context.WithCancel(context.Background())
	ew := &eventWatch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(ew.done)
		for {
			pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
			snap, err := w.Poll(pctx)
			pcancel()
			if ctx.Err() != nil {
				return
			}
			var evs []model.Event
			delay := interval
			if err != nil {
				evs = tr.ConnectionLost(time.Now(), err)
			} else {
				evs = tr.Observe(snap)
				if snap.Group.Rebalancing() {
					delay = rebalancePoll
				}
			}
			now := time.Now()
			ew.mu.Lock()
			for _, e := range evs {
				ew.events = append(ew.events, seenEvent{e, now})
			}
			ew.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-ew.done })
	return ew
}

// wait returns the first event from index from on that matches, waiting
// up to d, and the index after it.
func (ew *eventWatch) wait(t *testing.T, from int, d time.Duration, what string, match func(model.Event) bool) (seenEvent, int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ew.mu.Lock()
		for i := from; i < len(ew.events); i++ {
			if match(ew.events[i].Event) {
				e := ew.events[i]
				ew.mu.Unlock()
				return e, i + 1
			}
		}
		ew.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s; events: %s", what, d, ew.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// len returns the number of events so far.
func (ew *eventWatch) len() int {
	ew.mu.Lock()
	defer ew.mu.Unlock()
	return len(ew.events)
}

func (ew *eventWatch) String() string {
	ew.mu.Lock()
	defer ew.mu.Unlock()
	var b strings.Builder
	for _, e := range ew.events {
		fmt.Fprintf(&b, "\n  %s %s %s %q", e.seen.Format("15:04:05.000"), e.Type, e.ClientID, e.Detail)
	}
	return b.String()
}

func isEvent(typ model.EventType, clientID string) func(model.Event) bool {
	return func(e model.Event) bool { return e.Type == typ && (clientID == "" || e.ClientID == clientID) }
}

// movesFromTo counts the moves from client from to client to.
func movesFromTo(moves []model.Move, from, to string) int {
	n := 0
	for _, m := range moves {
		if m.From == from && m.To == to {
			n++
		}
	}
	return n
}

func TestEventsJoinCleanLeaveEmpty(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, false)
	tc.createTopic(t, "orders", 4)
	a := tc.joinGroup(t, "workers", "consumer-a", "orders")
	waitAssigned(t, 4, a)

	const interval = time.Second // kgwatch's default
	ew := watchEvents(t, tc, "workers", interval)
	start, i := ew.wait(t, 0, 10*time.Second, "watch_started", isEvent(model.EventWatchStarted, ""))
	if !strings.Contains(start.Detail, "consumer-a") {
		t.Errorf("watch_started does not name the member found: %q", start.Detail)
	}

	b := tc.joinGroup(t, "workers", "consumer-b", "orders")
	waitAssigned(t, 4, a, b)
	joined, i := ew.wait(t, i, 10*time.Second, "member_joined consumer-b", isEvent(model.EventMemberJoined, "consumer-b"))
	if joined.MemberID == "" || joined.Host == "" {
		t.Errorf("member_joined lacks member id or host: %+v", joined.Event)
	}
	ew.wait(t, i, 10*time.Second, "rebalance_started", isEvent(model.EventRebalanceStarted, ""))
	done, i := ew.wait(t, i, 10*time.Second, "rebalance_completed", isEvent(model.EventRebalanceCompleted, ""))
	if movesFromTo(done.Moves, "consumer-a", "consumer-b") != 2 {
		t.Errorf("rebalance_completed moves %+v, want 2 partitions consumer-a → consumer-b", done.Moves)
	}
	if !done.Inferred && !done.HasDuration {
		t.Errorf("timed rebalance without a duration: %+v", done.Event)
	}

	// A clean leave (LeaveGroup) shows within two poll intervals.
	b.leave()
	closed := time.Now()
	left, i := ew.wait(t, i, 3*interval, "member_left consumer-b", isEvent(model.EventMemberLeft, "consumer-b"))
	latency := left.seen.Sub(closed)
	t.Logf("clean leave detected %s after Close returned (interval %s)", latency.Round(time.Millisecond), interval)
	if latency > 2*interval {
		t.Errorf("clean leave took %s to show, want within two intervals (%s)", latency, 2*interval)
	}
	if len(left.Partitions) != 2 {
		t.Errorf("member_left names partitions %v, want the 2 consumer-b owned", left.Partitions)
	}

	// The last member leaves: the group is empty.
	a.leave()
	ew.wait(t, i, 3*interval, "member_left consumer-a", isEvent(model.EventMemberLeft, "consumer-a"))
	ew.wait(t, i, 3*interval, "group_empty", isEvent(model.EventGroupEmpty, ""))
}

// cutDialer opens TCP connections it can cut all at once, failing every
// redial after: a process killed with -9 sends no LeaveGroup.
type cutDialer struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func (d *cutDialer) dial(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		return nil, errors.New("killed: connection refused")
	}
	var nd net.Dialer
	c, err := nd.DialContext(ctx, network, address)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *cutDialer) kill() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.cut = true
	for _, c := range d.conns {
		c.Close()
	}
}

func TestEventsAbruptDeathWaitsForSessionTimeout(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, false)
	tc.createTopic(t, "orders", 4)
	a := tc.joinGroup(t, "workers", "consumer-a", "orders")
	waitAssigned(t, 4, a)

	const session = 3 * time.Second
	cd := &cutDialer{}
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                "workers",
		Brokers:           tc.addrs,
		Dialer:            &kafka.Dialer{ClientID: "consumer-x", Timeout: 2 * time.Second, DialFunc: cd.dial},
		Topics:            []string{"orders"},
		HeartbeatInterval: 100 * time.Millisecond,
		SessionTimeout:    session,
		RebalanceTimeout:  3 * time.Second,
		JoinGroupBackoff:  100 * time.Millisecond,
		Timeout:           2 * time.Second,
		Logger:            debugLogger(t, "consumer-x"),
	})
	if err != nil {
		t.Fatal(err)
	}
	x := &groupMember{cg: cg, done: make(chan struct{})}
	go func() {
		defer close(x.done)
		for {
			gen, err := cg.Next(context.Background())
			if errors.Is(err, kafka.ErrGroupClosed) {
				return
			}
			if err == nil {
				x.mu.Lock()
				x.gen = gen
				x.mu.Unlock()
			}
		}
	}()
	t.Cleanup(x.leave)
	waitAssigned(t, 4, a, x)

	ew := watchEvents(t, tc, "workers", 500*time.Millisecond)
	_, i := ew.wait(t, 0, 10*time.Second, "watch_started", isEvent(model.EventWatchStarted, ""))
	time.Sleep(time.Second) // a few steady polls

	cd.kill()
	killed := time.Now()
	left, i := ew.wait(t, i, session+5*time.Second, "member_left consumer-x", isEvent(model.EventMemberLeft, "consumer-x"))
	after := left.seen.Sub(killed)
	t.Logf("killed member left the group %s after its connections were cut (session timeout %s)", after.Round(time.Millisecond), session)
	// Its last heartbeat went out at most one heartbeat interval before
	// the cut; the coordinator waits a session timeout from there.
	if after < session-200*time.Millisecond {
		t.Errorf("member_left %s after the kill, before the %s session timeout", after, session)
	}
	if len(left.Partitions) != 2 {
		t.Errorf("member_left names partitions %v, want the 2 consumer-x owned", left.Partitions)
	}
	done, _ := ew.wait(t, i, 10*time.Second, "rebalance_completed", isEvent(model.EventRebalanceCompleted, ""))
	if movesFromTo(done.Moves, "consumer-x", "consumer-a") != 2 {
		t.Errorf("rebalance_completed moves %+v, want consumer-x's 2 partitions to consumer-a", done.Moves)
	}
	if n := ew.len(); n == 0 {
		t.Fatal("no events")
	}
}
