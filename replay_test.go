package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/recorder"
	"github.com/kgwatch/kgwatch/ui/replayer"
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
			for _, k := range []string{"taken_at", "consume_rate", "produce_rate", "rebalances"} { // history: the replay has polls before
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
	events := demo.NewEventPipe(256)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	file, err := recorder.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := demo.Start(ctx, demo.Config{Rate: 20, ProcessTime: 5 * time.Millisecond, SessionTimeout: session}, events.Emit)
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
	app := ui.New(ui.Watch{Group: d.Group(), Source: w, Events: events.Events(), Demo: rec.Demo(d), DemoSettings: settings, Tap: rec.Tap(d.Group())}, opts)
	drv := newAppDriver(t, app)
	drv.waitScreen(20*time.Second, "consumer-b owning a partition", func(s string) bool {
		return regexp.MustCompile(`(?m)^[ ▸]consumer-b +127\.0\.0\.1:\d+ +[0-9a-f]{8} +[1-9]`).MatchString(s)
	})
	drv.send(keyMsg("tab"))
	// The members' order may change between polls (consumer-a leaves):
	// down, then up, until consumer-b is the one selected.
	for i := 0; !regexp.MustCompile(`(?m)^▸consumer-b `).MatchString(drv.screen()); i++ {
		if i > 8 {
			t.Fatalf("could not select consumer-b:\n%s", drv.screen())
		}
		drv.send(keyMsg([]string{"j", "k"}[i/4%2]))
	}
	drv.send(keyMsg("X"))
	drv.waitScreen(session+10*time.Second, "the eviction", func(s string) bool { return evictedAfter.MatchString(s) })
	app.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	// What the recording says the ledger was last.
	var last model.Ledger
	var killAt, killEventAt time.Time
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := record.NewReader(f)
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
		// The kill's action (its line shows from then) and its event
		// (a stop for →): under load the action may be recorded after
		// the event, and then the first stop that shows the line is a
		// later one, the eviction's.
		if rc.Kind == record.KindDemoAction && rc.Action.Kind == model.DemoKill && killAt.IsZero() {
			killAt = rc.At
		}
		if rc.Kind == record.KindEvent && rc.Event.Type == model.EventDemoKilled && killEventAt.IsZero() {
			killEventAt = rc.At
		}
	}
	if killAt.IsZero() || killEventAt.IsZero() {
		t.Fatalf("the kill was not recorded (action at %v, event at %v)", killAt, killEventAt)
	}
	f.Close()
	if last.Produced == 0 {
		t.Fatal("no ledger recorded")
	}

	scanned, err := replayer.Scan(path, "")
	if err != nil {
		t.Fatal(err)
	}
	rp, ropts, err := scanned.Player("", 1)
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
			if !strings.Contains(s, "✗ killed · evicted in") && !killAt.After(killEventAt) {
				t.Errorf("at the kill, no countdown note:\n%s", s)
			}
			break
		}
		if i > 200 {
			t.Fatalf("→ never reached the kill:\n%s", play.screen())
		}
		play.send(tea.KeyPressMsg{Code: tea.KeyRight})
		// The seek runs off the update loop: its end comes as a message.
		play.waitScreen(5*time.Second, "the seek's end", func(s string) bool { return !strings.Contains(s, "seeking to") })
	}
	play.send(keyMsg("X"))
	play.waitScreen(time.Second, "X refused", func(s string) bool { return strings.Contains(s, "replay: X (kill -9) does nothing here") })
	play.send(tea.KeyPressMsg{Code: tea.KeyEnd})
	ledger := fmt.Sprintf("produced %s · processed %s", model.Thousands(last.Produced), model.Thousands(last.Processed))
	// The seek runs off the update loop: the ledger may read its last
	// figures before the seek to the end is done (the screen then still
	// says "seeking to"), so wait for the end itself.
	s := play.waitScreen(5*time.Second, "the end of the recording", func(s string) bool {
		return strings.Contains(s, "end of recording") && !strings.Contains(s, "seeking to")
	})
	if !strings.Contains(s, ledger) {
		t.Errorf("at the end, not the last ledger (%s):\n%s", ledger, s)
	}
	if !evictedAfter.MatchString(s) || !strings.Contains(s, "end of recording") {
		t.Errorf("at the end, no eviction note or no end:\n%s", s)
	}
}

