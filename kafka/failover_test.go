package kafka

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

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

func TestPollFollowsLeaderMove(t *testing.T) {
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
	ports := make([]int, 3)
	addrs := make([]string, 3)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		addrs[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[i]))
		ln.Close()
	}
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
