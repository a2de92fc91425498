package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// fakeDemo is the UI's Demo interface with scripted consumers and ledger;
// it records every call.
type fakeDemo struct {
	ledgers   map[string]model.Ledger // compare mode's, by group
	mu        sync.Mutex
	consumers []model.DemoConsumer
	ledger    model.Ledger
	rate      float64
	paused    bool
	hot       bool
	poisoned  bool
	// rolling and poison are what Status reports of R and P.
	rolling model.DemoRollingRestart
	poison  model.DemoPoisonOrder
	calls   []string
}

func (f *fakeDemo) record(s string) {
	f.calls = append(f.calls, s)
}

func (f *fakeDemo) Spawn() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := fmt.Sprintf("consumer-%c", 'a'+len(f.consumers))
	f.consumers = append(f.consumers, model.DemoConsumer{ClientID: id, State: model.DemoRunning})
	f.record("Spawn")
	return id, nil
}

func (f *fakeDemo) find(id string) (*model.DemoConsumer, error) {
	for i := range f.consumers {
		if f.consumers[i].ClientID == id {
			return &f.consumers[i], nil
		}
	}
	return nil, fmt.Errorf("demo consumer %q: not one of ours", id)
}

func (f *fakeDemo) Stop(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Stop " + id)
	c, err := f.find(id)
	if err != nil {
		return err
	}
	if c.State != model.DemoRunning {
		return fmt.Errorf("stop consumer %q: it is %s", id, c.State)
	}
	c.State = model.DemoStopping
	return nil
}

func (f *fakeDemo) Kill(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Kill " + id)
	c, err := f.find(id)
	if err != nil {
		return err
	}
	c.State, c.KilledAt = model.DemoKilled, t0
	return nil
}

func (f *fakeDemo) ToggleSlow(id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("ToggleSlow " + id)
	c, err := f.find(id)
	if err != nil {
		return false, err
	}
	c.Slow = !c.Slow
	return c.Slow, nil
}

func (f *fakeDemo) TogglePause() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("TogglePause")
	f.paused = !f.paused
	return f.paused
}

func (f *fakeDemo) Paused() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.paused }

func (f *fakeDemo) SetRate(r float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record(fmt.Sprintf("SetRate %g", r))
	f.rate = r
}

func (f *fakeDemo) Rate() float64 { f.mu.Lock(); defer f.mu.Unlock(); return f.rate }

func (f *fakeDemo) ToggleHotKey() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("ToggleHotKey")
	f.hot = !f.hot
	return f.hot
}

func (f *fakeDemo) HotKey() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.hot }

func (f *fakeDemo) Consumers() []model.DemoConsumer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]model.DemoConsumer(nil), f.consumers...)
}

func (f *fakeDemo) Ledger() model.Ledger { f.mu.Lock(); defer f.mu.Unlock(); return f.ledger }

func (f *fakeDemo) Restart(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Restart " + id)
	_, err := f.find(id)
	return err
}

// Status and Act are the Demo interface, over the methods above.
func (f *fakeDemo) Status(withLedger bool) model.DemoStatus {
	s := model.DemoStatus{Consumers: f.Consumers(), Rate: f.Rate(), Paused: f.Paused(), HotKey: f.HotKey()}
	f.mu.Lock()
	s.Rolling, s.Poison = f.rolling, f.poison
	f.mu.Unlock()
	if withLedger {
		s.Ledger, s.HasLedger, s.Ledgers = f.Ledger(), true, f.ledgers
	}
	return s
}

// Act is the real dispatch, onto the fake's methods.
func (f *fakeDemo) Act(a model.DemoAction) (model.DemoOutcome, error) { return a.Do(f) }

func (f *fakeDemo) RollingRestart() (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("RollingRestart")
	return len(f.consumers), nil
}

func (f *fakeDemo) Poison() (model.DemoPoisonOrder, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.record("Poison")
	f.poisoned = !f.poisoned
	return model.DemoPoisonOrder{OrderID: "poison-000001", Partition: model.TopicPartition{Topic: "orders", Partition: 1}, Offset: 41}, f.poisoned, nil
}

func (f *fakeDemo) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