// writeRecording writes a small recording of order-workers: a member
// joins, then leaves. With closed false it stops as a killed kgwatch
// leaves it (flushed, no end mark).
func writeRecording(t *testing.T, path string, closed bool) {
	t.Helper()
	writeRecordingFrom(t, path, closed, time.Date(2026, 3, 14, 3, 12, 40, 0, time.UTC))
}

// writeRecordingFrom is writeRecording starting at t0: its polls end
// 1.005s, 2.005s, 3.005s and 4.005s in.
func writeRecordingFrom(t *testing.T, path string, closed bool, t0 time.Time) {
	t.Helper()
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
		o := model.Observation{
			TakenAt: t0.Add(time.Duration(sec) * time.Second),
			Group:   model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer", Assignor: "range"},
		}.With(model.Readings{
			Committed: map[model.TopicPartition]int64{},
			Offsets:   map[model.TopicPartition]model.PartitionOffsets{},
		})
		for p := range 4 {
			tp := model.TopicPartition{Topic: "orders", Partition: int32(p)}
			o.SetCommitted(tp, 10)
			o.SetOffsets(tp, model.PartitionOffsets{LogEnd: 10})
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
	if code != 0 || out != full || !strings.Contains(stderr, "ends without its end mark (kgwatch was killed?): replayed up to "+
		time.Date(2026, 3, 14, 3, 12, 44, 0, time.UTC).Local().Format("15:04:05")) {
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
		"future.kgw":  {append([]byte("kgwatch recording format 6\n"), data[len("kgwatch recording format 1\n"):]...), "was recorded by a newer kgwatch (format 6)"},
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, c.data, 0o644)
		for _, args := range [][]string{{"replay", p, "--events"}, {"replay", p, "--once"}, {"replay", p}} {
			code, out, stderr := runArgs(args...)
			if code != exitRuntime || out != "" || stderr != "kgwatch: "+p+" "+c.want+"\n" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
			}
		}
	}
}

