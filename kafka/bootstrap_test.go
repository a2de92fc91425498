package kafka

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/protocol/apiversions"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// hungBroker listens, accepts every connection and never answers, as a
// broker frozen by SIGSTOP or a load balancer with nothing behind it
// would. It returns its address and the number of connections accepted.
func hungBroker(t testing.TB) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String(), &accepted
}

// TestBootstrapPastHungBroker: the first bootstrap broker accepts and never
// answers. Every poll and every overview, each from a fresh watcher,
// succeeds, in about the time of the good broker (plus the stagger), far
// within the timeout.
func TestBootstrapPastHungBroker(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "patient", "orders")
	hung, accepted := hungBroker(t)
	const timeout = 10 * time.Second
	brokers := []string{hung, tc.addrs[0]}

	var took []time.Duration
	for i := 0; i < 10; i++ {
		w := NewWatcher(Config{Brokers: brokers, Group: "patient", Timeout: timeout})
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		start := time.Now()
		s, err := w.Poll(ctx)
		d := time.Since(start)
		cancel()
		w.Close()
		if err != nil {
			t.Fatalf("poll %d with a hung first bootstrap broker: %v (after %s)", i, err, d)
		}
		if s.Group.State != model.StateEmpty || len(s.Partitions) != 6 {
			t.Fatalf("poll %d: state %q, %d partitions; want Empty, 6", i, s.Group.State, len(s.Partitions))
		}
		assertLag(t, s, 3)
		took = append(took, d)
	}
	for i := 0; i < 10; i++ {
		o := judge(NewOverviewWatcher(Config{Brokers: brokers, Timeout: timeout}))
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		start := time.Now()
		gs, err := o.Overview(ctx)
		d := time.Since(start)
		cancel()
		o.Close()
		if err != nil {
			t.Fatalf("overview %d with a hung first bootstrap broker: %v (after %s)", i, err, d)
		}
		if len(gs) != 1 || gs[0].ID != "patient" || gs[0].TotalLag != 18 {
			t.Fatalf("overview %d: %+v, want patient with lag 18", i, gs)
		}
		took = append(took, d)
	}
	var sum, longest time.Duration
	for _, d := range took {
		sum += d
		longest = max(longest, d)
	}
	t.Logf("20 connections past a hung broker: mean %s, longest %s (timeout %s)", sum/20, longest, timeout)
	if longest > timeout/4 {
		t.Errorf("longest took %s: want well within the %s timeout", longest, timeout)
	}
	if accepted.Load() == 0 {
		t.Error("the hung broker was never dialed: the test proves nothing")
	}
}

// TestBootstrapAllHung: no bootstrap broker answers. The poll fails once,
// in about one timeout (the attempts overlap), naming each address.
func TestBootstrapAllHung(t *testing.T) {
	var addrs []string
	for i := 0; i < 3; i++ {
		a, _ := hungBroker(t)
		addrs = append(addrs, a)
	}
	const timeout = time.Second
	w := NewWatcher(Config{Brokers: addrs, Group: "g", Timeout: timeout})
	defer w.Close()
	start := time.Now()
	_, err := w.Poll(context.Background())
	took := time.Since(start)
	if err == nil {
		t.Fatal("poll of hung brokers succeeded")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "connect to brokers "+strings.Join(addrs, ",")+": ") || strings.Count(msg, "no answer within 1s") != 3 || strings.Contains(msg, "\n") {
		t.Errorf("error %q: want one line saying each of the 3 brokers did not answer within 1s", msg)
	}
	for _, a := range addrs {
		if strings.Count(msg, a) != 2 {
			t.Errorf("error %q names %s %d times, want twice (the list, its failure)", msg, a, strings.Count(msg, a))
		}
	}
	if took > 2*timeout {
		t.Errorf("took %s: want about one %s timeout, not one per broker", took, timeout)
	}
}

// TestTransportRedialAvoidsHungBroker: the transport's control connection
// (the one kafka-go's broker-list refresh uses, redialed among the
// bootstrap addresses whenever it breaks) never goes back to the
// bootstrap broker that did not answer. Each round drops every connection
// and sends a request on the control connection; kafka-go would pick the
// hung broker one time in three.
func TestTransportRedialAvoidsHungBroker(t *testing.T) {
	tc := newTestCluster(t, false)
	hung, accepted := hungBroker(t)
	tap := &wireTap{}
	w := NewWatcher(Config{Brokers: []string{hung, tc.addrs[0], tc.addrs[1]}, Group: "g", Timeout: 5 * time.Second})
	defer w.Close()
	w.dial = tap.dial
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	dialed := accepted.Load()
	if dialed == 0 {
		t.Fatal("the bootstrap race never dialed the hung broker: the test proves nothing")
	}
	for round := 0; round < 12; round++ {
		tap.dropAll()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		var err error
		// The first tries may take dead pooled connections.
		for try := 0; try < 5; try++ {
			if _, err = w.tr.RoundTrip(ctx, w.addr, &apiversions.Request{}); err == nil {
				break
			}
		}
		cancel()
		if err != nil {
			t.Fatalf("round %d: request on the control connection: %v", round, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("round %d: took %s", round, d)
		}
	}
	if n := accepted.Load(); n != dialed {
		t.Errorf("the hung bootstrap broker was dialed %d more times", n-dialed)
	}
	if _, err := w.Poll(context.Background()); err != nil {
		t.Errorf("poll after the redials: %v", err)
	}
}

// TestMetadataFromAnotherBroker: the broker a Metadata request is routed
// to stops answering (its connections hang); another broker answers,
// after the hedge delay rather than the timeout.
func TestMetadataFromAnotherBroker(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "g", "orders")
	hung, _ := hungBroker(t)
	tap := &wireTap{}
	var silent atomic.Value
	silent.Store("")
	const timeout = 5 * time.Second
	w := NewWatcher(Config{Brokers: tc.addrs, Group: "g", Timeout: timeout})
	defer w.Close()
	w.dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		if address == silent.Load().(string) {
			address = hung
		}
		return tap.dial(ctx, network, address)
	}
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	silent.Store(tc.addrs[1])
	tap.dropAll()
	start := time.Now()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{{Topic: kmsg.StringPtr("orders")}}
	res, err := w.roundTrip(context.Background(), w.kmsg(req, 0, -1, route{1}))
	took := time.Since(start)
	if err != nil {
		t.Fatalf("metadata with broker 1 silent: %v (after %s)", err, took)
	}
	topics := topicMetas(res.(*kmsgResponse).res.(*kmsg.MetadataResponse))
	if tm := topics["orders"]; tm == nil || len(tm.partitions) != 6 {
		t.Errorf("metadata: %+v, want orders with 6 partitions", topics)
	}
	if took > metadataHedgeAfter+timeout/4 {
		t.Errorf("took %s: want about the %s hedge delay, well within the %s timeout", took, metadataHedgeAfter, timeout)
	}
}
