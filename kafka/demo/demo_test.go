package demo

import (
	"context"
	"fmt"
	"math"
	"net"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// recorder collects emitted events.
type recorder struct {
	mu     sync.Mutex
	events []model.Event
}

func (r *recorder) emit(e model.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) find(typ model.EventType, clientID string) []model.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []model.Event
	for _, e := range r.events {
		if e.Type == typ && (clientID == "" || e.ClientID == clientID) {
			out = append(out, e)
		}
	}
	return out
}

// fastConfig is a demo that tells its story in seconds.
func fastConfig() Config {
	return Config{
		Consumers:       2,
		Rate:            20,
		ProcessTime:     10 * time.Millisecond,
		SlowProcessTime: 400 * time.Millisecond,
		SessionTimeout:  2 * time.Second,
		MaxPollInterval: 10 * time.Second,
	}
}

func startDemo(t *testing.T, cfg Config) (*Demo, *recorder) {
	t.Helper()
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := Start(ctx, cfg, rec.emit)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d, rec
}

// waitFor is the shared condition wait.
var waitFor = testutil.WaitFor

// owners returns client id → assigned partitions as the coordinator has them.
func owners(d *Demo) map[string][]int32 {
	gi := d.cluster.GroupInfo(d.cfg.Group)
	out := map[string][]int32{}
	if gi == nil || gi.State != "Stable" {
		return out
	}
	for _, m := range gi.Members {
		ps := append([]int32(nil), m.Assignment[d.cfg.Topic]...)
		slices.Sort(ps)
		out[m.ClientID] = ps
	}
	return out
}

func ownersString(o map[string][]int32) string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%v ", k, o[k])
	}
	return b.String()
}

// ownsAll reports whether exactly the given clients own every partition,
// each at least one.
func ownsAll(d *Demo, clients ...string) bool {
	o := owners(d)
	if len(o) != len(clients) {
		return false
	}
	n := 0
	for _, c := range clients {
		ps, ok := o[c]
		if !ok || len(ps) == 0 {
			return false
		}
		n += len(ps)
	}
	return n == d.partCount
}

// waitTwoOwnAll waits up to 10s until consumer-a and consumer-b own every
// partition, as owns (ownsAll or ownsAllRecorded) tells.
func waitTwoOwnAll(t *testing.T, d *Demo, owns func(*Demo, ...string) bool) {
	t.Helper()
	waitFor(t, 10*time.Second, "two members own all partitions", func() bool {
		return owns(d, "consumer-a", "consumer-b")
	})
}

// lags returns per-partition lag: log end minus committed (log end when
// nothing is committed).
func lags(t *testing.T, d *Demo) []int64 {
	t.Helper()
	out := logEnds(t, d)
	gi := d.cluster.GroupInfo(d.cfg.Group)
	if gi == nil {
		return out
	}
	for p := range out {
		if c, ok := gi.Commits[d.cfg.Topic][int32(p)]; ok {
			out[p] -= c.Offset
		}
	}
	return out
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

func TestStartTwoConsumersOwnAllPartitionsAndKeepUp(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, fastConfig())
	if got := len(d.Brokers()); got != 3 {
		t.Fatalf("Brokers() = %d addresses, want 3", got)
	}
	waitFor(t, 10*time.Second, "consumer-a and consumer-b own all 3 partitions", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b")
	})
	// Our own view agrees with the coordinator's.
	waitFor(t, 5*time.Second, "Consumers() reports 3 partitions assigned", func() bool {
		n := 0
		for _, c := range d.Consumers() {
			if c.State != StateRunning || c.MemberID == "" {
				return false
			}
			n += len(c.Assigned)
		}
		return n == 3
	})
	if len(rec.find(model.EventDemoAssigned, "consumer-a")) == 0 || len(rec.find(model.EventDemoSpawned, "consumer-b")) == 0 {
		t.Fatalf("missing demo_spawned / demo_assigned events: %+v", rec.events)
	}
	// Orders flow and the consumers keep up: lag stays low.
	waitFor(t, 10*time.Second, "40 orders produced", func() bool { return d.Ledger().Produced >= 40 })
	waitFor(t, 5*time.Second, "total lag at most 6", func() bool { return sum(lags(t, d)) <= 6 })
	l := d.Ledger()
	if l.Processed < 30 || l.Lost != 0 || l.Duplicates != 0 {
		t.Fatalf("ledger %+v: want ≥30 processed, no loss, no duplicates", l)
	}
}

func TestStopHandsPartitionsToTheOtherMember(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, fastConfig())
	waitTwoOwnAll(t, d, ownsAll)
	if err := d.Stop("consumer-b"); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	took := waitFor(t, 3*time.Second, "consumer-a owns all 3 partitions after consumer-b stopped", func() bool {
		o := owners(d)
		return len(o) == 1 && len(o["consumer-a"]) == 3
	})
	t.Logf("graceful stop → rebalance complete in %s", took)
	if took > 2*time.Second {
		t.Fatalf("rebalance after graceful stop took %s, want ≤ 2s", took)
	}
	waitFor(t, 2*time.Second, "demo_stopped emitted", func() bool {
		return len(rec.find(model.EventDemoStopped, "consumer-b")) == 1
	})
	for _, c := range d.Consumers() {
		if c.ClientID == "consumer-b" && (c.State != StateStopped || c.MemberID != "" || len(c.Assigned) != 0 || c.StoppedAt.IsZero()) {
			t.Fatalf("consumer-b after stop: %+v", c)
		}
	}
	if err := d.Stop("consumer-b"); err == nil {
		t.Fatal("second Stop of consumer-b succeeded, want an error")
	}
	if err := d.Stop("consumer-z"); err == nil {
		t.Fatal("Stop of an unknown consumer succeeded, want an error")
	}
}

