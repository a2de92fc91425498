package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

const storyTopic = "order-rebalancing"

var storyMembers = map[string]string{
	"consumer-a": "consumer-a-4f1c2d9e-77aa-4b1e-9c2d-0a1b2c3d4e5f",
	"consumer-b": "consumer-b-9e8d7c6b-1234-4321-abcd-ffeeddccbbaa",
	"consumer-c": "consumer-c-0badf00d-5555-4444-3333-222211110000",
}

// storySnap is the demo group at t0+at: state, then the members in order
// with the partitions each owns (ignored unless Stable, as coordinators
// report no assignments mid-rebalance).
func storySnap(at time.Duration, state string, owners map[string][]int32, members ...string) model.Snapshot {
	obs := model.Observation{
		TakenAt: t0.Add(at),
		Brokers: testBrokers,
		Group: model.Group{ID: "order-workers", State: state, ProtocolType: "consumer",
			Assignor: "range", Coordinator: "127.0.0.1:29092"},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{},
		Offsets:   map[model.TopicPartition]model.PartitionOffsets{},
	})
	if state == model.StateEmpty {
		obs.Group.Assignor = ""
	}
	for _, m := range members {
		mb := model.Member{MemberID: storyMembers[m], ClientID: m, Host: "/127.0.0.1"}
		if state == model.StateStable {
			for _, p := range owners[m] {
				mb.Partitions = append(mb.Partitions, tp(storyTopic, p))
			}
		}
		obs.Members = append(obs.Members, mb)
	}
	for p := range int32(3) {
		obs.SetCommitted(tp(storyTopic, p), 1000+int64(at/time.Second))
		obs.SetOffsets(tp(storyTopic, p), model.PartitionOffsets{LogEnd: 1010 + int64(at/time.Second)})
	}
	return model.NewSnapshot(obs)
}

// story is the scripted watch the timeline and lanes golden files show:
// two consumers, a third joins (eager rebalance), then one leaves.
var story = []struct {
	at   time.Duration
	snap model.Snapshot
}{
	{0, storySnap(0, model.StateStable, map[string][]int32{"consumer-a": {0, 1}, "consumer-b": {2}}, "consumer-a", "consumer-b")},
	{60 * time.Second, storySnap(60*time.Second, model.StatePreparingRebalance, nil, "consumer-a", "consumer-b", "consumer-c")},
	{60200 * time.Millisecond, storySnap(60200*time.Millisecond, model.StateCompletingRebalance, nil, "consumer-a", "consumer-b", "consumer-c")},
	{60400 * time.Millisecond, storySnap(60400*time.Millisecond, model.StateStable, map[string][]int32{"consumer-a": {0}, "consumer-b": {1}, "consumer-c": {2}}, "consumer-a", "consumer-b", "consumer-c")},
	{120 * time.Second, storySnap(120*time.Second, model.StatePreparingRebalance, nil, "consumer-a", "consumer-c")},
	{120410 * time.Millisecond, storySnap(120410*time.Millisecond, model.StateStable, map[string][]int32{"consumer-a": {0, 1}, "consumer-c": {2}}, "consumer-a", "consumer-c")},
}

// storyApp runs the story at w×h and leaves the clock 15s after its last
// poll.
func storyApp(t testing.TB, w, h int) (*App, *clock) {
	t.Helper()
	clk := testutil.NewClock(t0)
	src := &fakeSource{}
	for _, s := range story {
		src.results = append(src.results, pollResult{snap: s.snap})
	}
	a := testApp(t, src, clk, w, h)
	for _, s := range story[1:] {
		clk.Set(t0.Add(s.at))
		pollNow(t, a)
	}
	clk.Set(t0.Add(story[len(story)-1].at + 15*time.Second))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, clk
}

