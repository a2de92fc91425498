// Package demo runs kgwatch's demo: an embedded three-broker Kafka-protocol
// cluster (kfake) or an outside one, a producer of JSON orders, and demo
// consumers (franz-go's kgo: classic assignors, static membership, the
// KIP-848 consumer protocol) that can be spawned, stopped, killed, restarted
// and slowed at run time while an exact ledger counts duplicates and losses
// — the field notes' experiments, reproduced on stage.
//
// Compare mode runs two or three groups side by side on the same topic and
// producer: every group consumes every order, keeps its own ledger, and has
// its own consumer-a, consumer-b, …; Spawn, Stop, Kill, Restart and
// ToggleSlow act on the same consumer letter in every group at once, so one
// key shows the same move under each protocol.
package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kgwatch/kgwatch/model"
)

// ConsumerInfo describes one demo consumer. It is the model's type, so the
// UI can read it without importing this package.
type ConsumerInfo = model.DemoConsumer

// GroupInfo describes one of the demo's groups.
type GroupInfo struct {
	GroupSpec
	// SessionTimeout is how long the coordinator waits for a silent member
	// of this group: the demo's, unless an outside cluster kept its own
	// for a consumer-protocol group.
	SessionTimeout time.Duration
	// HeartbeatInterval is, for a consumer-protocol group, the interval
	// the broker tells its members to heartbeat at; 0 for a classic
	// group, whose consumers choose their own.
	HeartbeatInterval time.Duration
}

// Demo is a running demo. Its methods are safe for concurrent use and never
// block for long: stopping and eviction happen in the background and are
// reported through events and Consumers.
type Demo struct {
	cfg     Config
	emitFn  func(model.Event)
	cluster *kfake.Cluster  // nil with outside brokers
	clock   *rebalanceClock // dates the embedded cluster's rebalances
	brokers []string
	run     string // random tag on this run's orders

	admin     *admin
	partCount int

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	closing chan struct{} // closed when Close begins

	mu     sync.Mutex
	closed bool
	groups []*group
	paused bool
	rate   float64
	hot    bool
	rateCh chan struct{}
	// rolling is the rolling restart in progress (rolling.go); poisons
	// the poison orders produced (poison.go).
	rolling *rollingState
	poisons []*poisonOrder

	closeOnce sync.Once
	closeErr  error
}

// group is one consumer group of the demo with its consumers and book.
type group struct {
	d              *Demo
	spec           GroupSpec
	sessionTimeout time.Duration
	// heartbeatInterval: the broker's, for a consumer-protocol group.
	heartbeatInterval time.Duration

	// Guarded by d.mu.
	consumers []*consumer
	nextName  int
	book      *model.OrderBook
}

// epochWord names a generation as the group's protocol calls it.
func (g *group) epochWord(n int32) string {
	if g.spec.Protocol == ProtocolConsumer {
		return "member epoch " + strconv.Itoa(int(n))
	}
	return "generation " + strconv.Itoa(int(n))
}

