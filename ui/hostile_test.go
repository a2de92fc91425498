package ui

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// hostileName is issue 11's client.id: printed raw it would set the window
// title, clear the screen, write the clipboard, leave the alternate screen
// and split and overwrite rows.
const hostileName = "evil\x1b]0;PWNED\x07\x1b[2J\x1b[31m\nNEWLINE\r\x1b[1;1HOVERWRITE\x1b]52;c;cHduZWQ=\x07\x1b[?1049l"

// names are the broker- and client-chosen strings of one hostile scenario,
// derived from one string so a fuzzer can drive them all.
type names struct {
	group, client, host, member, instance, topic, assignor, coordinator, state, errText string
}

func hostileNames(s string) names {
	// Distinct prefixes keep any two names from reading the same once
	// printable, so the lanes and moves tell the members apart in both
	// renders.
	return names{
		group: "g-" + s, client: "c1-" + s, host: "/" + s, member: s + "-4f1c2d9e-77aa-4b1e-9c2d",
		instance: "i-" + s, topic: "t-" + s, assignor: "a" + s, coordinator: s + ":9092",
		state: model.StateStable, errText: "broker said: " + s,
	}
}

// printable is the same scenario with every name already made printable:
// rendered, it must be exactly what the hostile one renders.
func (n names) printable() names {
	p := model.Printable
	// Error texts are messages: shown on one line, white space runs made
	// one space, before they are made printable.
	return names{p(n.group), p(n.client), p(n.host), p(n.member), p(n.instance), p(n.topic), p(n.assignor),
		p(n.coordinator), n.state, p(strings.Join(strings.Fields(n.errText), " "))}
}

// Scenarios: two topics in a Stable group; one topic (named in the table's
// title) in a group whose state is a name too; a group that does not
// exist (its name in the waiting message).
const (
	scenarioTwoTopics = iota
	scenarioOneTopic
	scenarioMissing
	numScenarios
)

func hostileSnapshots(n names, scenario int) []model.Snapshot {
	other, state := "orders", n.state
	if scenario == scenarioOneTopic {
		other, state = n.topic, n.client
	}
	obs := func(at time.Time, members []model.Member) model.Observation {
		if scenario == scenarioMissing {
			return model.Observation{TakenAt: at, Brokers: testBrokers, Group: model.Group{ID: n.group, State: model.StateDead}}
		}
		return model.Observation{
			TakenAt: at,
			Brokers: testBrokers,
			Group:   model.Group{ID: n.group, State: state, ProtocolType: "consumer", Assignor: n.assignor, Coordinator: n.coordinator},
			Members: members,
		}.With(model.Readings{
			Committed: map[model.TopicPartition]int64{
				tp(n.topic, 0): 10, tp(n.topic, 1): 20, tp(other, 2): 5,
			},
			Offsets: map[model.TopicPartition]model.PartitionOffsets{
				tp(n.topic, 0): {LogStart: 0, LogEnd: 100},
				tp(n.topic, 1): {LogStart: model.NoOffset, LogEnd: model.NoOffset, Err: n.errText},
				tp(other, 2):   {LogStart: 0, LogEnd: 9},
			},
		})
	}
	two := []model.Member{
		{MemberID: n.member, InstanceID: n.instance, ClientID: n.client, Host: n.host,
			Partitions: []model.TopicPartition{tp(n.topic, 0), tp(n.topic, 1)}},
		// No client id: shown by the tail of its member id, which is the name.
		{MemberID: "m2-" + n.host, ClientID: "", Host: n.host, Partitions: []model.TopicPartition{tp(other, 2)}},
	}
	one := []model.Member{two[1]}
	one[0].Partitions = []model.TopicPartition{tp(n.topic, 0), tp(n.topic, 1), tp(other, 2)}
	// Twenty seconds with both members, then the hostile one leaves (the
	// events name it); every 4s, so the lanes draw owners.
	var out []model.Snapshot
	for i := range 9 {
		ms := two
		if i >= 6 {
			ms = one
		}
		o := obs(t0.Add(time.Duration(i)*4*time.Second), ms)
		if i == 5 && scenario != scenarioMissing {
			// A rebalance: no owners, the tables show the owners before.
			o.Group.State, o.Members = model.StatePreparingRebalance, []model.Member{{MemberID: n.member, ClientID: n.client, Host: n.host}}
		}
		out = append(out, model.NewSnapshot(o))
	}
	return out
}

// frame is what the terminal would receive: the content and the window
// title.
type frame struct{ content, title string }

func frameOf(a *App) frame {
	v := a.View()
	return frame{v.Content, v.WindowTitle}
}

// renderHostile drives the group view through the scenario and returns its
// frames: each view and pane at each size, an outage banner included.
func renderHostile(t *testing.T, n names) []frame {
	t.Helper()
	var out []frame
	for sc := range numScenarios {
		out = append(out, renderScenario(t, n, sc)...)
	}
	return out
}

