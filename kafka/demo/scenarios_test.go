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
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kgwatch/kgwatch/model"
)

// consumerOf returns our consumer with that client id.
func consumerOf(t *testing.T, d *Demo, id string) *consumer {
	t.Helper()
	c, err := d.find(id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// killIn kills consumer id as soon as it is in phase.
func killIn(t *testing.T, d *Demo, id, phase string) {
	t.Helper()
	c := consumerOf(t, d, id)
	waitFor(t, 10*time.Second, id+" in phase "+phase, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return c.phase == phase
	})
	if err := d.Kill(id); err != nil {
		t.Fatalf("Kill(%s): %v", id, err)
	}
}

func info(d *Demo, id string) ConsumerInfo {
	for _, c := range d.Consumers() {
		if c.ClientID == id {
			return c
		}
	}
	return ConsumerInfo{}
}

// quiet pauses the producer and waits until every order is processed or
// lost, then checks the ledger against the log itself.
func quiet(t *testing.T, d *Demo, within time.Duration) model.Ledger {
	t.Helper()
	if !d.TogglePause() {
		t.Fatal("TogglePause did not pause the producer")
	}
	time.Sleep(100 * time.Millisecond) // let an in-flight produce land
	var l model.Ledger
	waitFor(t, within, "ledger quiet (nothing in flight)", func() bool {
		l = d.Ledger()
		return l.InFlight == 0
	})
	if l.Processed+l.Lost+l.InFlight != l.Produced {
		t.Fatalf("ledger %+v: processed + lost + in-flight != produced", l)
	}
	// The ledger's Produced is what the log holds: count it independently.
	if logged := sum(logEnds(t, d)); logged != l.Produced {
		t.Fatalf("ledger says %d produced, the log holds %d records", l.Produced, logged)
	}
	return l
}

func logEnds(t *testing.T, d *Demo) []int64 {
	t.Helper()
	client := &kafka.Client{Addr: kafka.TCP(d.brokers...), Timeout: 5 * time.Second}
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for p := range d.partCount {
		req.Topics[d.cfg.Topic] = append(req.Topics[d.cfg.Topic], kafka.LastOffsetOf(p))
	}
	resp, err := client.ListOffsets(context.Background(), req)
	if err != nil {
		t.Fatalf("list offsets: %v", err)
	}
	out := make([]int64, d.partCount)
	for _, po := range resp.Topics[d.cfg.Topic] {
		out[po.Partition] = po.LastOffset
	}
	return out
}

func TestKillIsEvictedAfterSessionTimeoutNotBefore(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.SessionTimeout = 2 * time.Second
	d, rec := startDemo(t, cfg)
	cfg = d.Config()

	// Count LeaveGroup requests: a killed consumer must send none.
	var mu sync.Mutex
	leaves := map[string]int{}
	d.cluster.ControlKey(int16(kmsg.LeaveGroup), func(r kmsg.Request) (kmsg.Response, error, bool) {
		d.cluster.KeepControl()
		req := r.(*kmsg.LeaveGroupRequest)
		mu.Lock()
		leaves[req.MemberID]++
		for _, m := range req.Members {
			leaves[m.MemberID]++
		}
		mu.Unlock()
		return nil, nil, false
	})

	waitFor(t, 10*time.Second, "two members own all partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	member := info(d, "consumer-b").MemberID
	killed := time.Now()
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if ci := info(d, "consumer-b"); ci.State != StateKilled || ci.KilledAt.IsZero() {
		t.Fatalf("consumer-b right after Kill: %+v", ci)
	}
	if len(rec.find(model.EventDemoKilled, "consumer-b")) != 1 {
		t.Fatal("no demo_killed event")
	}
	// Well inside the session timeout the coordinator still counts the
	// dead member and consumer-a has not taken its partitions.
	time.Sleep(cfg.SessionTimeout / 2)
	if o := owners(d); len(o["consumer-b"]) == 0 || len(o["consumer-a"]) == 3 {
		t.Fatalf("at half the session timeout the group already moved on: %s", ownersString(o))
	}
	waitFor(t, cfg.SessionTimeout+3*time.Second, "demo_evicted", func() bool {
		return len(rec.find(model.EventDemoEvicted, "consumer-b")) == 1
	})
	ev := rec.find(model.EventDemoEvicted, "consumer-b")[0]
	low := cfg.SessionTimeout - cfg.HeartbeatInterval - 100*time.Millisecond
	high := cfg.SessionTimeout + 700*time.Millisecond
	t.Logf("session timeout %s, heartbeat %s: evicted %s after the kill (event says %s)",
		cfg.SessionTimeout, cfg.HeartbeatInterval, time.Since(killed), ev.Duration)
	if !ev.HasDuration || ev.Duration < low || ev.Duration > high {
		t.Fatalf("evicted after %s, want within [%s, %s]", ev.Duration, low, high)
	}
	if ev.MemberID != member {
		t.Fatalf("demo_evicted member %q, want %q", ev.MemberID, member)
	}
	took := waitFor(t, 3*time.Second, "consumer-a owns all partitions", func() bool {
		o := owners(d)
		return len(o) == 1 && len(o["consumer-a"]) == 3
	})
	t.Logf("eviction → consumer-a owns all in %s", took)
	if ci := info(d, "consumer-b"); ci.State != StateEvicted || ci.MemberID != "" {
		t.Fatalf("consumer-b after eviction: %+v", ci)
	}
	mu.Lock()
	defer mu.Unlock()
	if leaves[member] != 0 {
		t.Fatalf("killed member sent %d LeaveGroup requests, want 0", leaves[member])
	}
}

func TestStopSendsLeaveGroup(t *testing.T) {
	t.Parallel()
	d, _ := startDemo(t, fastConfig())
	var mu sync.Mutex
	leaves := map[string]int{}
	d.cluster.ControlKey(int16(kmsg.LeaveGroup), func(r kmsg.Request) (kmsg.Response, error, bool) {
		d.cluster.KeepControl()
		req := r.(*kmsg.LeaveGroupRequest)
		mu.Lock()
		leaves[req.MemberID]++
		for _, m := range req.Members {
			leaves[m.MemberID]++
		}
		mu.Unlock()
		return nil, nil, false
	})
	waitFor(t, 10*time.Second, "two members own all partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	member := info(d, "consumer-a").MemberID
	if err := d.Stop("consumer-a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Second, "consumer-a sent LeaveGroup", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return leaves[member] == 1
	})
}

func TestSlowConsumerPartitionsLagWhileOthersKeepUp(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 30
	cfg.ProcessTime = 5 * time.Millisecond
	cfg.SlowProcessTime = 300 * time.Millisecond
	d, _ := startDemo(t, cfg)
	waitFor(t, 10*time.Second, "two members own all partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	slow, err := d.ToggleSlow("consumer-a")
	if err != nil || !slow {
		t.Fatalf("ToggleSlow = %v, %v; want true, nil", slow, err)
	}
	if !info(d, "consumer-a").Slow {
		t.Fatal("Consumers() does not report consumer-a slow")
	}
	o := owners(d)
	var slowLag, fastLag []int64
	waitFor(t, 10*time.Second, "consumer-a's partitions lag ≥ 20 while consumer-b's stay ≤ 5", func() bool {
		l := lags(t, d)
		slowLag, fastLag = nil, nil
		for _, p := range o["consumer-a"] {
			slowLag = append(slowLag, l[p])
		}
		for _, p := range o["consumer-b"] {
			fastLag = append(fastLag, l[p])
		}
		return sum(slowLag) >= 20
	})
	t.Logf("slow member lag %v, fast member lag %v", slowLag, fastLag)
	for _, l := range fastLag {
		if l > 5 {
			t.Fatalf("fast member's partition lag %d, want near zero (slow %v, fast %v)", l, slowLag, fastLag)
		}
	}
	// Back to normal speed, the slow member catches up.
	if slow, _ := d.ToggleSlow("consumer-a"); slow {
		t.Fatal("second ToggleSlow did not clear slow")
	}
	waitFor(t, 15*time.Second, "consumer-a catches up", func() bool { return sum(lags(t, d)) <= 6 })
}

func TestHotKeyMakesOnePartitionDominate(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Consumers = 3
	cfg.Rate = 30
	cfg.ProcessTime = 50 * time.Millisecond
	d, _ := startDemo(t, cfg)
	waitFor(t, 10*time.Second, "three members own a partition each", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b", "consumer-c")
	})
	if !d.ToggleHotKey() {
		t.Fatal("ToggleHotKey did not turn the hot key on")
	}
	before := logEnds(t, d)
	var l []int64
	waitFor(t, 10*time.Second, "one partition's lag ≥ 15 and over 3× every other", func() bool {
		l = lags(t, d)
		hot := 0
		for p := range l {
			if l[p] > l[hot] {
				hot = p
			}
		}
		for p := range l {
			if p != hot && l[hot] <= 3*l[p] {
				return false
			}
		}
		return l[hot] >= 15
	})
	after := logEnds(t, d)
	var total, top int64
	for p := range after {
		n := after[p] - before[p]
		total += n
		top = max(top, n)
	}
	t.Logf("hot key: lag %v; new orders per partition %v → %v", l, before, after)
	if top*10 < total*7 {
		t.Fatalf("hot partition got %d of %d new orders, want most", top, total)
	}
	if d.ToggleHotKey() {
		t.Fatal("second ToggleHotKey did not turn it off")
	}
}

func TestCommitAfterKillBeforeCommitDuplicatesButLosesNothing(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 4
	cfg.SessionTimeout = time.Second
	cfg.CommitDelay = 300 * time.Millisecond
	d, rec := startDemo(t, cfg)
	waitFor(t, 10*time.Second, "two members own all partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	waitFor(t, 10*time.Second, "a few orders produced", func() bool { return d.Ledger().Produced >= 6 })
	killIn(t, d, "consumer-b", phaseCommitting)
	waitFor(t, 10*time.Second, "a duplicate counted", func() bool { return d.Ledger().Duplicates >= 1 })
	dups := rec.find(model.EventDemoDuplicate, "consumer-a")
	if len(dups) == 0 {
		t.Fatal("no demo_duplicate event from consumer-a")
	}
	t.Logf("duplicate: %s", dups[0].Detail)
	l := quiet(t, d, 20*time.Second)
	t.Logf("ledger after quiet: %+v", l)
	if l.Lost != 0 || l.Processed != l.Produced || l.Duplicates < 1 {
		t.Fatalf("commit after: ledger %+v, want every order processed, ≥1 duplicate, none lost", l)
	}
}

func TestCommitBeforeKillDuringProcessingLosesTheOrder(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 4
	cfg.SessionTimeout = time.Second
	cfg.Commit = CommitBefore
	cfg.ProcessTime = 200 * time.Millisecond
	d, _ := startDemo(t, cfg)
	waitFor(t, 10*time.Second, "two members own all partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	waitFor(t, 10*time.Second, "a few orders produced", func() bool { return d.Ledger().Produced >= 6 })
	killIn(t, d, "consumer-b", phaseProcessing)
	waitFor(t, 10*time.Second, "a loss counted", func() bool { return d.Ledger().Lost >= 1 })
	l := quiet(t, d, 20*time.Second)
	t.Logf("ledger after quiet: %+v", l)
	if l.Lost < 1 || l.Duplicates != 0 {
		t.Fatalf("commit before: ledger %+v, want ≥1 lost, no duplicates", l)
	}
}

func TestMaxPollIntervalPushesSlowMemberOut(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = 10
	cfg.SessionTimeout = 2 * time.Second
	cfg.MaxPollInterval = time.Second
	cfg.SlowProcessTime = 2500 * time.Millisecond
	d, rec := startDemo(t, cfg)
	waitFor(t, 10*time.Second, "two members own all partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	member := info(d, "consumer-b").MemberID
	if _, err := d.ToggleSlow("consumer-b"); err != nil {
		t.Fatal(err)
	}
	// consumer-b starts a slow order; a second later it leaves the group
	// on its own and consumer-a takes every partition.
	left := waitFor(t, 5*time.Second, "consumer-b left; consumer-a owns all partitions", func() bool {
		o := owners(d)
		return len(o) == 1 && len(o["consumer-a"]) == 3
	})
	t.Logf("slow order → partitions moved in %s", left)
	revoked := false
	for _, e := range rec.find(model.EventDemoRevoked, "consumer-b") {
		if strings.Contains(e.Detail, "max.poll.interval") && e.MemberID == member {
			revoked = true
		}
	}
	if !revoked {
		t.Fatal("no demo_revoked naming max.poll.interval for consumer-b")
	}
	if _, err := d.ToggleSlow("consumer-b"); err != nil { // let it come back
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "consumer-b's late commit refused", func() bool {
		return len(rec.find(model.EventDemoCommitFailed, "consumer-b")) >= 1
	})
	waitFor(t, 5*time.Second, "the slow order reprocessed by consumer-a counted as a duplicate", func() bool {
		return len(rec.find(model.EventDemoDuplicate, "")) >= 1 && d.Ledger().Duplicates >= 1
	})
	if l := d.Ledger(); l.CommitFailures < 1 {
		t.Fatalf("ledger %+v: want ≥1 commit failure", l)
	}
	waitFor(t, 10*time.Second, "consumer-b rejoined after its order", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	l := quiet(t, d, 20*time.Second)
	if l.Lost != 0 || l.Processed != l.Produced {
		t.Fatalf("ledger %+v: want everything processed, nothing lost", l)
	}
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
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
	// An outside kafka-go consumer joins the same group on a fixed port.
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                d.cfg.Group,
		Brokers:           []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Listen[1]))},
		Dialer:            &kafka.Dialer{ClientID: "outsider", Timeout: 5 * time.Second},
		Topics:            []string{DefaultTopic},
		HeartbeatInterval: 200 * time.Millisecond,
		SessionTimeout:    2 * time.Second,
		RebalanceTimeout:  2 * time.Second,
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
// stop, kill and eviction watch, max.poll.interval leave — against a
// cluster that refuses the request versions Kafka 4.0 removed.
func TestDemoSpeaksKafka40(t *testing.T) {
	t.Parallel()
	cluster, err := kfake.NewCluster(
		kfake.NumBrokers(3),
		kfake.GroupMinSessionTimeout(100*time.Millisecond),
		kfake.MaxVersions(kversion.V4_0_0()),
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
	cfg := fastConfig()
	cfg.Brokers = cluster.ListenAddrs()
	cfg.Consumers = 3
	cfg.SessionTimeout = time.Second
	cfg.MaxPollInterval = 500 * time.Millisecond
	cfg.SlowProcessTime = time.Second
	d, rec := startDemo(t, cfg)
	d.cluster = cluster
	defer func() { d.cluster = nil }()
	waitFor(t, 10*time.Second, "three members own all partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b", "consumer-c")
	})
	if err := d.Stop("consumer-a"); err != nil {
		t.Fatal(err)
	}
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "consumer-b evicted", func() bool {
		return len(rec.find(model.EventDemoEvicted, "consumer-b")) == 1
	})
	if _, err := d.ToggleSlow("consumer-c"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "consumer-c pushed out by max.poll.interval", func() bool {
		for _, e := range rec.find(model.EventDemoRevoked, "consumer-c") {
			if strings.Contains(e.Detail, "max.poll.interval") {
				return true
			}
		}
		return false
	})
	waitFor(t, 5*time.Second, "consumer-c's late commit refused", func() bool {
		return len(rec.find(model.EventDemoCommitFailed, "consumer-c")) >= 1
	})
	if _, err := d.ToggleSlow("consumer-c"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "consumer-c back, owning everything", func() bool {
		return ownsAll(d, "consumer-c")
	})
	waitFor(t, 10*time.Second, "orders processed", func() bool { return d.Ledger().Processed >= 10 })
	mu.Lock()
	defer mu.Unlock()
	if len(refused) != 0 {
		t.Fatalf("requests refused by a Kafka 4.0 cluster: %v", refused)
	}
}
