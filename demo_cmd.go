package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui"
)

// demoFlags are the flags of `kgwatch demo`.
type demoFlags struct {
	cfg      demo.Config
	interval time.Duration
	listen   string
	brokers  string
}

func (f *demoFlags) register(fs *pflag.FlagSet) {
	c := &f.cfg
	fs.StringVar(&c.Topic, "topic", demo.DefaultTopic, "demo topic")
	fs.IntVar(&c.Partitions, "partitions", demo.DefaultPartitions, "partitions of the demo topic")
	fs.StringVarP(&c.Group, "group", "g", demo.DefaultGroup, "demo consumer group")
	fs.IntVar(&c.Consumers, "consumers", demo.DefaultConsumers, "consumers at start (0: none; n adds them)")
	fs.Float64Var(&c.Rate, "rate", demo.DefaultRate, "orders produced per second (0: none until ] raises it)")
	fs.DurationVar(&c.ProcessTime, "process-time", demo.DefaultProcessTime, "time a consumer spends on one order")
	fs.DurationVar(&c.SlowProcessTime, "slow-time", demo.DefaultSlowProcessTime,
		"time per order of a consumer slowed with s (with --max-poll-interval and no --slow-time: 1.5× that interval, so s pushes the member out)")
	fs.DurationVar(&c.SessionTimeout, "session-timeout", demo.DefaultSessionTimeout, "consumers' session timeout: how long the group waits for a killed member")
	fs.StringVar(&c.Commit, "commit", demo.CommitAfter, "after (process, then commit: at-least-once) or before (commit, then process: at-most-once)")
	fs.DurationVar(&c.CommitDelay, "commit-delay", 0, "pause between processing and committing (or committing and processing): a kill inside it shows a duplicate (or a loss)")
	fs.DurationVar(&c.MaxPollInterval, "max-poll-interval", demo.DefaultMaxPollInterval, "longest time on one order before the member leaves the group on its own, as Java and librdkafka clients do")
	fs.StringVar(&c.Balancer, "balancer", "range", "partition assignment: range or roundrobin")
	fs.StringVar(&f.listen, "listen", "", "put the embedded brokers on these 3 loopback ports, comma separated (e.g. 19092,29092,39092), so outside clients can join")
	fs.StringVarP(&f.brokers, "brokers", "b", "", "use this cluster instead of an embedded one (only the demo topic and group are touched)")
	fs.DurationVarP(&f.interval, "interval", "i", time.Second, "poll interval")
}

// config checks the flags and returns the demo's configuration. Every
// mistake is a one-line usage error.
func (f *demoFlags) config(fs *pflag.FlagSet) (demo.Config, error) {
	c := f.cfg
	switch {
	case c.Topic == "":
		return c, usageError{"--topic must not be empty"}
	case c.Group == "":
		return c, usageError{"--group must not be empty"}
	case c.Partitions < 1:
		return c, usageError{fmt.Sprintf("--partitions must be at least 1, got %d", c.Partitions)}
	case c.Consumers < 0:
		return c, usageError{fmt.Sprintf("--consumers must not be negative, got %d", c.Consumers)}
	case c.Rate < 0:
		return c, usageError{fmt.Sprintf("--rate must not be negative, got %g", c.Rate)}
	case c.ProcessTime <= 0:
		return c, usageError{fmt.Sprintf("--process-time must be positive, got %s", c.ProcessTime)}
	case c.SlowProcessTime <= 0:
		return c, usageError{fmt.Sprintf("--slow-time must be positive, got %s", c.SlowProcessTime)}
	case c.SessionTimeout <= 0:
		return c, usageError{fmt.Sprintf("--session-timeout must be positive, got %s", c.SessionTimeout)}
	case c.Commit != demo.CommitAfter && c.Commit != demo.CommitBefore:
		return c, usageError{fmt.Sprintf("unknown --commit %q: use after or before", c.Commit)}
	case c.CommitDelay < 0:
		return c, usageError{fmt.Sprintf("--commit-delay must not be negative, got %s", c.CommitDelay)}
	case c.MaxPollInterval <= 0:
		return c, usageError{fmt.Sprintf("--max-poll-interval must be positive, got %s", c.MaxPollInterval)}
	case c.Balancer != "range" && c.Balancer != "roundrobin":
		return c, usageError{fmt.Sprintf("unknown --balancer %q: use range or roundrobin", c.Balancer)}
	case f.interval <= 0:
		return c, usageError{fmt.Sprintf("--interval must be positive, got %s", f.interval)}
	case f.listen != "" && fs.Changed("brokers"):
		return c, usageError{"--listen and --brokers do not go together: --listen places the embedded cluster"}
	}
	if fs.Changed("max-poll-interval") && !fs.Changed("slow-time") {
		c.SlowProcessTime = c.MaxPollInterval * 3 / 2
	}
	// kafka/demo reads zero as "the default"; zero here means none.
	if c.Consumers == 0 {
		c.Consumers = -1
	}
	if c.Rate == 0 {
		c.Rate = -1
	}
	if f.listen != "" {
		ports, err := parsePorts(f.listen)
		if err != nil {
			return c, err
		}
		c.Listen = ports
	}
	if fs.Changed("brokers") {
		c.Brokers = splitList(f.brokers)
		if len(c.Brokers) == 0 {
			return c, usageError{"--brokers is empty"}
		}
	}
	return c, nil
}

