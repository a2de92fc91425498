package demo

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// consumer is one demo consumer: a client id (and, static, an instance id)
// in one group. A process runs it — one kgo client, a proc; Restart
// replaces the proc and keeps the identity, as a restarted pod does.
type consumer struct {
	d          *Demo
	g          *group
	id         string
	instanceID string // "" for a dynamic member

	// Guarded by d.mu.
	proc       *proc
	state      string
	memberID   string
	lastID     string // last member id, kept for eviction after a kill
	generation int32
	assigned   []model.TopicPartition
	slow       bool
	left       bool // left the group on its own (max.poll.interval)
	phase      string
	pending    pending
	killedAt   time.Time
	// evictedAt and stoppedAt are when eviction was seen and a graceful
	// stop completed.
	evictedAt   time.Time
	stoppedAt   time.Time
	restartedAt time.Time
	restarts    int
	// poisonTries counts the failures on the poison order at poisonOffset
	// of poisonTP it is stuck on (poison.go); 0: none.
	poisonTries  int
	poisonTP     model.TopicPartition
	poisonOffset int64
}

// pending is the order in hand and the phase it is in.
type pending struct {
	order  string
	tp     model.TopicPartition
	offset int64
	phase  string
	until  time.Time
}

// proc is one run of a consumer's process: a kgo client in the group, and
// the poll loop that processes one order at a time. Its rebalance callbacks
// run only between orders (kgo.BlockRebalanceOnPoll), as the Java client
// runs them inside poll().
type proc struct {
	c      *consumer
	cl     *kgo.Client
	dialer *cutDialer

	pollCtx context.Context
	endPoll context.CancelFunc

	stopping chan struct{} // closed by a graceful stop: finish the order in hand, then end
	killed   chan struct{} // closed by kill
	quit     chan struct{} // closed by Demo.Close: abandon the order in hand
	done     chan struct{} // closed when the poll loop returns

	stopOnce, killOnce, quitOnce, closeOnce sync.Once

	// fresh is true until the first assignment: a restarted static member
	// gets its partitions back then. Guarded by d.mu.
	fresh bool

	// retry is the poison order's partition, paused until retryAt
	// (poison.go); the poll goroutine's own.
	retry   *model.TopicPartition
	retryAt time.Time
}

func newConsumer(g *group, id string) *consumer {
	c := &consumer{d: g.d, g: g, id: id, state: StateRunning, generation: -1}
	if g.spec.Static {
		c.instanceID = id
	}
	return c
}

// balancer is the kgo balancer a spec names. For the consumer protocol it
// picks the server assignor: kgo sends uniform for its sticky balancers and
// range for its range balancer.
func balancer(spec GroupSpec) kgo.GroupBalancer {
	switch spec.Assignor {
	case AssignorRoundRobin:
		return kgo.RoundRobinBalancer()
	case AssignorSticky:
		return kgo.StickyBalancer()
	case AssignorCooperativeSticky, AssignorUniform:
		return kgo.CooperativeStickyBalancer()
	}
	return kgo.RangeBalancer()
}

