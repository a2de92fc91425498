package kafka

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kgwatch/kgwatch/kafka/internal/freeports"
	"github.com/kgwatch/kgwatch/model"
)

// committedGroup sets up an Empty group with commits on a 6-partition topic
// whose partitions each hold 4 records.
func committedGroup(t *testing.T, tc *testCluster, group, topic string) {
	tc.createTopic(t, topic, 6)
	offsets := map[int]int64{}
	for p := 0; p < 6; p++ {
		tc.produce(t, topic, p, 4, time.Now())
		offsets[p] = 1
	}
	tc.commit(t, group, topic, offsets)
}

func assertLag(t *testing.T, s model.Snapshot, want int64) {
	t.Helper()
	for _, r := range s.Partitions {
		if r.Err != "" || r.Lag != want {
			t.Errorf("%s/%d: lag %d err %q, want lag %d", r.Topic, r.Partition, r.Lag, r.Err, want)
		}
	}
}

func TestPollFollowsCoordinatorMove(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "movers", "orders")
	w := newTestWatcher(t, tc, "movers")
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	before := s.Group.Coordinator
	waitFor(t, 5*time.Second, "the coordinator to move", func() bool {
		tc.RehashCoordinators()
		return tc.addrs[tc.CoordinatorFor("movers")] != before
	})
	s, err = w.Poll(context.Background())
	if err != nil {
		t.Fatalf("poll after the coordinator moved: %v", err)
	}
	if want := tc.addrs[tc.CoordinatorFor("movers")]; s.Group.Coordinator != want {
		t.Errorf("coordinator %s, want %s", s.Group.Coordinator, want)
	}
	assertLag(t, s, 3)
}

// pollThenMoveLeaders sets up committedGroup "movers" on "orders", polls it
// once, then moves every partition's leader to the next broker.
func pollThenMoveLeaders(t *testing.T) *Watcher {
	t.Helper()
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "movers", "orders")
	w := newTestWatcher(t, tc, "movers")
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 6; p++ {
		if err := tc.MoveTopicPartition("orders", p, (tc.LeaderFor("orders", p)+1)%3); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func TestPollFollowsLeaderMove(t *testing.T) {
	w := pollThenMoveLeaders(t)
	// The first poll may meet NOT_LEADER on the moved partitions and says
	// so per partition; the one after has refreshed the leaders.
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatalf("poll after leaders moved: %v", err)
	}
	if len(s.Partitions) != 6 {
		t.Fatalf("%d partitions, want 6", len(s.Partitions))
	}
	s, err = w.Poll(context.Background())
	if err != nil {
		t.Fatalf("second poll after leaders moved: %v", err)
	}
	assertLag(t, s, 3)
}

func TestPollRecoversWhenBrokersReturn(t *testing.T) {
	ports, addrs := freePorts(t, 3)
	w := NewWatcher(Config{Brokers: addrs, Group: "late", Timeout: time.Second})
	defer w.Close()
	if _, err := w.Poll(context.Background()); err == nil {
		t.Fatal("poll with no cluster succeeded")
	}
	tc := newTestCluster(t, false, kfake.Ports(ports...))
	committedGroup(t, tc, "late", "orders")
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatalf("poll once the cluster is up: %v", err)
	}
	if s.Group.State != model.StateEmpty {
		t.Errorf("state %q, want Empty", s.Group.State)
	}
	assertLag(t, s, 3)
}

// TestPollWithOneBrokerDown: broker 0 (the lowest id, the first asked for
// the coordinator) refuses connections. The snapshot still comes, with the
// partitions it leads marked.
func TestPollWithOneBrokerDown(t *testing.T) {
	tc := newTestCluster(t, false)
	group := ""
	for i := 0; group == ""; i++ {
		if g := "workers-" + strconv.Itoa(i); tc.CoordinatorFor(g) != 0 {
			group = g
		}
	}
	committedGroup(t, tc, group, "orders")
	down := tc.addrs[0]
	w := newTestWatcher(t, tc, group)
	w.dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		if address == down {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errRefused}
		}
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatalf("poll with broker 0 down: %v", err)
	}
	for _, r := range s.Partitions {
		if tc.LeaderFor(r.Topic, r.Partition) == 0 {
			if !strings.Contains(r.Err, down) || r.LogEnd != model.NoOffset {
				t.Errorf("%s/%d led by the broker down: err %q log-end %d, want an error naming %s", r.Topic, r.Partition, r.Err, r.LogEnd, down)
			}
		} else if r.Err != "" || r.Lag != 3 {
			t.Errorf("%s/%d: lag %d err %q, want lag 3", r.Topic, r.Partition, r.Lag, r.Err)
		}
	}
}

