package kafka

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kgoMember is a franz-go client in a group (classic, consumer protocol or
// share, as its options say), polling until it leaves or is killed.
type kgoMember struct {
	cl   *kgo.Client
	cut  *cutDialer
	stop context.CancelFunc
	done chan struct{}
	once sync.Once
}

// kgoJoin starts a franz-go consumer with client id clientID and opts
// (its group, topics, protocol). It leaves the group when the test ends.
func (tc *testCluster) kgoJoin(t testing.TB, clientID string, opts ...kgo.Opt) *kgoMember {
	t.Helper()
	cd := &cutDialer{}
	base := []kgo.Opt{
		kgo.SeedBrokers(tc.addrs...), kgo.ClientID(clientID), kgo.Dialer(cd.dial),
		kgo.FetchMaxWait(200 * time.Millisecond), kgo.RetryTimeout(5 * time.Second),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatalf("new franz-go client %s: %v", clientID, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &kgoMember{cl: cl, cut: cd, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			cl.PollFetches(ctx)
		}
	}()
	t.Cleanup(m.leave)
	return m
}

// leave closes the client, which leaves the group (LeaveGroup, or a leave
// heartbeat on the consumer protocol).
func (m *kgoMember) leave() {
	m.once.Do(func() {
		m.stop()
		<-m.done
		m.cl.Close()
	})
}

// kill cuts the client's connections and refuses its redials, as kill -9
// would: the coordinator hears nothing more from it.
func (m *kgoMember) kill() {
	m.once.Do(func() {
		m.cut.kill()
		m.stop()
		<-m.done
		go m.cl.Close() // its leave cannot reach the broker; do not wait
	})
}

// consumer848 starts a franz-go member of group on the consumer protocol
// (KIP-848: the coordinator assigns), and marks group so classic
// DescribeGroups answers for it as Kafka 4 does.
func (tc *testCluster) consumer848(t testing.TB, group, clientID string, topics []string, opts ...kgo.Opt) *kgoMember {
	t.Helper()
	tc.markNonClassic(group)
	return tc.kgoJoin(t, clientID, append([]kgo.Opt{kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...), kgo.ServerSideBalancer()}, opts...)...)
}

// fast848 are broker configs that make consumer-protocol groups quick to
// test: heartbeats every 250ms, sessions of 3s.
func fast848() kfake.Opt {
	return kfake.BrokerConfigs(map[string]string{
		"group.consumer.heartbeat.interval.ms": "250",
		"group.consumer.session.timeout.ms":    "3000",
	})
}
