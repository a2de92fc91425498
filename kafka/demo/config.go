package demo

import (
	"fmt"
	"math"
	"time"

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

// Bounds of the settings. Outside them a value is a mistake (a rate of
// 1e-300 orders/s, a million partitions), not a wish: Start refuses it, and
// kgwatch demo says which flag and which range.
const (
	MaxPartitions = 1000
	// MaxConsumers bounds the consumers of one group, at start and spawned.
	MaxConsumers = 64
	// MinRate and MaxRate bound a non-zero producer rate, in orders/s.
	MinRate = 0.01
	MaxRate = 10000
	// MinWork and MaxWork bound ProcessTime and SlowProcessTime.
	MinWork = time.Millisecond
	MaxWork = time.Hour
	// MaxCommitDelay bounds CommitDelay (from 0).
	MaxCommitDelay = time.Hour
	// MinSessionTimeout and MaxSessionTimeout bound SessionTimeout (Kafka's
	// own brokers accept 6s to 30m by default; the embedded one 100ms up).
	MinSessionTimeout = 100 * time.Millisecond
	MaxSessionTimeout = 30 * time.Minute
	// MinMaxPollInterval and MaxMaxPollInterval bound MaxPollInterval (it
	// is also the rebalance timeout, an int32 of milliseconds on the wire).
	MinMaxPollInterval = 10 * time.Millisecond
	MaxMaxPollInterval = 24 * time.Hour
	// MaxGroups is how many groups compare mode runs side by side.
	MaxGroups = 3
)

// Commit modes.
const (
	CommitAfter  = "after"
	CommitBefore = "before"
)

// Group protocols: Kafka's group.protocol, named as the type of group each
// makes.
const (
	// ProtocolClassic is the classic protocol: JoinGroup/SyncGroup, the
	// group's leader assigns with a client-side assignor.
	ProtocolClassic = string(model.TypeClassic)
	// ProtocolConsumer is KIP-848's consumer protocol: the broker assigns
	// with a server-side assignor, members reconcile incrementally.
	ProtocolConsumer = string(model.TypeConsumer)
)

// Assignors. The classic ones are Java's partition.assignment.strategy
// names; the server ones Kafka's group.consumer.assignors.
const (
	AssignorRange             = "range"
	AssignorRoundRobin        = "roundrobin"
	AssignorSticky            = "sticky"
	AssignorCooperativeSticky = "cooperative-sticky"
	AssignorUniform           = "uniform" // server side only
)

// Consumer states as ConsumerInfo reports them.
const (
	StateRunning    = model.DemoRunning
	StateStopping   = model.DemoStopping
	StateStopped    = model.DemoStopped
	StateKilled     = model.DemoKilled
	StateEvicted    = model.DemoEvicted
	StateRestarting = model.DemoRestarting
)

// Config describes a demo. Zero fields take the defaults above.
type Config struct {
	Topic      string
	Partitions int
	// Group is the demo group; in compare mode, the stem of the groups'
	// names.
	Group string
	// Consumers is how many consumers run at start (consumer-a, consumer-b…),
	// in each group. Negative means none.
	Consumers int
	// Rate is the producer's orders per second. Negative means 0.
	Rate float64
	// ProcessTime is how long a consumer works on one order.
	ProcessTime time.Duration
	// SlowProcessTime is how long a consumer toggled slow works on one order.
	SlowProcessTime time.Duration
	// SessionTimeout is how long the coordinator waits for a silent member.
	// With the consumer protocol it is the broker's (KIP-848 moved it
	// there): the embedded cluster is started with it; on an outside
	// cluster the demo sets the group's consumer.session.timeout.ms if the
	// broker lets it.
	SessionTimeout time.Duration
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
	// GroupProtocol is ProtocolClassic (default) or ProtocolConsumer.
	GroupProtocol string
	// Assignor is the assignor (see GroupSpec.Assignor).
	Assignor string
	// Balancer is Assignor's former name, still read when Assignor is
	// empty.
	Balancer string
	// Static makes every consumer a static member (group.instance.id =
	// client id), in every group.
	Static bool
	// RestartDelay is how long Restart leaves a consumer down, as a
	// process takes to start again. Zero: a fifth of the session timeout,
	// at most 2s — well inside the session timeout, so a static member
	// comes back before the coordinator gives up on it. Negative: none.
	RestartDelay time.Duration
	// Compare, when it holds 2 or 3 specs, runs that many groups side by
	// side on the same topic and producer; GroupProtocol, Assignor and
	// Balancer are then ignored.
	Compare []GroupSpec
	// Listen puts the embedded brokers on these loopback ports; nil picks
	// free ones.
	Listen []int
	// Brokers, when non-empty, uses that cluster instead of an embedded one.
	// The demo creates its topic if missing and touches nothing but its
	// topic and groups.
	Brokers []string
}

func (c *Config) setDefaults() error {
	if c.Topic == "" {
		c.Topic = DefaultTopic
	}
	if c.Partitions == 0 {
		c.Partitions = DefaultPartitions
	}
	if c.Partitions < 0 || c.Partitions > MaxPartitions {
		return fmt.Errorf("demo partitions %d: want 1 to %d", c.Partitions, MaxPartitions)
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
	if c.Consumers > MaxConsumers {
		return fmt.Errorf("demo consumers %d: want 0 to %d", c.Consumers, MaxConsumers)
	}
	if c.Rate == 0 {
		c.Rate = DefaultRate
	}
	if c.Rate < 0 {
		c.Rate = 0
	}
	if !ValidRate(c.Rate) {
		return fmt.Errorf("demo rate %g: want 0 or %g to %g orders/s", c.Rate, float64(MinRate), float64(MaxRate))
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
	if c.RestartDelay == 0 {
		c.RestartDelay = min(c.SessionTimeout/5, 2*time.Second)
	}
	c.RestartDelay = max(c.RestartDelay, 0)
	for _, b := range []struct {
		what     string
		v        time.Duration
		min, max time.Duration
	}{
		{"process time", c.ProcessTime, MinWork, MaxWork},
		{"slow process time", c.SlowProcessTime, MinWork, MaxWork},
		{"session timeout", c.SessionTimeout, MinSessionTimeout, MaxSessionTimeout},
		{"heartbeat interval", c.HeartbeatInterval, time.Millisecond, c.SessionTimeout},
		{"commit delay", c.CommitDelay, 0, MaxCommitDelay},
		{"max poll interval", c.MaxPollInterval, MinMaxPollInterval, MaxMaxPollInterval},
	} {
		if b.v < b.min || b.v > b.max {
			return fmt.Errorf("demo %s %s: want %s to %s", b.what, b.v, b.min, b.max)
		}
	}
	switch c.Commit {
	case "":
		c.Commit = CommitAfter
	case CommitAfter, CommitBefore:
	default:
		return fmt.Errorf("demo commit mode %q: want after or before", c.Commit)
	}
	if len(c.Compare) > 0 {
		if len(c.Compare) < 2 || len(c.Compare) > MaxGroups {
			return fmt.Errorf("demo compare: %d groups, want 2 or %d", len(c.Compare), MaxGroups)
		}
		specs := make([]GroupSpec, len(c.Compare))
		seen := map[string]bool{}
		for i, s := range c.Compare {
			if c.Static {
				s.Static = true
			}
			if err := s.fill(); err != nil {
				return fmt.Errorf("demo compare group %d: %w", i+1, err)
			}
			if s.Name == "" {
				s.Name = c.Group + "-" + s.suffix()
			}
			if seen[s.Name] {
				return fmt.Errorf("demo compare: group %q twice", s.Name)
			}
			seen[s.Name] = true
			specs[i] = s
		}
		c.Compare = specs
	} else {
		if c.Assignor == "" {
			c.Assignor = c.Balancer
		}
		if c.Balancer != "" && c.Balancer != c.Assignor {
			return fmt.Errorf("demo assignor %q and balancer %q: Balancer is another name for Assignor, give one", c.Assignor, c.Balancer)
		}
		s := GroupSpec{Name: c.Group, Protocol: c.GroupProtocol, Assignor: c.Assignor, Static: c.Static}
		if err := s.fill(); err != nil {
			return fmt.Errorf("demo group: %w", err)
		}
		c.GroupProtocol, c.Assignor, c.Balancer = s.Protocol, s.Assignor, s.Assignor
	}
	if len(c.Listen) != 0 && len(c.Listen) != 3 {
		return fmt.Errorf("demo listen ports %v: want 3, one per broker", c.Listen)
	}
	return nil
}

// fill checks the spec and fills in its protocol and assignor defaults.
func (s *GroupSpec) fill() error {
	if s.Protocol == "" {
		s.Protocol = ProtocolClassic
	}
	if err := checkAssignor(s.Protocol, s.Assignor); err != nil {
		return err
	}
	if s.Assignor == "" {
		s.Assignor = AssignorRange
		if s.Protocol == ProtocolConsumer {
			s.Assignor = AssignorUniform
		}
	}
	return nil
}

// ValidRate reports whether r is a producer rate the demo takes: 0, or
// MinRate to MaxRate orders/s. NaN and infinities are not.
func ValidRate(r float64) bool {
	return r == 0 || (r >= MinRate && r <= MaxRate)
}

// clampRate maps any float to a rate the producer can run: NaN and
// negatives to 0, the rest into [MinRate, MaxRate].
func clampRate(r float64) float64 {
	switch {
	case math.IsNaN(r) || r <= 0:
		return 0
	case r < MinRate:
		return MinRate
	case r > MaxRate:
		return MaxRate
	}
	return r
}