// TestReplayOpenErrors: a recording that cannot be opened is said in one
// line naming it (shown as the other messages show names) and why, not
// as Go's "stat NAME: …", exit 1, on every path.
func TestReplayOpenErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no\nsuch.kgw")
	cases := []struct{ path, want string }{
		{missing, "kgwatch: " + model.Printable(missing) + ": no such file or directory (kgwatch replay FILE plays a recording made with --record)\n"},
		{filepath.Join(file, "x.kgw"), "kgwatch: " + file + "/x.kgw: not a directory (a part of the path is a file)\n"},
		{dir, "kgwatch: " + dir + " is a directory, not a kgwatch recording\n"},
	}
	if os.Geteuid() != 0 { // root reads any file
		locked := filepath.Join(dir, "locked.kgw")
		if err := os.WriteFile(locked, []byte("x"), 0o000); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ path, want string }{locked, "kgwatch: " + locked + ": permission denied: kgwatch cannot read it\n"})
	}
	for _, c := range cases {
		for _, args := range [][]string{{"replay", c.path}, {"replay", c.path, "--events"}, {"replay", c.path, "--once"}} {
			code, out, stderr := runArgs(args...)
			if code != exitRuntime || out != "" || stderr != c.want {
				t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and %q", args, code, out, stderr, c.want)
			}
		}
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

// editRecords rewrites the records of the recording at path: edit gets
// each record's kind and body, in order.
func editRecords(t *testing.T, path string, edit func(kinds []byte, bodies [][]byte) ([]byte, [][]byte)) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nl := bytes.IndexByte(data, '\n')
	z, err := gzip.NewReader(bytes.NewReader(data[nl+1:]))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(z)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	var kinds []byte
	var bodies [][]byte
	for len(raw) > 0 {
		n, w := binary.Uvarint(raw[1:])
		kinds = append(kinds, raw[0])
		bodies = append(bodies, raw[1+w:1+w+int(n)])
		raw = raw[1+w+int(n):]
	}
	kinds, bodies = edit(kinds, bodies)
	var out bytes.Buffer
	out.Write(data[:nl+1])
	zw := gzip.NewWriter(&out)
	for i, k := range kinds {
		zw.Write(append(binary.AppendUvarint([]byte{k}, uint64(len(bodies[i]))), bodies[i]...))
	}
	zw.Close()
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editHeader rewrites the header of the recording at path.
func editHeader(t *testing.T, path string, edit func(h map[string]any)) {
	t.Helper()
	editRecords(t, path, func(kinds []byte, bodies [][]byte) ([]byte, [][]byte) {
		var h map[string]any
		d := json.NewDecoder(bytes.NewReader(bodies[0]))
		d.UseNumber()
		if err := d.Decode(&h); err != nil {
			t.Fatal(err)
		}
		edit(h)
		b, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		bodies[0] = b
		return kinds, bodies
	})
}

// TestReplayDamageEveryPath: a record in the middle that does not decode
// (a byte too many, a kind this kgwatch does not know) ends the replay
// there on every path, which plays what came before and says so the same
// way: --events, --once and the TUI (its bar at the end, and the line
// after it), exit 1. A file name is printed as model.Printable shows it.
func TestReplayDamageEveryPath(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.kgw")
	writeRecording(t, good, true)
	_, full, _ := runArgs("replay", good, "--events")
	_, at2, _ := runArgs("replay", good, "--once", "--at", "2.5s", "-o", "json")
	t0 := time.Date(2026, 3, 14, 3, 12, 40, 0, time.UTC)
	for _, c := range []struct {
		name string
		edit func(kinds []byte, bodies [][]byte)
		why  string
	}{
		{"a byte too many", func(_ []byte, b [][]byte) { b[3] = append(b[3], 0) }, "a record is corrupt (a poll: 1 bytes left over)"},
		{"an unknown kind", func(k []byte, _ [][]byte) { k[3] = 'Q' }, "a record is corrupt (a record of unknown kind 'Q': not a kind of format 5)"},
	} {
		p := filepath.Join(dir, "n\x1b]0;T\a.kgw")
		os.Remove(p)
		data, _ := os.ReadFile(good)
		os.WriteFile(p, data, 0o644)
		editRecords(t, p, func(kinds []byte, bodies [][]byte) ([]byte, [][]byte) {
			if string(kinds) != "HNSSSSZ" && string(kinds) != "HSSSSZ" {
				t.Fatalf("records %q", kinds)
			}
			if kinds[1] == 'N' {
				kinds, bodies = append(kinds[:1], kinds[2:]...), append(bodies[:1], bodies[2:]...)
			}
			c.edit(kinds, bodies)
			return kinds, bodies
		})
		want := fmt.Sprintf("kgwatch: %s is damaged: played to %s (2s in), the last good record: %s\n",
			model.Printable(p), t0.Add(2005*time.Millisecond).Local().Format("15:04:05"), c.why)
		code, out, stderr := runArgs("replay", p, "--events")
		if code != exitRuntime || stderr != want || !strings.HasPrefix(full, out) || strings.Count(out, "\n") < 2 || out == full {
			t.Errorf("%s: --events: exit %d, stderr %q (want %q), %d of %d lines", c.name, code, stderr, want, strings.Count(out, "\n"), strings.Count(full, "\n"))
		}
		code, out, stderr = runArgs("replay", p, "--once", "-o", "json")
		if code != exitRuntime || stderr != want || out != at2 {
			t.Errorf("%s: --once: exit %d, stderr %q; the last good poll printed: %v", c.name, code, stderr, out == at2)
		}
		// The TUI: what runReplay hands it, and says after it.
		scanned, err := replayer.Scan(p, "")
		if err != nil {
			t.Fatal(err)
		}
		var note bytes.Buffer
		if err := scanned.Ended(&note); note.Len() != 0 || err == nil || "kgwatch: "+model.Printable(err.Error())+"\n" != want {
			t.Errorf("%s: after the TUI: note %q, error %v", c.name, note.String(), err)
		}
		rp, ropts, err := scanned.Player("", 1)
		if err != nil {
			t.Fatal(err)
		}
		if !rp.End.Equal(t0.Add(2005 * time.Millisecond)) {
			t.Errorf("%s: the TUI plays to %s, not to the last good record", c.name, rp.End)
		}
		play := newAppDriver(t, ui.NewReplay(rp, ropts))
		play.send(tea.WindowSizeMsg{Width: 250, Height: 40})
		play.send(tea.KeyPressMsg{Code: tea.KeyEnd})
		play.waitScreen(2*time.Second, "the damage in the bar", func(s string) bool {
			return strings.Contains(s, "the recording stops here: "+c.why)
		})
		for _, b := range []string{"\x1b", "\a"} {
			if strings.Contains(stderr, b) {
				t.Errorf("%s: stderr holds %q: %q", c.name, b, stderr)
			}
		}
	}

	// A note names the file as Printable shows it too.
	p := filepath.Join(dir, "m\x1b[2J.kgw")
	writeRecording(t, p, false)
	code, _, stderr := runArgs("replay", p, "--events")
	if code != 0 || strings.ContainsAny(stderr, "\x1b") || !strings.Contains(stderr, model.Printable(p)+" ends without its end mark") {
		t.Errorf("a killed recording: exit %d, stderr %q", code, stderr)
	}
}

// TestReplayHeaderAsLiveFlags: a header's interval, timeout and
// stall-after are refused exactly when the live flag with that value is
// (zero aside: the header's default), in one line, exit 1.
func TestReplayHeaderAsLiveFlags(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flag, field string
		least, most time.Duration
	}{
		{"interval", "interval_ns", record.MinInterval, record.MaxInterval},
		{"timeout", "timeout_ns", record.MinTimeout, record.MaxTimeout},
		{"stall-after", "stall_after_ns", record.MinStallAfter, record.MaxStallAfter},
	} {
		for _, v := range []time.Duration{-5, 1, c.least - 1, c.least, c.most, c.most + 1} {
			code, _, lerr := runArgs("-g", "g", "-b", "127.0.0.1:1", "--once", "--"+c.flag, v.String())
			liveRefuses := code == exitUsage
			if !liveRefuses && code != exitRuntime {
				t.Fatalf("--%s %s: exit %d: %s", c.flag, v, code, lerr)
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-%d.kgw", c.flag, v))
			writeRecording(t, p, true)
			editHeader(t, p, func(h map[string]any) { h[c.field] = int64(v) })
			code, out, stderr := runArgs("replay", p, "--events")
			want := fmt.Sprintf("kgwatch: %s is damaged: its header says %s %d (", p, c.field, int64(v))
			if refused := code == exitRuntime && strings.HasPrefix(stderr, want) && strings.Count(stderr, "\n") == 1 && out == ""; refused != liveRefuses || (!refused && code != 0) {
				t.Errorf("--%s %s: live refuses %v; replay of a header saying so: exit %d, %q", c.flag, v, liveRefuses, code, stderr)
			}
		}
	}
	for _, c := range []struct {
		field string
		v     any
		want  string
	}{
		{"timeline_size", 100_000_000, "its header says timeline_size 100000000 (want 0 or from 1 to 100000)"},
		{"started", "0001-01-01T00:00:00Z", "its header says started 0001-01-01T00:00:00Z"},
		{"group", "", `its header says group ""`},
		{"demo", map[string]any{"session_timeout_ns": -1}, "its header says demo session_timeout_ns -1 (-1ns) (want 0 or from 100ms to 30m)"},
		{"demo", map[string]any{"commit": "sometimes"}, `its header says demo commit "sometimes" (want after or before)`},
		{"demo", []int{1}, "its header says demo that is not an object"},
	} {
		p := filepath.Join(dir, "h.kgw")
		os.Remove(p)
		writeRecording(t, p, true)
		editHeader(t, p, func(h map[string]any) { h[c.field] = c.v })
		for _, args := range [][]string{{"replay", p, "--events"}, {"replay", p, "--once"}, {"replay", p}} {
			code, out, stderr := runArgs(args...)
			if code != exitRuntime || out != "" || !strings.HasPrefix(stderr, "kgwatch: "+p+" is damaged: "+c.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%v with %s %v: exit %d, %q, want %q", args, c.field, c.v, code, stderr, c.want)
			}
		}
	}
}

// TestReplayDemoSettingsNamed: the header's demo settings are named in
// snake_case as the rest of it; a recording made when they were named as
// ui.DemoSettings's fields still plays with them.
func TestReplayDemoSettingsNamed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "demo.kgw")
	f, err := recorder.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	set := ui.DemoSettings{SessionTimeout: 3 * time.Second, MaxPollInterval: 5 * time.Second, Commit: "before",
		CommitDelay: time.Second, ProcessTime: 2 * time.Millisecond, SlowProcessTime: 7 * time.Second, Static: true}
	rec, err := newDemoRecorder(f, p, "order-workers", set, ui.Options{Brokers: []string{"k:9092"}, Interval: time.Second, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	var demo map[string]any
	editHeader(t, p, func(h map[string]any) { demo, _ = h["demo"].(map[string]any) })
	var names []string
	for k := range demo {
		names = append(names, k)
	}
	slices.Sort(names)
	if want := []string{"commit", "commit_delay_ns", "max_poll_interval_ns", "process_time_ns", "session_timeout_ns", "slow_process_time_ns", "static"}; !slices.Equal(names, want) {
		t.Errorf("the demo's settings are named %v, want %v", names, want)
	}
	for name, edit := range map[string]func(h map[string]any){
		"as written": func(map[string]any) {},
		"named as before": func(h map[string]any) {
			h["demo"] = map[string]any{"SessionTimeout": 3e9, "MaxPollInterval": 5e9, "Commit": "before", "CommitDelay": 1e9,
				"ProcessTime": 2e6, "SlowProcessTime": 7e9, "Static": true}
		},
	} {
		editHeader(t, p, edit)
		scanned, err := replayer.Scan(p, "")
		if err != nil {
			t.Fatal(err)
		}
		rp, _, err := scanned.Player("", 1)
		if err != nil || !rp.Demo || rp.DemoSettings != set {
			t.Errorf("%s: %+v, %v: want %+v", name, rp.DemoSettings, err, set)
		}
	}
}

// TestReplayReadsAPipeOnce: --events reads the recording once, so it
// plays a pipe (a FIFO, <(…)); --once and the TUI, which read it twice,
// refuse what is not a regular file in one line, at once; a directory is
// not a recording.
func TestReplayReadsAPipeOnce(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.kgw")
	writeRecording(t, good, true)
	_, full, _ := runArgs("replay", good, "--events")
	data, _ := os.ReadFile(good)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = w.Write(data)
			w.Close()
		}
		wrote <- err
	}()
	code, out, stderr := runArgs("replay", fifo, "--events")
	if code != 0 || out != full || stderr != "" {
		t.Errorf("--events from a FIFO: exit %d, stderr %q, the same events %v", code, stderr, out == full)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", fifo, "--once"}, "kgwatch: " + fifo + " is not a regular file: replay --once and the TUI read a recording twice, so save it to a file first (replay --events reads it once)\n"},
		{[]string{"replay", fifo}, "kgwatch: " + fifo + " is not a regular file: replay --once and the TUI read a recording twice"},
		{[]string{"replay", "/dev/zero", "--once"}, "kgwatch: /dev/zero is not a regular file"},
		{[]string{"replay", "/dev/zero", "--events"}, "kgwatch: /dev/zero is not a kgwatch recording\n"},
		{[]string{"replay", dir, "--events"}, "kgwatch: " + dir + " is a directory, not a kgwatch recording\n"},
		{[]string{"replay", dir}, "kgwatch: " + dir + " is a directory, not a kgwatch recording\n"},
	} {
		start := time.Now()
		code, out, stderr := runArgs(c.args...)
		if code != exitRuntime || out != "" || !strings.HasPrefix(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%v took %s", c.args, took)
		}
	}
}

