// Package demo runs kgwatch's demo: an embedded three-broker Kafka-protocol
// cluster (kfake) or an outside one, a producer of JSON orders, and kafka-go
// consumers that can be spawned, stopped, killed and slowed at run time while
// an exact ledger counts duplicates and losses — the seeds' experiments,
// reproduced on stage.
package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kgwatch/kgwatch/model"
)

// Defaults for a zero Config.
const (
	DefaultTopic           = "order-rebalancing"
	DefaultPartitions      = 3
	DefaultGroup           = "order-workers"
	DefaultConsumers       = 2
	DefaultRate            = 5
	DefaultProcessTime     = 100 * time.Millisecond
	DefaultSlowProcessTime = 2 * time.Second
	DefaultSessionTimeout  = 10 * time.Second
	DefaultMaxPollInterval = 30 * time.Second
)

// Commit modes.
const (
	CommitAfter  = "after"
	CommitBefore = "before"
)

// Consumer states as ConsumerInfo reports them.
const (
	StateRunning  = "running"
	StateStopping = "stopping"
	StateStopped  = "stopped"
	StateKilled   = "killed"
	StateEvicted  = "evicted"
)

// Config describes a demo. Zero fields take the defaults above.
type Config struct {
	Topic      string
	Partitions int
	Group      string
	// Consumers is how many consumers run at start (consumer-a, consumer-b…).
	// Negative means none.
	Consumers int
	// Rate is the producer's orders per second. Negative means 0.
	Rate float64
	// ProcessTime is how long a consumer works on one order.
	ProcessTime time.Duration
	// SlowProcessTime is how long a consumer toggled slow works on one order.
	SlowProcessTime time.Duration
	SessionTimeout  time.Duration
	// HeartbeatInterval defaults to SessionTimeout/10.
	HeartbeatInterval time.Duration
	// Commit is CommitAfter (at-least-once, the default) or CommitBefore
	// (at-most-once).
	Commit string
	// CommitDelay is a pause between processing and committing (or, with
	// CommitBefore, between committing and processing).
	CommitDelay time.Duration
	// MaxPollInterval bounds the processing of one order: past it, the
	// consumer leaves the group on its own and rejoins when the order is
	// done, as Java and librdkafka clients do.
	MaxPollInterval time.Duration
	// Balancer is "range" (default) or "roundrobin".
	Balancer string
	// Listen puts the embedded brokers on these loopback ports; nil picks
	// free ones.
	Listen []int
	// Brokers, when non-empty, uses that cluster instead of an embedded one.
	// The demo creates its topic if missing and touches nothing but its
	// topic and group.
	Brokers []string
}

