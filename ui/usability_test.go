// Tests from a usability review: what users met at each size, in demo mode
// and out, that the goldens did not pin down.

package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// stableApp is an App at w×h on a stable group, in demo mode or not.
func stableApp(t *testing.T, demo bool, w, h int) *App {
	t.Helper()
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	if demo {
		return demoApp(t, src, newFakeDemo(), clk, w, h)
	}
	return testApp(t, src, clk, w, h)
}

// The short help's last keys are the ones a newcomer looks for: at every
// size, in demo mode too (whose keys come first), "? help" and "q quit"
// stay on screen and the other keys give way.
func TestShortHelpKeepsHelpAndQuit(t *testing.T) {
	for _, demo := range []bool{false, true} {
		for _, sz := range append(sizes, [2]int{60, 20}, [2]int{100, 30}) {
			t.Run(fmt.Sprintf("demo=%v_%dx%d", demo, sz[0], sz[1]), func(t *testing.T) {
				a := stableApp(t, demo, sz[0], sz[1])
				out := plain(a)
				checkFits(t, out, sz[0], sz[1])
				lines := strings.Split(out, "\n")
				last := lines[len(lines)-1]
				if !strings.HasSuffix(strings.TrimRight(last, " "), "? help • q quit") {
					t.Errorf("help line does not end in \"? help • q quit\": %q", last)
				}
			})
		}
	}
}

// In the lanes view tab cycles lanes → timeline: the members pane is not
// on screen, so a member key must say how to get back to it, not "tab to
// the Members pane".
func TestDemoMemberKeyInLanesSaysHowToReachMembers(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	fd := newFakeDemo()
	a := demoApp(t, src, fd, clk, 120, 40)
	focusMembers(t, a)
	press(t, a, "v")
	if !a.group.showLanes {
		t.Fatal("v did not open the lanes")
	}
	press(t, a, "X")
	if len(fd.Calls()) != 0 {
		t.Fatalf("X in the lanes acted on the demo: %v", fd.Calls())
	}
	out := plain(a)
	if !strings.Contains(out, "v back to them") {
		t.Errorf("X in the lanes does not say how to reach the members:\n%s", out)
	}
}

// The ledger is read once a second, as the demo's other state: a
// refresh due a second after a ledger read reads it again (it used to
// skip every other one, so the ledger trailed the table by two seconds).
func TestDemoLedgerRefreshesEverySecond(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	a := demoApp(t, src, newFakeDemo(), clk, 120, 40)
	_, cmd := a.Update(demoStatusMsg{p: a.group.demo, Seq: a.group.demo.seq, Status: a.group.watch.Demo.Status(true)})
	if cmd == nil {
		t.Fatal("no next demo refresh")
	}
	msg, ok := cmd().(demoStatusMsg) // a one-second tick
	if !ok {
		t.Fatalf("next refresh gave %T", msg)
	}
	if !msg.Status.HasLedger {
		t.Error("the refresh a second after a ledger read does not read the ledger")
	}
}

// caughtUpSnapshot is one topic of three partitions; p0 lags by lag.
func caughtUpSnapshot(lag int64) model.Snapshot {
	const topic = "order-rebalancing"
	obs := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group: model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer",
			Assignor: "range", Coordinator: "127.0.0.1:29092"},
		Members: []model.Member{
			{MemberID: "consumer-a-1", ClientID: "consumer-a", Host: "/127.0.0.1",
				Partitions: []model.TopicPartition{tp(topic, 0), tp(topic, 1), tp(topic, 2)}},
		},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{tp(topic, 0): 100 - lag, tp(topic, 1): 100, tp(topic, 2): 100},
		Offsets: map[model.TopicPartition]model.PartitionOffsets{
			tp(topic, 0): {LogEnd: 100}, tp(topic, 1): {LogEnd: 100}, tp(topic, 2): {LogEnd: 100},
		},
	})
	return model.NewSnapshot(obs)
}

// A lag that goes 1, 0, 1 between polls (an order in flight) must not
// move every pane a line up and down: the header keeps its height.
func TestHeaderHeightSteadyAsLagComesAndGoes(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			clk := testutil.NewClock(t0)
			src := &fakeSource{results: []pollResult{
				{snap: caughtUpSnapshot(1)}, {snap: caughtUpSnapshot(0)}, {snap: caughtUpSnapshot(1)},
			}}
			a := testApp(t, src, clk, sz[0], sz[1])
			var heights []int
			for i := range 3 {
				if i > 0 {
					clk.Set(t0.Add(time.Duration(i) * time.Second))
					pollNow(t, a)
				}
				heights = append(heights, lipgloss.Height(a.group.headerText))
				if i == 1 && sz[1] >= 24 && !strings.Contains(plain(a), "worst: none, no partition lags") {
					t.Errorf("no lag, and the header does not say so:\n%s", plain(a))
				}
			}
			if heights[0] != heights[1] || heights[1] != heights[2] {
				t.Errorf("header heights with lag 1, 0, 1: %v", heights)
			}
		})
	}
}

