package kafka

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// hostilePayload is issue 11's client.id: raw on a terminal it sets the
// window title, clears the screen, writes the clipboard (OSC 52) and leaves
// the alternate screen.
const hostilePayload = "evil\x1b]0;PWNED\x07\x1b[2J\x1b[31m\nNEWLINE\r\x1b[1;1HOVERWRITE\x1b]52;c;cHduZWQ=\x07\x1b[?1049l"

// A consumer that chose that client id, in a group of that name, as the
// watcher reads it from a real broker: what --once prints as a table has no
// control character, one line per row; the JSON keeps the true strings.
func TestHostileNamesEndToEnd(t *testing.T) {
	tc := newTestCluster(t, false)
	const topic = "orders"
	tc.createTopic(t, topic, 3)
	tc.produce(t, topic, 0, 5, time.Now())
	cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...), kgo.ClientID(hostilePayload),
		kgo.ConsumerGroup(hostilePayload), kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	go func() {
		for {
			fs := cl.PollFetches(context.Background())
			if fs.IsClientClosed() {
				return
			}
		}
	}()

	w := NewWatcher(Config{Brokers: tc.addrs, Group: hostilePayload, Timeout: 5 * time.Second})
	defer w.Close()
	var snap model.Snapshot
	deadline := time.Now().Add(15 * time.Second)
	for {
		snap, err = w.Poll(context.Background())
		if err == nil && snap.Group.State == model.StateStable && len(snap.Members) == 1 && len(snap.Members[0].Partitions) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hostile consumer never owned the 3 partitions: %v %+v", err, snap.Group)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if snap.Members[0].ClientID != hostilePayload {
		t.Fatalf("client id read as %q, want the true string", snap.Members[0].ClientID)
	}

	table := model.FormatTable(snap)
	assertNoControls(t, "--once table", table)
	if n := strings.Count(strings.TrimSuffix(table, "\n"+model.LagFromStartNote+"\n"), "\n"); n != 2+len(snap.Partitions) {
		t.Errorf("--once table: %d lines for %d partitions (a name split a row):\n%s", n, len(snap.Partitions), table)
	}
	if !strings.Contains(table, "evil␛]0;PWNED␇") {
		t.Errorf("the client id is not shown visibly:\n%s", table)
	}

	b, err := model.MarshalJSONSnapshot(snap)
	if err != nil {
		t.Fatal(err)
	}
	assertNoControls(t, "--once -o json", string(b))
	var j model.JSONSnapshot
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatalf("--once -o json is not JSON: %v", err)
	}
	if j.Group != hostilePayload || j.Members[0].ClientID != hostilePayload || *j.Partitions[0].ClientID != hostilePayload {
		t.Errorf("JSON lost the true strings: group %q, client %q", j.Group, j.Members[0].ClientID)
	}

	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	gs, err := o.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ov := model.FormatOverview(gs)
	assertNoControls(t, "--once overview", ov)
	if strings.Count(strings.TrimSuffix(ov, model.LagFromStartNote+"\n"), "\n") != 1+len(gs) {
		t.Errorf("overview: a name split a row:\n%s", ov)
	}
	ob, err := model.MarshalJSONOverview(gs)
	if err != nil {
		t.Fatal(err)
	}
	assertNoControls(t, "overview json", string(ob))
}

// assertNoControls fails when s holds a byte that drives a terminal: a C0
// control other than newline, DEL, or a C1 control.
func assertNoControls(t *testing.T, what, s string) {
	t.Helper()
	for i, r := range s {
		if r == utf8.RuneError || (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Fatalf("%s: control %U at byte %d:\n%q", what, r, i, s)
		}
	}
}
