package kafka

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kgwatch/kgwatch/model/testutil"
)

// kafka40Min is the lowest version of each request key Kafka 4.0 accepts
// (KIP-896; kversion's 4.0 broker table, plus Produce v3: 4.0 still
// advertises Produce v0 for old librdkafka but refuses v0-v2).
var kafka40Min = map[int16]int16{
	0: 3, 1: 4, 2: 1, 8: 2, 9: 1, 11: 2, 19: 2, 20: 1, 23: 2, 27: 1,
	29: 1, 30: 1, 31: 1, 32: 1, 34: 1, 35: 1, 38: 1, 39: 1, 40: 1, 41: 1,
}

// testCluster is an in-process 3-broker kfake cluster that counts the
// requests it receives and, in Kafka 4.0 mode, refuses the versions 4.0
// removed.
type testCluster struct {
	*kfake.Cluster
	addrs []string

	mu      sync.Mutex
	counts  map[string]int // requests by name since resetCounts
	refused []string
	// versions is the highest version received per request name.
	versions map[string]int16
	// nonClassic names the consumer-protocol groups, which DescribeGroups
	// answers as Apache Kafka 4 does (see describeAsKafka4); mixed counts
	// DescribeGroups requests that asked for them and classic groups at
	// once, which the control cannot answer.
	nonClassic map[string]bool
	mixed      int
}

// newTestCluster starts a cluster. With kafka40 it advertises at most Kafka
// 4.0's versions and refuses (closes the connection on) any request below
// 4.0's minimums.
func newTestCluster(t testing.TB, kafka40 bool, opts ...kfake.Opt) *testCluster {
	t.Helper()
	opts = append([]kfake.Opt{kfake.NumBrokers(3), kfake.GroupMinSessionTimeout(100 * time.Millisecond)}, opts...)
	if kafka40 {
		opts = append(opts, kfake.MaxVersions(kversion.V4_0_0()))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("start kfake cluster: %v", err)
	}
	tc := &testCluster{Cluster: c, addrs: c.ListenAddrs(), counts: map[string]int{}, versions: map[string]int16{}}
	c.Control(func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		tc.counts[requestName(req)]++
		if v, ok := tc.versions[requestName(req)]; !ok || req.GetVersion() > v {
			tc.versions[requestName(req)] = req.GetVersion()
		}
		if min, ok := kafka40Min[req.Key()]; kafka40 && ok && req.GetVersion() < min {
			tc.refused = append(tc.refused, fmt.Sprintf("%s v%d", kmsg.NameForKey(req.Key()), req.GetVersion()))
			c.KeepControl()
			return nil, fmt.Errorf("%s v%d removed in Kafka 4.0", kmsg.NameForKey(req.Key()), req.GetVersion()), true
		}
		return nil, nil, false
	})
	c.ControlKey(int16(kmsg.DescribeGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		return tc.describeAsKafka4(req.(*kmsg.DescribeGroupsRequest))
	})
	t.Cleanup(c.Close)
	return tc
}

// markNonClassic records that group runs the consumer protocol (KIP-848).
func (tc *testCluster) markNonClassic(group string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.nonClassic == nil {
		tc.nonClassic = map[string]bool{}
	}
	tc.nonClassic[group] = true
}

// describeAsKafka4 answers a classic DescribeGroups for consumer-protocol
// groups as Apache Kafka 4's GroupMetadataManager.describeGroups does:
// state Dead, no protocol, no members, and from v6 error 69
// GROUP_ID_NOT_FOUND, "Group … is not a classic group." (kfake alone
// answers with the live state, which would hide a watcher that relies on
// the classic API). Requests for classic groups only are kfake's.
func (tc *testCluster) describeAsKafka4(req *kmsg.DescribeGroupsRequest) (kmsg.Response, error, bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	n := 0
	for _, g := range req.Groups {
		if tc.nonClassic[g] {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, nil, false
	case n < len(req.Groups):
		tc.mixed++
		return nil, errors.New("test control: DescribeGroups mixing classic and consumer-protocol groups"), true
	}
	return NotClassicAnswer(req), nil, true
}

// mixedDescribes returns how many DescribeGroups the control could not
// answer as Kafka would.
func (tc *testCluster) mixedDescribes() int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.mixed
}

// version returns the highest version of request name received, -1 when
// none was.
func (tc *testCluster) version(name string) int16 {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if v, ok := tc.versions[name]; ok {
		return v
	}
	return -1
}

// onListOffsets calls f, holding mu, for each partition a ListOffsets
// request asks, as the broker takes it.
func (tc *testCluster) onListOffsets(mu *sync.Mutex, f func(topic string, rp kmsg.ListOffsetsRequestTopicPartition)) {
	tc.ControlKey(int16(kmsg.ListOffsets), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		for _, rt := range kreq.(*kmsg.ListOffsetsRequest).Topics {
			for _, rp := range rt.Partitions {
				f(rt.Topic, rp)
			}
		}
		return nil, nil, false
	})
}

