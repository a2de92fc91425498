package demo

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// parseFlags parses args (through CompareArgs, as kgwatch demo does) into
// the demo's flags and checks them.
func parseFlags(t *testing.T, args ...string) (Config, error) {
	t.Helper()
	var f Flags
	fs := pflag.NewFlagSet("kgwatch demo", pflag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(CompareArgs(args)); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return f.Config(fs)
}

func TestFlagsConfig(t *testing.T) {
	parseDemo := func(args ...string) Config {
		t.Helper()
		c, err := parseFlags(t, args...)
		if err != nil {
			t.Fatalf("config %q: %v", args, err)
		}
		return c
	}
	c := parseDemo()
	if c.Consumers != 2 || c.Rate != 5 || c.SessionTimeout != 10*time.Second || c.MaxPollInterval != 30*time.Second ||
		c.Commit != "after" || c.Assignor != "" || c.GroupProtocol != "classic" || c.Static || len(c.Compare) != 0 ||
		c.Topic != "order-rebalancing" || c.Group != "order-workers" {
		t.Errorf("defaults: %+v", c)
	}
	// Start reads 0 as "default"; the flags' 0 means none.
	if c := parseDemo("--consumers", "0", "--rate", "0"); c.Consumers >= 0 || c.Rate >= 0 {
		t.Errorf("--consumers 0 --rate 0 gave consumers %d rate %g, want negative (none)", c.Consumers, c.Rate)
	}
	if c := parseDemo("--max-poll-interval", "5s"); c.SlowProcessTime <= 5*time.Second {
		t.Errorf("--max-poll-interval 5s: slow time %s, want past it so s pushes the member out", c.SlowProcessTime)
	}
	if c := parseDemo("--max-poll-interval", "5s", "--slow-time", "1s"); c.SlowProcessTime != time.Second {
		t.Errorf("--slow-time 1s ignored: %s", c.SlowProcessTime)
	}
	c = parseDemo("--listen", "19092,29092,39092", "--commit", "before", "--commit-delay", "2s", "--balancer", "roundrobin")
	if len(c.Listen) != 3 || c.Listen[0] != 19092 || c.Listen[2] != 39092 || c.Commit != "before" || c.CommitDelay != 2*time.Second || c.Assignor != "roundrobin" {
		t.Errorf("flags not carried: %+v", c)
	}
	if c := parseDemo("--group-protocol", "consumer", "--assignor", "range", "--static"); c.GroupProtocol != "consumer" || c.Assignor != "range" || !c.Static {
		t.Errorf("--group-protocol consumer --assignor range --static: %+v", c)
	}
	if c := parseDemo("--group-protocol", "consumer"); c.GroupProtocol != "consumer" || c.Assignor != "" {
		t.Errorf("--group-protocol consumer: %+v (the demo fills in uniform)", c)
	}
	if c := parseDemo("--assignor", "cooperative-sticky", "--balancer", "cooperative-sticky"); c.Assignor != "cooperative-sticky" {
		t.Errorf("--assignor and --balancer agreeing: %+v", c)
	}
	for _, tt := range []struct {
		args []string
		want string // GroupSpec.String of each, comma separated
	}{
		{[]string{"--compare"}, "range,cooperative-sticky"},
		{[]string{"--compare", "range,cooperative-sticky,consumer"}, "range,cooperative-sticky,consumer"},
		{[]string{"--compare=sticky,consumer-range", "--static"}, "sticky,consumer-range"},
		{[]string{"-compare", "static:range,range"}, "static:range,range"},
		{[]string{"--static", "--compare"}, "range,cooperative-sticky"},
	} {
		c := parseDemo(tt.args...)
		var got []string
		for _, g := range c.Compare {
			got = append(got, g.String())
		}
		if strings.Join(got, ",") != tt.want {
			t.Errorf("%q: compare %v, want %s", tt.args, got, tt.want)
		}
	}
}

// The assignor and protocol rules: each refusal names the flag given
// and what it takes.
func TestFlagsRefuseAssignors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--assignor", "uniform"}, "--assignor uniform is a server assignor: it needs --group-protocol consumer"},
		{[]string{"--balancer", "uniform"}, "--balancer uniform is a server assignor"},
		{[]string{"--group-protocol", "consumer", "--assignor", "sticky"}, "--assignor sticky: sticky is not a server assignor"},
		{[]string{"--assignor", "range", "--balancer", "sticky"}, "--balancer sticky and --assignor range: --balancer is another name for --assignor"},
		{[]string{"--compare", "--assignor", "range"}, "--compare picks each group's protocol and assignor: drop --assignor"},
		{[]string{"--group-protocol", "share"}, `unknown --group-protocol "share": use classic or consumer`},
		{[]string{"--listen", "1,2"}, "--listen wants 3 ports"},
		{[]string{"--listen", "1,2,1"}, "--listen port 1 given twice"},
		{[]string{"--listen", "1,2,3", "--brokers", "k:9092"}, "--listen and --brokers do not go together"},
		{[]string{"--interval", "1ms"}, "--interval must be from 100ms to 1h, got 1ms"},
	} {
		_, err := parseFlags(t, tt.args...)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}

func TestGroupSpecLabel(t *testing.T) {
	for _, tt := range []struct {
		s    GroupSpec
		want string
	}{
		{GroupSpec{Protocol: ProtocolClassic, Assignor: AssignorRange}, "range (eager)"},
		{GroupSpec{Protocol: ProtocolClassic, Assignor: AssignorCooperativeSticky}, "cooperative-sticky"},
		{GroupSpec{Protocol: ProtocolConsumer, Assignor: AssignorUniform, Static: true}, "KIP-848 uniform, static"},
	} {
		if got := tt.s.Label(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.s, got, tt.want)
		}
	}
}
