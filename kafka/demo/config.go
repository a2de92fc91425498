package demo

import (
	"fmt"
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

// Commit modes.
const (
	CommitAfter  = "after"
	CommitBefore = "before"
)

// Consumer states as ConsumerInfo reports them.
const (
	StateRunning  = model.DemoRunning
	StateStopping = model.DemoStopping
	StateStopped  = model.DemoStopped
	StateKilled   = model.DemoKilled
	StateEvicted  = model.DemoEvicted
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
