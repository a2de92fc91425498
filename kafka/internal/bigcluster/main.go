// Command bigcluster serves a kfake cluster of 3 brokers on loopback for
// measuring kgwatch at scale. It is a tool, not a test. Two layouts:
//
//   - one big group (the default, -groups 0): one topic of -partitions
//     partitions and a classic group of -members kgo members that never
//     fetch (paused) but commit every -every what they own, each partition
//     a few records behind its log end, while -produce records a second
//     are written spread over the partitions;
//   - many groups (-groups N, e.g. 5000, for the overview): -topics topics
//     of -topic-partitions partitions; every group but the live ones is
//     Empty with standalone commits (generation -1) on 2 partitions of
//     each of 3 topics; -live groups have one classic kgo member each, on
//     one of those topics and on "ingest", that commits every -every a
//     few records behind the log end; -lagging empty groups committed on
//     "ingest" only, which -produce records a second are written to, so
//     their lag grows.
//
// Build and run (from the repository root):
//
//	go build -o /tmp/bigcluster ./kafka/internal/bigcluster
//	/tmp/bigcluster -ports 29392,29393,29394 -groups 5000
//
// It prints "serving [addrs]" once seeded; Ctrl-C stops it. Then measure
// the overview TUI in a private tmux session, with the profiling hook:
//
//	go build -o kgw . && tmux -L me new-session -d -x 120 -y 40 \
//	  "KGWATCH_PPROF=127.0.0.1:6081 ./kgw -b 127.0.0.1:29392"
//	pid=$(pgrep -n -f '^./kgw ')
//	awk '{print $14+$15}' /proc/$pid/stat   # CPU ticks (CLK_TCK a second), twice, ≥40 s apart after a 15 s warm-up
//	grep -E 'VmRSS|VmHWM' /proc/$pid/status # resident and high-water
//	curl -s -o cpu.prof 'http://127.0.0.1:6081/debug/pprof/profile?seconds=30'
//	curl -s -o heap.prof 'http://127.0.0.1:6081/debug/pprof/heap'
//	go tool pprof -top kgw cpu.prof
//	tmux -L me kill-server
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type config struct {
	parts, members, produce int
	groups, live, lagging   int
	topics, topicParts      int
	every                   time.Duration
	group, topic            string
}

func main() {
	var c config
	ports := flag.String("ports", "29092,29093,29094", "the 3 brokers' loopback ports, comma-separated")
	flag.IntVar(&c.parts, "partitions", 10000, "one big group: the topic's partitions")
	flag.IntVar(&c.members, "members", 10, "one big group: its members")
	flag.StringVar(&c.group, "group", "big-workers", "one big group: its name")
	flag.StringVar(&c.topic, "topic", "big", "one big group: its topic")
	flag.IntVar(&c.groups, "groups", 0, "many groups: how many (0: one big group)")
	flag.IntVar(&c.live, "live", 30, "many groups: groups with a live member committing every -every")
	flag.IntVar(&c.lagging, "lagging", 5, "many groups: empty groups whose lag grows as -produce writes")
	flag.IntVar(&c.topics, "topics", 20, "many groups: topics")
	flag.IntVar(&c.topicParts, "topic-partitions", 12, "many groups: partitions a topic")
	flag.DurationVar(&c.every, "every", time.Second, "commit cadence of the live members")
	flag.IntVar(&c.produce, "produce", 2000, "records a second written while serving")
	flag.Parse()
	var ps []int
	for _, p := range strings.Split(*ports, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			fmt.Fprintln(os.Stderr, "bigcluster: -ports:", err)
			os.Exit(2)
		}
		ps = append(ps, n)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	if c.groups > 0 {
		err = manyGroups(ctx, ps, c)
	} else {
		err = oneGroup(ctx, ps, c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bigcluster:", err)
		os.Exit(1)
	}
}

// ends tracks each partition's log end as the producer learns it.
type ends struct {
	mu  sync.Mutex
	end map[string][]int64
}

func (e *ends) produced(r *kgo.Record, err error) {
	if err != nil {
		return
	}
	e.mu.Lock()
	if ps := e.end[r.Topic]; int(r.Partition) < len(ps) {
		ps[r.Partition] = max(ps[r.Partition], r.Offset+1)
	}
	e.mu.Unlock()
}

func (e *ends) at(topic string, p int32) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.end[topic][p]
}

