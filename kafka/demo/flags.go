package demo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/model"
)

// Flags are the flags of `kgwatch demo`. Register adds them to a flag
// set; Config checks them once it is parsed.
type Flags struct {
	cfg     Config
	listen  string
	brokers string
	compare string

	Interval   time.Duration
	StallAfter time.Duration
	// Record is --record FILE.
	Record string
	// MaxRebalances is --max-rebalances, as the watch's.
	MaxRebalances int
}

// bareCompare is what a bare --compare runs: eager range against
// cooperative-sticky.
const bareCompare = "range,cooperative-sticky"

// Register adds the demo's flags to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	c := &f.cfg
	fs.StringVar(&c.Topic, "topic", DefaultTopic, "demo topic")
	fs.IntVar(&c.Partitions, "partitions", DefaultPartitions, fmt.Sprintf("partitions of the demo topic (1..%d)", MaxPartitions))
	fs.StringVarP(&c.Group, "group", "g", DefaultGroup, "demo consumer group (with --compare: the stem of the groups' names)")
	fs.IntVar(&c.Consumers, "consumers", DefaultConsumers, fmt.Sprintf("consumers at start, in each group (0..%d; 0: none, n adds them)", MaxConsumers))
	fs.Float64Var(&c.Rate, "rate", DefaultRate, fmt.Sprintf("orders produced per second (0, or %g..%g; 0: none until ] raises it)", MinRate, float64(MaxRate)))
	fs.DurationVar(&c.ProcessTime, "process-time", DefaultProcessTime, "time a consumer spends on one order")
	fs.DurationVar(&c.SlowProcessTime, "slow-time", DefaultSlowProcessTime,
		"time per order of a consumer slowed with s (with --max-poll-interval and no --slow-time: 1.5× that interval, so s pushes the member out)")
	fs.DurationVar(&c.SessionTimeout, "session-timeout", DefaultSessionTimeout, "session timeout: how long the group waits for a killed member (consumer protocol: the broker's group setting)")
	fs.StringVar(&c.Commit, "commit", CommitAfter, "after (process, then commit: at-least-once) or before (commit, then process: at-most-once)")
	fs.DurationVar(&c.CommitDelay, "commit-delay", 0, "pause between processing and committing (or committing and processing): a kill inside it shows a duplicate (or a loss)")
	fs.DurationVar(&c.MaxPollInterval, "max-poll-interval", DefaultMaxPollInterval, "longest time on one order before the member leaves the group on its own, as Java and librdkafka clients do")
	fs.StringVar(&c.GroupProtocol, "group-protocol", ProtocolClassic, "classic, or consumer (KIP-848: the broker assigns, members reconcile incrementally)")
	fs.StringVar(&c.Assignor, "assignor", "", "range (default), roundrobin, sticky or cooperative-sticky; with --group-protocol consumer the server assignor: uniform (default) or range")
	fs.StringVar(&c.Balancer, "balancer", "", "same as --assignor")
	fs.BoolVar(&c.Static, "static", false, "static members: each consumer's group.instance.id is its client id (consumer-a, …), so r restarts it with no rebalance")
	fs.StringVar(&f.compare, "compare", "", "run 2 or 3 groups side by side on the same topic, each key acting in all (range, roundrobin, sticky, cooperative-sticky, consumer, consumer-range; static: in front for static members); alone: "+bareCompare)
	fs.Lookup("compare").NoOptDefVal = bareCompare
	fs.StringVar(&f.listen, "listen", "", "put the embedded brokers on these 3 loopback ports, comma separated (e.g. 19192,19193,19194), so outside clients can join")
	fs.StringVarP(&f.brokers, "brokers", "b", "", "use this cluster instead of an embedded one (only the demo topic and groups are touched)")
	fs.DurationVarP(&f.Interval, "interval", "i", time.Second, "poll interval")
	fs.DurationVar(&f.StallAfter, "stall-after", 30*time.Second, "a partition with lag is STALLED when its commit has not moved for this long (P's poison order shows it)")
	fs.StringVar(&f.Record, "record", "", "record the demo to FILE (the group, its events, the ledger), for kgwatch replay")
	fs.IntVar(&f.MaxRebalances, "max-rebalances", 0, "more rebalances than this in the last 10 minutes are a rebalance storm (0: no limit)")
}