// resetCounts zeroes the request counters and versions.
func (tc *testCluster) resetCounts() {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	tc.counts = map[string]int{}
	tc.versions = map[string]int16{}
}

// brokerDiscovery names the Metadata requests that ask for no topic: the
// kafka-go transport's own refresh of the broker list, on its timer.
const brokerDiscovery = "Metadata(no topics)"

// requestName is the request's key name; Metadata asking for no topic is
// told apart as brokerDiscovery.
func requestName(req kmsg.Request) string {
	if m, ok := req.(*kmsg.MetadataRequest); ok && m.Topics != nil && len(m.Topics) == 0 {
		return brokerDiscovery
	}
	return kmsg.NameForKey(req.Key())
}

// requestCounts returns the requests by key name since resetCounts.
func (tc *testCluster) requestCounts() map[string]int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := make(map[string]int, len(tc.counts))
	for k, n := range tc.counts {
		out[k] = n
	}
	return out
}

// refusals returns the requests refused for being below Kafka 4.0's
// minimum versions.
func (tc *testCluster) refusals() []string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return append([]string(nil), tc.refused...)
}

// client returns a kafka-go client for setting up test data, and a func
// closing its connections. Close it as soon as done: its transport
// refreshes metadata in the background, which would count as requests.
func (tc *testCluster) client() (*kafka.Client, func()) {
	tr := &kafka.Transport{ClientID: "kgwatch-test"}
	return &kafka.Client{Addr: kafka.TCP(tc.addrs...), Timeout: 10 * time.Second, Transport: tr}, tr.CloseIdleConnections
}

// createTopic creates topic with n partitions and moves partition p's
// leadership to broker p%3, so leaders are spread over all brokers.
func (tc *testCluster) createTopic(t testing.TB, topic string, n int) {
	t.Helper()
	cl, done := tc.client()
	res, err := cl.CreateTopics(context.Background(), &kafka.CreateTopicsRequest{
		Topics: []kafka.TopicConfig{{Topic: topic, NumPartitions: n, ReplicationFactor: 3}},
	})
	done()
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	if err := res.Errors[topic]; err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
	for p := 0; p < n; p++ {
		if err := tc.MoveTopicPartition(topic, int32(p), int32(p%3)); err != nil {
			t.Fatalf("move %s/%d to broker %d: %v", topic, p, p%3, err)
		}
	}
}

// produce writes n records with the given create time to one partition.
func (tc *testCluster) produce(t testing.TB, topic string, partition, n int, at time.Time) {
	t.Helper()
	records := make([]kafka.Record, n)
	for i := range records {
		records[i] = kafka.Record{Time: at, Value: kafka.NewBytes([]byte(fmt.Sprintf(`{"order":%d}`, i)))}
	}
	tc.produceRecords(t, topic, partition, records...)
}

// deleteRecords moves a partition's log start up to offset, as retention
// would.
func (tc *testCluster) deleteRecords(t testing.TB, topic string, partition int32, offset int64) {
	t.Helper()
	req := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Partition, rp.Offset = partition, offset
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	req.TimeoutMillis = 5000
	cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...))
	if err != nil {
		t.Fatalf("new admin client: %v", err)
	}
	defer cl.Close()
	resp, err := req.RequestWith(context.Background(), cl)
	if err != nil {
		t.Fatalf("delete records of %s/%d below %d: %v", topic, partition, offset, err)
	}
	for _, t2 := range resp.Topics {
		for _, p := range t2.Partitions {
			if p.ErrorCode != 0 {
				t.Fatalf("delete records of %s/%d below %d: error code %d", topic, partition, offset, p.ErrorCode)
			}
		}
	}
}

// commit commits offsets for group outside of any generation, as an admin
// tool would (kgwatch itself never commits).
func (tc *testCluster) commit(t testing.TB, group, topic string, offsets map[int]int64) {
	t.Helper()
	parts := make([]kafka.OffsetCommit, 0, len(offsets))
	for p, o := range offsets {
		parts = append(parts, kafka.OffsetCommit{Partition: p, Offset: o})
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].Partition < parts[j].Partition })
	cl, done := tc.client()
	res, err := cl.OffsetCommit(context.Background(), &kafka.OffsetCommitRequest{
		GroupID: group, GenerationID: -1, Topics: map[string][]kafka.OffsetCommit{topic: parts},
	})
	done()
	if err != nil {
		t.Fatalf("commit offsets of %s for %s: %v", topic, group, err)
	}
	for _, ps := range res.Topics {
		for _, p := range ps {
			if p.Error != nil {
				t.Fatalf("commit %s/%d for %s: %v", topic, p.Partition, group, p.Error)
			}
		}
	}
}

// groupMember is one kafka-go ConsumerGroup member. It keeps calling Next
// so it follows rebalances, and remembers its latest generation.
type groupMember struct {
	cg   *kafka.ConsumerGroup
	mu   sync.Mutex
	gen  *kafka.Generation
	done chan struct{}
}

