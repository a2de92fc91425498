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

// ConsumerInfo describes one demo consumer. It is the model's type, so the
// UI can read it without importing this package.
type ConsumerInfo = model.DemoConsumer

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
			ClientID:  c.id,
			MemberID:  c.memberID,
			State:     c.state,
			Slow:      c.slow,
			KilledAt:  c.killedAt,
			EvictedAt: c.evictedAt,
			StoppedAt: c.stoppedAt,
			Assigned:  append([]model.TopicPartition(nil), c.assigned...),
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
