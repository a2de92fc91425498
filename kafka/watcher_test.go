package kafka

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// bothVersions runs a test against a default kfake cluster and against one
// that refuses the request versions Kafka 4.0 removed; in the latter, no
// request (watcher's, consumers', set-up's) may be refused.
func bothVersions(t *testing.T, test func(t *testing.T, tc *testCluster)) {
	for _, kafka40 := range []bool{false, true} {
		name := "kfake"
		if kafka40 {
			name = "kafka4.0"
		}
		t.Run(name, func(t *testing.T) {
			tc := newTestCluster(t, kafka40)
			test(t, tc)
			if r := tc.refusals(); len(r) > 0 {
				t.Errorf("requests refused by the Kafka 4.0 cluster: %v", r)
			}
		})
	}
}

func newTestWatcher(t testing.TB, tc *testCluster, group string) *Watcher {
	w := NewWatcher(Config{Brokers: tc.addrs, Group: group, Timeout: 5 * time.Second})
	t.Cleanup(func() { w.Close() })
	return w
}

// pollUntil polls until cond accepts the snapshot.
func pollUntil(t *testing.T, w *Watcher, what string, cond func(model.Snapshot) bool) model.Snapshot {
	t.Helper()
	var s model.Snapshot
	var err error
	waitFor(t, 20*time.Second, what, func() bool {
		s, err = w.Poll(context.Background())
		return err == nil && cond(s)
	})
	return s
}

func partitionRow(t *testing.T, s model.Snapshot, topic string, p int32) model.PartitionLag {
	t.Helper()
	for _, r := range s.Partitions {
		if r.Topic == topic && r.Partition == p {
			return r
		}
	}
	t.Fatalf("partition %s/%d missing from snapshot", topic, p)
	return model.PartitionLag{}
}

func TestPollTwoConsumers(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		const group, topic, parts = "order-workers", "orders", 6
		tc.createTopic(t, topic, parts)
		for p := 0; p < parts; p++ {
			tc.produce(t, topic, p, 10+p, time.Now())
		}
		a := tc.joinGroup(t, group, "consumer-a", topic)
		b := tc.joinGroup(t, group, "consumer-b", topic)
		gens := waitAssigned(t, parts, a, b)

		owner := map[int32]*kafka.Generation{}
		for _, g := range gens {
			offsets := map[int]int64{}
			for _, pa := range g.Assignments[topic] {
				owner[int32(pa.ID)] = g
				offsets[pa.ID] = int64(pa.ID + 2)
			}
			if err := g.CommitOffsets(map[string]map[int]int64{topic: offsets}); err != nil {
				t.Fatalf("commit: %v", err)
			}
		}

		coordNode := tc.CoordinatorFor(group)
		others := 0
		for p := int32(0); p < parts; p++ {
			if tc.LeaderFor(topic, p) != coordNode {
				others++
			}
		}
		if others == 0 {
			t.Fatalf("set-up: coordinator %d leads every partition", coordNode)
		}

		w := newTestWatcher(t, tc, group)
		s := pollUntil(t, w, "a Stable group of two members with commits", func(s model.Snapshot) bool {
			return s.Group.State == model.StateStable && len(s.Members) == 2 && len(s.Partitions) == parts &&
				s.Partitions[parts-1].Committed >= 0
		})

		if s.Group.ProtocolType != "consumer" || s.Group.Assignor != "range" {
			t.Errorf("protocol %q assignor %q, want consumer range", s.Group.ProtocolType, s.Group.Assignor)
		}
		if want := tc.addrs[coordNode]; s.Group.Coordinator != want {
			t.Errorf("coordinator %q, want %q", s.Group.Coordinator, want)
		}
		if s.Members[0].ClientID != "consumer-a" || s.Members[1].ClientID != "consumer-b" {
			t.Errorf("members %q, %q; want consumer-a, consumer-b", s.Members[0].ClientID, s.Members[1].ClientID)
		}
		for p := int32(0); p < parts; p++ {
			r := partitionRow(t, s, topic, p)
			if r.MemberID != owner[p].MemberID {
				t.Errorf("p%d owner %q, want %q", p, r.MemberID, owner[p].MemberID)
			}
			if r.Committed != int64(p+2) || r.LogStart != 0 || r.LogEnd != int64(10+p) || r.Lag != 8 || r.LagFromStart || r.Err != "" {
				t.Errorf("p%d: committed %d log %d..%d lag %d fromStart %v err %q; want committed %d log 0..%d lag 8",
					p, r.Committed, r.LogStart, r.LogEnd, r.Lag, r.LagFromStart, r.Err, p+2, 10+p)
			}
		}
		if s.TotalLag != 8*parts {
			t.Errorf("total lag %d, want %d", s.TotalLag, 8*parts)
		}
		for _, m := range s.Members {
			if want := int64(8 * len(m.Partitions)); m.Lag != want || len(m.Partitions) != 3 {
				t.Errorf("member %s: %d partitions lag %d; want 3 partitions lag %d", m.ClientID, len(m.Partitions), m.Lag, want)
			}
		}
	})
}