func TestTimelineGolden(t *testing.T) {
	for _, sz := range sizes[:2] {
		name := fmt.Sprintf("%dx%d", sz[0], sz[1])
		t.Run("timeline_"+name, func(t *testing.T) {
			a, _ := storyApp(t, sz[0], sz[1])
			a.Update(keyPress("tab"))
			a.Update(keyPress("tab"))
			// Select the eager rebalance's completion.
			for i := 0; i < a.group.timeline.Len(); i++ {
				if e, _ := a.group.timeline.Selected(); e.Type == model.EventRebalanceCompleted && e.Time.Equal(t0.Add(60400*time.Millisecond)) {
					break
				}
				a.Update(keyPress("j"))
			}
			out := plain(a)
			checkFits(t, out, sz[0], sz[1])
			golden.RequireEqual(t, out)
		})
		t.Run("lanes_"+name, func(t *testing.T) {
			a, _ := storyApp(t, sz[0], sz[1])
			a.Update(keyPress("v"))
			out := plain(a)
			checkFits(t, out, sz[0], sz[1])
			golden.RequireEqual(t, out)
		})
	}
}

func TestTimelineShowsTheStory(t *testing.T) {
	a, _ := storyApp(t, 120, 40)
	out := plain(a)
	for _, want := range []string{
		"■ Partitions", "□ Members", "□ Timeline",
		"10:02:00.4    15s ago ~ state PreparingRebalance → Stable", "✓ rebalance took 0.41s",
		"× consumer-b (ddccbbaa) left",
		"→ p1: consumer-b → consumer-a",
		"+ consumer-c (11110000) joined",
		"◐ rebalance started: consumer-c joined",
		"10:00:00.0  2m15s ago ◉ watching order-workers",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	// Newest first.
	if i, j := strings.Index(out, "rebalance took 0.41s"), strings.Index(out, "watching order-workers"); i < 0 || j < i {
		t.Errorf("timeline is not newest first:\n%s", out)
	}
}

// highlighted returns the partition numbers whose table row carries the
// highlight glyph.
func highlighted(out string) []string {
	var ps []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, glyphHighlight+storyTopic) {
			f := strings.Fields(l)
			ps = append(ps, f[1])
		}
	}
	return ps
}

func TestSelectedEventHighlightsItsPartitions(t *testing.T) {
	a, _ := storyApp(t, 120, 40)
	if got := highlighted(plain(a)); len(got) != 0 {
		t.Fatalf("highlight without a selected event: %v", got)
	}
	a.Update(keyPress("tab"))
	a.Update(keyPress("tab"))
	find := func(typ model.EventType, detail string) {
		t.Helper()
		a.Update(keyPress("home"))
		for range a.group.timeline.Len() {
			if e, _ := a.group.timeline.Selected(); e.Type == typ && strings.Contains(e.Detail, detail) {
				return
			}
			a.Update(keyPress("j"))
		}
		t.Fatalf("no %s event %q", typ, detail)
	}
	find(model.EventPartitionMoved, "p1: consumer-b → consumer-a")
	if got := highlighted(plain(a)); fmt.Sprint(got) != "[1]" {
		t.Errorf("moved p1: highlighted %v\n%s", got, plain(a))
	}
	find(model.EventMemberLeft, "consumer-b left")
	if got := highlighted(plain(a)); fmt.Sprint(got) != "[1]" {
		t.Errorf("consumer-b left owning p1: highlighted %v", got)
	}
	find(model.EventRebalanceCompleted, "took 0.40s") // the eager one: p0 kept, p1, p2 moved
	if got := highlighted(plain(a)); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("eager rebalance: highlighted %v\n%s", got, plain(a))
	}
	a.Update(keyPress("v"))
	if out := plain(a); strings.Count(out, glyphHighlight+"p") != 3 || !strings.Contains(out, glyphLaneMark) || !strings.Contains(out, "now") {
		t.Errorf("lanes do not mark the selected event:\n%s", out)
	}
	a.Update(keyPress("v"))
	a.Update(keyPress("tab")) // focus leaves the timeline: no highlight
	if got := highlighted(plain(a)); len(got) != 0 {
		t.Errorf("highlight stays after the timeline lost focus: %v", got)
	}
}