// TestReplayAtAClockTime: a clock time is taken on the recording's day
// nearest to it (across midnight, the day it falls inside the
// recording); before the start is an error giving the span to the digit
// that tells them apart; past the end is the end, with a note.
func TestReplayAtAClockTime(t *testing.T) {
	dir := t.TempDir()
	members := func(out string) int {
		var s struct {
			Members []any `json:"members"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			return -1
		}
		return len(s.Members)
	}
	// Polls at 1.005s (one member), 2.005s and 3.005s (two), 4.005s
	// (one), from 23:59:58.3 local: 23:59:59.305, 00:00:00.305,
	// 00:00:01.305, 00:00:02.305 the next day.
	start := time.Date(2026, 3, 14, 23, 59, 58, 300_000_000, time.Local)
	p := filepath.Join(dir, "midnight.kgw")
	writeRecordingFrom(t, p, true, start)
	for _, c := range []struct {
		at      string
		members int
		end     string // past the end: the end, to the digit that tells
	}{
		{"23:59:59.5", 1, ""}, {"00:00:00.5", 2, ""}, {"00:00:01.5", 2, ""}, {"00:00:02.5", 1, "00:00:02.3"}, {"00:10", 1, "00:00:02"}, {"5m", 1, "00:00:02"}, {"3s", 2, ""},
	} {
		code, out, stderr := runArgs("replay", p, "--once", "-o", "json", "--at", c.at)
		wantNote := ""
		if c.end != "" {
			wantNote = "kgwatch: --at " + c.at + " is past the end of " + p + " (" + c.end + ", 4s in): this is its end\n"
		}
		if code != 0 || members(out) != c.members || stderr != wantNote {
			t.Errorf("--at %s: exit %d, %d members, stderr %q: want %d members, stderr %q", c.at, code, members(out), stderr, c.members, wantNote)
		}
	}
	for _, c := range []struct{ at, want string }{
		{"23:59:58", "--at 23:59:58 is before the recording: it runs from 2026-03-14 23:59:58.3 to 00:00:02 (4s)"},
		{"23:50", "--at 23:50 is before the recording: it runs from 2026-03-14 23:59:58 to 00:00:02 (4s)"},
		{"-1s", "--at -1s is before the recording"},
	} {
		code, out, stderr := runArgs("replay", p, "--once", "--at", c.at)
		if code != exitUsage || out != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("--at %s: exit %d, %q, want %q", c.at, code, stderr, c.want)
		}
	}
	code, _, stderr := runArgs("replay", p, "--from", "1m")
	if code != exitUsage || !strings.Contains(stderr, "--from 1m is past the end of the recording: it runs from 2026-03-14 23:59:58 to 00:00:02 (4s)") {
		t.Errorf("--from past the end: exit %d, %q", code, stderr)
	}
}

// TestReplayOverviewOnce: a recording of the overview prints the
// overview with --once (and --at), as the live --once without --group
// does; --events says what to add; a group never opened is not there.
func TestReplayOverviewOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ov.kgw")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 14, 3, 12, 40, 0, time.UTC)
	w, err := record.NewWriter(f, record.Header{Started: t0, Mode: "tui", Overview: true, Brokers: []string{"k:9092"}, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	groups := func(lag int64) []model.GroupSummary {
		return []model.GroupSummary{
			{ID: "order-workers", State: model.StateStable, Members: 2, Partitions: 7, Committed: 6, TotalLag: lag, Status: model.StatusOK},
			{ID: "billing", State: model.StateEmpty, Partitions: 1, Committed: 1, TotalLag: 3, Status: model.StatusStopped},
		}
	}
	w.Overview(t0.Add(time.Second), groups(527))
	w.OverviewFailed(t0.Add(2*time.Second), "dial tcp: connection refused")
	s := model.NewSnapshot(model.Observation{TakenAt: t0.Add(2 * time.Second), Group: model.Group{ID: "order-workers", State: model.StateStable}})
	w.Snapshot(t0.Add(2*time.Second), "order-workers", s)
	w.Overview(t0.Add(3*time.Second), groups(9000))
	w.Close()
	f.Close()
	for _, c := range []struct {
		at     string
		output string
		want   func() string
	}{
		{"", "json", func() string { b, _ := model.MarshalJSONOverview(groups(9000)); return string(b) }},
		{"", "table", func() string { return model.FormatOverview(groups(9000)) }},
		{"2.5s", "json", func() string { b, _ := model.MarshalJSONOverview(groups(527)); return string(b) }},
	} {
		args := []string{"replay", p, "--once", "-o", c.output}
		if c.at != "" {
			args = append(args, "--at", c.at)
		}
		code, out, stderr := runArgs(args...)
		if code != 0 || stderr != "" || out != c.want() {
			t.Errorf("%v: exit %d, %q:\n%s\nwant\n%s", args, code, stderr, out, c.want())
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"replay", p, "--once", "--at", "500ms"}, exitRuntime, "kgwatch: no poll of the overview was recorded by " + t0.Local().Format("15:04:05") + "\n"},
		{[]string{"replay", p, "--events"}, exitUsage, "--events prints one group's timeline: add -g GROUP, one of the groups opened while recording: order-workers (replay " + p + " --once prints the overview)"},
		{[]string{"replay", p, "--events", "-g", "billing"}, exitRuntime, "kgwatch: billing was not opened while " + p + " was recorded: it holds no timeline of it (opened: order-workers)\n"},
	} {
		code, out, stderr := runArgs(c.args...)
		if code != c.code || out != "" || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q, want %d, %q", c.args, code, stderr, c.code, c.want)
		}
	}
	code, out, stderr := runArgs("replay", p, "--events", "-g", "order-workers")
	if code != 0 || stderr != "" || !strings.Contains(out, `"type":"watch_started"`) {
		t.Errorf("--events -g order-workers: exit %d, %q\n%s", code, stderr, out)
	}
}

// replay --events reads a pipe, so a FIFO with no writer blocks its
// open(2): the signal that ends kgwatch ends the wait, and says why.
func TestReplayEventsOfAFIFOWithoutWriterIsInterruptible(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "rec")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // frees the open left blocked
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() { done <- runContext(ctx, []string{"replay", fifo, "--events"}, &out, &errb) }()
	cancel(errors.New("interrupt"))
	code := <-done // before: blocked in open(2) whatever the context
	if want := "kgwatch: open " + fifo + ": interrupt\n"; code != exitRuntime || errb.String() != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, errb.String(), exitRuntime, want)
	}
}