var testDemoSettings = DemoSettings{
	SessionTimeout: 10 * time.Second, MaxPollInterval: 30 * time.Second, Commit: "after",
	ProcessTime: 100 * time.Millisecond, SlowProcessTime: 2 * time.Second,
}

// newFakeDemo has consumer-a and consumer-b running, as the members of
// stableSnapshot.
func newFakeDemo() *fakeDemo {
	s := stableSnapshot()
	return &fakeDemo{
		rate: 5,
		consumers: []model.DemoConsumer{
			{ClientID: "consumer-a", MemberID: s.Members[0].MemberID, State: model.DemoRunning},
			{ClientID: "consumer-b", MemberID: s.Members[1].MemberID, State: model.DemoRunning},
		},
		ledger: model.Ledger{Produced: 1234, Processed: 1230, InFlight: 4},
	}
}

// demoApp builds an app in demo mode on src and fd, sized w×h, and runs
// its first poll and first demo read (the commands Init batches; the
// ticks that follow are left to the test).
func demoApp(t testing.TB, src Source, fd *fakeDemo, clk *clock, w, h int) *App {
	t.Helper()
	a := New(Watch{Group: "order-workers", Source: src, Demo: fd, DemoSettings: testDemoSettings}, Options{
		Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now,
	})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	runImmediate(t, a, a.Init())
	if !a.group.demo.has || !a.group.st.HasSnap {
		t.Fatalf("after Init: demo status %v, snapshot %v; want both", a.group.demo.has, a.group.st.HasSnap)
	}
	return a
}

// runImmediate runs cmd, which must not be a timer, and hands its
// message(s) to the app; the app's follow-up commands (ticks) are dropped.
func runImmediate(t testing.TB, a *App, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("expected a command, got nil")
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if c != nil {
				runImmediate(t, a, c)
			}
		}
		return
	}
	a.Update(msg)
}

// press sends key k; a demo action's command is run and its result
// handed back, as the program would. It returns the command the action's
// result produced (an immediate poll and the next demo refresh).
func press(t testing.TB, a *App, k string) tea.Cmd {
	t.Helper()
	_, cmd := a.Update(keyPress(k))
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if _, ok := msg.(demoActionMsg); !ok {
		return nil
	}
	_, next := a.Update(msg)
	return next
}

// focusMembers tabs to the members pane.
func focusMembers(t testing.TB, a *App) {
	t.Helper()
	for range numPanes {
		if a.group.focus == paneMembers {
			return
		}
		a.Update(keyPress("tab"))
	}
	t.Fatal("tab never reached the members pane")
}

func TestDemoKeysInertOutsideDemoMode(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	a := testApp(t, src, clk, 120, 40)
	focusMembers(t, a)
	before := plain(a)
	for _, k := range []string{"n", "x", "X", "s", "p", "[", "]", "h"} {
		_, cmd := a.Update(keyPress(k))
		if cmd != nil {
			if msg := cmd(); msg != nil {
				t.Errorf("key %q outside demo mode produced %T", k, msg)
			}
		}
	}
	if after := plain(a); after != before {
		t.Errorf("demo keys changed the screen outside demo mode:\n%s", after)
	}
	a.Update(keyPress("?"))
	help := plain(a)
	for _, w := range []string{"add consumer", "kill -9", "hot key", "Ledger"} {
		if strings.Contains(help, w) {
			t.Errorf("outside demo mode the screen offers %q:\n%s", w, help)
		}
	}

	// In demo mode the same help does offer them, so the check can fail.
	d := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, newFakeDemo(), clk, 120, 40)
	d.Update(keyPress("?"))
	help = plain(d)
	for _, w := range []string{"add consumer", "kill -9", "hot key", "Ledger"} {
		if !strings.Contains(help, w) {
			t.Errorf("demo mode screen lacks %q:\n%s", w, help)
		}
	}
}