func TestLanesShowGaps(t *testing.T) {
	a, _ := storyApp(t, 120, 40)
	a.Update(keyPress("v"))
	out := plain(a)
	lanes := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimPrefix(l, glyphCursor)
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "p0" || f[0] == "p1" || f[0] == "p2") {
			lanes[f[0]] = strings.TrimPrefix(strings.TrimSpace(l), f[0])
		}
	}
	if len(lanes) != 3 {
		t.Fatalf("want 3 lanes:\n%s", out)
	}
	// Both rebalances are eager (range): each shows as a gap in every
	// lane, shorter than a cell but drawn laneMinGap cells wide.
	for p, l := range lanes {
		runs := strings.Fields(strings.NewReplacer("a", " ", "b", " ", "c", " ").Replace(l))
		if len(runs) != 2 || runs[0] != strings.Repeat(glyphLaneGap, laneMinGap) || runs[1] != runs[0] {
			t.Errorf("%s: gaps %q, want 2 (one per rebalance) of %d cells: %q", p, runs, laneMinGap, l)
		}
	}
	want := map[string]string{"p0": "a", "p1": "b", "p2": "c"}
	for p, letter := range want {
		l := strings.TrimRight(lanes[p], " ")
		if !strings.HasSuffix(l, strings.Repeat(map[string]string{"p0": "a", "p1": "a", "p2": "c"}[p], 5)) {
			t.Errorf("%s ends %q", p, l)
		}
		if !strings.Contains(l, letter+glyphLaneGap) && p != "p2" {
			t.Errorf("%s: no %s before the first gap: %q", p, letter, l)
		}
	}
	for _, w := range []string{"a consumer-a", "b consumer-b", "c consumer-c", glyphLaneGap + " rebalancing", "now", "|-1m"} {
		if !strings.Contains(out, w) {
			t.Errorf("lanes view lacks %q:\n%s", w, out)
		}
	}
}

func TestEventsChannelFeedsTheTimeline(t *testing.T) {
	clk := testutil.NewClock(t0)
	ch := make(chan model.Event, 1)
	a := New(Watch{Group: "order-workers", Source: &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, Events: ch},
		Options{Brokers: testBrokers, Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	batch, ok := a.Init()().(tea.BatchMsg)
	if !ok || len(batch) != 2 {
		t.Fatalf("Init with Events = %T, want a batch of the poll and the event wait", batch)
	}
	// One command polls; the other waits for an event and must not return
	// before one is sent.
	results := make(chan tea.Msg, 2)
	for _, c := range batch {
		go func() { results <- c() }()
	}
	msg := <-results
	if _, ok := msg.(pollResultMsg[polled]); !ok {
		t.Fatalf("first result %T, want the poll", msg)
	}
	a.Update(msg)
	select {
	case msg := <-results:
		t.Fatalf("the event wait returned %T with no event sent", msg)
	case <-time.After(50 * time.Millisecond):
	}
	ch <- model.Event{Time: t0.Add(time.Second), Type: model.EventDemoKilled, ClientID: "consumer-b", Detail: "consumer-b killed (no LeaveGroup)"}
	_, next := a.Update(<-results)
	if next == nil {
		t.Fatal("the event wait was not re-armed")
	}
	if out := plain(a); !strings.Contains(out, "✗ consumer-b killed (no LeaveGroup)") {
		t.Fatalf("demo event not in the timeline:\n%s", out)
	}
	if evs := a.group.pipe.Timeline().Events(); evs[0].Type != model.EventWatchStarted || evs[len(evs)-1].Type != model.EventDemoKilled || evs[len(evs)-1].Group != "order-workers" {
		t.Fatalf("events %+v", evs)
	}
	// Quitting ends the wait, leaving no goroutine behind.
	done := make(chan tea.Msg)
	go func() { done <- next() }()
	a.Update(keyPress("q"))
	select {
	case msg := <-done:
		if msg != nil {
			t.Fatalf("wait after quit gave %T", msg)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("event wait still blocked after quit")
	}
	// A closed channel ends the wait too.
	close(ch)
	if msg := waitEvent(context.Background(), ch)(); msg != nil {
		t.Fatalf("closed channel gave %T", msg)
	}
}

func TestConnectionLostOncePerOutage(t *testing.T) {
	refused := fmt.Errorf("dial tcp 127.0.0.1:29092: connect: connection refused")
	clk := testutil.NewClock(t0)
	back := stableSnapshot()
	back.TakenAt = t0.Add(3 * time.Second)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}, {err: refused}, {err: refused}, {snap: back}}}
	a := testApp(t, src, clk, 120, 40)
	for i := 1; i <= 3; i++ {
		clk.Set(t0.Add(time.Duration(i) * time.Second))
		pollNow(t, a)
	}
	var types []string
	for _, e := range a.group.pipe.Timeline().Events() {
		if e.Type != model.EventStatusChanged { // partition verdicts, not this test's business
			types = append(types, string(e.Type))
		}
	}
	if got := strings.Join(types, " "); got != "watch_started connection_lost connection_restored" {
		t.Errorf("events: %s", got)
	}
}