// Config checks the flags parsed into fs and returns the demo's
// configuration. Every mistake is a one-line model.UsageError that names
// the flag and what it takes.
func (f *Flags) Config(fs *pflag.FlagSet) (Config, error) {
	c := f.cfg
	bad := func(format string, a ...any) (Config, error) {
		return c, model.Usagef(format, a...)
	}
	switch {
	case c.Topic == "":
		return bad("--topic must not be empty")
	case c.Group == "":
		return bad("--group must not be empty")
	case c.Partitions < 1 || c.Partitions > MaxPartitions:
		return bad("--partitions must be from 1 to %d, got %d", MaxPartitions, c.Partitions)
	case c.Consumers < 0 || c.Consumers > MaxConsumers:
		return bad("--consumers must be from 0 to %d, got %d", MaxConsumers, c.Consumers)
	case !ValidRate(c.Rate):
		return bad("--rate must be 0 or from %g to %g orders/s, got %g", MinRate, float64(MaxRate), c.Rate)
	case c.Commit != CommitAfter && c.Commit != CommitBefore:
		return bad("unknown --commit %q: use after or before", c.Commit)
	case f.listen != "" && fs.Changed("brokers"):
		return bad("--listen and --brokers do not go together: --listen places the embedded cluster")
	}
	for _, b := range []struct {
		name           string
		v, least, most time.Duration
	}{
		{"process-time", c.ProcessTime, MinWork, MaxWork},
		{"slow-time", c.SlowProcessTime, MinWork, MaxWork},
		{"session-timeout", c.SessionTimeout, MinSessionTimeout, MaxSessionTimeout},
		{"commit-delay", c.CommitDelay, 0, MaxCommitDelay},
		{"max-poll-interval", c.MaxPollInterval, MinMaxPollInterval, MaxMaxPollInterval},
		{"interval", f.Interval, model.MinInterval, time.Hour},
		{"stall-after", f.StallAfter, model.MinStallAfter, model.MaxStallAfter},
	} {
		if err := model.CheckRange(b.name, b.v, b.least, b.most); err != nil {
			return c, err
		}
	}
	if err := f.groupSpecs(fs, &c); err != nil {
		return c, err
	}
	if fs.Changed("max-poll-interval") && !fs.Changed("slow-time") {
		c.SlowProcessTime = min(c.MaxPollInterval*3/2, MaxWork)
	}
	// Start reads zero as "the default"; zero here means none.
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
		brokers, err := kafka.ParseBrokers(f.brokers, "--brokers")
		if err != nil {
			return c, err
		}
		c.Brokers = brokers
	}
	return c, nil
}

// groupSpecs checks --group-protocol, --assignor (and its old name
// --balancer) and --compare, and fills c's group settings.
func (f *Flags) groupSpecs(fs *pflag.FlagSet, c *Config) error {
	if fs.Changed("compare") {
		for _, other := range []string{"group-protocol", "assignor", "balancer"} {
			if fs.Changed(other) {
				return model.Usagef("--compare picks each group's protocol and assignor: drop --%s", other)
			}
		}
		specs, err := ParseCompare(f.compare)
		if err != nil {
			return model.Usagef("--compare %q: %v", f.compare, err)
		}
		c.Compare = specs
		c.Assignor, c.Balancer = "", ""
		return nil
	}
	if c.Balancer != "" {
		if c.Assignor != "" && c.Assignor != c.Balancer {
			return model.Usagef("--balancer %s and --assignor %s: --balancer is another name for --assignor, give one", c.Balancer, c.Assignor)
		}
		c.Assignor = c.Balancer
		c.Balancer = ""
	}
	flag := "--assignor"
	if fs.Changed("balancer") {
		flag = "--balancer"
	}
	switch c.GroupProtocol {
	case ProtocolClassic:
		switch c.Assignor {
		case "", AssignorRange, AssignorRoundRobin, AssignorSticky, AssignorCooperativeSticky:
		case AssignorUniform:
			return model.Usagef("%s uniform is a server assignor: it needs --group-protocol consumer (classic assignors: range, roundrobin, sticky, cooperative-sticky)", flag)
		default:
			return model.Usagef("unknown %s %q: use range, roundrobin, sticky or cooperative-sticky (with --group-protocol consumer: uniform or range)", flag, c.Assignor)
		}
	case ProtocolConsumer:
		switch c.Assignor {
		case "", AssignorUniform, AssignorRange:
		case AssignorRoundRobin, AssignorSticky, AssignorCooperativeSticky:
			return model.Usagef("%s %s: %s is not a server assignor: with --group-protocol consumer use uniform or range", flag, c.Assignor, c.Assignor)
		default:
			return model.Usagef("unknown %s %q: with --group-protocol consumer use uniform or range", flag, c.Assignor)
		}
	default:
		return model.Usagef("unknown --group-protocol %q: use classic or consumer", c.GroupProtocol)
	}
	return nil
}

// parsePorts reads --listen: three distinct ports.
func parsePorts(s string) ([]int, error) {
	parts := kafka.SplitList(s)
	if len(parts) != 3 {
		return nil, model.Usagef("--listen wants 3 ports, one per broker (e.g. 19192,19193,19194), got %q", s)
	}
	ports := make([]int, 0, 3)
	seen := map[int]bool{}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, model.Usagef("--listen port %q: want a number from 1 to 65535", p)
		}
		if seen[n] {
			return nil, model.Usagef("--listen port %d given twice", n)
		}
		seen[n] = true
		ports = append(ports, n)
	}
	return ports, nil
}

// CompareArgs lets `--compare range,consumer` (a space, not =) give
// --compare its value: with a default for the bare flag, pflag only takes
// `--compare=range,consumer`.
func CompareArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--compare" || a == "-compare") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, "--compare="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// Label says how a compared group assigns, for its line: "range
// (eager)", "cooperative-sticky", "KIP-848 uniform" (the consumer protocol).
func (s GroupSpec) Label() string {
	label := s.Assignor
	switch {
	case s.Protocol == ProtocolConsumer:
		label = "KIP-848 " + s.Assignor
	case !s.Cooperative():
		label += " (eager)"
	}
	if s.Static {
		label += ", static"
	}
	return label
}