func (c *Config) setDefaults() error {
	if c.Topic == "" {
		c.Topic = DefaultTopic
	}
	if c.Partitions == 0 {
		c.Partitions = DefaultPartitions
	}
	if c.Partitions < 0 {
		return fmt.Errorf("demo partitions %d: must be positive", c.Partitions)
	}
	if c.Group == "" {
		c.Group = DefaultGroup
	}
	if c.Consumers == 0 {
		c.Consumers = DefaultConsumers
	}
	if c.Consumers < 0 {
		c.Consumers = 0
	}
	if c.Rate == 0 {
		c.Rate = DefaultRate
	}
	if c.Rate < 0 {
		c.Rate = 0
	}
	if c.ProcessTime == 0 {
		c.ProcessTime = DefaultProcessTime
	}
	if c.SlowProcessTime == 0 {
		c.SlowProcessTime = DefaultSlowProcessTime
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.HeartbeatInterval == 0 {
		c.HeartbeatInterval = c.SessionTimeout / 10
	}
	if c.MaxPollInterval == 0 {
		c.MaxPollInterval = DefaultMaxPollInterval
	}
	switch c.Commit {
	case "":
		c.Commit = CommitAfter
	case CommitAfter, CommitBefore:
	default:
		return fmt.Errorf("demo commit mode %q: want after or before", c.Commit)
	}
	switch c.Balancer {
	case "":
		c.Balancer = "range"
	case "range", "roundrobin":
	default:
		return fmt.Errorf("demo balancer %q: want range or roundrobin", c.Balancer)
	}
	if len(c.Listen) != 0 && len(c.Listen) != 3 {
		return fmt.Errorf("demo listen ports %v: want 3, one per broker", c.Listen)
	}
	return nil
}

// ConsumerInfo describes one demo consumer.
type ConsumerInfo struct {
	ClientID string
	// MemberID is the member id of the current generation; empty while the
	// consumer is not in the group.
	MemberID string
	State    string
	Slow     bool
	// KilledAt is when the consumer was killed (zero if it was not).
	KilledAt time.Time
	// Assigned lists the partitions of the current generation.
	Assigned []model.TopicPartition
}

// Demo is a running demo. Its methods are safe for concurrent use and never
// block for long: stopping and eviction happen in the background and are
// reported through events and Consumers.
type Demo struct {
	cfg     Config
	emitFn  func(model.Event)
	cluster *kfake.Cluster // nil with outside brokers
	brokers []string
	run     string // random tag on this run's orders

	admin     *kafka.Client
	adminTr   *kafka.Transport
	partCount int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	consumers []*consumer
	nextName  int
	book      *model.OrderBook
	paused    bool
	rate      float64
	hot       bool
	rateCh    chan struct{}

	closeOnce sync.Once
	closeErr  error
}

// Start starts the demo: the cluster (unless cfg.Brokers names one), the
// topic, the producer and cfg.Consumers consumers. ctx bounds the start
// only; the demo runs until Close. emit receives demo events; it may be nil
// and must not block.
func Start(ctx context.Context, cfg Config, emit func(model.Event)) (*Demo, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	tag := make([]byte, 4)
	_, _ = rand.Read(tag)
	d := &Demo{
		cfg:    cfg,
		emitFn: emit,
		run:    hex.EncodeToString(tag),
		book:   model.NewOrderBook(),
		rate:   cfg.Rate,
		rateCh: make(chan struct{}, 1),
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())

	if len(cfg.Brokers) == 0 {
		opts := []kfake.Opt{
			kfake.NumBrokers(3),
			kfake.GroupMinSessionTimeout(100 * time.Millisecond),
		}
		if len(cfg.Listen) > 0 {
			opts = append(opts, kfake.Ports(cfg.Listen...))
		}
		c, err := kfake.NewCluster(opts...)
		if err != nil {
			d.cancel()
			return nil, fmt.Errorf("start embedded cluster on ports %v: %w", cfg.Listen, err)
		}
		d.cluster = c
		d.brokers = c.ListenAddrs()
	} else {
		d.brokers = append([]string(nil), cfg.Brokers...)
	}
	d.adminTr = &kafka.Transport{ClientID: "kgwatch-demo", MetadataTopics: []string{cfg.Topic}}
	d.admin = &kafka.Client{Addr: kafka.TCP(d.brokers...), Transport: d.adminTr, Timeout: 10 * time.Second}

	if err := d.ensureTopic(ctx); err != nil {
		d.shutdown()
		return nil, err
	}

	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.produce()
	}()
	for range cfg.Consumers {
		if _, err := d.Spawn(); err != nil {
			d.shutdown()
			return nil, err
		}
	}
	return d, nil
}

// ensureTopic creates the demo topic unless it exists and learns its
// partition count.
func (d *Demo) ensureTopic(ctx context.Context) error {
	meta, err := d.admin.Metadata(ctx, &kafka.MetadataRequest{})
	if err != nil {
		return fmt.Errorf("metadata from %v: %w", d.brokers, err)
	}
	rf := min(3, len(meta.Brokers))
	for _, t := range meta.Topics {
		if t.Name == d.cfg.Topic && t.Error == nil {
			return d.waitTopic(ctx)
		}
	}
	resp, err := d.admin.CreateTopics(ctx, &kafka.CreateTopicsRequest{
		Topics: []kafka.TopicConfig{{
			Topic:             d.cfg.Topic,
			NumPartitions:     d.cfg.Partitions,
			ReplicationFactor: rf,
		}},
	})
	if err != nil {
		return fmt.Errorf("create topic %q: %w", d.cfg.Topic, err)
	}
	if err := resp.Errors[d.cfg.Topic]; err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
		return fmt.Errorf("create topic %q: %w", d.cfg.Topic, err)
	}
	return d.waitTopic(ctx)
}

// waitTopic waits until every partition of the topic has a leader.
func (d *Demo) waitTopic(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		meta, err := d.admin.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{d.cfg.Topic}})
		if err == nil && len(meta.Topics) == 1 && meta.Topics[0].Error == nil && len(meta.Topics[0].Partitions) > 0 {
			ready := true
			for _, p := range meta.Topics[0].Partitions {
				if p.Leader.Host == "" {
					ready = false
				}
			}
			if ready {
				d.partCount = len(meta.Topics[0].Partitions)
				return nil
			}
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("partitions have no leader")
			}
			return fmt.Errorf("wait for topic %q: %w", d.cfg.Topic, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for topic %q: %w", d.cfg.Topic, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Brokers returns the addresses of the cluster the demo uses.
func (d *Demo) Brokers() []string {
	return append([]string(nil), d.brokers...)
}

// Topic returns the demo topic.
func (d *Demo) Topic() string { return d.cfg.Topic }

// Group returns the demo group.
func (d *Demo) Group() string { return d.cfg.Group }

// Config returns the configuration with defaults filled in.
func (d *Demo) Config() Config { return d.cfg }

// Spawn starts one more consumer and returns its client id (consumer-c,
// consumer-d, …). It joins the group in the background.
func (d *Demo) Spawn() (string, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return "", errors.New("spawn consumer: demo closed")
	}
	id := consumerName(d.nextName)
	d.nextName++
	c, err := newConsumer(d, id)
	if err != nil {
		d.mu.Unlock()
		return "", err
	}
	d.consumers = append(d.consumers, c)
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		c.run()
	}()
	d.emit(model.Event{Type: model.EventDemoSpawned, ClientID: id, Detail: id + " started"})
	return id, nil
}