func TestDemoKeysCallTheDemo(t *testing.T) {
	tests := []struct {
		keys  []string // after focusing the members pane on consumer-a
		call  string
		flash string
	}{
		{[]string{"n"}, "Spawn", "consumer-c started"},
		{[]string{"x"}, "Stop consumer-a", "consumer-a stopping gracefully"},
		{[]string{"j", "X"}, "Kill consumer-b", "consumer-b killed: no LeaveGroup, the group waits 10s"},
		{[]string{"j", "s"}, "ToggleSlow consumer-b", "consumer-b slow: 2s per order"},
		{[]string{"p"}, "TogglePause", "producer paused"},
		{[]string{"["}, "SetRate 2", "producer rate 2/s"},
		{[]string{"]"}, "SetRate 10", "producer rate 10/s"},
		{[]string{"h"}, "ToggleHotKey", "hot key on"},
	}
	for _, tt := range tests {
		t.Run(tt.call, func(t *testing.T) {
			clk := testutil.NewClock(t0)
			src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
			fd := newFakeDemo()
			a := demoApp(t, src, fd, clk, 120, 40)
			focusMembers(t, a)
			polls := src.Calls()
			var next tea.Cmd
			for _, k := range tt.keys {
				next = press(t, a, k)
			}
			if calls := fd.Calls(); len(calls) != 1 || calls[0] != tt.call {
				t.Fatalf("demo calls %q, want [%q]", calls, tt.call)
			}
			if !strings.Contains(plain(a), tt.flash) {
				t.Errorf("screen lacks the feedback %q:\n%s", tt.flash, plain(a))
			}
			// The action polls the group at once.
			if next == nil {
				t.Fatal("action result gave no command, want an immediate poll")
			}
			runImmediate(t, a, firstOf(next))
			if src.Calls() != polls+1 {
				t.Errorf("polls after the action: %d, want %d (one immediate poll)", src.Calls(), polls+1)
			}
		})
	}
}

// firstOf returns the first command of a batch (the immediate poll of a
// demo action's result), or cmd itself.
func firstOf(cmd tea.Cmd) tea.Cmd {
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok && len(b) > 0 {
		return b[0]
	}
	return func() tea.Msg { return msg }
}

func TestDemoRefusesOutsideMembers(t *testing.T) {
	snap := stableSnapshot()
	snap.Members = append(snap.Members, model.Member{MemberID: "rdkafka-77c0ffee", ClientID: "rdkafka", Host: "/127.0.0.1"})
	clk := testutil.NewClock(t0)
	fd := newFakeDemo()
	a := demoApp(t, &fakeSource{results: []pollResult{{snap: snap}}}, fd, clk, 120, 40)

	// The table focused, the keys name the owner of the selected row
	// before they act on it; an unowned row says how to pick one.
	if !strings.Contains(plain(a), "X kills consumer-b (owns order-rebalancing/p2)") {
		t.Errorf("the hint does not name the selected row's owner:\n%s", plain(a))
	}
	for {
		if p, _ := a.group.table.Selected(); !p.Owned() {
			break
		}
		a.Update(keyPress("j"))
	}
	press(t, a, "X")
	if !strings.Contains(plain(a), "payments/p3 has no owner: pick an owned partition") {
		t.Errorf("X on an unowned row did not explain:\n%s", plain(a))
	}
	focusMembers(t, a)
	for {
		if mb, _ := a.group.members.Selected(); mb.ClientID == "rdkafka" {
			break
		}
		a.Update(keyPress("j"))
	}
	if !strings.Contains(plain(a), "◇ outside · watch only") {
		t.Errorf("outside member not marked:\n%s", plain(a))
	}
	for _, k := range []struct{ key, verb string }{{"x", "stops"}, {"X", "kills"}, {"s", "slows down"}, {"r", "restarts"}} {
		press(t, a, k.key)
		want := "rdkafka is not a demo consumer: kgwatch only " + k.verb + " the consumers it started"
		if !strings.Contains(plain(a), want) {
			t.Errorf("%s on an outside member: screen lacks %q:\n%s", k.key, want, plain(a))
		}
	}
	if calls := fd.Calls(); len(calls) != 0 {
		t.Errorf("outside member keys called the demo: %q", calls)
	}
}

