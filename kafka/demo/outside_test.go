package demo

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// An outside franz-go consumer joins the demo group through --listen with
// Kafka's range protocol and takes its share: one partition each, no
// takeover.
func TestListenOutsideKgoConsumerTakesItsShare(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Listen = freePorts(t, 3)
	d, _ := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	cl := outsider(t, d, cfg.Listen[2])
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // poll and let kgo autocommit: an ordinary consumer
		defer wg.Done()
		for ctx.Err() == nil {
			cl.PollFetches(ctx)
		}
	}()
	defer func() {
		cancel()
		wg.Wait()
		cl.Close()
	}()
	waitFor(t, 10*time.Second, "outsider owns one partition next to consumer-a and consumer-b", func() bool {
		o := owners(d)
		return ownsAll(d, "consumer-a", "consumer-b", "outsider") && len(o["outsider"]) == 1
	})
	t.Logf("with an outside kgo consumer: %s", ownersString(owners(d)))
	if err := d.Kill("outsider"); err == nil {
		t.Fatal("Kill of an outside member succeeded, want an error")
	}
}

// An outside librdkafka consumer (kcat -G, range) joins the demo group
// through --listen and takes its share, with no "Protocol read buffer
// underflow": the demo's members write consumer protocol metadata
// librdkafka reads. Skipped without kcat (Debian: apt-get install kcat).
func TestListenOutsideLibrdkafkaConsumerTakesItsShare(t *testing.T) {
	t.Parallel()
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Skip("kcat (librdkafka) not installed: apt-get install -y kcat to run this test")
	}
	cfg := fastConfig()
	cfg.Listen = freePorts(t, 3)
	d, _ := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	var stderr bytes.Buffer
	var mu sync.Mutex
	cmd := exec.Command(kcat, "-C", "-q",
		"-b", net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.Listen[0])),
		"-G", d.Group(), d.Topic(),
		"-X", "client.id=rdkafka-outsider",
		"-X", "partition.assignment.strategy=range",
		"-X", "session.timeout.ms=2000",
		"-X", "heartbeat.interval.ms=200",
		"-X", "debug=cgrp")
	cmd.Stdout = nil
	cmd.Stderr = lockedWriter{&mu, &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	log := func() string {
		mu.Lock()
		defer mu.Unlock()
		return stderr.String()
	}
	ok := false
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && !ok {
		o := owners(d)
		ok = ownsAll(d, "consumer-a", "consumer-b", "rdkafka-outsider") && len(o["rdkafka-outsider"]) == 1
		time.Sleep(50 * time.Millisecond)
	}
	out := log()
	if strings.Contains(out, "underflow") {
		t.Fatalf("librdkafka could not read the demo members' metadata:\n%s", grepLines(out, "underflow"))
	}
	if !ok {
		t.Fatalf("librdkafka outsider did not take one partition: %s\n%s", ownersString(owners(d)), grepLines(out, "assign"))
	}
	t.Logf("with an outside librdkafka consumer: %s", ownersString(owners(d)))
	t.Logf("kcat:\n%s", grepLines(out, "ssign"))
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// grepLines returns the lines of s that contain sub, at most 20.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) && len(out) < 20 {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// The orders an outside consumer processed and committed are not lost once
// it leaves and the demo's consumers take its partition back: the ledger
// counts them as processed outside the demo. Either with orders flowing
// before it joins, or with the outsider the first to read its partition
// (the demo had neither committed on it nor read it when it took it back:
// CI once counted those orders lost).
func TestListenOutsideConsumersOrdersAreNotLost(t *testing.T) {
	t.Parallel()
	for _, first := range []bool{false, true} {
		name := "orders flowing before it joins"
		if first {
			name = "the outsider reads its partition first"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outsideOrdersNotLost(t, first)
		})
	}
}

func outsideOrdersNotLost(t *testing.T, outsiderFirst bool) {
	cfg := fastConfig()
	cfg.Listen = freePorts(t, 3)
	if outsiderFirst {
		cfg.Rate = -1 // no orders until the outsider owns its partition
	}
	d, rec := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAllRecorded)
	cl := outsider(t, d, cfg.Listen[1],
		kgo.AutoCommitInterval(100*time.Millisecond),
	)
	if outsiderFirst {
		waitFor(t, 15*time.Second, "the outsider owns one partition", func() bool {
			return ownsAll(d, "consumer-a", "consumer-b", "outsider") && len(owners(d)["outsider"]) == 1
		})
		d.SetRate(fastConfig().Rate)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var polled int
	var mu sync.Mutex
	last := map[int32]int64{} // the last offset the outsider got, per partition
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			mu.Lock()
			polled += fs.NumRecords()
			fs.EachRecord(func(r *kgo.Record) { last[r.Partition] = r.Offset })
			mu.Unlock()
		}
	}()
	waitFor(t, 15*time.Second, "the outsider consumed orders", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return polled >= 5
	})
	cancel()
	wg.Wait()
	// Its commit must land before it leaves (an autocommit, or the one
	// Close makes, fails while the group rebalances): commit until one
	// goes through, then leave.
	waitFor(t, 20*time.Second, "the outsider's commit accepted", func() bool {
		return cl.CommitUncommittedOffsets(context.Background()) == nil
	})
	cl.Close() // leaves
	deadline := time.Now().Add(40 * time.Second)
	for d.Ledger().Outside == 0 {
		if time.Now().After(deadline) {
			// Say enough to tell why: what it polled, what the demo did.
			mu.Lock()
			t.Logf("the outsider's last offsets: %v; ledger %+v; committed %v", last, d.Ledger(), committedOffsets(t, d))
			mu.Unlock()
			rec.mu.Lock()
			for _, e := range rec.events {
				t.Logf("event %s %s: %s", e.Type, e.ClientID, e.Detail)
			}
			rec.mu.Unlock()
			t.Fatal("timed out after 40s waiting for the demo's consumers to resume past the outsider's commits")
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitFor(t, 5*time.Second, "later orders processed", func() bool { return d.Ledger().Processed > 10 })
	if l := d.Ledger(); l.Lost != 0 || l.Processed+l.Outside+l.Lost+l.InFlight != l.Produced {
		t.Errorf("ledger after the outsider left: %+v, want nothing lost (its orders outside)", l)
	}
}

// outsider is a franz-go consumer joining d's group through the listener
// on port, with Kafka's range protocol, a 2s session and opts added.
func outsider(t *testing.T, d *Demo, port int, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(net.JoinHostPort("127.0.0.1", strconv.Itoa(port))),
		kgo.ClientID("outsider"),
		kgo.ConsumerGroup(d.Group()),
		kgo.ConsumeTopics(d.Topic()),
		kgo.Balancers(kgo.RangeBalancer()),
		kgo.SessionTimeout(2 * time.Second),
		kgo.HeartbeatInterval(200 * time.Millisecond),
		kgo.DisableClientMetrics(),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// committedOffsets is d's group's committed offset per partition, as the
// coordinator has them (nil when they cannot be read).
func committedOffsets(t *testing.T, d *Demo) map[int32]int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.brokers...), kgo.DisableClientMetrics())
	if err != nil {
		return nil
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = d.Group()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Logf("fetch the group's offsets: %v", err)
		return nil
	}
	out := map[int32]int64{}
	for _, tp := range resp.Topics {
		for _, p := range tp.Partitions {
			out[p.Partition] = p.Offset
		}
	}
	return out
}