// leftWithCommits produces 5 records at at to each of topic's 3 partitions,
// then group's only member commits 5, 4 and 1 and leaves: an Empty group
// with lag 0, 1 and 4.
func leftWithCommits(t *testing.T, tc *testCluster, group, topic string, at time.Time) {
	t.Helper()
	tc.createTopic(t, topic, 3)
	for p := 0; p < 3; p++ {
		tc.produce(t, topic, p, 5, at)
	}
	m := tc.joinGroup(t, group, "consumer-a", topic)
	g := waitAssigned(t, 3, m)[0]
	if err := g.CommitOffsets(map[string]map[int]int64{topic: {0: 5, 1: 4, 2: 1}}); err != nil {
		t.Fatalf("commit: %v", err)
	}
	m.leave()
}

func TestPollEmptyGroupWithCommits(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		const group, topic = "done-workers", "payments"
		leftWithCommits(t, tc, group, topic, time.Now())

		w := newTestWatcher(t, tc, group)
		s := pollUntil(t, w, "an Empty group", func(s model.Snapshot) bool { return s.Group.State == model.StateEmpty })
		if len(s.Members) != 0 || len(s.Partitions) != 3 {
			t.Fatalf("%d members %d partitions, want 0 and 3", len(s.Members), len(s.Partitions))
		}
		for p, want := range []int64{0, 1, 4} {
			r := partitionRow(t, s, topic, int32(p))
			if r.Owned() || r.Lag != want || r.LogEnd != 5 {
				t.Errorf("p%d: owned %v lag %d log-end %d; want unowned, lag %d, log-end 5", p, r.Owned(), r.Lag, r.LogEnd, want)
			}
		}
		if s.Group.StateText() != "has no active members" {
			t.Errorf("state text %q", s.Group.StateText())
		}
	})
}

func TestPollMemberWithoutCommits(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		const group, topic = "new-workers", "refunds"
		tc.createTopic(t, topic, 2)
		tc.produce(t, topic, 0, 10, time.Now())
		tc.deleteRecords(t, topic, 0, 4)
		m := tc.joinGroup(t, group, "consumer-a", topic)
		waitAssigned(t, 2, m)

		w := newTestWatcher(t, tc, group)
		s := pollUntil(t, w, "a Stable group", func(s model.Snapshot) bool {
			return s.Group.State == model.StateStable && len(s.Partitions) == 2
		})
		r := partitionRow(t, s, topic, 0)
		if r.Committed != model.NoOffset || !r.LagFromStart || r.LogStart != 4 || r.LogEnd != 10 || r.Lag != 6 || !r.Owned() {
			t.Errorf("p0: committed %d fromStart %v log %d..%d lag %d owned %v; want no commit, lag 6 from log-start 4",
				r.Committed, r.LagFromStart, r.LogStart, r.LogEnd, r.Lag, r.Owned())
		}
		if r := partitionRow(t, s, topic, 1); r.Lag != 0 || r.Committed != model.NoOffset || r.Err != "" {
			t.Errorf("p1: lag %d committed %d err %q; want an empty partition", r.Lag, r.Committed, r.Err)
		}
	})
}

func TestPollGroupDoesNotExist(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		w := newTestWatcher(t, tc, "nobody-here")
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		if s.Group.State != model.StateDead || s.Group.Exists() || len(s.Partitions) != 0 {
			t.Errorf("state %q, %d partitions; want Dead and none", s.Group.State, len(s.Partitions))
		}
		if s.Group.Coordinator == "" || s.TakenAt.IsZero() {
			t.Errorf("coordinator %q taken at %v; want both set", s.Group.Coordinator, s.TakenAt)
		}
	})
}

// writeKeys are the requests a watcher must never send.
var writeKeys = map[int16]string{0: "Produce", 8: "OffsetCommit", 11: "JoinGroup", 12: "Heartbeat", 13: "LeaveGroup", 14: "SyncGroup"}

// readKeys are the requests a watcher may send.
var readKeys = map[int16]bool{1: true, 2: true, 3: true, 9: true, 10: true, 15: true, 16: true, 17: true, 18: true, 36: true,
	69: true, 77: true, 90: true} // ConsumerGroupDescribe, ShareGroupDescribe, DescribeShareGroupOffsets