// Start starts the demo: the cluster (unless cfg.Brokers names one), the
// topic, the producer and cfg.Consumers consumers in each group. ctx bounds
// the start only; the demo runs until Close. emit receives demo events; it
// may be nil and must not block.
func Start(ctx context.Context, cfg Config, emit func(model.Event)) (*Demo, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	tag := make([]byte, 4)
	_, _ = rand.Read(tag)
	d := &Demo{
		cfg:     cfg,
		emitFn:  emit,
		run:     hex.EncodeToString(tag),
		rate:    cfg.Rate,
		rateCh:  make(chan struct{}, 1),
		closing: make(chan struct{}),
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	specs := cfg.Compare
	if len(specs) == 0 {
		specs = []GroupSpec{{Name: cfg.Group, Protocol: cfg.GroupProtocol, Assignor: cfg.Assignor, Static: cfg.Static}}
	}
	for _, s := range specs {
		d.groups = append(d.groups, &group{d: d, spec: s, sessionTimeout: cfg.SessionTimeout, book: model.NewOrderBook()})
	}

	if len(cfg.Brokers) == 0 {
		opts := []kfake.Opt{
			kfake.NumBrokers(3),
			kfake.GroupMinSessionTimeout(MinSessionTimeout),
			// KIP-848 groups take their session timeout and heartbeat
			// interval from the broker.
			kfake.BrokerConfigs(map[string]string{
				"group.consumer.session.timeout.ms":    strconv.FormatInt(cfg.SessionTimeout.Milliseconds(), 10),
				"group.consumer.heartbeat.interval.ms": strconv.FormatInt(max(cfg.HeartbeatInterval.Milliseconds(), 1), 10),
			}),
		}
		if len(cfg.Listen) > 0 {
			opts = append(opts, kfake.Ports(cfg.Listen...))
		}
		c, err := kfake.NewCluster(opts...)
		if err != nil {
			d.cancel()
			return nil, fmt.Errorf("start embedded cluster on ports %v: %w", cfg.Listen, err)
		}
		rejoinLikeKafka(c)
		var consumerGroups []string
		for _, g := range d.groups {
			if g.spec.Protocol == ProtocolConsumer {
				consumerGroups = append(consumerGroups, g.spec.Name)
			}
		}
		describeLikeKafka(c, consumerGroups)
		d.clock = startRebalanceClock(d.ctx, &d.wg, c, d.groups, d.emitFn)
		d.cluster = c
		d.brokers = c.ListenAddrs()
	} else {
		d.brokers = append([]string(nil), cfg.Brokers...)
	}
	a, err := newAdmin(d.brokers)
	if err != nil {
		d.shutdown()
		return nil, err
	}
	d.admin = a
	if d.partCount, err = a.ensureTopic(ctx, cfg.Topic, cfg.Partitions); err != nil {
		d.shutdown()
		return nil, err
	}
	if d.clock != nil {
		d.clock.setPartitions(d.partCount)
	}
	if err := d.setUpConsumerGroups(ctx); err != nil {
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
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// setUpConsumerGroups checks that the cluster speaks the consumer protocol
// if a group uses it, and gives such groups the demo's session timeout: on
// an outside cluster, as group configs, if the broker takes them; if not,
// the group keeps the broker's and GroupInfo says so.
func (d *Demo) setUpConsumerGroups(ctx context.Context) error {
	checked := false
	for _, g := range d.groups {
		if g.spec.Protocol != ProtocolConsumer {
			continue
		}
		if !checked {
			if err := d.admin.checkConsumerProtocol(ctx); err != nil {
				return err
			}
			checked = true
		}
		if d.cluster == nil { // the embedded brokers were started with them
			_ = d.admin.setConsumerSessionTimeout(ctx, g.spec.Name, d.cfg.SessionTimeout, d.cfg.HeartbeatInterval)
		}
		// The screen says what the broker applies, read back from it.
		if st, hb, err := d.admin.consumerTimeouts(ctx, g.spec.Name); err == nil {
			g.sessionTimeout, g.heartbeatInterval = st, hb
		}
	}
	return nil
}

// Brokers returns the addresses of the cluster the demo uses.
func (d *Demo) Brokers() []string {
	return append([]string(nil), d.brokers...)
}

// Topic returns the demo topic.
func (d *Demo) Topic() string { return d.cfg.Topic }

// Group returns the demo group: in compare mode, the first of the groups.
func (d *Demo) Group() string { return d.groups[0].spec.Name }

// Config returns the configuration with defaults filled in.
func (d *Demo) Config() Config { return d.cfg }

// Spawn starts one more consumer in every group and returns its client id
// (consumer-c, consumer-d, …), the same in each group. It joins in the
// background.
func (d *Demo) Spawn() (string, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return "", errors.New("spawn consumer: demo closed")
	}
	var (
		id      string
		started []*consumer
	)
	for _, g := range d.groups {
		if len(g.consumers) >= MaxConsumers {
			d.mu.Unlock()
			return "", fmt.Errorf("spawn consumer in group %q: it has %d, the most the demo runs", g.spec.Name, MaxConsumers)
		}
	}
	for _, g := range d.groups {
		id = consumerName(g.nextName)
		g.nextName++
		c := newConsumer(g, id)
		p, err := newProc(c)
		if err != nil {
			d.mu.Unlock()
			return "", err
		}
		c.proc = p
		g.consumers = append(g.consumers, c)
		c.start(p)
		started = append(started, c)
	}
	d.mu.Unlock()
	for _, c := range started {
		d.emit(c.g, model.Event{Type: model.EventDemoSpawned, ClientID: c.id, Detail: c.id + " started"})
	}
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

// find returns the consumer with that client id in every group that has it.
func (d *Demo) find(clientID string) ([]*consumer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*consumer
	for _, g := range d.groups {
		for _, c := range g.consumers {
			if c.id == clientID {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("demo consumer %q: not one of ours", clientID)
	}
	return out, nil
}

// each applies act to the consumer with that client id in every group. It
// fails only if act failed everywhere, with the first group's error.
func (d *Demo) each(clientID string, act func(*consumer) error) error {
	cs, err := d.find(clientID)
	if err != nil {
		return err
	}
	var first error
	ok := false
	for _, c := range cs {
		if err := act(c); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		ok = true
	}
	if !ok {
		return first
	}
	return nil
}

// Stop stops a consumer gracefully (in every group): it finishes the order
// in hand, commits, and leaves the group, so the group rebalances at once.
// Stop returns at once; demo_stopped follows when the consumer is gone.
func (d *Demo) Stop(clientID string) error {
	return d.each(clientID, (*consumer).stop)
}

// Kill kills a consumer abruptly (in every group): its connections are cut,
// redials fail and nothing more is sent — no LeaveGroup, no leave
// heartbeat — so the group waits for the session timeout. demo_evicted
// follows when the coordinator drops the member.
func (d *Demo) Kill(clientID string) error {
	return d.each(clientID, (*consumer).kill)
}

// Restart closes a consumer (in every group) as a process restart does and
// starts it again with the same client id and instance id after
// RestartDelay: a running consumer finishes and commits the order in hand,
// then closes. A static member sends no leave (consumer protocol: a
// temporary leave, member epoch -2), so the group keeps its partitions and
// does not rebalance; a dynamic one leaves and joins again: two rebalances.
// A stopped, killed or evicted consumer just starts again. Restart returns
// at once; demo_restarted follows when the consumer is started again.
func (d *Demo) Restart(clientID string) error {
	return d.each(clientID, (*consumer).restart)
}

// ToggleSlow switches a consumer between ProcessTime and SlowProcessTime per
// order and returns whether it is now slow. In compare mode every group's
// consumer of that name takes the new setting of the first.
func (d *Demo) ToggleSlow(clientID string) (bool, error) {
	cs, err := d.find(clientID)
	if err != nil {
		return false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	slow := !cs[0].slow
	ok := false
	for _, c := range cs {
		if c.state != StateRunning {
			continue
		}
		c.slow, ok = slow, true
	}
	if !ok {
		return cs[0].slow, fmt.Errorf("slow consumer %q: it is %s", clientID, cs[0].state)
	}
	return slow, nil
}

// Close stops the producer and every consumer and, for an embedded cluster,
// the cluster. It waits for every goroutine the demo started.
func (d *Demo) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		close(d.closing)
		var cs []*consumer
		for _, g := range d.groups {
			cs = append(cs, g.consumers...)
		}
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
	if d.admin != nil {
		d.admin.close()
	}
	if d.cluster != nil {
		d.cluster.Close()
	}
}

// emit stamps and sends an event about group g. It must not be called with
// d.mu held.
func (d *Demo) emit(g *group, e model.Event) {
	if d.emitFn == nil {
		return
	}
	e.Time = time.Now()
	e.Group = g.spec.Name
	d.emitFn(e)
}