// parsePorts reads --listen: three distinct ports.
func parsePorts(s string) ([]int, error) {
	parts := splitList(s)
	if len(parts) != 3 {
		return nil, usageError{fmt.Sprintf("--listen wants 3 ports, one per broker (e.g. 19092,29092,39092), got %q", s)}
	}
	ports := make([]int, 0, 3)
	seen := map[int]bool{}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, usageError{fmt.Sprintf("--listen port %q: want a number from 1 to 65535", p)}
		}
		if seen[n] {
			return nil, usageError{fmt.Sprintf("--listen port %d given twice", n)}
		}
		seen[n] = true
		ports = append(ports, n)
	}
	return ports, nil
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f demoFlags
	fs := newFlagSet("kgwatch demo", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n  kgwatch demo [flags]\n\nStarts an in-process Kafka cluster (3 brokers), a producer of orders and demo\nconsumers in one group, and watches that group.\n\nKeys: n add consumer · x stop · X kill -9 · s slow · p pause producer · [ ] rate · h hot key\n\nFlags:\n%s", fs.FlagUsages())
	}
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := f.config(fs)
	if err != nil {
		return err
	}

	events := newEventPipe(1024)
	d, err := demo.Start(ctx, cfg, events.emit)
	if err != nil {
		return fmt.Errorf("start demo: %w", err)
	}
	defer d.Close()
	set := d.Config()
	w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: set.Group, Timeout: 5 * time.Second})
	defer w.Close()
	return runTUI(ctx, w, ui.Options{
		Brokers: d.Brokers(), Group: set.Group, Interval: f.interval, Timeout: 5 * time.Second,
		Events: events.ch,
		Demo:   d,
		DemoSettings: ui.DemoSettings{
			SessionTimeout:  set.SessionTimeout,
			MaxPollInterval: set.MaxPollInterval,
			Commit:          set.Commit,
			CommitDelay:     set.CommitDelay,
			ProcessTime:     set.ProcessTime,
			SlowProcessTime: set.SlowProcessTime,
		},
	})
}

// eventPipe carries demo events to the UI. emit never blocks: when the
// buffer is full the oldest event is dropped (and counted), so a stalled
// screen can never stall a demo consumer.
type eventPipe struct {
	ch      chan model.Event
	dropped atomic.Int64
}

func newEventPipe(n int) *eventPipe { return &eventPipe{ch: make(chan model.Event, n)} }

func (p *eventPipe) emit(e model.Event) {
	for {
		select {
		case p.ch <- e:
			return
		default:
		}
		select {
		case <-p.ch:
			p.dropped.Add(1)
		default:
		}
	}
}