func TestSpawnGivesTheNewMemberPartitions(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, fastConfig())
	waitTwoOwnAll(t, d, ownsAll)
	id, err := d.Spawn()
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	if id != "consumer-c" {
		t.Fatalf("Spawn() = %q, want consumer-c", id)
	}
	took := waitFor(t, 5*time.Second, "three members own one partition each", func() bool {
		return ownsAll(d, "consumer-a", "consumer-b", "consumer-c")
	})
	t.Logf("spawn → new member owns a partition in %s", took)
	waitFor(t, 2*time.Second, "consumer-c assigned event", func() bool {
		for _, e := range rec.find(model.EventDemoAssigned, "consumer-c") {
			if len(e.Partitions) == 1 {
				return true
			}
		}
		return false
	})
	// Eager rebalance: the old members gave their partitions back first.
	if len(rec.find(model.EventDemoRevoked, "consumer-a")) == 0 {
		t.Fatal("no demo_revoked for consumer-a during the rebalance")
	}
}

// TestCloseLeavesNoGoroutines runs alone (not parallel) so that the
// goroutine count is ours.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	rec := &recorder{}
	cfg := fastConfig()
	d, err := Start(context.Background(), cfg, rec.emit)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	waitTwoOwnAll(t, d, ownsAll)
	if err := d.Kill("consumer-a"); err != nil {
		t.Fatalf("Kill: %v", err)
	}
	if err := d.Stop("consumer-b"); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if _, err := d.Spawn(); err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines before Start, %d after Close:\n%s", before, runtime.NumGoroutine(), buf[:n])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{
		{Commit: "sometimes"},
		{Balancer: "uniform"},
		{GroupProtocol: ProtocolConsumer, Assignor: AssignorCooperativeSticky},
		{Assignor: "range", Balancer: "roundrobin"},
		{Rate: math.NaN()},
		{Rate: 1e-300},
		{Partitions: MaxPartitions + 1},
		{Compare: []GroupSpec{{Assignor: "range"}}},
		{Compare: []GroupSpec{{Assignor: "range"}, {Assignor: "range"}}},
		{Listen: []int{19092}},
		{Partitions: -1},
	} {
		d, err := Start(context.Background(), cfg, nil)
		if err == nil {
			d.Close()
			t.Fatalf("Start(%+v) succeeded, want an error", cfg)
		}
	}
}

func TestStartFailsOnBusyPortsNamingThem(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy := l.Addr().(*net.TCPAddr).Port
	ports := append(freePorts(t, 2), busy)
	d, err := Start(context.Background(), Config{Listen: ports}, nil)
	if err == nil {
		d.Close()
		t.Fatalf("Start on busy port %d succeeded", busy)
	}
	if !strings.Contains(err.Error(), strconv.Itoa(busy)) {
		t.Fatalf("error %q does not name the ports", err)
	}
}

func TestProducerPauseAndRate(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Consumers = -1 // none: only the producer matters here
	d, _ := startDemo(t, cfg)
	if len(d.Consumers()) != 0 {
		t.Fatalf("Consumers: -1 started %d consumers", len(d.Consumers()))
	}
	waitFor(t, 5*time.Second, "orders produced", func() bool { return d.Ledger().Produced >= 5 })
	if !d.TogglePause() || !d.Paused() {
		t.Fatal("TogglePause did not pause")
	}
	time.Sleep(100 * time.Millisecond)
	before := d.Ledger().Produced
	time.Sleep(500 * time.Millisecond)
	if after := d.Ledger().Produced; after != before {
		t.Fatalf("paused producer wrote %d orders", after-before)
	}
	d.SetRate(50)
	if d.Rate() != 50 {
		t.Fatalf("Rate() = %g after SetRate(50)", d.Rate())
	}
	if d.TogglePause() {
		t.Fatal("second TogglePause did not resume")
	}
	// Resumed, it produces again; its pace at a rate is TestPacerRate's,
	// on a simulated clock.
	start := d.Ledger().Produced
	waitFor(t, 5*time.Second, "orders produced after resuming at rate 50", func() bool { return d.Ledger().Produced >= start+25 })
	d.SetRate(-3)
	if d.Rate() != 0 {
		t.Fatalf("Rate() = %g after SetRate(-3), want 0", d.Rate())
	}
	time.Sleep(100 * time.Millisecond)
	before = d.Ledger().Produced
	time.Sleep(300 * time.Millisecond)
	if after := d.Ledger().Produced; after != before {
		t.Fatalf("rate 0 producer wrote %d orders", after-before)
	}
	if got := sum(logEnds(t, d)); got != d.Ledger().Produced {
		t.Fatalf("log holds %d orders, ledger says %d produced", got, d.Ledger().Produced)
	}
}
