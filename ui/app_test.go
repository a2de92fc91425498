package ui

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

var sizes = [][2]int{{120, 40}, {80, 24}, {40, 10}}

// states are the screens the golden files pin down. Each builds an app
// whose clock stands 1.5s after its last poll.
var states = []struct {
	name  string
	polls []pollResult
}{
	{"stable", []pollResult{{snap: stableSnapshot()}}},
	{"empty", []pollResult{{snap: emptySnapshot()}}},
	{"rebalancing", []pollResult{{snap: rebalancingSnapshot()}}},
	{"reconciling", []pollResult{{snap: reconcilingSnapshot()}}},
	{"waiting", []pollResult{{snap: deadSnapshot()}}},
	{"stale", []pollResult{{snap: stableSnapshot()}, {err: errors.New("describe group \"order-workers\": dial tcp 127.0.0.1:29092: connect: connection refused")}}},
}

// buildState runs the scripted polls and leaves the clock 1.5s later.
func buildState(t testing.TB, polls []pollResult, w, h int) (*App, *fakeSource) {
	t.Helper()
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: polls}
	a := testApp(t, src, clk, w, h)
	for i := 1; i < len(polls); i++ {
		clk.Set(t0.Add(time.Duration(i) * time.Second))
		pollNow(t, a)
	}
	clk.Set(clk.Now().Add(1500 * time.Millisecond))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, src
}

// pollNow delivers the current loop's due tick and the poll it starts.
func pollNow(t testing.TB, a *App) tea.Cmd {
	t.Helper()
	_, cmd := a.Update(tickOf(a, a.group.poll.seq, 0))
	return feed(t, a, cmd)
}

func TestGolden(t *testing.T) {
	for _, st := range states {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", st.name, sz[0], sz[1]), func(t *testing.T) {
				a, _ := buildState(t, st.polls, sz[0], sz[1])
				out := plain(a)
				checkFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, out)
			})
		}
	}
}

// checkFits fails when a frame is wider or taller than the terminal.
func checkFits(t *testing.T, out string, w, h int) {
	t.Helper()
	if out == "" {
		return
	}
	lines := strings.Split(out, "\n")
	if len(lines) > h {
		t.Errorf("%dx%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			t.Errorf("%dx%d: line %d is %d cells wide: %q", w, h, i, lw, l)
		}
	}
}

func TestPlaceholderBeforeWindowSize(t *testing.T) {
	clk := testutil.NewClock(t0)
	a := New(Watch{Group: "g", Source: &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}}, Options{Now: clk.Now})
	if got := a.View().Content; !strings.Contains(got, "starting") {
		t.Fatalf("view before WindowSizeMsg = %q, want a placeholder", got)
	}
	feed(t, a, a.Init())
	if got := a.View().Content; !strings.Contains(got, "starting") {
		t.Fatalf("view before WindowSizeMsg = %q, want a placeholder", got)
	}
}

var colourSGR = regexp.MustCompile(`\x1b\[[0-9;]*(3[0-9]|9[0-7]|4[0-9]|10[0-7])(;[0-9;]*)?m`)

func TestNoColorKeepsMeaning(t *testing.T) {
	words := map[string][]string{
		"stable":      {"● Stable", "█", "░", "◀", "◀ worst", "✓ OK", "? UNOWNED", "worst: payments/3"},
		"empty":       {"○ has no active members", "█", "◀", "no active members"},
		"rebalancing": {"◐ preparing rebalance: waiting for members to rejoin", "█", "◀"},
		"waiting":     {"waiting: group does not exist", "waiting for group order-workers"},
		"stale":       {"⚠ poll failed", "⚠ stale", "█", "◀"},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			clk := testutil.NewClock(t0)
			src := &fakeSource{results: st.polls}
			a := New(Watch{Group: "order-workers", Source: src}, Options{Brokers: testBrokers, Interval: time.Second, NoColor: true, Now: clk.Now})
			a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			feed(t, a, a.Init())
			for range len(st.polls) - 1 {
				pollNow(t, a)
			}
			out := a.View().Content
			if loc := colourSGR.FindStringIndex(out); loc != nil {
				t.Errorf("NO_COLOR view has a colour sequence %q", out[loc[0]:loc[1]])
			}
			for _, w := range words[st.name] {
				if !strings.Contains(out, w) {
					t.Errorf("NO_COLOR view lacks %q:\n%s", w, out)
				}
			}

			// The same screen in colour does carry colour, so the check
			// above can fail.
			c := New(Watch{Group: "order-workers", Source: &fakeSource{results: st.polls}}, Options{Brokers: testBrokers, Now: clk.Now})
			c.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			feed(t, c, c.Init())
			if !colourSGR.MatchString(c.View().Content) {
				t.Errorf("colour view has no colour sequence")
			}
		})
	}
	if mono, colour := ProgramOptions(Options{NoColor: true}), ProgramOptions(Options{}); len(mono) != len(colour)+1 {
		t.Errorf("ProgramOptions(NoColor) = %d options, %d without: want a colour profile more", len(mono), len(colour))
	}
}

