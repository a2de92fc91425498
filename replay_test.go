package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
)

// liveEvents runs `kgwatch --events` with args in the background and
// keeps its lines.
type liveEvents struct {
	mu     sync.Mutex
	lines  []string
	stderr lockedWriter
	code   chan int
	cancel context.CancelFunc
	read   chan struct{}
}

func startEvents(t *testing.T, args ...string) *liveEvents {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	le := &liveEvents{code: make(chan int, 1), cancel: cancel, read: make(chan struct{})}
	go func() {
		le.code <- runContext(ctx, args, pw, &le.stderr)
		pw.Close()
	}()
	go func() {
		defer close(le.read)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			le.mu.Lock()
			le.lines = append(le.lines, sc.Text())
			le.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-le.read })
	return le
}

// wait returns the index of the first line from from on whose type is
// typ (and client id, when given), waiting up to d.
func (le *liveEvents) wait(t *testing.T, from int, d time.Duration, typ, clientID string) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		le.mu.Lock()
		for i := from; i < len(le.lines); i++ {
			var e eventLine
			if json.Unmarshal([]byte(le.lines[i]), &e) == nil && e.Type == typ && (clientID == "" || e.ClientID == clientID) {
				le.mu.Unlock()
				return i + 1
			}
		}
		n := len(le.lines)
		le.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %s %s within %s (%d lines); stderr %q", typ, clientID, d, n, le.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (le *liveEvents) stop(t *testing.T) []string {
	t.Helper()
	le.cancel()
	select {
	case c := <-le.code:
		if c != exitOK {
			t.Fatalf("--events exit %d; stderr %q", c, le.stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--events did not stop")
	}
	<-le.read
	le.mu.Lock()
	defer le.mu.Unlock()
	return append([]string(nil), le.lines...)
}

// onceJSON is --once -o json without what depends on the clock or on
// history: taken_at, and the rates, which one poll cannot measure and the
// replay's pipeline, fed every poll before, can.
func onceJSON(t *testing.T, out string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range []string{"taken_at", "consume_rate", "produce_rate"} {
				delete(v, k)
			}
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(m)
	return m
}

// TestRecordAndReplayAWatch records `--events` watching a real group (the
// demo's embedded cluster and its franz-go consumers) through a join, a
// clean leave and a kill; `replay --events` prints the live output line
// for line, and `replay --once --at` the snapshot the live --once printed
// at that moment.
func TestRecordAndReplayAWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster")
	}
	const session = 2 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := demo.Start(ctx, demo.Config{Consumers: 2, Rate: -1, ProcessTime: time.Millisecond, SessionTimeout: session}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	brokers := strings.Join(d.Brokers(), ",")
	path := filepath.Join(t.TempDir(), "watch.kgw")

	le := startEvents(t, "-g", d.Group(), "-b", brokers, "--events", "-i", "200ms", "--record", path)
	i := le.wait(t, 0, 30*time.Second, "watch_started", "")
	id, err := d.Spawn()
	if err != nil {
		t.Fatal(err)
	}
	i = le.wait(t, i, 30*time.Second, "member_joined", id)
	i = le.wait(t, i, 30*time.Second, "rebalance_completed", "")

	// The live --once, and the replay of the recording so far (flushed
	// at each poll, not closed yet) at its taken_at: the same snapshot
	// once the group has settled.
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, out, stderr := runArgs("-g", d.Group(), "-b", brokers, "--once", "-o", "json")
		if code != 0 {
			t.Fatalf("--once: exit %d: %s", code, stderr)
		}
		var at struct {
			TakenAt string `json:"taken_at"`
			State   string `json:"state"`
			Members []any  `json:"members"`
		}
		json.Unmarshal([]byte(out), &at)
		code, replayed, rerr := runArgs("replay", path, "--once", "--at", at.TakenAt, "-o", "json")
		if code != 0 {
			t.Fatalf("replay --once --at %s: exit %d: %s", at.TakenAt, code, rerr)
		}
		if !strings.Contains(rerr, "ends without its end mark") {
			t.Errorf("replay of a recording still being written: no note on stderr (%q)", rerr)
		}
		live, rep := onceJSON(t, out), onceJSON(t, replayed)
		if at.State == "Stable" && len(at.Members) == 3 && reflect.DeepEqual(live, rep) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replay --once --at %s never matched the live --once:\nlive   %v\nreplay %v", at.TakenAt, live, rep)
		}
		time.Sleep(100 * time.Millisecond)
	}

	if err := d.Stop(id); err != nil {
		t.Fatal(err)
	}
	i = le.wait(t, i, 30*time.Second, "member_left", id)
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatal(err)
	}
	i = le.wait(t, i, session+20*time.Second, "member_left", "consumer-b")
	le.wait(t, i, 20*time.Second, "rebalance_completed", "")
	live := le.stop(t)

	code, out, stderr := runArgs("replay", path, "--events")
	if code != 0 || stderr != "" {
		t.Fatalf("replay --events: exit %d, stderr %q", code, stderr)
	}
	replayed := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(replayed) != len(live) {
		t.Errorf("replay --events gave %d lines, the live --events %d", len(replayed), len(live))
	}
	for k := range min(len(live), len(replayed)) {
		if live[k] != replayed[k] {
			t.Fatalf("line %d differs:\nlive   %s\nreplay %s", k+1, live[k], replayed[k])
		}
	}
	t.Logf("%d events replayed as they were printed; recording %d bytes", len(live), fileSize(t, path))
}

