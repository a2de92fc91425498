package kafka

import (
	"context"
	"sync"
	"testing"
	"time"

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