func TestResizeNeverPanics(t *testing.T) {
	seq := [][2]int{{0, 0}, {1, 1}, {200, 5}, {10, 3}, {2, 50}, {40, 10}, {0, 40}, {120, 0}, {80, 24}, {3, 3}, {500, 200}, {7, 9}, {120, 40}}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			a, _ := buildState(t, st.polls, 0, 0)
			for _, sz := range seq {
				a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
				checkFits(t, plain(a), sz[0], sz[1])
				for _, k := range []string{"j", "G", "tab", "pgdown", "?", "k", "g", "tab", "?"} {
					a.Update(keyPress(k))
					checkFits(t, plain(a), sz[0], sz[1])
				}
			}
		})
	}
}

// namedKeys are the key messages of the keys keyPress knows by name.
var namedKeys = map[string]tea.KeyPressMsg{
	"tab":    {Code: tea.KeyTab},
	"up":     {Code: tea.KeyUp},
	"down":   {Code: tea.KeyDown},
	"pgdown": {Code: tea.KeyPgDown},
	"pgup":   {Code: tea.KeyPgUp},
	"home":   {Code: tea.KeyHome},
	"end":    {Code: tea.KeyEnd},
	"ctrl+c": {Code: 'c', Mod: tea.ModCtrl},
}

// keyPress builds the key message a terminal sends for k: a named key, or
// else the text k typed.
func keyPress(k string) tea.KeyPressMsg {
	if m, ok := namedKeys[k]; ok {
		return m
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func TestWideRunesKeepColumnsAligned(t *testing.T) {
	s := stableSnapshot()
	s.Members[0].ClientID = "消費者-甲"
	s.Members[1].ClientID = "worker-🚀-b"
	for i := range s.Partitions {
		switch s.Partitions[i].ClientID {
		case "consumer-a":
			s.Partitions[i].ClientID = s.Members[0].ClientID
		case "consumer-b":
			s.Partitions[i].ClientID = s.Members[1].ClientID
		}
	}
	s.Partitions[0].Topic = "注文-再均衡"
	for _, sz := range append(sizes, [2]int{60, 20}, [2]int{23, 12}) {
		a, _ := buildState(t, []pollResult{{snap: s}}, sz[0], sz[1])
		out := plain(a)
		checkFits(t, out, sz[0], sz[1])
		// Every partition row ends its LAG column at the same cell.
		var ends []int
		for _, l := range strings.Split(out, "\n") {
			if !strings.ContainsAny(l, "█░▒") {
				continue
			}
			i := strings.IndexAny(l, "█░▒")
			ends = append(ends, lipgloss.Width(l[:i]))
		}
		if len(ends) == 0 && sz[0] > 40 { // at 40 columns lag age takes the bar's place
			t.Fatalf("%dx%d: no bar rows:\n%s", sz[0], sz[1], out)
		}
		for _, e := range ends {
			if e != ends[0] {
				t.Fatalf("%dx%d: bars start at cells %v, want one column:\n%s", sz[0], sz[1], ends, out)
			}
		}
		if sz[0] >= 80 && !strings.Contains(out, "消費者-甲") {
			t.Errorf("%dx%d: wide client id missing:\n%s", sz[0], sz[1], out)
		}
	}
}

func TestFailedPollKeepsLastDataMarkedStale(t *testing.T) {
	clk := testutil.NewClock(t0)
	refused := errors.New("describe group \"order-workers\": dial tcp 127.0.0.1:29092: connect: connection refused")
	src := &fakeSource{results: []pollResult{
		{snap: stableSnapshot()}, {err: refused}, {err: refused}, {snap: stableSnapshot()},
	}}
	a := testApp(t, src, clk, 120, 40)
	if out := plain(a); strings.Contains(out, "poll failed") {
		t.Fatalf("banner before any failure:\n%s", out)
	}

	clk.Set(t0.Add(time.Second))
	next := pollNow(t, a)
	if next == nil {
		t.Fatal("no retry scheduled after a failed poll")
	}
	if got := a.group.st.RetryAt.Sub(clk.Now()); got != time.Second {
		t.Errorf("first retry in %v, want 1s", got)
	}
	clk.Set(t0.Add(3 * time.Second))
	a.Update(tickOf(a, a.group.poll.seq, time.Second)) // a clock step, not yet the poll
	out := plain(a)
	for _, want := range []string{
		"⚠ poll failed, retrying: describe group \"order-workers\": dial tcp 127.0.0.1:29092: connect: connection refused",
		"⚠ stale 3.0s", "consumer-a", "order-rebalancing", "◀",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stale view lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "poll failed"); n != 1 {
		t.Errorf("banner appears %d times, want once", n)
	}

	pollNow(t, a) // second failure: the backoff is capped at the interval (1s)
	if got := a.group.st.RetryAt.Sub(clk.Now()); got != time.Second {
		t.Errorf("second retry in %v, want 1s", got)
	}
	if out := plain(a); !strings.Contains(out, "⚠ poll failed, retry in 1.0s (attempt 3): describe group") {
		t.Errorf("banner lacks the attempt count:\n%s", out)
	}

	clk.Set(t0.Add(6 * time.Second))
	pollNow(t, a) // recovers by itself
	out = plain(a)
	if strings.Contains(out, "poll failed") || strings.Contains(out, "stale") {
		t.Errorf("banner still shown after recovery:\n%s", out)
	}
	if !strings.Contains(out, "updated 0.0s ago") {
		t.Errorf("age not reset after recovery:\n%s", out)
	}
	if src.Calls() != 4 {
		t.Errorf("source polled %d times, want 4", src.Calls())
	}
}

func TestStaleTicksAndResultsAreDropped(t *testing.T) {
	clk := testutil.NewClock(t0)
	stable, empty := stableSnapshot(), emptySnapshot()
	src := &fakeSource{results: []pollResult{{snap: stable}, {snap: empty}}}
	a := testApp(t, src, clk, 120, 40)
	first := a.group.poll.seq

	// The first poll's loop has moved on: its tick and its result are stale.
	if _, cmd := a.Update(tickOf(a, first-1, 0)); cmd != nil {
		t.Fatal("stale tick started a poll")
	}
	if _, cmd := a.Update(answerOf(a, first-1, empty)); cmd != nil {
		t.Fatal("stale poll result scheduled a tick")
	}
	if a.group.st.Snap.Group.State != model.StateStable {
		t.Fatalf("stale result replaced the data: state %q", a.group.st.Snap.Group.State)
	}

	// The current tick starts exactly one poll; a duplicate tick while it is
	// in flight starts none.
	_, cmd := a.Update(tickOf(a, a.group.poll.seq, 0))
	if cmd == nil {
		t.Fatal("current tick started no poll")
	}
	if _, dup := a.Update(tickOf(a, a.group.poll.seq, 0)); dup != nil {
		t.Fatal("second tick while polling started another poll")
	}
	next := feed(t, a, cmd)
	if src.Calls() != 2 {
		t.Fatalf("source polled %d times, want 2", src.Calls())
	}
	if a.group.st.Snap.Group.State != model.StateEmpty {
		t.Fatalf("current result not taken: state %q", a.group.st.Snap.Group.State)
	}
	if next == nil {
		t.Fatal("no tick scheduled after the poll")
	}
	// A tick with time remaining steps the clock without polling.
	_, step := a.Update(tickOf(a, a.group.poll.seq, time.Millisecond))
	if step == nil {
		t.Fatal("a clock step ended the loop")
	}
	if msg := step(); msg != (tickOf(a, a.group.poll.seq, 0)) {
		t.Fatalf("clock step produced %#v, want the due tick", msg)
	}
	if src.Calls() != 2 {
		t.Fatalf("clock step polled: %d calls", src.Calls())
	}
}

func TestWaitingForGroupKeepsPolling(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: deadSnapshot()}, {snap: deadSnapshot()}, {snap: stableSnapshot()}}}
	a := testApp(t, src, clk, 80, 24)
	if out := plain(a); !strings.Contains(out, "waiting for group order-workers") {
		t.Fatalf("no waiting message:\n%s", out)
	}
	pollNow(t, a)
	if !strings.Contains(plain(a), "waiting for group") {
		t.Fatal("waiting message gone while the group is still missing")
	}
	pollNow(t, a)
	out := plain(a)
	if strings.Contains(out, "waiting") || !strings.Contains(out, "consumer-a") {
		t.Fatalf("group appeared but the view did not follow:\n%s", out)
	}
}