// consumerName returns consumer-a … consumer-z, then consumer-aa, ….
func consumerName(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		n = n/26 - 1
		if n < 0 {
			return "consumer-" + s
		}
	}
}

func (d *Demo) find(clientID string) (*consumer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.consumers {
		if c.id == clientID {
			return c, nil
		}
	}
	return nil, fmt.Errorf("demo consumer %q: not one of ours", clientID)
}

// Stop stops a consumer gracefully: it finishes the order in hand, commits,
// and leaves the group (LeaveGroup), so the group rebalances at once. Stop
// returns at once; demo_stopped follows when the consumer is gone.
func (d *Demo) Stop(clientID string) error {
	c, err := d.find(clientID)
	if err != nil {
		return err
	}
	return c.stop()
}

// Kill kills a consumer abruptly: its connections are cut, redials fail and
// no LeaveGroup is sent, so the group waits for the session timeout.
// demo_evicted follows when the coordinator drops the member.
func (d *Demo) Kill(clientID string) error {
	c, err := d.find(clientID)
	if err != nil {
		return err
	}
	return c.kill()
}

// ToggleSlow switches a consumer between ProcessTime and SlowProcessTime per
// order and returns whether it is now slow.
func (d *Demo) ToggleSlow(clientID string) (bool, error) {
	c, err := d.find(clientID)
	if err != nil {
		return false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c.state != StateRunning {
		return c.slow, fmt.Errorf("slow consumer %q: it is %s", clientID, c.state)
	}
	c.slow = !c.slow
	return c.slow, nil
}

// TogglePause pauses or resumes the producer and returns whether it is now
// paused.
func (d *Demo) TogglePause() bool {
	d.mu.Lock()
	d.paused = !d.paused
	p := d.paused
	d.mu.Unlock()
	d.poke()
	return p
}

// SetRate sets the producer's orders per second (negative means 0).
func (d *Demo) SetRate(r float64) {
	d.mu.Lock()
	d.rate = max(r, 0)
	d.mu.Unlock()
	d.poke()
}

// Rate returns the producer's orders per second.
func (d *Demo) Rate() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rate
}

// Paused reports whether the producer is paused.
func (d *Demo) Paused() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paused
}

// ToggleHotKey switches the hot key on or off and returns whether it is now
// on: while on, most orders carry one customer's key and land on one
// partition.
func (d *Demo) ToggleHotKey() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.hot = !d.hot
	return d.hot
}

// HotKey reports whether the hot key is on.
func (d *Demo) HotKey() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.hot
}

func (d *Demo) poke() {
	select {
	case d.rateCh <- struct{}{}:
	default:
	}
}

// Consumers describes every consumer started so far, in start order.
func (d *Demo) Consumers() []ConsumerInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]ConsumerInfo, 0, len(d.consumers))
	for _, c := range d.consumers {
		out = append(out, ConsumerInfo{
			ClientID: c.id,
			MemberID: c.memberID,
			State:    c.state,
			Slow:     c.slow,
			KilledAt: c.killedAt,
			Assigned: append([]model.TopicPartition(nil), c.assigned...),
		})
	}
	return out
}

// Ledger returns the exact counts of produced, processed, duplicated and lost
// orders.
func (d *Demo) Ledger() model.Ledger {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.book.Ledger()
}

// Close stops the producer and every consumer and, for an embedded cluster,
// the cluster. It waits for every goroutine the demo started.
func (d *Demo) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		cs := append([]*consumer(nil), d.consumers...)
		d.mu.Unlock()
		var wg sync.WaitGroup
		for _, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.close()
			}()
		}
		wg.Wait()
		d.shutdown()
	})
	return d.closeErr
}

// shutdown cancels the background work, waits for it, and stops the cluster.
func (d *Demo) shutdown() {
	d.cancel()
	d.wg.Wait()
	if d.adminTr != nil {
		d.adminTr.CloseIdleConnections()
	}
	if d.cluster != nil {
		d.cluster.Close()
	}
}

// emit stamps and sends an event. It must not be called with d.mu held.
func (d *Demo) emit(e model.Event) {
	if d.emitFn == nil {
		return
	}
	e.Time = time.Now()
	e.Group = d.cfg.Group
	d.emitFn(e)
}