func TestDemoMemberNotes(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	fd := newFakeDemo()
	a := demoApp(t, src, fd, clk, 120, 40)

	fd.mu.Lock()
	fd.consumers[0].Slow = true
	fd.consumers[1].State, fd.consumers[1].KilledAt = model.DemoKilled, t0.Add(time.Second)
	fd.consumers = append(fd.consumers, model.DemoConsumer{ClientID: "consumer-c", State: model.DemoRunning})
	fd.mu.Unlock()
	refresh := func() {
		a.Update(demoStatusMsg{p: a.group.demo, Seq: a.group.demo.seq, Status: fd.Status(true)})
	}
	clk.Set(t0.Add(3700 * time.Millisecond))
	refresh()
	out := plain(a)
	for _, w := range []string{
		"consumer-a", "◷ slow",
		"killed · evicted in 7.3s",
		"consumer-c", "◌ joining",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("screen lacks %q:\n%s", w, out)
		}
	}
	if !a.group.demo.countingDown() {
		t.Error("a killed member does not speed up the demo refresh")
	}
	clk.Set(t0.Add(5 * time.Second))
	a.Update(staleTick(a)) // a stale tick: only the clock moves
	if out := plain(a); !strings.Contains(out, "evicted in 6.0s") {
		t.Errorf("countdown did not follow the clock:\n%s", out)
	}

	// The coordinator drops consumer-b; the next poll no longer lists it,
	// but the screen keeps it, with how long the eviction took.
	fd.mu.Lock()
	fd.consumers[1].State, fd.consumers[1].MemberID = model.DemoEvicted, ""
	fd.consumers[1].EvictedAt = t0.Add(11 * time.Second)
	fd.mu.Unlock()
	gone := stableSnapshot()
	gone.Members = gone.Members[:1]
	src.mu.Lock()
	src.results = []pollResult{{snap: gone}}
	src.mu.Unlock()
	clk.Set(t0.Add(12 * time.Second))
	refresh()
	pollNow(t, a)
	out = plain(a)
	if !strings.Contains(out, "✗ evicted after 10.0s") {
		t.Errorf("screen lacks the eviction time:\n%s", out)
	}
	clk.Set(t0.Add(11*time.Second + ghostFor))
	refresh()
	if out := plain(a); strings.Contains(out, "evicted after") {
		t.Errorf("evicted member still listed a minute later:\n%s", out)
	}
}

func TestDemoMemberSelectionFollowsJoiningConsumer(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	fd := newFakeDemo()
	a := demoApp(t, src, fd, clk, 120, 40)
	focusMembers(t, a)
	press(t, a, "n")
	a.Update(keyPress("j"))
	a.Update(keyPress("j"))
	if mb, _ := a.group.members.Selected(); mb.ClientID != "consumer-c" {
		t.Fatalf("selected %q, want the joining consumer-c", mb.ClientID)
	}
	// consumer-c joins: the group lists it with a member id.
	joined := stableSnapshot()
	joined.Members = append(joined.Members, model.Member{MemberID: "consumer-c-0badf00d", ClientID: "consumer-c", Host: "/127.0.0.1"})
	src.mu.Lock()
	src.results = []pollResult{{snap: joined}}
	src.mu.Unlock()
	if a.group.poll.polling {
		a.Update(answerOf(a, a.group.poll.seq, joined))
	} else {
		pollNow(t, a)
	}
	if mb, _ := a.group.members.Selected(); mb.ClientID != "consumer-c" || mb.MemberID == "" {
		t.Fatalf("after joining, selected %+v, want consumer-c with its member id", mb)
	}
	press(t, a, "X")
	if calls := fd.Calls(); calls[len(calls)-1] != "Kill consumer-c" {
		t.Errorf("demo calls %q, want Kill consumer-c last", calls)
	}
}

func TestDemoActionErrorIsShown(t *testing.T) {
	clk := testutil.NewClock(t0)
	fd := newFakeDemo()
	fd.consumers[0].State = model.DemoKilled
	fd.consumers[0].KilledAt = t0
	a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, 120, 40)
	focusMembers(t, a)
	press(t, a, "x")
	if out := plain(a); !strings.Contains(out, `! stop consumer "consumer-a": it is killed`) {
		t.Errorf("screen lacks the refusal:\n%s", out)
	}
	// The message goes after flashFor.
	clk.Set(t0.Add(flashFor + time.Second))
	a.Update(staleTick(a))
	if out := plain(a); strings.Contains(out, "it is killed") {
		t.Errorf("flash still shown after %s:\n%s", flashFor, out)
	}
}