// `?` shows every key at every size it fits in: where the columns are
// wider than the screen the keys are packed into lines, rather than the
// columns past the width being dropped (q quit, o sort, / filter went
// missing at 40×10, and half the keys in demo mode at 80×24). Where the
// keys do not fit beside the panes (demo mode at 40×10), they take the
// panes' place until ? closes them.
func TestFullHelpShowsEveryKey(t *testing.T) {
	for _, demo := range []bool{false, true} {
		for _, sz := range [][2]int{{120, 40}, {80, 24}, {60, 20}, {40, 10}} {
			t.Run(fmt.Sprintf("demo=%v_%dx%d", demo, sz[0], sz[1]), func(t *testing.T) {
				a := stableApp(t, demo, sz[0], sz[1])
				a.Update(keyPress("?"))
				out := plain(a)
				checkFits(t, out, sz[0], sz[1])
				var groups [][]key.Binding = a.group.keys.FullHelp(a.group.demo.bindings(false))
				for _, g := range groups {
					for _, b := range g {
						if !b.Enabled() {
							continue
						}
						if want := b.Help().Key + " "; !strings.Contains(out, want) {
							t.Errorf("full help lacks %q:\n%s", b.Help().Key+" "+b.Help().Desc, out)
						}
					}
				}
			})
		}
	}
}

// After a demo key the group is polled every model.FastInterval for a while, so
// the rebalance a join or a LeaveGroup sets off (often shorter than the
// interval) is seen and timed, not inferred "between polls"; then back to
// the interval. Outside demo mode nothing changes.
func TestDemoKeyPollsFastForAWhile(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	a := demoApp(t, src, newFakeDemo(), clk, 120, 40)
	delay := func() time.Duration { return a.group.st.RetryAt.Sub(a.group.st.Now) }
	if d := delay(); d != time.Second {
		t.Fatalf("before any key the next poll is in %v, want 1s", d)
	}
	next := press(t, a, "n")
	// The action polls at once; that poll schedules the next.
	for _, c := range next().(tea.BatchMsg) {
		if c == nil {
			continue
		}
		if m, ok := c().(pollResultMsg[polled]); ok {
			a.Update(m)
			break
		}
	}
	if d := delay(); d != model.FastInterval {
		t.Errorf("after n the next poll is in %v, want %v", d, model.FastInterval)
	}
	clk.Set(t0.Add(demoFastPollFor + time.Second))
	pollNow(t, a)
	if d := delay(); d != time.Second {
		t.Errorf("%v after n the next poll is in %v, want 1s again", demoFastPollFor+time.Second, d)
	}
}

// shift+tab goes back through the panes (it used to go forward, as tab).
func TestShiftTabGoesBack(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	a := testApp(t, src, clk, 120, 40)
	back := tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	want := []pane{paneTimeline, paneMembers, paneTable}
	for _, w := range want {
		a.Update(back)
		if a.group.focus != w {
			t.Fatalf("shift+tab focused pane %d, want %d", a.group.focus, w)
		}
	}
	a.Update(keyPress("v")) // lanes: the members pane is not on screen
	a.Update(back)
	if a.group.focus != paneTimeline {
		t.Errorf("lanes, shift+tab from the lanes focused pane %d, want the timeline", a.group.focus)
	}
	a.Update(back)
	if a.group.focus != paneTable {
		t.Errorf("lanes, shift+tab from the timeline focused pane %d, want the lanes", a.group.focus)
	}
}

// In the lanes view o, / and l would reshape a table that is not on
// screen: they are off there, and help does not offer them.
func TestTableKeysOffInLanes(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	a := testApp(t, src, clk, 120, 40)
	a.Update(keyPress("v"))
	a.Update(keyPress("?"))
	out := plain(a)
	for _, k := range []string{"only lag", "sort", "filter"} {
		if strings.Contains(out, k) {
			t.Errorf("lanes view help offers %q:\n%s", k, out)
		}
	}
	a.Update(keyPress("l"))
	a.Update(keyPress("o"))
	a.Update(keyPress("/"))
	if a.group.rows.onlyLag || a.group.rows.sort != 0 || a.group.rows.editing {
		t.Errorf("table keys acted in the lanes: only-lag %v, sort %v, filter open %v", a.group.rows.onlyLag, a.group.rows.sort, a.group.rows.editing)
	}
	a.Update(keyPress("v"))
	a.Update(keyPress("l"))
	if !a.group.rows.onlyLag {
		t.Error("back on the table, l does not work")
	}
}

// While a killed member waits for its eviction the group is polled fast,
// so the takeover is timed; not forever if the eviction never comes.
func TestDemoKilledMemberPollsFastUntilPastSessionTimeout(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	fd := newFakeDemo()
	fd.consumers[1].State, fd.consumers[1].KilledAt = model.DemoKilled, t0
	a := demoApp(t, src, fd, clk, 120, 40)
	delay := func() time.Duration { return a.group.st.RetryAt.Sub(a.group.st.Now) }
	clk.Set(t0.Add(testDemoSettings.SessionTimeout - time.Second))
	pollNow(t, a)
	if d := delay(); d != model.FastInterval {
		t.Errorf("a second before the session timeout the next poll is in %v, want %v", d, model.FastInterval)
	}
	clk.Set(t0.Add(testDemoSettings.SessionTimeout + demoFastPollFor + time.Second))
	pollNow(t, a)
	if d := delay(); d != time.Second {
		t.Errorf("long past the session timeout the next poll is in %v, want 1s", d)
	}
}

// A demo note is followed by the member's partitions, named as everywhere
// ("p0–p2"), so a bare number never reads as part of the note
// ("evicted in 5.1s  2").
func TestDemoNoteKeepsPartitionsApart(t *testing.T) {
	st := NewStyles(true)
	m := NewMembers(st, DefaultKeyMap())
	m.SetMembers(caughtUpSnapshot(0).Members)
	m.SetNotes([]string{"✗ killed · evicted in 5.1s"})
	if got, want := m.partsText(0), "✗ killed · evicted in 5.1s  p0–p2"; got != want {
		t.Errorf("noted partitions %q, want %q", got, want)
	}
	m.SetNotes(nil)
	if got := m.partsText(0); got != "p0–p2" {
		t.Errorf("partitions without a note %q, want p0–p2", got)
	}
}
