package demo

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kgwatch/kgwatch/kafka/internal/freeports"
	"github.com/kgwatch/kgwatch/model"
)

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports, err := freeports.Take(freeports.Demo, n)
	if err != nil {
		t.Fatal(err)
	}
	return ports
}

func TestListenLetsAnOutsideClientJoin(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Listen = freePorts(t, 3)
	d, _ := startDemo(t, cfg)
	for i, b := range d.Brokers() {
		_, port, _ := net.SplitHostPort(b)
		if want := net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Listen[i])); b != want || port == "" {
			t.Fatalf("Brokers()[%d] = %s, want %s", i, b, want)
		}
	}
	waitTwoOwnAll(t, d, ownsAllRecorded)
	// An outside kafka-go consumer joins the same group on a fixed port.
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                d.cfg.Group,
		Brokers:           []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Listen[1]))},
		Dialer:            &kafka.Dialer{ClientID: "outsider", Timeout: 5 * time.Second},
		Topics:            []string{DefaultTopic},
		HeartbeatInterval: 200 * time.Millisecond,
		SessionTimeout:    2 * time.Second,
		RebalanceTimeout:  2 * time.Second,
		JoinGroupBackoff:  200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // take each generation and hold it
		defer wg.Done()
		for {
			gen, err := cg.Next(context.Background())
			if err != nil {
				select {
				case <-stop:
					return
				default:
					continue
				}
			}
			gen.Start(func(ctx context.Context) {
				select {
				case <-ctx.Done():
				case <-stop:
				}
			})
		}
	}()
	defer func() {
		close(stop)
		cg.Close()
		wg.Wait()
	}()
	waitFor(t, 10*time.Second, "outsider is a member next to consumer-a and consumer-b", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b", "outsider")
	})
	if err := d.Stop("outsider"); err == nil {
		t.Fatal("Stop of an outside member succeeded, want an error")
	}
}

