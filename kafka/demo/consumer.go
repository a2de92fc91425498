package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/kgwatch/kgwatch/model"
)

// consumer is one demo consumer: a kafka-go ConsumerGroup member that reads
// its partitions, processes one order at a time and commits each.
type consumer struct {
	d       *Demo
	id      string
	dialer  *cutDialer
	kdialer *kafka.Dialer
	cg      *kafka.ConsumerGroup

	killed   chan struct{} // closed by kill
	quit     chan struct{} // closed by Demo.Close: abandon the order in hand
	done     chan struct{} // closed when run returns
	killOnce sync.Once
	quitOnce sync.Once

	// Guarded by d.mu.
	state    string
	memberID string
	lastID   string // last member id, kept for eviction after a kill
	assigned []model.TopicPartition
	slow     bool
	left     bool // left the group on its own (max.poll.interval)
	phase    string
	killedAt time.Time
	// evictedAt and stoppedAt are when eviction was seen and a graceful
	// stop completed.
	evictedAt time.Time
	stoppedAt time.Time
}

func newConsumer(d *Demo, id string) (*consumer, error) {
	c := &consumer{
		d:      d,
		id:     id,
		dialer: newCutDialer(),
		killed: make(chan struct{}),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
		state:  StateRunning,
	}
	c.kdialer = &kafka.Dialer{ClientID: id, DialFunc: c.dialer.DialContext, Timeout: 5 * time.Second}
	var balancer kafka.GroupBalancer = kafka.RangeGroupBalancer{}
	if d.cfg.Balancer == "roundrobin" {
		balancer = kafka.RoundRobinGroupBalancer{}
	}
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                d.cfg.Group,
		Brokers:           d.brokers,
		Dialer:            c.kdialer,
		Topics:            []string{d.cfg.Topic},
		GroupBalancers:    []kafka.GroupBalancer{balancer},
		HeartbeatInterval: d.cfg.HeartbeatInterval,
		SessionTimeout:    d.cfg.SessionTimeout,
		// As in the Java client, a rebalance waits for a member's
		// poll loop as long as max.poll.interval allows.
		RebalanceTimeout: d.cfg.MaxPollInterval,
		JoinGroupBackoff: 500 * time.Millisecond,
		StartOffset:      kafka.FirstOffset,
		Timeout:          5 * time.Second,
	})
	if err != nil {
		return nil, fmt.Errorf("start consumer %q in group %q: %w", id, d.cfg.Group, err)
	}
	c.cg = cg
	return c, nil
}

// run follows the consumer's generations until its group is closed.
func (c *consumer) run() {
	defer close(c.done)
	topic := c.d.cfg.Topic
	for {
		gen, err := c.cg.Next(c.d.ctx)
		if err != nil {
			if errors.Is(err, kafka.ErrGroupClosed) || c.d.ctx.Err() != nil || c.isKilled() {
				return
			}
			// Joining failed (kafka-go backs off and retries); we are not
			// in the group meanwhile.
			c.d.mu.Lock()
			c.memberID = ""
			c.assigned = nil
			c.d.mu.Unlock()
			continue
		}
		assigns := gen.Assignments[topic]
		tps := make([]model.TopicPartition, 0, len(assigns))
		for _, a := range assigns {
			tps = append(tps, model.TopicPartition{Topic: topic, Partition: int32(a.ID)})
		}
		slices.SortFunc(tps, func(a, b model.TopicPartition) int { return int(a.Partition - b.Partition) })
		c.d.mu.Lock()
		c.memberID, c.lastID = gen.MemberID, gen.MemberID
		c.assigned = tps
		c.left = false
		c.d.mu.Unlock()
		c.d.emit(model.Event{
			Type:       model.EventDemoAssigned,
			ClientID:   c.id,
			MemberID:   gen.MemberID,
			Partitions: tps,
			Detail:     fmt.Sprintf("%s assigned %s (generation %d)", c.id, partList(tps), gen.ID),
		})
		gen.Start(func(ctx context.Context) {
			c.consume(ctx, gen, assigns, tps)
		})
	}
}