// joinGroup starts a member of group consuming topics, with client id
// clientID. It leaves the group (LeaveGroup) when the test ends or on
// leave.
func (tc *testCluster) joinGroup(t testing.TB, group, clientID string, topics ...string) *groupMember {
	t.Helper()
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                group,
		Brokers:           tc.addrs,
		Dialer:            &kafka.Dialer{ClientID: clientID, Timeout: 5 * time.Second},
		Topics:            topics,
		HeartbeatInterval: 100 * time.Millisecond,
		SessionTimeout:    3 * time.Second,
		RebalanceTimeout:  3 * time.Second,
		JoinGroupBackoff:  100 * time.Millisecond,
		Timeout:           5 * time.Second,
		Logger:            debugLogger(t, clientID),
	})
	if err != nil {
		t.Fatalf("new consumer group %s: %v", group, err)
	}
	m := &groupMember{cg: cg, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for {
			gen, err := cg.Next(context.Background())
			if errors.Is(err, kafka.ErrGroupClosed) {
				return
			}
			if err != nil {
				continue // a failed join or sync; kafka-go retries
			}
			m.mu.Lock()
			m.gen = gen
			m.mu.Unlock()
		}
	}()
	t.Cleanup(m.leave)
	return m
}

// leave closes the member: it sends LeaveGroup.
func (m *groupMember) leave() {
	m.cg.Close()
	<-m.done
}

// generation returns the member's latest generation, nil before the first.
func (m *groupMember) generation() *kafka.Generation {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.gen
}

// waitAssigned waits until all members share a generation whose
// assignments cover want partitions, and returns each member's generation.
func waitAssigned(t testing.TB, want int, members ...*groupMember) []*kafka.Generation {
	t.Helper()
	var gens []*kafka.Generation
	waitFor(t, 20*time.Second, "group members to share a generation", func() bool {
		gens = gens[:0]
		n := 0
		for _, m := range members {
			g := m.generation()
			if g == nil || (len(gens) > 0 && g.ID != gens[0].ID) {
				return false
			}
			gens = append(gens, g)
			for _, ps := range g.Assignments {
				n += len(ps)
			}
		}
		return n == want
	}, func() string {
		var b strings.Builder
		for _, m := range members {
			if g := m.generation(); g != nil {
				fmt.Fprintf(&b, "%s gen %d %v; ", g.MemberID, g.ID, g.Assignments)
			} else {
				b.WriteString("no generation; ")
			}
		}
		return b.String()
	})
	return gens
}

// waitFor is the shared condition wait.
var waitFor = testutil.WaitFor

func debugLogger(t testing.TB, id string) kafka.Logger {
	if os.Getenv("KGWATCH_DEBUG") == "" {
		return nil
	}
	return kafka.LoggerFunc(func(f string, a ...any) { t.Logf(id+": "+f, a...) })
}

// produceEach writes perPartition records with create time at to each of
// the topic's n partitions, batched (a few requests per broker).
func (tc *testCluster) produceEach(t testing.TB, topic string, n, perPartition int, at time.Time) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0), kgo.MaxBufferedRecords(n*perPartition+1))
	if err != nil {
		t.Fatalf("new producer: %v", err)
	}
	defer cl.Close()
	records := make([]*kgo.Record, 0, n*perPartition)
	for p := 0; p < n; p++ {
		for i := 0; i < perPartition; i++ {
			records = append(records, &kgo.Record{Topic: topic, Partition: int32(p), Timestamp: at, Value: []byte(`{"order":1}`)})
		}
	}
	if err := cl.ProduceSync(context.Background(), records...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}

// commitGroups commits offsets of topic for every group, as an admin tool
// would, over one franz-go client (one request per group, pooled
// connections): quick enough for thousands of groups.
func (tc *testCluster) commitGroups(t testing.TB, groups []string, topic string, offsets map[int32]int64) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sem := make(chan struct{}, 32)
	errs := make(chan error, len(groups))
	for _, g := range groups {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			req := kmsg.NewPtrOffsetCommitRequest()
			req.Group, req.Generation = g, -1
			rt := kmsg.NewOffsetCommitRequestTopic()
			rt.Topic = topic
			for p, o := range offsets {
				rp := kmsg.NewOffsetCommitRequestTopicPartition()
				rp.Partition, rp.Offset = p, o
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = []kmsg.OffsetCommitRequestTopic{rt}
			res, err := req.RequestWith(context.Background(), cl)
			if err == nil {
				for _, t := range res.Topics {
					for _, p := range t.Partitions {
						if p.ErrorCode != 0 {
							err = fmt.Errorf("commit %s/%d for %s: error %d", topic, p.Partition, g, p.ErrorCode)
						}
					}
				}
			}
			errs <- err
		}()
	}
	for range groups {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