func TestOutsideBrokersTouchOnlyTheDemoTopicAndGroup(t *testing.T) {
	t.Parallel()
	const existing = "payments"
	cluster, err := kfake.NewCluster(
		kfake.NumBrokers(3),
		kfake.GroupMinSessionTimeout(100*time.Millisecond),
		kfake.SeedTopics(2, existing),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	cfg := fastConfig()
	cfg.Brokers = cluster.ListenAddrs()[:1]
	cfg.Topic = "orders-demo"
	cfg.Partitions = 4
	d, _ := startDemo(t, cfg)
	if d.cluster != nil {
		t.Fatal("demo started an embedded cluster although Brokers was set")
	}
	d.cluster = cluster // owners() reads the coordinator's view
	waitFor(t, 10*time.Second, "consumer-a and consumer-b own all 4 partitions", func() bool {
		return d.partCount == 4 && ownsAll(d, "consumer-a", "consumer-b")
	})
	waitFor(t, 10*time.Second, "orders processed", func() bool { return d.Ledger().Processed >= 10 })
	d.cluster = nil // not ours: Close must leave it running
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// The outside cluster still runs, holds its own topic untouched, and
	// knows no group but ours.
	client := &kafka.Client{Addr: kafka.TCP(cluster.ListenAddrs()...), Timeout: 5 * time.Second}
	meta, err := client.Metadata(context.Background(), &kafka.MetadataRequest{})
	if err != nil {
		t.Fatalf("outside cluster after demo Close: %v", err)
	}
	topics := map[string]int{}
	for _, tp := range meta.Topics {
		topics[tp.Name] = len(tp.Partitions)
	}
	if len(topics) != 2 || topics[existing] != 2 || topics[cfg.Topic] != 4 {
		t.Fatalf("topics after the demo: %v, want %s:2 and %s:4", topics, existing, cfg.Topic)
	}
	ends := map[string][]int64{}
	for p := range 2 {
		c, err := kafka.DialLeader(context.Background(), "tcp", cluster.ListenAddrs()[0], existing, p)
		if err != nil {
			t.Fatal(err)
		}
		off, err := c.ReadLastOffset()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		ends[existing] = append(ends[existing], off)
	}
	if ends[existing][0] != 0 || ends[existing][1] != 0 {
		t.Fatalf("demo wrote to %s: log ends %v", existing, ends[existing])
	}
	groups, err := client.ListGroups(context.Background(), &kafka.ListGroupsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups {
		if g.GroupID != d.cfg.Group {
			t.Fatalf("a group other than %s exists: %s", d.cfg.Group, g.GroupID)
		}
	}
}

// kafka40Min is the lowest version of each request key Kafka 4.0 accepts
// (KIP-896), as kafka/kfake_test.go has it.
var kafka40Min = map[int16]int16{
	0: 3, 1: 4, 2: 1, 8: 2, 9: 1, 11: 2, 19: 2, 20: 1, 23: 2, 27: 1,
	29: 1, 30: 1, 31: 1, 32: 1, 34: 1, 35: 1, 38: 1, 39: 1, 40: 1, 41: 1,
}

// TestDemoSpeaksKafka40 runs every demo move — produce, consume, commit,
// stop, kill and eviction watch, max.poll.interval leave, restart — on
// both protocols side by side against a cluster that refuses the request
// versions Kafka 4.0 removed and answers the classic DescribeGroups for a
// consumer-protocol group as Kafka 4 does (Dead, GROUP_ID_NOT_FOUND).
func TestDemoSpeaksKafka40(t *testing.T) {
	t.Parallel()
	cluster, err := kfake.NewCluster(
		kfake.NumBrokers(3),
		kfake.GroupMinSessionTimeout(100*time.Millisecond),
		kfake.MaxVersions(kversion.V4_0_0()),
		kfake.BrokerConfigs(map[string]string{
			"group.consumer.session.timeout.ms":    "1000",
			"group.consumer.heartbeat.interval.ms": "100",
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	var mu sync.Mutex
	var refused []string
	cluster.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		if min, ok := kafka40Min[req.Key()]; ok && req.GetVersion() < min {
			cluster.KeepControl()
			mu.Lock()
			refused = append(refused, fmt.Sprintf("%s v%d", kmsg.NameForKey(req.Key()), req.GetVersion()))
			mu.Unlock()
			return nil, fmt.Errorf("%s v%d removed in Kafka 4.0", kmsg.NameForKey(req.Key()), req.GetVersion()), true
		}
		return nil, nil, false
	})
	const kip848 = "order-workers-848"
	cluster.ControlKey(int16(kmsg.DescribeGroups), func(r kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		req := r.(*kmsg.DescribeGroupsRequest)
		if len(req.Groups) != 1 || req.Groups[0] != kip848 {
			return nil, nil, false
		}
		res := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group, g.State = kip848, "Dead"
		if req.GetVersion() >= 6 {
			g.ErrorCode = kerr.GroupIDNotFound.Code
		}
		res.Groups = append(res.Groups, g)
		return res, nil, true
	})
	cfg := fastConfig()
	cfg.Brokers = cluster.ListenAddrs()
	cfg.Consumers = 3
	cfg.SessionTimeout = time.Second
	cfg.MaxPollInterval = 500 * time.Millisecond
	cfg.SlowProcessTime = time.Second
	cfg.Compare = []GroupSpec{{Assignor: AssignorRange}, {Protocol: ProtocolConsumer}}
	d, rec := startDemo(t, cfg)
	d.cluster = cluster
	defer func() { d.cluster = nil }()
	groups := []string{"order-workers-range", kip848}
	for _, g := range groups {
		waitFor(t, 10*time.Second, g+": three members own all partitions", func() bool {
			return groupOwnsAll(d, g, "consumer-a", "consumer-b", "consumer-c")
		})
	}
	if err := d.Stop("consumer-a"); err != nil {
		t.Fatal(err)
	}
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		waitFor(t, 5*time.Second, g+": consumer-b evicted", func() bool {
			return len(rec.inGroup(g, model.EventDemoEvicted, 0)) == 1
		})
	}
	if _, err := d.ToggleSlow("consumer-c"); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		waitFor(t, 5*time.Second, g+": consumer-c pushed out by max.poll.interval", func() bool {
			for _, e := range rec.inGroup(g, model.EventDemoRevoked, 0) {
				if e.ClientID == "consumer-c" && strings.Contains(e.Detail, "max.poll.interval") {
					return true
				}
			}
			return false
		})
		waitFor(t, 5*time.Second, g+": consumer-c's late commit refused", func() bool {
			return len(rec.inGroup(g, model.EventDemoCommitFailed, 0)) >= 1
		})
	}
	if _, err := d.ToggleSlow("consumer-c"); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		waitFor(t, 10*time.Second, g+": consumer-c back, owning everything", func() bool {
			return groupOwnsAll(d, g, "consumer-c")
		})
	}
	if err := d.Restart("consumer-a"); err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		waitFor(t, 10*time.Second, g+": consumer-a restarted next to consumer-c", func() bool {
			return groupOwnsAll(d, g, "consumer-a", "consumer-c")
		})
	}
	ls := quietAll(t, d, 20*time.Second)
	for g, l := range ls {
		if l.Processed < 10 || l.Lost != 0 {
			t.Fatalf("%s ledger %+v: want orders processed, none lost", g, l)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 0 {
		t.Fatalf("requests refused by a Kafka 4.0 cluster: %v", refused)
	}
}