func renderScenario(t *testing.T, n names, scenario int) []frame {
	t.Helper()
	snaps := hostileSnapshots(n, scenario)
	var results []pollResult
	for _, s := range snaps {
		results = append(results, pollResult{snap: s})
	}
	results = append(results, pollResult{err: errors.New(n.errText)})
	src := &fakeSource{results: results}
	clk := testutil.NewClock(t0)
	a := New(Watch{Group: n.group, Source: src}, Options{Brokers: []string{n.coordinator}, Interval: time.Second, Timeout: time.Second, Now: clk.Now})
	var out []frame
	shoot := func() {
		for _, sz := range [][2]int{{120, 40}, {80, 24}, {40, 10}} {
			a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			out = append(out, frameOf(a))
		}
	}
	feed(t, a, a.Init())
	shoot()
	for i := 1; i < len(snaps); i++ {
		clk.Set(snaps[i].TakenAt)
		feed(t, a, a.group.pollNow())
		if snaps[i].Group.Rebalancing() {
			shoot()
		}
	}
	for _, k := range []string{"tab", "tab", "down", "v", "?", "?", "v", "tab"} {
		a.Update(keyPress(k))
		shoot()
	}
	clk.Set(clk.Now().Add(time.Second))
	feed(t, a, a.group.pollNow()) // the outage: a banner with the broker's error text
	shoot()
	return out
}

func renderHostileOverview(t *testing.T, n names) []frame {
	t.Helper()
	gs := []model.GroupSummary{
		{ID: n.group, State: n.state, ProtocolType: "consumer", Members: 2, Partitions: 3, Committed: 3, TotalLag: 10, MaxLag: 9, Err: n.errText},
		{ID: "b-" + n.group, State: n.client, Members: 1},
	}
	src := &fakeOverview{results: []overviewResult{{groups: gs}, {err: errors.New(n.errText)}}}
	clk := testutil.NewClock(t0)
	wg := &watched{}
	a := NewOverview(src, wg.watchGroup, Options{Brokers: []string{n.coordinator}, Interval: time.Second, Timeout: time.Second, Now: clk.Now})
	var out []frame
	shoot := func() {
		for _, sz := range [][2]int{{120, 40}, {80, 24}, {40, 10}} {
			a.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			out = append(out, frameOf(a))
		}
	}
	a.Update(a.Init()())
	shoot()
	a.Update(tea.KeyPressMsg{Code: tea.KeyEnter}) // watch the hostile group: its name goes in the window title
	shoot()
	_, back := a.Update(keyPress("esc")) // back to the overview, which polls again: the outage
	a.Update(back())
	shoot()
	return out
}

// sgr matches the styling sequences kgwatch itself writes.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// checkHostile renders the scenario of s and of its printable twin: the
// frames must be identical (no renderer shows a name without Printable),
// and hold nothing but kgwatch's own styling, printable text and newlines,
// in at most the terminal's lines of at most its width.
func checkHostile(t *testing.T, s string) {
	hostile, safe := hostileNames(s), hostileNames(s).printable()
	for _, r := range []func(*testing.T, names) []frame{renderHostile, renderHostileOverview} {
		got, want := r(t, hostile), r(t, safe)
		if len(got) != len(want) {
			t.Fatalf("%d frames, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i].title != want[i].title {
				t.Fatalf("frame %d: window title %q, want %q: it shows a name without model.Printable", i, got[i].title, want[i].title)
			}
			if got[i].content != want[i].content {
				g, w := strings.Split(got[i].content, "\n"), strings.Split(want[i].content, "\n")
				l := 0
				for l < min(len(g), len(w)) && g[l] == w[l] {
					l++
				}
				var gl, wl string
				if l < len(g) {
					gl = g[l]
				}
				if l < len(w) {
					wl = w[l]
				}
				t.Fatalf("frame %d, line %d differs from the one with printable names: a renderer shows a name without model.Printable\nhostile: %q\nsafe:    %q",
					i, l, gl, wl)
			}
			assertSafeText(t, "window title", got[i].title, false)
			plainText := sgr.ReplaceAllString(got[i].content, "")
			assertSafeText(t, "frame", plainText, true)
		}
	}
	// --once prints the same way.
	snaps := hostileSnapshots(hostile, scenarioTwoTopics)[:1]
	model.NewHistory(model.HistoryOptions{}).Annotate(&snaps[0])
	table := model.FormatTable(snaps[0])
	assertSafeText(t, "--once table", table, true)
	want := 2 + len(snaps[0].Partitions) // a blank line, the header, a row each
	errs := 0
	for _, p := range snaps[0].Partitions {
		if p.Err != "" {
			errs++
		}
	}
	if errs > 0 {
		want += 1 + errs // a blank line, an error line each
	}
	if n := strings.Count(table, "\n"); n != want {
		t.Fatalf("--once table has %d lines, want %d (a name split a row):\n%s", n, want, table)
	}
	ov := model.FormatOverview([]model.GroupSummary{{ID: hostile.group, State: hostile.client, Err: hostile.errText}})
	assertSafeText(t, "--once overview", ov, true)
	if strings.Count(ov, "\n") != 2 {
		t.Fatalf("--once overview split a row:\n%s", ov)
	}
}

func assertSafeText(t *testing.T, what, s string, newlines bool) {
	t.Helper()
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			t.Fatalf("%s: invalid UTF-8 at byte %d", what, i)
		case r == '\n' && newlines:
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			t.Fatalf("%s: control %U at byte %d: %q", what, r, i, s)
		case !model.IsPrintable(string(r)):
			t.Fatalf("%s: unsafe rune %U at byte %d", what, r, i)
		}
		i += n
	}
}

func TestHostileNames(t *testing.T) {
	for _, s := range []string{hostileName, "c\r ALL-GOOD   9 ✓ OK  ", "hidden\x1b[8m", "bidi\u202eexe.txt\u2066", "\xff\xfe", "表\u0301\u200d"} {
		checkHostile(t, s)
	}
}

func FuzzHostileNames(f *testing.F) {
	for _, s := range []string{hostileName, "c\r ALL-GOOD", "\u009b2J", "a\tb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 {
			s = s[:200]
		}
		checkHostile(t, s)
	})
}