// BenchmarkLanes100x5m renders the lanes of 100 partitions over five
// minutes of polls every second, with a rebalance every 30 seconds, every
// row on screen.
func BenchmarkLanes100x5m(b *testing.B) {
	clk := testutil.NewClock(t0)
	a := New(Watch{Group: "big", Source: &fakeSource{}}, Options{Now: clk.Now})
	a.Update(tea.WindowSizeMsg{Width: 200, Height: 120})
	for s := range 300 {
		snap := bigSnapshot(100)
		snap.TakenAt = t0.Add(time.Duration(s) * time.Second)
		switch {
		case s%30 == 29:
			snap.Group.State = model.StatePreparingRebalance
		case s%60 >= 30: // every other minute, the members swap partitions
			for i := range snap.Partitions {
				p := &snap.Partitions[i]
				p.ClientID = fmt.Sprintf("worker-%02d", (i+1)%20)
			}
		}
		a.applySnapshotForBench(snap, clk)
	}
	a.Update(keyPress("v"))
	a.group.lanes.SetSize(200, 100+lanesChrome)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = a.group.lanes.View()
	}
	if out := a.group.lanes.View(); strings.Count(out, "\n") < 100 {
		b.Fatalf("not every lane rendered: %d lines", strings.Count(out, "\n"))
	}
}

func (a *App) applySnapshotForBench(s model.Snapshot, clk *clock) {
	clk.Set(s.TakenAt)
	a.group.poll.polling = true
	a.Update(answerOf(a, a.group.poll.seq, s))
}

func TestLanesAxisKeepsNowBesideTheMark(t *testing.T) {
	a, clk := storyApp(t, 80, 24)
	a.Update(keyPress("v"))
	for _, back := range []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, time.Minute} {
		a.group.lanes.SetHighlight(nil, clk.Now().Add(-back))
		axis := strings.Split(a.group.lanes.View(), "\n")[1]
		if !strings.Contains(axis, "now") || strings.Count(axis, glyphLaneMark) != 1 {
			t.Errorf("mark %s before now: axis %q", back, axis)
		}
	}
}

func TestLanesMarkAKilledOwner(t *testing.T) {
	a, _ := storyApp(t, 120, 40)
	a.Update(eventMsg{ctx: a.group.ctx, Event: model.Event{Time: t0.Add(125 * time.Second), Type: model.EventDemoKilled, ClientID: "consumer-c", Detail: "consumer-c killed"}})
	a.Update(keyPress("v"))
	out := plain(a)
	var p2, p0 string
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, " p2"):
			p2 = l
		case strings.HasPrefix(l, glyphCursor+"p0"):
			p0 = l
		}
	}
	// consumer-c owns p2 still, as far as the group knows: killed at
	// 125s, now is 135.4s: the cells from the kill's on.
	g := a.group.lanes.geometry(0, 3)
	dead := int(g.from.Add(time.Duration(g.cells)*g.step).Sub(t0.Add(125*time.Second))/g.step) + 1
	if !strings.HasSuffix(p2, "c"+strings.Repeat(glyphLaneKilled, dead)) {
		t.Errorf("p2 lane %q does not end in the killed owner's %d ✗ (%s a cell)", p2, dead, g.step)
	}
	if strings.Contains(p0, glyphLaneKilled) {
		t.Errorf("p0 (consumer-a, alive) drawn killed: %q", p0)
	}
	if !strings.Contains(out, glyphLaneKilled+" owner killed") {
		t.Errorf("legend does not explain ✗:\n%s", out)
	}
}

