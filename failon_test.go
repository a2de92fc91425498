package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// hungConsumer makes group a member (franz-go's kgo, an outside client)
// that processed and committed 30 of 100 records written 40s ago on a
// new topic, then hung: it heartbeats, never polls or commits again.
func hungConsumer(t *testing.T, brokers []string, topic, group string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	req := kmsg.NewPtrCreateTopicsRequest()
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, 1, 1
	req.Topics = append(req.Topics, rt)
	if _, err := req.RequestWith(ctx, admin); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	written := time.Now().Add(-40 * time.Second)
	var recs []*kgo.Record
	for i := range 100 {
		recs = append(recs, &kgo.Record{Topic: topic, Value: []byte{byte(i)}, Timestamp: written})
	}
	if err := admin.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ClientID("stuck-handler"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	var got []*kgo.Record
	for len(got) < 30 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d records: %v", len(got), err)
		}
		got = append(got, fs.Records()...)
	}
	if err := cl.CommitRecords(ctx, got[:30]...); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// Opened after a consumer hung 40s ago, one --once poll says LAGGING (JSON
// and table), falling_behind null (nothing measured), and --fail-on
// exits 3 at or past it, 0 short of it; the overview's --once agrees.
func TestOnceFlagsAHungConsumerAndFailsOn(t *testing.T) {
	d := startDemo(t)
	brokers := strings.Join(d.Brokers(), ",")
	hungConsumer(t, d.Brokers(), "stuck-orders", "hung-workers")

	code, out, stderr := runArgs("-g", "hung-workers", "-b", brokers, "--once", "-o", "json")
	var snap struct {
		Status        *string `json:"status"`
		FallingBehind *bool   `json:"falling_behind"`
		Partitions    []struct {
			Status   string `json:"status"`
			Lag      int64  `json:"lag"`
			LagAgeMs *int64 `json:"lag_age_ms"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal([]byte(out), &snap); code != exitOK || err != nil {
		t.Fatalf("exit %d (%v): %s%s", code, err, out, stderr)
	}
	if len(snap.Partitions) != 1 || snap.Partitions[0].Status != "LAGGING" || snap.Partitions[0].Lag != 70 ||
		snap.Partitions[0].LagAgeMs == nil || *snap.Partitions[0].LagAgeMs < 39_000 {
		t.Errorf("partitions %+v: want one LAGGING, lag 70, 40s old", snap.Partitions)
	}
	if snap.Status == nil || *snap.Status != "LAGGING" || snap.FallingBehind != nil {
		t.Errorf("group status %v, falling_behind %v: want LAGGING and null", snap.Status, snap.FallingBehind)
	}
	code, out, _ = runArgs("-g", "hung-workers", "-b", brokers, "--once")
	if code != exitOK || !strings.Contains(out, "LAGGING") {
		t.Errorf("table: exit %d, want a LAGGING row:\n%s", code, out)
	}

	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-g", "hung-workers", "--fail-on", "lagging"}, exitFailOn, "kgwatch: 1 partition at or past LAGGING (--fail-on lagging)\n"},
		{[]string{"-g", "hung-workers", "--fail-on", "LAGGING", "-o", "json"}, exitFailOn, "kgwatch: 1 partition at or past LAGGING (--fail-on lagging)\n"},
		// Nothing past UNOWNED here (STALLED needs --stall-after of
		// watching, and --fail-on refuses it).
		{[]string{"-g", "hung-workers", "--fail-on", "unowned"}, exitOK, ""},
		{[]string{"--fail-on", "lagging"}, exitFailOn, "at or past LAGGING (--fail-on lagging)\n"},
		{[]string{"--fail-on", "stopped"}, exitOK, ""},
	} {
		code, out, stderr := runArgs(append([]string{"-b", brokers, "--once"}, tt.args...)...)
		if code != tt.code || !strings.HasSuffix(stderr, tt.stderr) || out == "" {
			t.Errorf("%v: exit %d, stderr %q, %d bytes out; want exit %d, stderr ending %q and the output",
				tt.args, code, stderr, len(out), tt.code, tt.stderr)
		}
	}
	// The overview's row for the group says LAGGING too.
	_, out, _ = runArgs("-b", brokers, "--once", "-o", "json")
	var groups []struct {
		Group  string `json:"group"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(out), &groups); err != nil {
		t.Fatalf("overview JSON: %v\n%s", err, out)
	}
	for _, g := range groups {
		if g.Group == "hung-workers" && g.Status != "LAGGING" {
			t.Errorf("overview: hung-workers %s, want LAGGING as its group view", g.Status)
		}
	}
}

// --events, started after the consumer hung, says so within its first
// poll: a status_changed to LAGGING at the watch's start.
func TestEventsFlagAHungConsumerAtOnce(t *testing.T) {
	d := startDemo(t)
	hungConsumer(t, d.Brokers(), "stuck-orders", "hung-workers")
	var out, stderr lockedWriter
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"-g", "hung-workers", "-b", strings.Join(d.Brokers(), ","), "--events"}, &out, &stderr)
	}()
	var first []eventLine
	waitUntil := time.Now().Add(15 * time.Second)
	for len(first) < 2 && time.Now().Before(waitUntil) {
		first = first[:0]
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var e eventLine
			if json.Unmarshal([]byte(l), &e) == nil {
				first = append(first, e)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	<-done
	if len(first) < 2 || first[0].Type != "watch_started" || first[1].Type != "status_changed" ||
		first[1].State != "LAGGING" || first[1].Time != first[0].Time {
		t.Fatalf("first events %+v (stderr %q): want watch_started, then status_changed to LAGGING of the same poll", first, stderr.String())
	}
}

// --events --fail-on ends the watch with exit 3 at the first event at or
// past the status, once its line is written: LAGGING at the first poll of
// a consumer hung 40s ago; STALLED (which one --once poll cannot tell)
// after --stall-after of watching.
func TestEventsFailOn(t *testing.T) {
	d := startDemo(t)
	hungConsumer(t, d.Brokers(), "stuck-orders", "hung-workers")
	for _, tt := range []struct {
		args []string
		want string // the state of the last event
	}{
		{[]string{"--fail-on", "lagging"}, "LAGGING"},
		{[]string{"--fail-on", "stalled", "--stall-after", "2s", "-i", "200ms"}, "STALLED"},
	} {
		var out, stderr lockedWriter
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		args := append([]string{"-g", "hung-workers", "-b", strings.Join(d.Brokers(), ","), "--events"}, tt.args...)
		code := runContext(ctx, args, &out, &stderr)
		timedOut := ctx.Err()
		cancel()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		var last eventLine
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
			t.Fatalf("%v: last line %q: %v", tt.args, lines[len(lines)-1], err)
		}
		if code != exitFailOn || timedOut != nil || last.Type != "status_changed" || last.State != tt.want ||
			!strings.HasSuffix(stderr.String(), "(--fail-on "+strings.ToLower(tt.want)+")\n") {
			t.Errorf("%v: exit %d (ctx %v), last event %+v, stderr %q; want exit 3 at a status_changed to %s",
				tt.args, code, timedOut, last, stderr.String(), tt.want)
		}
	}
}