// seed writes n records to every partition of topics (of parts partitions
// each) and waits for them.
func seed(ctx context.Context, prod *kgo.Client, e *ends, topics []string, parts, n int) {
	var wg sync.WaitGroup
	for _, t := range topics {
		for p := range parts {
			for range n {
				wg.Add(1)
				prod.Produce(ctx, &kgo.Record{Topic: t, Partition: int32(p), Value: []byte("seed")}, func(r *kgo.Record, err error) {
					e.produced(r, err)
					wg.Done()
				})
			}
		}
	}
	wg.Wait()
}

// produceLoop writes perSecond records a second, in tenths, to random
// partitions of topics until ctx ends.
func produceLoop(ctx context.Context, prod *kgo.Client, e *ends, topics []string, parts, perSecond int) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for range perSecond / 10 {
			tp := topics[rand.IntN(len(topics))]
			prod.Produce(ctx, &kgo.Record{Topic: tp, Partition: int32(rand.IntN(parts)), Value: []byte("v")}, e.produced)
		}
	}
}

func producer(addrs []string) (*kgo.Client, error) {
	return kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(50*time.Millisecond), kgo.MaxBufferedRecords(1<<20))
}

// member is a classic group member that never fetches (paused) and
// commits every c.every what it owns, a few records behind the log end.
type member struct {
	cl    *kgo.Client
	mu    sync.Mutex
	owned map[string]map[int32]bool
}

func newMember(addrs []string, group, id string, topics []string) (*member, error) {
	m := &member{owned: map[string]map[int32]bool{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topics...),
		kgo.ClientID(id), kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(_ context.Context, cl *kgo.Client, a map[string][]int32) {
			cl.PauseFetchTopics(topics...)
			m.mu.Lock()
			for t, ps := range a {
				if m.owned[t] == nil {
					m.owned[t] = map[int32]bool{}
				}
				for _, p := range ps {
					m.owned[t][p] = true
				}
			}
			m.mu.Unlock()
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
			m.mu.Lock()
			for t, ps := range a {
				for _, p := range ps {
					delete(m.owned[t], p)
				}
			}
			m.mu.Unlock()
		}))
	if err != nil {
		return nil, err
	}
	cl.PauseFetchTopics(topics...)
	m.cl = cl
	return m, nil
}

// commitLoop commits, every period, each owned partition a few records
// behind its end (never backwards) until ctx ends.
func (m *member) commitLoop(ctx context.Context, e *ends, every time.Duration) {
	committed := map[string]map[int32]int64{}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		offs := map[string]map[int32]kgo.EpochOffset{}
		m.mu.Lock()
		for tp, ps := range m.owned {
			for p := range ps {
				if committed[tp] == nil {
					committed[tp] = map[int32]int64{}
				}
				c := max(committed[tp][p], e.at(tp, p)-int64(rand.IntN(3)))
				committed[tp][p] = c
				if offs[tp] == nil {
					offs[tp] = map[int32]kgo.EpochOffset{}
				}
				offs[tp][p] = kgo.EpochOffset{Epoch: -1, Offset: c}
			}
		}
		m.mu.Unlock()
		if len(offs) > 0 {
			m.cl.CommitOffsetsSync(ctx, offs, nil)
		}
	}
}

func oneGroup(ctx context.Context, ps []int, c config) error {
	cluster, err := kfake.NewCluster(kfake.Ports(ps...), kfake.SeedTopics(int32(c.parts), c.topic))
	if err != nil {
		return err
	}
	defer cluster.Close()
	addrs := cluster.ListenAddrs()
	prod, err := producer(addrs)
	if err != nil {
		return err
	}
	defer prod.Close()
	e := &ends{end: map[string][]int64{c.topic: make([]int64, c.parts)}}
	seed(ctx, prod, e, []string{c.topic}, c.parts, 5)
	fmt.Println("seeded", c.parts, "partitions")
	var ms []*member
	for i := range c.members {
		m, err := newMember(addrs, c.group, fmt.Sprintf("worker-%d", i), []string{c.topic})
		if err != nil {
			return err
		}
		defer m.cl.Close()
		ms = append(ms, m)
	}
	go produceLoop(ctx, prod, e, []string{c.topic}, c.parts, c.produce)
	for _, m := range ms {
		go m.commitLoop(ctx, e, c.every)
	}
	fmt.Println("serving", addrs, "group", c.group)
	<-ctx.Done()
	return nil
}