func TestKeys(t *testing.T) {
	a, _ := buildState(t, []pollResult{{snap: stableSnapshot()}}, 120, 40)
	a.Update(keyPress("o")) // sort by lag age
	a.Update(keyPress("o")) // sort by partition; the cursor follows its row
	a.Update(keyPress("home"))
	cursorRow := func() string {
		for _, l := range strings.Split(plain(a), "\n") {
			if strings.HasPrefix(l, glyphCursor) {
				return l
			}
		}
		return ""
	}
	if r := cursorRow(); !strings.Contains(r, "order-rebalancing         0") {
		t.Fatalf("cursor starts on %q", r)
	}
	a.Update(keyPress("j"))
	a.Update(keyPress("down"))
	if r := cursorRow(); !strings.Contains(r, "order-rebalancing         2") {
		t.Fatalf("after j, down: cursor on %q", r)
	}
	a.Update(keyPress("end"))
	if r := cursorRow(); !strings.Contains(r, "payments                  3") {
		t.Fatalf("after end: cursor on %q", r)
	}
	a.Update(keyPress("k"))
	a.Update(keyPress("home"))
	if r := cursorRow(); !strings.Contains(r, "order-rebalancing         0") {
		t.Fatalf("after home: cursor on %q", r)
	}

	a.Update(keyPress("tab"))
	out := plain(a)
	if !strings.Contains(out, "■ Members") || !strings.Contains(out, "□ Partitions") {
		t.Fatalf("tab did not move focus to members:\n%s", out)
	}
	a.Update(keyPress("j"))
	if r := cursorRow(); !strings.HasPrefix(r, glyphCursor+"consumer-b") {
		t.Fatalf("members cursor on %q", r)
	}
	if m, ok := a.group.members.Selected(); !ok || m.ClientID != "consumer-b" {
		t.Fatalf("selected member %+v", m)
	}
	a.Update(keyPress("tab"))
	if !strings.Contains(plain(a), "■ Timeline") {
		t.Fatal("tab did not move focus to the timeline")
	}
	a.Update(keyPress("tab"))
	if !strings.Contains(plain(a), "■ Partitions") {
		t.Fatal("tab did not cycle back to partitions")
	}

	a.Update(keyPress("?"))
	if out := plain(a); !strings.Contains(out, "page down") || !strings.Contains(out, "bottom") {
		t.Fatalf("? shows no full help:\n%s", out)
	}
	a.Update(keyPress("?"))
	if strings.Contains(plain(a), "page down") {
		t.Fatal("? did not close the full help")
	}

	for _, k := range []string{"q", "ctrl+c"} {
		b, _ := buildState(t, []pollResult{{snap: stableSnapshot()}}, 80, 24)
		_, cmd := b.Update(keyPress(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Fatalf("%s: command is not quit", k)
		}
		if b.ctx.Err() == nil {
			t.Fatalf("%s: polls not cancelled on quit", k)
		}
		if _, cmd := b.Update(pollTickMsg[polled]{p: b.group.poll, seq: b.group.poll.seq}); cmd != nil {
			t.Fatalf("%s: a tick after quit started a poll", k)
		}
	}
}

func TestTenThousandPartitionsScroll(t *testing.T) {
	a, _ := buildState(t, []pollResult{{snap: bigSnapshot(10000)}}, 120, 40)
	a.Update(keyPress("o"))
	a.Update(keyPress("o")) // sort by partition
	out := plain(a)
	checkFits(t, out, 120, 40)
	if !strings.Contains(out, "Partitions 10000") || !strings.Contains(out, "rows 1–") {
		t.Fatalf("big table title:\n%s", out)
	}
	a.Update(keyPress("end"))
	out = plain(a)
	if !strings.Contains(out, "–10000") || !strings.Contains(out, "events-2      3332") {
		t.Fatalf("end did not reach the last partition:\n%s", out)
	}
	a.Update(keyPress("pgup"))
	if p, ok := a.group.table.Selected(); !ok || p.Partition >= 3333 {
		t.Fatalf("pgup left the cursor on %+v", p)
	}
}

func BenchmarkView10k(b *testing.B) {
	a, _ := buildState(b, []pollResult{{snap: bigSnapshot(10000)}}, 120, 40)
	a.Update(keyPress("pgdown"))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = a.View()
	}
}