// newProc makes the consumer's next process. It does not start it.
func newProc(c *consumer) (*proc, error) {
	d, spec := c.d, c.g.spec
	p := &proc{
		c:        c,
		dialer:   newCutDialer(),
		stopping: make(chan struct{}),
		killed:   make(chan struct{}),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
		fresh:    true,
	}
	p.pollCtx, p.endPoll = context.WithCancel(context.Background())
	opts := []kgo.Opt{
		kgo.SeedBrokers(d.brokers...),
		kgo.ClientID(c.id),
		kgo.Dialer(p.dialer.DialContext),
		kgo.DisableClientMetrics(),
		kgo.ConsumerGroup(spec.Name),
		kgo.ConsumeTopics(d.cfg.Topic),
		kgo.Balancers(balancer(spec)),
		kgo.SessionTimeout(d.cfg.SessionTimeout),
		kgo.HeartbeatInterval(d.cfg.HeartbeatInterval),
		// As in the Java client, a rebalance waits for a member's poll
		// loop as long as max.poll.interval allows.
		kgo.RebalanceTimeout(d.cfg.MaxPollInterval),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.ConsumeStartOffset(kgo.NewOffset().AtStart()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(250 * time.Millisecond),
		kgo.RetryBackoffFn(func(tries int) time.Duration {
			return min(50*time.Millisecond<<min(tries, 4), 500*time.Millisecond)
		}),
		kgo.OnPartitionsAssigned(p.onAssigned),
		kgo.OnPartitionsRevoked(p.onRevoked),
		kgo.OnPartitionsLost(p.onLost),
	}
	if spec.Protocol == ProtocolConsumer {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	if c.instanceID != "" {
		opts = append(opts, kgo.InstanceID(c.instanceID))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		p.endPoll()
		return nil, fmt.Errorf("start consumer %q in group %q: %w", c.id, spec.Name, err)
	}
	p.cl = cl
	return p, nil
}

// run polls one order at a time and processes it until the process ends.
// Between two orders it lets kgo rebalance.
func (p *proc) run() {
	defer close(p.done)
	defer p.cl.AllowRebalance()
	for !p.ending() {
		ctx, cancel := p.pollContext()
		fs := p.cl.PollRecords(ctx, 1)
		retry := ctx.Err() != nil && p.pollCtx.Err() == nil // the poison's retry is due
		cancel()
		if p.ending() {
			return
		}
		var rec *kgo.Record
		fs.EachRecord(func(r *kgo.Record) {
			if rec == nil {
				rec = r
			}
		})
		switch {
		case rec == nil && retry:
		case rec != nil && p.owns(rec):
			if !p.handle(rec) {
				return
			}
		case rec == nil && len(fs.Errors()) > 0:
			// A fetch error (a broker restarting, a fenced epoch): kgo
			// retries; do not spin meanwhile.
			select {
			case <-p.stopping:
			case <-p.killed:
			case <-p.quit:
			case <-time.After(100 * time.Millisecond):
			}
		}
		p.cl.AllowRebalance()
	}
}

// ending reports whether the process was told to end.
func (p *proc) ending() bool {
	select {
	case <-p.stopping:
		return true
	case <-p.killed:
		return true
	case <-p.quit:
		return true
	default:
		return false
	}
}

func (p *proc) isKilled() bool {
	select {
	case <-p.killed:
		return true
	default:
		return false
	}
}

// owns reports whether the consumer may process rec: its partition is
// assigned to this process, which has not left the group. kgo drops what it
// fetched for a partition it loses; this also covers the orders it had
// buffered when max.poll.interval made it leave.
func (p *proc) owns(rec *kgo.Record) bool {
	c := p.c
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	if c.proc != p || c.left {
		return false
	}
	return slices.ContainsFunc(c.assigned, func(tp model.TopicPartition) bool {
		return tp.Topic == rec.Topic && tp.Partition == rec.Partition
	})
}

// onAssigned records the partitions kgo hands over: all of them after an
// eager rebalance, only the new ones after a cooperative one.
func (p *proc) onAssigned(_ context.Context, cl *kgo.Client, m map[string][]int32) {
	c, d := p.c, p.c.d
	member, gen := cl.GroupMetadata()
	added := topicPartitions(m)
	d.mu.Lock()
	if c.proc != p || p.isKilled() || (c.state != StateRunning && c.state != StateStopping) {
		d.mu.Unlock()
		return
	}
	joined := c.memberID != member || c.left
	if p.fresh {
		c.assigned = nil // a restarted static member is handed its partitions again
		p.fresh = false
	}
	c.memberID, c.lastID, c.generation, c.left = member, member, gen, false
	c.assigned = union(c.assigned, added)
	owns := slices.Clone(c.assigned)
	d.mu.Unlock()
	if len(added) == 0 && !joined {
		return
	}
	detail := fmt.Sprintf("%s assigned %s (%s)", c.id, partList(added), c.g.epochWord(gen))
	if len(owns) != len(added) {
		detail = fmt.Sprintf("%s assigned %s, now owns %s (%s)", c.id, partList(added), partList(owns), c.g.epochWord(gen))
	}
	d.emit(c.g, model.Event{
		Type:       model.EventDemoAssigned,
		ClientID:   c.id,
		MemberID:   member,
		Partitions: added,
		Detail:     detail,
	})
}

// onRevoked records partitions given back: all of them at an eager
// rebalance or a leave, only the ones moving away at a cooperative one.
func (p *proc) onRevoked(_ context.Context, cl *kgo.Client, m map[string][]int32) {
	p.giveBack(cl, m, "revoked")
}

// onLost records partitions lost with the membership (fenced, session
// expired, or left on max.poll.interval).
func (p *proc) onLost(_ context.Context, cl *kgo.Client, m map[string][]int32) {
	p.giveBack(cl, m, "lost")
}

func (p *proc) giveBack(cl *kgo.Client, m map[string][]int32, how string) {
	c, d := p.c, p.c.d
	gone := topicPartitions(m)
	member, _ := cl.GroupMetadata()
	d.mu.Lock()
	if c.proc != p || p.isKilled() {
		d.mu.Unlock()
		return // a dead process reports nothing
	}
	if c.state == StateRestarting && c.instanceID != "" {
		// A static member closing for a restart keeps its partitions in
		// the group: nothing is given back there.
		d.mu.Unlock()
		return
	}
	reported := c.left // max.poll.interval reported it already
	c.assigned = minus(c.assigned, gone)
	c.clearPoison(gone)
	keeps := slices.Clone(c.assigned)
	d.mu.Unlock()
	if len(gone) == 0 || reported {
		return
	}
	detail := fmt.Sprintf("%s %s %s", c.id, how, partList(gone))
	if len(keeps) > 0 {
		detail += ", keeps " + partList(keeps)
	}
	d.emit(c.g, model.Event{
		Type:       model.EventDemoRevoked,
		ClientID:   c.id,
		MemberID:   member,
		Partitions: gone,
		Detail:     detail,
	})
}

// pollTimeout makes the consumer leave the group because one order took
// longer than max.poll.interval, as the Java and librdkafka clients do. kgo
// has no such limit, so the demo sends the leave on the member's behalf;
// kgo learns it is out at its next heartbeat and rejoins as a new member
// once the order is done (rebalances wait for the poll loop).
func (p *proc) pollTimeout() {
	c, d := p.c, p.c.d
	d.mu.Lock()
	if c.proc != p || c.state != StateRunning || c.left || c.memberID == "" {
		d.mu.Unlock()
		return
	}
	c.left = true
	member := c.memberID
	c.memberID = ""
	tps := c.assigned
	c.assigned = nil
	d.mu.Unlock()
	d.emit(c.g, model.Event{
		Type:       model.EventDemoRevoked,
		ClientID:   c.id,
		MemberID:   member,
		Partitions: tps,
		Detail: fmt.Sprintf("%s spent over max.poll.interval (%s) on one order: left the group, %s revoked",
			c.id, d.cfg.MaxPollInterval, partList(tps)),
	})
	ctx, cancel := context.WithTimeout(d.ctx, 5*time.Second)
	defer cancel()
	_ = d.admin.leave(ctx, c.g.spec, member, c.instanceID)
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