func TestStepRate(t *testing.T) {
	tests := []struct {
		r        float64
		up, down float64
	}{
		{0, 0.5, 0}, {5, 10, 2}, {3, 5, 2}, {1000, 1000, 500}, {5000, 5000, 1000},
	}
	for _, tt := range tests {
		if got := stepRate(tt.r, true); got != tt.up {
			t.Errorf("stepRate(%g, up) = %g, want %g", tt.r, got, tt.up)
		}
		if got := stepRate(tt.r, false); got != tt.down {
			t.Errorf("stepRate(%g, down) = %g, want %g", tt.r, got, tt.down)
		}
	}
}

// TestDemoGolden pins the demo screen: the ledger pane with duplicates and
// a commit failure, the producer with the hot key on, a killed member
// counting down, a slow one and one joining.
func TestDemoGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			clk := testutil.NewClock(t0)
			fd := newFakeDemo()
			fd.hot = true
			fd.ledger = model.Ledger{Produced: 1234, Processed: 1226, Duplicates: 3, CommitFailures: 1, InFlight: 8}
			fd.consumers[0].Slow = true
			fd.consumers[1].State, fd.consumers[1].KilledAt = model.DemoKilled, t0.Add(-2700*time.Millisecond)
			fd.consumers = append(fd.consumers, model.DemoConsumer{ClientID: "consumer-c", State: model.DemoRunning})
			a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, sz[0], sz[1])
			a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			out := plain(a)
			checkFits(t, out, sz[0], sz[1])
			if sz[1] >= 24 && !strings.Contains(out, "Ledger") {
				t.Errorf("no ledger at %dx%d:\n%s", sz[0], sz[1], out)
			}
			golden.RequireEqual(t, out)
		})
	}
}

func TestLedgerPaneLines(t *testing.T) {
	p := NewLedgerPane(NewStyles(true))
	st := model.DemoStatus{Ledger: model.Ledger{Produced: 10, Processed: 7, Lost: 2, InFlight: 1}, HasLedger: true, Rate: 5}
	p.SetState(st, true, DemoSettings{Commit: "before", CommitDelay: 2 * time.Second}, "", false, "pick a member")
	p.SetSize(120, 3)
	out := p.View()
	for _, w := range []string{"✗ lost 2", "commit before processing (at-most-once) · commit delay 2s", "▶ producer 5/s"} {
		if !strings.Contains(out, w) {
			t.Errorf("ledger lacks %q:\n%s", w, out)
		}
	}
	// One line: the counts, or the message while it shows.
	p.SetSize(40, 1)
	if out := p.View(); strings.Count(out, "\n") != 0 || !strings.Contains(out, "lost 2") {
		t.Errorf("one-line ledger = %q", out)
	}
	p.SetState(st, true, DemoSettings{}, "consumer-c started", false, "")
	if out := p.View(); !strings.Contains(out, "consumer-c started") {
		t.Errorf("one-line ledger with a message = %q", out)
	}
	p.SetState(st, true, DemoSettings{}, "boom", true, "")
	if out := p.View(); !strings.Contains(out, "! boom") {
		t.Errorf("error message = %q", out)
	}
}

func TestDemoKilledBeforeJoining(t *testing.T) {
	clk := testutil.NewClock(t0)
	fd := newFakeDemo()
	fd.consumers = append(fd.consumers, model.DemoConsumer{ClientID: "consumer-c", State: model.DemoEvicted, KilledAt: t0, EvictedAt: t0})
	a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, 120, 40)
	out := plain(a)
	if !strings.Contains(out, "consumer-c") || !strings.Contains(out, "✗ killed before it joined") || strings.Contains(out, "evicted after 0.0s") {
		t.Errorf("a consumer killed before it joined:\n%s", out)
	}
	if !strings.Contains(out, "Members 2  +1 not in the group") {
		t.Errorf("members count includes the consumer the group does not list:\n%s", out)
	}
}