// consume reads the generation's partitions and processes their orders one
// at a time until the generation ends. Returning ends the generation.
func (c *consumer) consume(ctx context.Context, gen *kafka.Generation, assigns []kafka.PartitionAssignment, tps []model.TopicPartition) {
	fctx, fcancel := context.WithCancel(context.Background())
	msgs := make(chan kafka.Message)
	var wg sync.WaitGroup
	readers := make([]*kafka.Reader, 0, len(assigns))
	for _, a := range assigns {
		r := kafka.NewReader(kafka.ReaderConfig{
			Brokers:         c.d.brokers,
			Topic:           c.d.cfg.Topic,
			Partition:       a.ID,
			Dialer:          c.kdialer,
			MinBytes:        1,
			MaxBytes:        1 << 20,
			MaxWait:         250 * time.Millisecond,
			ReadLagInterval: -1,
			ReadBackoffMin:  50 * time.Millisecond,
			ReadBackoffMax:  500 * time.Millisecond,
			QueueCapacity:   16,
		})
		if err := r.SetOffset(a.Offset); err != nil {
			r.Close()
			continue
		}
		readers = append(readers, r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				m, err := r.FetchMessage(fctx)
				if err != nil {
					if fctx.Err() != nil {
						return
					}
					select {
					case <-fctx.Done():
						return
					case <-time.After(100 * time.Millisecond):
					}
					continue
				}
				select {
				case msgs <- m:
				case <-fctx.Done():
					return
				}
			}
		}()
	}
	defer func() {
		fcancel()
		for _, r := range readers {
			r.Close()
		}
		wg.Wait()
		c.d.mu.Lock()
		left, killed := c.left, c.state == StateKilled || c.state == StateEvicted
		if !left && !killed {
			c.assigned = nil
		}
		c.d.mu.Unlock()
		if !left && !killed {
			c.d.emit(model.Event{
				Type:       model.EventDemoRevoked,
				ClientID:   c.id,
				MemberID:   gen.MemberID,
				Partitions: tps,
				Detail:     fmt.Sprintf("%s revoked %s", c.id, partList(tps)),
			})
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.killed:
			return
		case <-c.quit:
			return
		case m := <-msgs:
			// select picks at random among ready cases: once the
			// generation is over (a graceful stop, a rebalance), start
			// no other order, so a stop takes one order, not several.
			if ctx.Err() != nil {
				return
			}
			if !c.handle(gen, m) || c.hasLeft() {
				return
			}
		}
	}
}

// handle processes one order and commits its offset, before or after
// processing as configured. It reports false when the consumer was killed
// or the demo is closing.
func (c *consumer) handle(gen *kafka.Generation, m kafka.Message) bool {
	cfg := &c.d.cfg
	tp := model.TopicPartition{Topic: m.Topic, Partition: int32(m.Partition)}
	var o order
	ours := json.Unmarshal(m.Value, &o) == nil && o.Run == c.d.run && o.OrderID != ""

	// max.poll.interval runs from the moment the order is handed over.
	deadline := time.Now().Add(cfg.MaxPollInterval)
	onLate := func() { c.pollTimeout(gen) }

	// The order is in hand from here: an order committed past but still
	// waiting out the commit delay is in flight, not lost, until the
	// consumer dies with it.
	if ours {
		c.d.mu.Lock()
		c.d.book.Start(o.OrderID)
		c.d.mu.Unlock()
	}
	if cfg.Commit == CommitBefore {
		c.setPhase(phaseCommitting)
		c.commit(gen, tp, m.Offset+1)
		if !c.work(cfg.CommitDelay, deadline, onLate) {
			if ours {
				c.d.mu.Lock()
				c.d.book.Abort(o.OrderID)
				c.d.mu.Unlock()
			}
			return false
		}
	}
	pt := cfg.ProcessTime
	if c.isSlow() {
		pt = cfg.SlowProcessTime
	}
	c.setPhase(phaseProcessing)
	defer c.setPhase(phaseIdle)
	if !c.work(pt, deadline, onLate) {
		if ours {
			c.d.mu.Lock()
			c.d.book.Abort(o.OrderID)
			c.d.mu.Unlock()
		}
		return false
	}
	if ours {
		c.d.mu.Lock()
		n := c.d.book.Finish(o.OrderID)
		c.d.mu.Unlock()
		if n > 1 {
			c.d.emit(model.Event{
				Type:       model.EventDemoDuplicate,
				ClientID:   c.id,
				MemberID:   gen.MemberID,
				Partitions: []model.TopicPartition{tp},
				Detail:     fmt.Sprintf("%s processed %s a %s time (offset %d)", c.id, o.OrderID, ordinal(n), m.Offset),
			})
		}
	}
	if cfg.Commit == CommitAfter {
		c.setPhase(phaseCommitting)
		if !c.work(cfg.CommitDelay, deadline, onLate) {
			return false
		}
		c.commit(gen, tp, m.Offset+1)
	}
	return true
}