func TestUnreachableAtStartRecovers(t *testing.T) {
	clk := testutil.NewClock(t0)
	refused := errors.New("dial tcp 127.0.0.1:9092: connect: connection refused")
	src := &fakeSource{results: []pollResult{{err: refused}, {snap: stableSnapshot()}}}
	a := testApp(t, src, clk, 80, 24)
	out := plain(a)
	for _, want := range []string{"! not connected", "⚠ poll failed, retry in 1.0s: dial tcp 127.0.0.1:9092", "cannot reach 127.0.0.1:19092"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	clk.Set(t0.Add(time.Second))
	pollNow(t, a)
	if out := plain(a); strings.Contains(out, "poll failed") || !strings.Contains(out, "consumer-a") {
		t.Errorf("did not recover:\n%s", out)
	}
}

// BenchmarkPoll10k measures taking one 10,000-partition snapshot: new rows,
// members and layout.
func BenchmarkPoll10k(b *testing.B) {
	snap := bigSnapshot(10000)
	a, _ := buildState(b, []pollResult{{snap: snap}}, 120, 40)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a.group.poll.polling = true
		a.Update(answerOf(a, a.group.poll.seq, snap))
	}
}

func TestPollNowKeepsOneLoop(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}, {snap: emptySnapshot()}}}
	a := testApp(t, src, clk, 80, 24)
	pending := a.group.poll.seq // the tick chain scheduled after the first poll
	cmd := a.group.pollNow()
	if cmd == nil {
		t.Fatal("pollNow started no poll")
	}
	if again := a.group.pollNow(); again != nil {
		t.Fatal("pollNow while polling started a second poll")
	}
	if _, c := a.Update(tickOf(a, pending, 0)); c != nil {
		t.Fatal("the superseded tick chain still polls")
	}
	feed(t, a, cmd)
	if src.Calls() != 2 || a.group.st.Snap.Group.State != model.StateEmpty {
		t.Fatalf("calls %d, state %q", src.Calls(), a.group.st.Snap.Group.State)
	}
}