func TestDemoNoColorKeepsMeaning(t *testing.T) {
	clk := testutil.NewClock(t0)
	fd := newFakeDemo()
	fd.ledger = model.Ledger{Produced: 10, Processed: 6, Duplicates: 1, Lost: 2, CommitFailures: 1, InFlight: 2}
	fd.consumers[0].Slow = true
	fd.consumers[1].State, fd.consumers[1].KilledAt = model.DemoKilled, t0
	fd.paused = true
	build := func(noColor bool) string {
		a := New(Watch{Group: "order-workers", Source: &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, Demo: fd, DemoSettings: testDemoSettings},
			Options{Brokers: testBrokers, Interval: time.Second, Now: clk.Now, NoColor: noColor})
		a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		runImmediate(t, a, a.Init())
		return a.View().Content
	}
	out := build(true)
	if loc := colourSGR.FindStringIndex(out); loc != nil {
		t.Errorf("NO_COLOR demo view has a colour sequence %q", out[loc[0]:loc[1]])
	}
	for _, w := range []string{"⚠ duplicates 1", "✗ lost 2", "⚠ commit failures 1", "‖ producer paused", "◷ slow", "✗ killed · evicted in 10.0s"} {
		if !strings.Contains(out, w) {
			t.Errorf("NO_COLOR demo view lacks %q:\n%s", w, out)
		}
	}
	if !colourSGR.MatchString(build(false)) {
		t.Error("colour demo view has no colour sequence")
	}
}

// With --commit-delay the member's row shows the commit window a kill can
// be timed into, counting down: processed and waiting to commit (a kill
// now: processed twice), or committed and processing (a kill now: lost).
func TestDemoCommitWindowCountdown(t *testing.T) {
	clk := testutil.NewClock(t0)
	fd := newFakeDemo()
	fd.consumers[0].PendingOrder, fd.consumers[0].PendingPhase = "order-000009", model.DemoPhaseProcessed
	fd.consumers[0].PendingUntil = t0.Add(1400 * time.Millisecond)
	fd.consumers[1].PendingOrder, fd.consumers[1].PendingPhase = "order-000010", model.DemoPhaseCommitted
	fd.consumers[1].PendingUntil = t0.Add(2 * time.Second)
	a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, 120, 40)
	out := plain(a)
	for _, want := range []string{"⧗ order-000009 processed, commit in 1.4s", "⧗ order-000010 committed, processing 2.0s"} {
		if !strings.Contains(out, want) {
			t.Errorf("members pane lacks %q:\n%s", want, out)
		}
	}
	if !a.group.demo.countingDown() {
		t.Error("a commit window open does not refresh the countdown fast")
	}
	clk.Set(t0.Add(time.Second))
	a.Update(staleTick(a))
	if out := plain(a); !strings.Contains(out, "commit in 0.4s") {
		t.Errorf("the countdown did not move:\n%s", out)
	}
	clk.Set(t0.Add(3 * time.Second))
	a.Update(staleTick(a))
	if out := plain(a); strings.Contains(out, "⧗") {
		t.Errorf("the window closed but is still shown:\n%s", out)
	}
}

// After x the member leaves the group and only the demo still lists it,
// for a minute: the cursor moves to a member still in the group, so the
// next x, X or s acts on a live one.
func TestCursorLeavesAStoppedMember(t *testing.T) {
	clk := testutil.NewClock(t0)
	left := stableSnapshot()
	left.Members = left.Members[:1] // consumer-b gone
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}, {snap: left}}}
	fd := newFakeDemo()
	a := demoApp(t, src, fd, clk, 120, 40)
	focusMembers(t, a)
	a.Update(keyPress("j")) // consumer-b
	if mb, _ := a.group.members.Selected(); mb.ClientID != "consumer-b" {
		t.Fatalf("selected %q, want consumer-b", mb.ClientID)
	}
	next := press(t, a, "x")
	fd.mu.Lock()
	fd.consumers[1].State, fd.consumers[1].StoppedAt = model.DemoStopped, t0
	fd.mu.Unlock()
	clk.Set(t0.Add(time.Second))
	a.Update(demoStatusMsg{p: a.group.demo, Seq: a.group.demo.seq, Status: fd.Status(true)})
	runImmediate(t, a, firstOf(next)) // the poll the action asked for
	if out := plain(a); !strings.Contains(out, "stopped · left the group") {
		t.Fatalf("the stopped member is not listed as such:\n%s", out)
	}
	if mb, _ := a.group.members.Selected(); mb.ClientID != "consumer-a" || mb.MemberID == "" {
		t.Errorf("cursor on %q (member id %q) after x, want consumer-a, in the group", mb.ClientID, mb.MemberID)
	}
}