func fileSize(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestReplayADemoRecording records the demo's TUI as `kgwatch demo
// --record` wires it (the group, the consumers' reports, the demo's reads
// and keys) through a kill -9 and the eviction, then plays it: the replay
// shows the ledger as last recorded, the kill's line and the members'
// notes.
func TestReplayADemoRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster")
	}
	const session = 2 * time.Second
	path := filepath.Join(t.TempDir(), "demo.kgw")
	events := newEventPipe(256)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	file, err := createRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := demo.Start(ctx, demo.Config{Rate: 20, ProcessTime: 5 * time.Millisecond, SessionTimeout: session}, events.emit)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: d.Group(), Timeout: 5 * time.Second})
	defer w.Close()
	set := d.Config()
	settings := ui.DemoSettings{SessionTimeout: set.SessionTimeout, MaxPollInterval: set.MaxPollInterval,
		Commit: set.Commit, ProcessTime: set.ProcessTime, SlowProcessTime: set.SlowProcessTime}
	opts := ui.Options{Brokers: d.Brokers(), Interval: 200 * time.Millisecond, Timeout: 5 * time.Second}
	rec, err := newDemoRecorder(file, path, d.Group(), settings, opts)
	if err != nil {
		t.Fatal(err)
	}
	app := ui.New(ui.Watch{Group: d.Group(), Source: w, Events: events.ch, Demo: rec.demoOf(d), DemoSettings: settings, Tap: rec.tapOf(d.Group())}, opts)
	drv := newAppDriver(t, app)
	drv.waitScreen(20*time.Second, "consumer-b owning a partition", func(s string) bool {
		return regexp.MustCompile(`(?m)^[ ▸]consumer-b +127\.0\.0\.1:\d+ +[0-9a-f]{8} +[1-9]`).MatchString(s)
	})
	drv.send(keyMsg("tab"))
	for i := 0; !regexp.MustCompile(`(?m)^▸consumer-b `).MatchString(drv.screen()); i++ {
		if i > 5 {
			t.Fatalf("could not select consumer-b:\n%s", drv.screen())
		}
		drv.send(keyMsg("j"))
	}
	drv.send(keyMsg("X"))
	drv.waitScreen(session+10*time.Second, "the eviction", func(s string) bool { return evictedAfter.MatchString(s) })
	app.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	// What the recording says the ledger was last.
	var last model.Ledger
	r, f, err := readRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	for {
		rc, err := r.Next()
		if err != nil {
			if err != io.EOF {
				t.Fatalf("the recording does not end cleanly: %v", err)
			}
			break
		}
		if rc.Kind == record.KindDemoStatus && rc.Demo.HasLedger {
			last = rc.Demo.Ledger
		}
	}
	f.Close()
	if last.Produced == 0 {
		t.Fatal("no ledger recorded")
	}

	sum, err := scanRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	rp, ropts, err := replayOf(path, sum, replayFlags{speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rp.Demo || rp.DemoSettings.SessionTimeout != session {
		t.Fatalf("the demo's settings were not recorded: %+v", rp.DemoSettings)
	}
	play := newAppDriver(t, ui.NewReplay(rp, ropts))
	play.send(tea.KeyPressMsg{Code: tea.KeySpace}) // pause
	// Step from event to event until the kill's line shows.
	for i := 0; ; i++ {
		if s := play.screen(); strings.Contains(s, "consumer-b killed: no LeaveGroup") {
			if !strings.Contains(s, "✗ killed · evicted in") {
				t.Errorf("at the kill, no countdown note:\n%s", s)
			}
			break
		}
		if i > 200 {
			t.Fatalf("→ never reached the kill:\n%s", play.screen())
		}
		play.send(tea.KeyPressMsg{Code: tea.KeyRight})
	}
	play.send(keyMsg("X"))
	play.waitScreen(time.Second, "X refused", func(s string) bool { return strings.Contains(s, "replay: X (kill -9) does nothing here") })
	play.send(tea.KeyPressMsg{Code: tea.KeyEnd})
	ledger := fmt.Sprintf("produced %s · processed %s", model.Thousands(last.Produced), model.Thousands(last.Processed))
	s := play.waitScreen(time.Second, "the last ledger", func(s string) bool { return strings.Contains(s, ledger) })
	if !evictedAfter.MatchString(s) || !strings.Contains(s, "end of recording") {
		t.Errorf("at the end, no eviction note or no end:\n%s", s)
	}
}

// writeRecording writes a small recording of order-workers: a member
// joins, then leaves. With closed false it stops as a killed kgwatch
// leaves it (flushed, no end mark).
func writeRecording(t *testing.T, path string, closed bool) {
	t.Helper()
	t0 := time.Date(2026, 3, 14, 3, 12, 40, 0, time.UTC)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := record.NewWriter(f, record.Header{Started: t0, Mode: "events", Group: "order-workers", Brokers: []string{"k:9092"}, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	snap := func(sec int, members ...string) {
		o := model.Observation{TakenAt: t0.Add(time.Duration(sec) * time.Second),
			Group:     model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer", Assignor: "range"},
			Committed: map[model.TopicPartition]int64{}, Offsets: map[model.TopicPartition]model.PartitionOffsets{}}
		for p := range 4 {
			tp := model.TopicPartition{Topic: "orders", Partition: int32(p)}
			o.Committed[tp], o.Offsets[tp] = 10, model.PartitionOffsets{LogEnd: 10}
		}
		for i, m := range members {
			mb := model.Member{MemberID: m + "-id", ClientID: m, Host: "/10.0.0.1"}
			for p := i; p < 4; p += len(members) {
				mb.Partitions = append(mb.Partitions, model.TopicPartition{Topic: "orders", Partition: int32(p)})
			}
			o.Members = append(o.Members, mb)
		}
		s := model.NewSnapshot(o)
		s.CompletedAt = s.TakenAt.Add(5 * time.Millisecond)
		if err := w.Snapshot(s.CompletedAt, "order-workers", s); err != nil {
			t.Fatal(err)
		}
	}
	snap(1, "consumer-a")
	snap(2, "consumer-a", "consumer-b")
	snap(3, "consumer-a", "consumer-b")
	snap(4, "consumer-a")
	if closed {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReplayRobustFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.kgw")
	writeRecording(t, good, true)
	code, full, stderr := runArgs("replay", good, "--events")
	if code != 0 || stderr != "" || strings.Count(full, "\n") < 4 {
		t.Fatalf("replay --events of a good recording: exit %d, stderr %q:\n%s", code, stderr, full)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	killed := filepath.Join(dir, "killed.kgw")
	writeRecording(t, killed, false)
	code, out, stderr := runArgs("replay", killed, "--events")
	if code != 0 || out != full || !strings.Contains(stderr, "ends without its end mark (kgwatch was killed?): replayed up to 03:12:44") {
		t.Errorf("killed: exit %d, stderr %q, same events %v", code, stderr, out == full)
	}

	// Cut inside the last poll's record: that poll is lost, the rest
	// plays.
	kdata, _ := os.ReadFile(killed)
	cut := filepath.Join(dir, "cut.kgw")
	os.WriteFile(cut, kdata[:len(kdata)-6], 0o644)
	code, out, stderr = runArgs("replay", cut, "--events")
	if code != 0 || !strings.HasPrefix(full, out) || out == full || !strings.Contains(stderr, "the last record is cut short (a crash or a full disk?) and is ignored") {
		t.Errorf("cut: exit %d, stderr %q, a prefix %v:\n%s", code, stderr, strings.HasPrefix(full, out), out)
	}
	if strings.Count(stderr, "\n") != 1 {
		t.Errorf("cut: the note is not one line: %q", stderr)
	}

	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"garbage.kgw": {[]byte("{\"time\":\"2026-03-14\"}\n"), "is not a kgwatch recording"},
		"empty.kgw":   {nil, "is not a kgwatch recording"},
		"gzip.kgw":    {data[len("kgwatch recording format 1\n"):], "is not a kgwatch recording"},
		"future.kgw":  {append([]byte("kgwatch recording format 3\n"), data[len("kgwatch recording format 1\n"):]...), "was recorded by a newer kgwatch (format 3)"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, c.data, 0o644)
		for _, args := range [][]string{{"replay", p, "--events"}, {"replay", p, "--once"}, {"replay", p}} {
			code, out, stderr := runArgs(args...)
			if code != exitRuntime || out != "" || stderr != "Error: "+p+" "+c.want+"\n" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
			}
		}
	}
	code, _, stderr = runArgs("replay", filepath.Join(dir, "nope.kgw"))
	if code != exitRuntime || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}

func TestReplayOnceAt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.kgw")
	writeRecording(t, p, true)
	for _, c := range []struct {
		at      string
		members int
	}{
		{"1500ms", 1}, {"2.5s", 2}, {"03:12:43", 2}, {"2026-03-14T03:12:43.5Z", 2}, {"4s", 2}, {"4.005s", 1}, {"2h", 1}, {"", 1},
	} {
		args := []string{"replay", p, "--once", "-o", "json"}
		if c.at != "" {
			args = append(args, "--at", c.at)
		}
		if c.at == "03:12:43" {
			// A clock time is the viewer's local time.
			args[len(args)-1] = time.Date(2026, 3, 14, 3, 12, 43, 0, time.UTC).Local().Format("15:04:05")
		}
		code, out, stderr := runArgs(args...)
		if code != 0 {
			t.Errorf("--at %s: exit %d: %s", c.at, code, stderr)
			continue
		}
		var s struct {
			Members []any `json:"members"`
		}
		json.Unmarshal([]byte(out), &s)
		if len(s.Members) != c.members {
			t.Errorf("--at %s: %d members, want %d", c.at, len(s.Members), c.members)
		}
	}
	code, out, _ := runArgs("replay", p, "--once", "--at", "2.5s")
	if code != 0 || !strings.Contains(out, "CURRENT-OFFSET") || !strings.Contains(out, "consumer-b") {
		t.Errorf("--once table: exit %d\n%s", code, out)
	}
	code, _, stderr := runArgs("replay", p, "--once", "--at", "500ms")
	if code != exitRuntime || !strings.Contains(stderr, "no poll of order-workers was recorded by") {
		t.Errorf("--at before the first poll: exit %d, %q", code, stderr)
	}
}

func TestReplayUsage(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.kgw")
	writeRecording(t, p, true)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay"}, "replay needs the recording"},
		{[]string{"replay", p, p}, "unexpected argument"},
		{[]string{"replay", p, "--events", "--once"}, "do not go together"},
		{[]string{"replay", p, "--at", "1s"}, "--at goes with --once"},
		{[]string{"replay", p, "--once", "--from", "1s"}, "--from is where the TUI starts"},
		{[]string{"replay", p, "--speed", "0"}, "--speed must be from 0.1 to 600, got 0"},
		{[]string{"replay", p, "--speed", "NaN"}, "--speed must be from 0.1 to 600"},
		{[]string{"replay", p, "--once", "--at", "-2h"}, "--at -2h is before the recording: it runs from"},
		{[]string{"replay", p, "--once", "--at", "soon"}, `--at "soon": want an offset from the start`},
		{[]string{"replay", p, "--from", "-1s"}, "--from -1s is before the recording"},
		{[]string{"replay", p, "--once", "-o", "yaml"}, `unknown output format "yaml"`},
		{[]string{"replay", p, "-g", "other", "--events"}, "records order-workers, not other"},
		{[]string{"-g", "g", "--once", "--record", p}, "--once and --record do not go together"},
		{[]string{"demo", "--compare", "--record", p + ".new"}, "--record does not record --compare yet"},
	} {
		code, _, stderr := runArgs(c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRecordPathMustBeWritable: --record to a path that cannot be written
// fails at once, before any broker is asked, in one line; so does one
// that would write over a recording.
func TestRecordPathMustBeWritable(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "taken.kgw")
	os.WriteFile(existing, []byte("a recording"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-g", "g", "-b", "127.0.0.1:1", "--events", "--record", filepath.Join(dir, "no", "such", "dir.kgw")}, "no such file or directory"},
		{[]string{"-g", "g", "-b", "127.0.0.1:1", "--record", dir}, "is a directory"},
		{[]string{"-g", "g", "-b", "127.0.0.1:1", "--events", "--record", existing}, "the file exists (kgwatch does not write over a recording"},
		{[]string{"demo", "--record", filepath.Join(dir, "no", "demo.kgw")}, "no such file or directory"},
	} {
		start := time.Now()
		code, out, stderr := runArgs(c.args...)
		if code != exitRuntime || out != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, out, stderr, c.want)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%v took %s: it should fail before connecting", c.args, took)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "a recording" {
		t.Errorf("the existing file was written over: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a directory was made: %v", err)
	}
	_ = bytes.MinRead
}
