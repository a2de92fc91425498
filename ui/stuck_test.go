package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// poisonedSnapshot is a poll at at of a group whose one member owns
// orders/0–2; p1's commit stands at 1234 before a keyed record (key, two
// headers) written at t0-2s, 66 records behind.
func poisonedSnapshot(at time.Time, key string) model.Snapshot {
	p0, p1, p2 := tp("orders", 0), tp("orders", 1), tp("orders", 2)
	rec := model.OldestRecord{Offset: 1234, Time: t0.Add(-2 * time.Second), Size: 512, ValueSize: 480, Key: key, KeySize: int32(len(key)),
		Headers: []model.RecordHeader{{Name: "trace-id", NameSize: 8, Value: "abc", ValueSize: 3}, {Name: "retry", NameSize: 5, Value: "3", ValueSize: 1}}, HeaderCount: 2}
	return model.NewSnapshot(model.Observation{
		TakenAt: at,
		Brokers: testBrokers,
		Group:   model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer", Assignor: "range"},
		Members: []model.Member{{MemberID: "consumer-a-1", ClientID: "consumer-a", Host: "/127.0.0.1", Partitions: []model.TopicPartition{p0, p1, p2}}},
	}.With(model.Readings{
		Committed:       map[model.TopicPartition]int64{p0: 500, p1: 1234, p2: 700},
		Offsets:         map[model.TopicPartition]model.PartitionOffsets{p0: {LogEnd: 500}, p1: {LogEnd: 1300}, p2: {LogEnd: 700}},
		OldestTimestamp: map[model.TopicPartition]time.Time{p1: rec.Time},
		OldestRecords:   map[model.TopicPartition]model.OldestRecord{p1: rec},
	}))
}

// poisonedApp watches that group for 6s of polls, one a second, with
// --stall-after 5s: p1 is STALLED by the last.
func poisonedApp(t *testing.T, w, h int, key string, hide bool) *App {
	t.Helper()
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: poisonedSnapshot(t0, key)}}}
	a := New(Watch{Group: "order-workers", Source: src}, Options{
		Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Judging: model.Judging{StallAfter: 5 * time.Second, HideKeys: hide}, Now: clk.Now,
	})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	feed(t, a, a.Init())
	for i := 1; i <= 6; i++ {
		at := t0.Add(time.Duration(i) * time.Second)
		clk.Set(at)
		a.group.poll.polling = true
		a.Update(answerOf(a, a.group.poll.seq, poisonedSnapshot(at, key)))
	}
	return a
}

// TestStuckLine: the group page names, under the worst partition, the
// record a STALLED partition is stuck on, at 120×40 whole and at 80×24
// in its short form, key first, cut to the width; at 40×10 the line
// gives way. --hide-keys shows the
// key's and header values' sizes only.
func TestStuckLine(t *testing.T) {
	const want = "stuck at offset 1,234 since before 10:00:00, record written 09:59:58, 512 B, key order-42, headers trace-id=abc, retry=3"
	out := plain(poisonedApp(t, 120, 40, "order-42", false))
	if !strings.Contains(out, "worst: orders/1 consumer-a 66 behind") || !strings.Contains(out, "\n"+want+"\n") {
		t.Errorf("120x40: no stuck line %q under the worst partition:\n%s", want, out)
	}
	out = plain(poisonedApp(t, 80, 24, "order-42", false))
	if short := "stuck at 1,234: key order-42, headers trace-id=abc, retry=3, 512 B, written 09:…\n"; !strings.Contains(out, "\n"+short) {
		t.Errorf("80x24: no short stuck line %q:\n%s", short, out)
	}
	out = plain(poisonedApp(t, 40, 10, "order-42", false))
	if strings.Contains(out, "stuck at") || strings.Contains(out, "order-42") {
		t.Errorf("40x10: the stuck line did not give way:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if textWidth(l) > 40 {
			t.Errorf("40x10: line wider than the terminal: %q", l)
		}
	}

	out = plain(poisonedApp(t, 120, 40, "order-42", true))
	if !strings.Contains(out, "key 8 B hidden, headers trace-id (3 B), ") || strings.Contains(out, "order-42") || strings.Contains(out, "=abc") {
		t.Errorf("--hide-keys: key or header value shown:\n%s", out)
	}
}

// TestStuckLineHostileKey: a key holding escape sequences and bytes that
// are not UTF-8 reaches the screen as visible characters, never raw.
func TestStuckLineHostileKey(t *testing.T) {
	a := poisonedApp(t, 120, 40, "\x1b[2J\x1b]0;PWNED\x07\xff", false)
	raw := a.View().Content
	assertSafeText(t, "frame", sgr.ReplaceAllString(raw, ""), true)
	if !strings.Contains(plain(a), `key ␛[2J␛]0;PWNED␇\xff, headers`) {
		t.Errorf("the hostile key is not shown visibly:\n%s", plain(a))
	}
}