// At 40×10 the members pane gives up every other column before it cuts
// the kill's countdown: "evicted in 7.3s", never "evicted in 9.".
func TestCountdownNeverCut(t *testing.T) {
	for _, sz := range [][2]int{{40, 10}, {80, 24}} {
		clk := testutil.NewClock(t0)
		fd := newFakeDemo()
		fd.consumers[1].State, fd.consumers[1].KilledAt = model.DemoKilled, t0.Add(-2700*time.Millisecond)
		a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, sz[0], sz[1])
		focusMembers(t, a)
		out := plain(a)
		checkFits(t, out, sz[0], sz[1])
		if !strings.Contains(out, "evicted in 7.3s") {
			t.Errorf("%dx%d: the countdown is cut:\n%s", sz[0], sz[1], out)
		}
	}
}

// The keys line offers only what the selected consumer can do: one
// killed, evicted or stopped can only be restarted (X and x would be
// refused), one stopping can still be killed.
func TestDemoHintFollowsTheConsumersState(t *testing.T) {
	for _, c := range []struct{ state, want, not string }{
		{model.DemoRunning, "X kills consumer-b (owns order-rebalancing/p2) · x stops it (LeaveGroup) · r restarts it", ""},
		{model.DemoKilled, "consumer-b is killed · r restarts it", "X kills"},
		{model.DemoEvicted, "consumer-b was evicted · r restarts it", "X kills"},
		{model.DemoStopped, "consumer-b stopped · r restarts it", "X kills"},
		{model.DemoStopping, "consumer-b is stopping · X kills it now", "x stops"},
		{model.DemoRestarting, "consumer-b is restarting: it joins again in a moment", "X kills"},
	} {
		clk := testutil.NewClock(t0)
		fd := newFakeDemo()
		fd.consumers[1].State = c.state
		a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, 160, 40)
		out := plain(a)
		if !strings.Contains(out, c.want) {
			t.Errorf("%s: the keys line lacks %q:\n%s", c.state, c.want, out)
		}
		if c.not != "" && strings.Contains(out, c.not) {
			t.Errorf("%s: the keys line still offers %q:\n%s", c.state, c.not, out)
		}
	}
}

// A filter that hides every partition leaves none selected; the keys line
// says so, and how to show them, not that the group owns none.
func TestDemoHintWhenTheViewHidesEveryPartition(t *testing.T) {
	clk := testutil.NewClock(t0)
	fd := newFakeDemo()
	a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, 160, 40)
	typeKeys(a, "/", "nosuchtopic", "enter")
	press(t, a, "X")
	out := plain(a)
	if !strings.Contains(out, "no partition shown: the view hides them all (esc clears a filter, l shows all)") || strings.Contains(out, "owns none") {
		t.Errorf("X with every partition filtered out:\n%s", out)
	}
	if calls := fd.Calls(); len(calls) != 0 {
		t.Errorf("demo calls %q, want none", calls)
	}
}

// r on a consumer already out of the group (evicted, stopped) says it
// joins, one rebalance; on one running, that it leaves and joins again.
func TestDemoRestartSaysWhatHappens(t *testing.T) {
	for _, c := range []struct{ state, want string }{
		{model.DemoRunning, "consumer-b restarting: it leaves and joins again, two rebalances"},
		{model.DemoEvicted, "consumer-b starting again: it joins the group, one rebalance"},
		{model.DemoStopped, "consumer-b starting again: it joins the group, one rebalance"},
	} {
		clk := testutil.NewClock(t0)
		fd := newFakeDemo()
		fd.consumers[1].State = c.state
		a := demoApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, fd, clk, 160, 40)
		press(t, a, "r")
		if out := plain(a); !strings.Contains(out, c.want) {
			t.Errorf("%s: r does not say %q:\n%s", c.state, c.want, out)
		}
	}
}