func TestBrokerList(t *testing.T) {
	b := []string{"kafka-1:9092", "kafka-2:9092", "kafka-3:9092", "kafka-4:9092"}
	tests := []struct {
		w    int
		want string
	}{
		{100, "kafka-1:9092,kafka-2:9092,kafka-3:9092,kafka-4:9092"},
		{40, "kafka-1:9092,kafka-2:9092 +2 more"},
		{30, "kafka-1:9092 +3 more"},
		{5, "kafka-1:9092 +3 more"},
	}
	for _, tt := range tests {
		if got := brokerList(b, tt.w); got != tt.want {
			t.Errorf("brokerList(w=%d) = %q, want %q", tt.w, got, tt.want)
		}
	}
}

func TestOverviewPollDelay(t *testing.T) {
	tests := []struct {
		base             time.Duration
		groups, failures int
		want             time.Duration
	}{
		{time.Second, 3, 0, time.Second},              // a small cluster polls at --interval
		{time.Second, 100, 0, time.Second},            // 100 OffsetFetch a second at most
		{time.Second, 1000, 0, 10 * time.Second},      // 1,000 groups: every 10s, not 1,000 requests a second
		{30 * time.Second, 1000, 0, 30 * time.Second}, // a slower --interval wins
		{time.Second, 1000, 2, 2 * time.Second},       // failures back off as everywhere
		{time.Second, 1000, 9, 10 * time.Second},      // … to the interval 1,000 groups allow
		{time.Second, 3, 9, time.Second},              // a small cluster is retried every second
	}
	for _, tt := range tests {
		// Commits read in one request per coordinator: --interval.
		if got := OverviewPollDelay(tt.base, tt.groups, tt.failures, 0, true); tt.failures == 0 && got != tt.base {
			t.Errorf("batched: OverviewPollDelay(%s, %d groups) = %s, want %s", tt.base, tt.groups, got, tt.base)
		}
		if got := OverviewPollDelay(tt.base, tt.groups, tt.failures, 0, false); got != tt.want {
			t.Errorf("OverviewPollDelay(%s, %d groups, %d failures) = %s, want %s", tt.base, tt.groups, tt.failures, got, tt.want)
		}
	}
}