var errRefused = errors.New("connection refused (test)")

// TestCloseLeavesNoGoroutines: after Close, none of kafka-go's connection
// or metadata goroutines are left.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	tc := newTestCluster(t, false)
	w := NewWatcher(Config{Brokers: tc.addrs, Group: "g", Timeout: 5 * time.Second})
	for i := 0; i < 3; i++ {
		if _, err := w.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := kafkaGoroutines(); n == 0 {
		t.Fatal("no kafka-go goroutine while the watcher is open; the test proves nothing")
	}
	w.Close()
	waitFor(t, 5*time.Second, "kafka-go goroutines to end", func() bool { return kafkaGoroutines() == 0 })
}

func kafkaGoroutines() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "segmentio/kafka-go") {
			n++
		}
	}
	return n
}

// TestPollSilentCoordinator: the coordinator accepts nothing (a dial that
// hangs, as to a host that drops packets). Poll fails within the timeout,
// naming the coordinator.
func TestPollSilentCoordinator(t *testing.T) {
	tc := newTestCluster(t, false)
	group := ""
	for i := 0; group == ""; i++ {
		if g := "workers-" + strconv.Itoa(i); tc.CoordinatorFor(g) != 0 {
			group = g
		}
	}
	silent := tc.addrs[tc.CoordinatorFor(group)]
	const timeout = 500 * time.Millisecond
	w := NewWatcher(Config{Brokers: tc.addrs[:1], Group: group, Timeout: timeout})
	defer w.Close()
	w.dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		if address == silent {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	start := time.Now()
	_, err := w.Poll(context.Background())
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "coordinator "+silent) {
		t.Errorf("poll: %v, want an error naming coordinator %s", err, silent)
	}
	if took > timeout+500*time.Millisecond {
		t.Errorf("poll took %s, want about the %s timeout", took, timeout)
	}
}

// TestPollAfterIdleConnectionsDropped: every pooled connection is closed
// between polls; each next poll still reads every partition.
func TestPollAfterIdleConnectionsDropped(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "idlers", "orders")
	tap := &wireTap{}
	w := newTestWatcher(t, tc, "idlers")
	w.dial = tap.dial
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		tap.dropAll()
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("poll %d after the connections dropped: %v", i, err)
		}
		assertLag(t, s, 3)
	}
}

// TestPollFollowsLeaderMoveAtOnce: the first poll after leaders moved
// reads every partition (it asks the new leaders), so --once during a
// leader election does not print failed partitions.
func TestPollFollowsLeaderMoveAtOnce(t *testing.T) {
	w := pollThenMoveLeaders(t)
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatalf("poll after leaders moved: %v", err)
	}
	if len(s.Partitions) != 6 {
		t.Fatalf("%d partitions, want 6", len(s.Partitions))
	}
	assertLag(t, s, 3)
}

// TestPollNoLeaderAnswers: the coordinator answers but the one broker that
// leads every partition of the group is unreachable. No lag can be read at
// all: the poll fails (an outage, with the last good data kept on screen),
// naming the leader, rather than succeed with nothing but error rows.
func TestPollNoLeaderAnswers(t *testing.T) {
	tc := newTestCluster(t, false)
	group := ""
	for i := 0; group == ""; i++ {
		if g := "workers-" + strconv.Itoa(i); tc.CoordinatorFor(g) != 0 {
			group = g
		}
	}
	committedGroup(t, tc, group, "orders")
	for p := int32(0); p < 6; p++ {
		if tc.LeaderFor("orders", p) != 0 {
			if err := tc.MoveTopicPartition("orders", p, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	down := tc.addrs[0]
	w := newTestWatcher(t, tc, group)
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatalf("poll with every broker up: %v", err)
	}
	w.resetTransport() // connections to broker 0 are pooled: go through dial
	w.dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		if address == down {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errRefused}
		}
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	_, err := w.Poll(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no partition leader answered") || !strings.Contains(err.Error(), down) {
		t.Fatalf("poll with the only leader down: %v; want an error saying no leader answered, naming %s", err, down)
	}
}

// freePorts returns n loopback ports free a moment ago (freeports), and their
// addresses, for a cluster to be started (and started again) on.
func freePorts(t *testing.T, n int) ([]int, []string) {
	t.Helper()
	ports, err := freeports.Take(freeports.Kafka, n)
	if err != nil {
		t.Fatal(err)
	}
	addrs := make([]string, n)
	for i, p := range ports {
		addrs[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
	}
	return ports, addrs
}