func TestTimelineAndLanesFitEverySize(t *testing.T) {
	seq := [][2]int{{0, 0}, {1, 1}, {200, 5}, {10, 3}, {2, 50}, {40, 10}, {30, 12}, {60, 15}, {80, 24}, {3, 3}, {500, 200}, {120, 40}}
	a, _ := storyApp(t, 120, 40)
	for _, sz := range seq {
		a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		for _, k := range []string{"v", "j", "tab", "G", "k", "tab", "v", "tab", "pgdown", "v", "tab", "tab", "v"} {
			a.Update(keyPress(k))
			checkFits(t, plain(a), sz[0], sz[1])
		}
	}
	// At 40×10 only the focused pane shows under the header.
	a.Update(tea.WindowSizeMsg{Width: 40, Height: 10})
	for a.group.focus != paneTimeline {
		a.Update(keyPress("tab"))
	}
	out := plain(a)
	if !strings.Contains(out, "■ Timeline") || strings.Contains(out, "Partitions") {
		t.Errorf("40×10 with the timeline focused:\n%s", out)
	}
}

func TestTimelineFollowsNewestUnlessScrolled(t *testing.T) {
	tl := NewTimeline(NewStyles(true), DefaultKeyMap())
	tl.SetSize(80, 10)
	ev := func(sec int, typ model.EventType) model.Event {
		return model.Event{Time: t0.Add(time.Duration(sec) * time.Second), Type: typ, Detail: fmt.Sprint(sec)}
	}
	evs := []model.Event{ev(1, model.EventWatchStarted), ev(2, model.EventMemberJoined), ev(3, model.EventMemberLeft)}
	tl.SetEvents(evs)
	if e, _ := tl.Selected(); e.Detail != "3" {
		t.Fatalf("cursor on %q, want the newest", e.Detail)
	}
	evs = append(evs, ev(4, model.EventGroupEmpty))
	tl.SetEvents(evs)
	if e, _ := tl.Selected(); e.Detail != "4" {
		t.Fatalf("cursor on %q after a new event, want it to follow to the newest", e.Detail)
	}
	tl, _ = tl.Update(keyPress("j"))
	tl, _ = tl.Update(keyPress("j")) // on "2"
	evs = append(evs, ev(5, model.EventMemberJoined), ev(6, model.EventMemberLeft))
	tl.SetEvents(evs)
	if e, _ := tl.Selected(); e.Detail != "2" {
		t.Fatalf("cursor on %q after new events, want the event it was on", e.Detail)
	}
}

func TestLetterFor(t *testing.T) {
	used := map[rune]bool{}
	var got []string
	for _, label := range []string{"consumer-b", "consumer-a", "rdkafka", "rebalancer", "worker-b", "7f3a9c01", "x"} {
		r := letterFor(label, used)
		used[r] = true
		got = append(got, label+"="+string(r))
	}
	want := "consumer-b=b consumer-a=a rdkafka=r rebalancer=c worker-b=w 7f3a9c01=7 x=x"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("letters %s\nwant    %s", s, want)
	}
}

// A long event is cut on its line, but written in full, wrapped under its
// text, once selected: "…(counted from its last heartbeat)"
// read at 120 columns.
func TestSelectedEventShownInFull(t *testing.T) {
	a, _ := storyApp(t, 80, 24)
	long := model.Event{Time: t0.Add(130 * time.Second), Type: model.EventDemoEvicted, ClientID: "consumer-b", MemberID: "consumer-b-9e8d7c6b",
		Detail: "consumer-b evicted by the coordinator 9.4s after the kill: no heartbeat for its 10s session timeout (counted from its last heartbeat)"}
	a.Update(eventMsg{ctx: a.group.ctx, Event: long})
	if out := plain(a); strings.Contains(out, "(counted from its last heartbeat)") {
		t.Fatalf("the event fits unselected: the test shows nothing:\n%s", out)
	}
	for a.group.focus != paneTimeline {
		a.Update(keyPress("tab"))
	}
	a.Update(keyPress("home"))
	out := plain(a)
	if !strings.Contains(out, "(counted from its last heartbeat)") {
		t.Errorf("the selected event is still cut:\n%s", out)
	}
	checkFits(t, out, 80, 24)
}