// A consumer-protocol group reads like a classic one, with what the new
// protocol adds: the epochs and server assignor in the header, each
// member's epoch (and "4→5" while it reconciles), instance ids, the
// partitions it is reconciling to, a partition being handed over shown
// with its next owner; a share group's partition shared by two members.
func TestConsumerAndShareGroupsShown(t *testing.T) {
	const topic = "orders"
	obs := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group: model.Group{ID: "g848", State: model.StateReconciling, Type: model.TypeConsumer,
			Epoch: 5, AssignmentEpoch: 5, Assignor: "uniform", Coordinator: "127.0.0.1:29092"},
		Members: []model.Member{
			{MemberID: "aaaaaaaa-1", ClientID: "consumer-a", InstanceID: "consumer-a", Host: "/10.0.0.1", MemberEpoch: 5,
				Partitions: []model.TopicPartition{tp(topic, 0)}, TargetPartitions: []model.TopicPartition{tp(topic, 0)}},
			{MemberID: "cccccccc-3", ClientID: "consumer-c", Host: "/10.0.0.3", MemberEpoch: 4,
				TargetPartitions: []model.TopicPartition{tp(topic, 1)}},
		},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{tp(topic, 0): 10, tp(topic, 1): 20},
		Offsets: map[model.TopicPartition]model.PartitionOffsets{
			tp(topic, 0): {LogStart: 0, LogEnd: 10}, tp(topic, 1): {LogStart: 0, LogEnd: 25},
		},
	})
	a, _ := buildState(t, []pollResult{{snap: model.NewSnapshot(obs)}}, 120, 40)
	focusMembers(t, a)
	out := plain(a)
	for _, want := range []string{
		"consumer protocol (KIP-848)", "epoch 5", "server assignor uniform",
		"INSTANCE-ID", "EPOCH", "4→5", "⇄ reconciling to p1",
		"→ consumer-c", "→ being handed to",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("consumer group view lacks %q:\n%s", want, out)
		}
	}

	share := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group:   model.Group{ID: "gshare", State: model.StateStable, Type: model.TypeShare, Epoch: 3},
		Members: []model.Member{
			{MemberID: "s1", ClientID: "share-a", MemberEpoch: 3, Partitions: []model.TopicPartition{tp(topic, 0)}},
			{MemberID: "s2", ClientID: "share-b", MemberEpoch: 3, Partitions: []model.TopicPartition{tp(topic, 0)}},
		},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{tp(topic, 0): 7},
		Offsets:   map[model.TopicPartition]model.PartitionOffsets{tp(topic, 0): {LogStart: 0, LogEnd: 9}},
	})
	a, _ = buildState(t, []pollResult{{snap: model.NewSnapshot(share)}}, 120, 40)
	out = plain(a)
	for _, want := range []string{"share group (KIP-932)", "share-a +1", "+N shared with N more members"} {
		if !strings.Contains(out, want) {
			t.Errorf("share group view lacks %q:\n%s", want, out)
		}
	}
}