func TestPollSendsNoWriteRequests(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "busy-workers", "orders"
	tc.createTopic(t, topic, 4)
	tc.produce(t, topic, 1, 3, time.Now())
	a := tc.joinGroup(t, group, "consumer-a", topic)
	b := tc.joinGroup(t, group, "consumer-b", topic)
	g := waitAssigned(t, 4, a, b)
	for _, gen := range g {
		offsets := map[int]int64{}
		for _, pa := range gen.Assignments[topic] {
			offsets[pa.ID] = 1
		}
		gen.CommitOffsets(map[string]map[int]int64{topic: offsets})
	}

	tap := &wireTap{}
	w := newTestWatcher(t, tc, group)
	w.dial = tap.dial
	tc.resetCounts()
	// Poll while the consumers heartbeat (every 100ms), at least 5 times.
	for i := 0; i < 5 || tc.requestCounts()["Heartbeat"] < 2; i++ {
		if _, err := w.Poll(context.Background()); err != nil {
			t.Fatalf("poll %d: %v", i, err)
		}
		if i > 500 {
			t.Fatal("consumers sent no heartbeat during 500 polls; the test proves nothing")
		}
		time.Sleep(10 * time.Millisecond)
	}
	sent := tap.sent()
	if len(sent) == 0 {
		t.Fatal("the wire tap saw no request")
	}
	for _, k := range sent {
		if name, ok := writeKeys[k]; ok {
			t.Errorf("watcher sent %s", name)
		} else if !readKeys[k] {
			t.Errorf("watcher sent unexpected request %s", kmsg.NameForKey(k))
		}
	}
}

func TestPollRequestsDoNotGrowWithPartitions(t *testing.T) {
	counts := map[int]map[string]int{}
	for _, n := range []int{10, 1000} {
		tc := newTestCluster(t, true)
		tc.createTopic(t, "wide", n)
		offsets := make(map[int]int64, n)
		for p := 0; p < n; p++ {
			offsets[p] = 0
		}
		tc.commit(t, "wide-workers", "wide", offsets)
		w := newTestWatcher(t, tc, "wide-workers")
		// Warm up: connect, find the coordinator, cache metadata, until a
		// poll reads every partition.
		for i := 0; ; i++ {
			s, err := w.Poll(context.Background())
			if err != nil {
				t.Fatalf("warm-up poll: %v", err)
			}
			errs := 0
			for _, p := range s.Partitions {
				if p.Err != "" {
					if errs++; errs == 1 {
						t.Logf("warm-up poll %d: %s/%d: %s", i, p.Topic, p.Partition, p.Err)
					}
				}
			}
			if i >= 1 && errs == 0 {
				break
			}
			if i == 10 {
				t.Fatalf("%d partitions unreadable after 10 polls", errs)
			}
		}
		tc.resetCounts()
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		if len(s.Partitions) != n {
			t.Fatalf("%d partitions in snapshot, want %d", len(s.Partitions), n)
		}
		c := tc.requestCounts()
		// Not per poll: the transport refreshes its broker list on its own
		// timer (at most every 30s), and opens a pooled connection (one
		// ApiVersions) when a request follows the previous response before
		// kafka-go has returned that connection to its idle pool.
		if c[brokerDiscovery]+c["ApiVersions"] > 0 {
			t.Logf("%d partitions: not counted: %d broker list refreshes, %d new connections", n, c[brokerDiscovery], c["ApiVersions"])
		}
		delete(c, brokerDiscovery)
		delete(c, "ApiVersions")
		total := 0
		for _, k := range c {
			total += k
		}
		if max := 2 + 2*3; total > max {
			t.Errorf("%d partitions: %d requests per poll %v, want at most %d", n, total, c, max)
		}
		counts[n] = c
		if r := tc.refusals(); len(r) > 0 {
			t.Errorf("refused: %v", r)
		}
	}
	if a, b := counts[10], counts[1000]; !equalCounts(a, b) {
		t.Errorf("requests per poll differ: 10 partitions %v, 1000 partitions %v", a, b)
	}
	t.Logf("requests per poll: %v", counts[1000])
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestPollUnreachableBroker(t *testing.T) {
	_, addrs := freePorts(t, 1)
	refused := addrs[0] // nothing listens there

	// A broker that accepts connections and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()

	for _, addr := range []string{refused, silent.Addr().String()} {
		const timeout = 500 * time.Millisecond
		w := NewWatcher(Config{Brokers: []string{addr}, Group: "g", Timeout: timeout})
		start := time.Now()
		_, err := w.Poll(context.Background())
		took := time.Since(start)
		w.Close()
		if err == nil {
			t.Fatalf("%s: poll succeeded", addr)
		}
		if want := "connect to broker " + addr; !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
		if took > timeout+time.Second {
			t.Errorf("%s: failed after %s, want within %s", addr, took, timeout)
		}
		t.Logf("%s: %v (after %s)", addr, err, took.Round(time.Millisecond))
	}
}

func TestPollCanceled(t *testing.T) {
	tc := newTestCluster(t, false)
	w := newTestWatcher(t, tc, "g")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Poll(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("poll with canceled context: %v, want context.Canceled", err)
	}
}