// slowSource answers as src does, each poll taking took on clk (a poll
// hanging until its timeout).
type slowSource struct {
	src  *fakeSource
	clk  *clock
	took time.Duration
}

func (s *slowSource) Poll(ctx context.Context) (model.Snapshot, error) {
	s.clk.Set(s.clk.Now().Add(s.took))
	return s.src.Poll(ctx)
}

// The TUI gives an outage's bounds as --events does: the polls failed from
// the first failed poll's start, and the retries are capped at about the
// poll interval (1s), however many polls failed.
func TestOutageBoundsAndRetryCap(t *testing.T) {
	timeout := errors.New("describe group \"order-workers\": i/o timeout")
	clk := testutil.NewClock(t0)
	back := stableSnapshot()
	back.TakenAt = t0.Add(20 * time.Second)
	polls := []pollResult{{snap: stableSnapshot()}}
	for range 6 {
		polls = append(polls, pollResult{err: timeout})
	}
	src := &slowSource{src: &fakeSource{results: append(polls, pollResult{snap: back})}, clk: clk}
	a := testApp(t, src, clk, 120, 40)
	// Each poll hangs 2s; six fail, from 1s (seen at 3s) to 13s.
	src.took = 2 * time.Second
	clk.Set(t0.Add(time.Second))
	for i := range 6 {
		pollNow(t, a)
		if wait := a.group.poll.RetryAt.Sub(clk.Now()); wait < 0 || wait > time.Second {
			t.Fatalf("after %d failures the next poll is in %s, want at most 1s", i+1, wait)
		}
	}
	src.took = 0
	clk.Set(t0.Add(20 * time.Second))
	pollNow(t, a)
	var restored *model.Event
	for _, e := range a.group.pipe.Timeline().Events() {
		if e.Type == model.EventConnectionRestored {
			restored = &e
		}
	}
	if restored == nil {
		t.Fatalf("no connection_restored in %v", a.group.pipe.Timeline().Events())
	}
	if !restored.HasMinDuration || restored.MinDuration != 12*time.Second || restored.Duration != 20*time.Second {
		t.Errorf("restore says %s–%s, want 12s (the failed polls: 1s…13s) to 20s", restored.MinDuration, restored.Duration)
	}
	if out := plain(a); !strings.Contains(out, "connection restored after 12.0s–20.0s") {
		t.Errorf("the timeline does not give the bounds:\n%s", out)
	}
}

// TestTimelineGrowsItsRowsAsAppendDoes: a timeline handed one more event
// at each poll, up to the model's 1,000, copies its rows into a new array
// a few times, not at every poll.
func TestTimelineGrowsItsRowsAsAppendDoes(t *testing.T) {
	tl := NewTimeline(NewStyles(true), DefaultKeyMap())
	var events []model.Event
	moves := 0
	var last *model.Event
	for i := range model.DefaultTimelineCapacity {
		events = append(events, model.Event{Time: time.Unix(int64(i), 0), Type: model.EventDemoSpawned, Detail: fmt.Sprint(i)})
		tl.SetEvents(events)
		if got := tl.rows[0].Detail; got != fmt.Sprint(i) {
			t.Fatalf("after %d events the newest row is %q", i+1, got)
		}
		if &tl.rows[0] != last {
			moves++
			last = &tl.rows[0]
		}
	}
	if moves > 20 {
		t.Fatalf("the rows moved to a new array %d times in %d polls", moves, model.DefaultTimelineCapacity)
	}
}