// work spends d on an order. Past deadline it calls onLate once. It reports
// false if the consumer was killed or the demo is closing meanwhile.
func (c *consumer) work(d time.Duration, deadline time.Time, onLate func()) bool {
	end := time.Now().Add(d)
	fired := false
	for {
		now := time.Now()
		if !fired && !now.Before(deadline) && now.Before(end) {
			fired = true
			onLate()
			continue
		}
		wait := end.Sub(now)
		if !fired && deadline.Before(end) {
			wait = deadline.Sub(now)
		}
		if wait <= 0 {
			select {
			case <-c.killed:
				return false
			case <-c.quit:
				return false
			default:
				return true
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-c.killed:
			t.Stop()
			return false
		case <-c.quit:
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// commit commits next for tp in gen and books the result.
func (c *consumer) commit(gen *kafka.Generation, tp model.TopicPartition, next int64) {
	if c.isKilled() {
		return
	}
	err := gen.CommitOffsets(map[string]map[int]int64{tp.Topic: {int(tp.Partition): next}})
	if c.isKilled() {
		return // a dead process reports nothing
	}
	c.d.mu.Lock()
	if err != nil {
		c.d.book.CommitFailed()
	} else {
		c.d.book.Commit(tp, next)
	}
	c.d.mu.Unlock()
	if err != nil {
		c.d.emit(model.Event{
			Type:       model.EventDemoCommitFailed,
			ClientID:   c.id,
			MemberID:   gen.MemberID,
			Partitions: []model.TopicPartition{tp},
			Detail:     fmt.Sprintf("%s could not commit offset %d of %s: %v", c.id, next, partList([]model.TopicPartition{tp}), err),
		})
	}
}

// pollTimeout makes the consumer leave the group because one order took
// longer than max.poll.interval, as the Java and librdkafka clients do. The
// consumer rejoins when the order is done.
func (c *consumer) pollTimeout(gen *kafka.Generation) {
	c.d.mu.Lock()
	if c.state != StateRunning || c.memberID != gen.MemberID || c.left {
		c.d.mu.Unlock()
		return
	}
	c.left = true
	c.memberID = ""
	tps := c.assigned
	c.assigned = nil
	c.d.mu.Unlock()
	c.d.emit(model.Event{
		Type:       model.EventDemoRevoked,
		ClientID:   c.id,
		MemberID:   gen.MemberID,
		Partitions: tps,
		Detail: fmt.Sprintf("%s spent over max.poll.interval (%s) on one order: left the group, %s revoked",
			c.id, c.d.cfg.MaxPollInterval, partList(tps)),
	})
	ctx, cancel := context.WithTimeout(c.d.ctx, 5*time.Second)
	defer cancel()
	_, _ = c.d.admin.LeaveGroup(ctx, &kafka.LeaveGroupRequest{
		GroupID: c.d.cfg.Group,
		Members: []kafka.LeaveGroupRequestMember{{ID: gen.MemberID}},
	})
}

// Phases of handling one order, for tests that must kill a consumer at a
// precise moment.
const (
	phaseIdle       = ""
	phaseProcessing = "processing"
	phaseCommitting = "committing" // between processing and committing, either way round
)

func (c *consumer) setPhase(p string) {
	c.d.mu.Lock()
	c.phase = p
	c.d.mu.Unlock()
}

func (c *consumer) isKilled() bool {
	select {
	case <-c.killed:
		return true
	default:
		return false
	}
}

func (c *consumer) isSlow() bool {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	return c.slow
}

func (c *consumer) hasLeft() bool {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	return c.left
}

func partList(tps []model.TopicPartition) string {
	if len(tps) == 0 {
		return "no partitions"
	}
	s := "["
	for i, tp := range tps {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(tp.Partition)
	}
	return s + "]"
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