func manyGroups(ctx context.Context, ps []int, c config) error {
	if c.topics < 3 || c.topicParts < 2 {
		return fmt.Errorf("-topics must be at least 3 and -topic-partitions at least 2")
	}
	topics := make([]string, c.topics)
	for i := range topics {
		topics[i] = fmt.Sprintf("events-%02d", i)
	}
	const ingest = "ingest"
	cluster, err := kfake.NewCluster(kfake.Ports(ps...), kfake.SeedTopics(int32(c.topicParts), append(topics, ingest)...))
	if err != nil {
		return err
	}
	defer cluster.Close()
	addrs := cluster.ListenAddrs()
	prod, err := producer(addrs)
	if err != nil {
		return err
	}
	defer prod.Close()
	e := &ends{end: map[string][]int64{}}
	for _, t := range append(topics, ingest) {
		e.end[t] = make([]int64, c.topicParts)
	}
	seed(ctx, prod, e, append(topics, ingest), c.topicParts, 20)
	fmt.Println("seeded", len(topics), "topics of", c.topicParts, "partitions")

	// The empty groups' standalone commits: group i on topics i, i+1,
	// i+2 (mod the topics), partitions i and i+1 (mod the partitions),
	// at an offset up to the log end. The lagging ones sit on ingest, the
	// topic the producer writes to.
	admin, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		return err
	}
	defer admin.Close()
	ids, err := topicIDs(ctx, admin)
	if err != nil {
		return err
	}
	empty := c.groups - c.live
	sem := make(chan struct{}, 32)
	errs := make(chan error, empty)
	for i := range empty {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			ts := topics
			if i < c.lagging {
				ts = []string{ingest}
			}
			errs <- commitStandalone(ctx, admin, fmt.Sprintf("batch-%05d", i), i, ts, ids, c.topicParts, e)
		}()
	}
	for range empty {
		if err := <-errs; err != nil {
			return err
		}
	}
	fmt.Println("committed", empty, "empty groups")

	var ms []*member
	for i := range c.live {
		ts := []string{topics[(i+1)%len(topics)], ingest}
		m, err := newMember(addrs, fmt.Sprintf("live-%03d", i), fmt.Sprintf("live-%03d-0", i), ts)
		if err != nil {
			return err
		}
		defer m.cl.Close()
		ms = append(ms, m)
	}
	for _, m := range ms {
		go m.commitLoop(ctx, e, c.every)
	}
	go produceLoop(ctx, prod, e, []string{ingest}, c.topicParts, c.produce)
	fmt.Println("serving", addrs, c.groups, "groups")
	<-ctx.Done()
	return nil
}

// commitStandalone commits group's offsets as a standalone commit
// (generation -1, no member): 2 partitions on each of 3 of topics (on
// each, when fewer).
// The topic ids are named too: OffsetCommit v10 names topics by id.
func commitStandalone(ctx context.Context, cl *kgo.Client, group string, i int, topics []string, ids map[string][16]byte, parts int, e *ends) error {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.Generation = group, -1
	for k := range min(3, len(topics)) {
		t := topics[(i+k)%len(topics)]
		rt := kmsg.NewOffsetCommitRequestTopic()
		rt.Topic, rt.TopicID = t, ids[t]
		for d := range 2 {
			p := int32((i + d) % parts)
			rp := kmsg.NewOffsetCommitRequestTopicPartition()
			rp.Partition = p
			rp.Offset = e.at(t, p) - int64((i+d)%7)
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	res, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("commit %s: %w", group, err)
	}
	for _, t := range res.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				return fmt.Errorf("commit %s %s/%d: error %d", group, t.Topic, p.Partition, p.ErrorCode)
			}
		}
	}
	return nil
}

// topicIDs names every topic's id.
func topicIDs(ctx context.Context, cl *kgo.Client) (map[string][16]byte, error) {
	res, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	ids := make(map[string][16]byte, len(res.Topics))
	for _, t := range res.Topics {
		if t.Topic != nil {
			ids[*t.Topic] = t.TopicID
		}
	}
	return ids, nil
}
