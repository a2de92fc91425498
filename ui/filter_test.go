package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// statusPolls is how many polls statusScript takes, 5s apart.
const statusPolls = 9

// statusSnapshot is poll i (0-based, 5s apart) of a group whose partitions
// end, with a 10s stall-after, in every status but STOPPED:
//
//	orders/0  consumer-a  keeps up, lag 5                  OK
//	orders/1  consumer-a  lag grows 100 a poll              LAGGING
//	orders/2  consumer-b  commit stuck at 500               STALLED
//	orders/3  consumer-b  commit jumps back at the last poll REWOUND
//	orders/4  consumer-c  no lag                            OK
//	payments/0 nobody     commits move, lag 12              UNOWNED
//	payments/1 consumer-c oldest record deleted (retention)  OK, age "gone"
//
// consumer-d owns nothing (idle).
func statusSnapshot(i int) model.Snapshot {
	at := t0.Add(time.Duration(i) * 5 * time.Second)
	o := func(p int32) model.TopicPartition { return tp("orders", p) }
	pay := func(p int32) model.TopicPartition { return tp("payments", p) }
	n := int64(i)
	rewound := 2000 + 50*n
	if i == statusPolls-1 {
		rewound = 1500
	}
	obs := model.Observation{
		TakenAt: at,
		Brokers: testBrokers,
		Group: model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer",
			Assignor: "range", Coordinator: "127.0.0.1:29092"},
		Members: []model.Member{
			{MemberID: "consumer-a-4f1c2d9e", ClientID: "consumer-a", Host: "/10.0.0.1", Partitions: []model.TopicPartition{o(0), o(1)}},
			{MemberID: "consumer-b-9e8d7c6b", ClientID: "consumer-b", Host: "/10.0.0.2", Partitions: []model.TopicPartition{o(2), o(3)}},
			{MemberID: "consumer-c-0badf00d", ClientID: "consumer-c", Host: "/10.0.0.3", Partitions: []model.TopicPartition{o(4), pay(1)}},
			{MemberID: "consumer-d-deadbeef", ClientID: "consumer-d", Host: "/10.0.0.4"},
		},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{
			o(0): 995 + 100*n, o(1): 1000 + 100*n, o(2): 500, o(3): rewound, o(4): 700,
			pay(0): 40 + n, pay(1): 10 + 10*n,
		},
		Offsets: map[model.TopicPartition]model.PartitionOffsets{
			o(0):   {LogStart: 0, LogEnd: 1000 + 100*n},
			o(1):   {LogStart: 0, LogEnd: 1000 + 200*n},
			o(2):   {LogStart: 0, LogEnd: 600 + 10*n},
			o(3):   {LogStart: 0, LogEnd: 2100 + 50*n},
			o(4):   {LogStart: 0, LogEnd: 700},
			pay(0): {LogStart: 0, LogEnd: 52 + n},
			pay(1): {LogStart: 200, LogEnd: 300 + 10*n},
		},
		OldestTimestamp: map[model.TopicPartition]time.Time{
			o(0):   at.Add(-800 * time.Millisecond),
			o(1):   at.Add(-time.Duration(i) * 5 * time.Second),
			o(2):   t0.Add(-2*time.Minute - 4*time.Second),
			o(3):   at.Add(-3 * time.Second),
			pay(0): t0.Add(-time.Hour - 30*time.Minute),
		},
		OldestGone: map[model.TopicPartition]bool{pay(1): true},
	})
	return model.NewSnapshot(obs)
}

// statusApp runs the statusSnapshot polls through an App with a 10s
// stall-after and leaves its clock 1.5s after the last poll.
func statusApp(t testing.TB, w, h int, noColor bool) *App {
	t.Helper()
	clk := testutil.NewClock(t0)
	var polls []pollResult
	for i := range statusPolls {
		polls = append(polls, pollResult{snap: statusSnapshot(i)})
	}
	src := &fakeSource{results: polls}
	a := New(Watch{Group: "order-workers", Source: src}, Options{
		Brokers: testBrokers, Interval: 5 * time.Second, Timeout: time.Second,
		Now: clk.Now, NoColor: noColor, Judging: model.Judging{StallAfter: 10 * time.Second},
	})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	feed(t, a, a.Init())
	for i := 1; i < statusPolls; i++ {
		clk.Set(t0.Add(time.Duration(i) * 5 * time.Second))
		pollNow(t, a)
	}
	clk.Set(clk.Now().Add(1500 * time.Millisecond))
	a.Update(staleTick(a)) // a stale tick: refreshes the clock only
	return a
}

// typeKeys sends each key of keys; "enter" and "esc" are named, anything
// else is typed rune by rune.
func typeKeys(a *App, keys ...string) {
	for _, k := range keys {
		switch k {
		case "enter":
			a.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
		case "esc":
			a.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
		case "backspace":
			a.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
		default:
			for _, r := range k {
				a.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
		}
	}
}

var viewScripts = []struct {
	name string
	keys []string
}{
	{"sort_lag", nil},
	{"sort_lag_age", []string{"o"}},
	{"sort_partition", []string{"o", "o"}},
	{"sort_owner", []string{"o", "o", "o"}},
	{"filter_typing", []string{"/", "stall"}},
	{"filter_applied", []string{"/", "consumer-b", "enter"}},
	{"only_lag", []string{"l"}},
	{"only_lag_filter", []string{"l", "/", "orders", "enter", "o", "o"}},
}

func TestGoldenViews(t *testing.T) {
	for _, sc := range viewScripts {
		for _, sz := range [][2]int{{120, 40}, {80, 24}} {
			t.Run(fmt.Sprintf("%s_%dx%d", sc.name, sz[0], sz[1]), func(t *testing.T) {
				a := statusApp(t, sz[0], sz[1], false)
				typeKeys(a, sc.keys...)
				out := plain(a)
				checkFits(t, out, sz[0], sz[1])
				golden.RequireEqual(t, out)
			})
		}
	}
}

// rowOrder lists the partitions of the table rows on screen, in order.
func rowOrder(a *App) []string {
	var out []string
	for i := range a.group.table.rows {
		out = append(out, partName(a.group.table.rows[i].TopicPartition))
	}
	return out
}

func TestStatusesSortFilterOnlyLag(t *testing.T) {
	a := statusApp(t, 120, 40, false)
	want := map[string]model.Status{
		"orders/0": model.StatusOK, "orders/1": model.StatusLagging, "orders/2": model.StatusStalled,
		"orders/3": model.StatusRewound, "orders/4": model.StatusOK, "payments/0": model.StatusUnowned,
		// Its oldest unprocessed record deleted by retention: behind it.
		"payments/1": model.StatusLagging,
	}
	for _, p := range a.group.st.Snap.Partitions {
		if got := p.Status; got != want[partName(p.TopicPartition)] {
			t.Errorf("%s: status %s, want %s", partName(p.TopicPartition), got, want[partName(p.TopicPartition)])
		}
	}
	if w := a.group.st.Snap.WorstPartition; !a.group.st.Snap.HasWorst || partName(w) != "orders/3" {
		t.Errorf("worst partition %v, want orders/3 (REWOUND)", w)
	}
	out := plain(a)
	for _, s := range []string{"worst: orders/3 consumer-b", "↺ REWOUND", "▮ STALLED", "▴ LAGGING", "? UNOWNED",
		"2m44s", "gone", "1h30m", "none · idle", "consume ", " vs produce ", "sort: lag"} {
		if !strings.Contains(out, s) {
			t.Errorf("view lacks %q:\n%s", s, out)
		}
	}

	orders := []struct {
		key  string
		want string
	}{
		{"", "orders/3 orders/1 payments/1 orders/2 payments/0 orders/0 orders/4"},
		{"o", "payments/1 payments/0 orders/2 orders/1 orders/3 orders/0 orders/4"},
		{"o", "orders/0 orders/1 orders/2 orders/3 orders/4 payments/0 payments/1"},
		{"o", "orders/0 orders/1 orders/2 orders/3 orders/4 payments/1 payments/0"},
		{"o", "orders/3 orders/1 payments/1 orders/2 payments/0 orders/0 orders/4"},
	}
	for _, o := range orders {
		typeKeys(a, o.key)
		if got := strings.Join(rowOrder(a), " "); got != o.want {
			t.Errorf("after %q sort %s: rows %s, want %s", o.key, a.group.rows.sort, got, o.want)
		}
	}

	// The cursor follows its partition across re-sorts.
	a.Update(keyPress("j"))
	sel, _ := a.group.table.Selected()
	typeKeys(a, "o")
	if now, _ := a.group.table.Selected(); now.TopicPartition != sel.TopicPartition {
		t.Errorf("selection moved from %v to %v on re-sort", sel.TopicPartition, now.TopicPartition)
	}
	typeKeys(a, "o", "o", "o") // back to lag

	// While the filter input is open, keys are text: q does not quit, o
	// does not sort, j does not move.
	typeKeys(a, "/")
	for _, k := range []string{"q", "o", "j", "l"} {
		_, cmd := a.Update(keyPress(k))
		if cmd != nil {
			if _, quit := cmd().(tea.QuitMsg); quit {
				t.Fatalf("%q quit while the filter input was open", k)
			}
		}
	}
	if a.group.rows.sort != model.SortByLag || a.group.rows.onlyLag || a.group.rows.draft() != "qojl" {
		t.Errorf("keys leaked out of the filter input: sort %s only-lag %v draft %q", a.group.rows.sort, a.group.rows.onlyLag, a.group.rows.draft())
	}
	typeKeys(a, "esc")
	if a.group.rows.editing || a.group.rows.query != "" || a.group.table.Len() != 7 {
		t.Errorf("esc: editing %v query %q rows %d", a.group.rows.editing, a.group.rows.query, a.group.table.Len())
	}
	typeKeys(a, "/", "stall", "enter")
	if got := strings.Join(rowOrder(a), " "); got != "orders/2" {
		t.Errorf("filter stall: rows %s", got)
	}
	if !strings.Contains(plain(a), "Partitions 1 of 7") {
		t.Errorf("filtered title:\n%s", plain(a))
	}
	typeKeys(a, "/", "backspace", "backspace", "backspace", "backspace", "backspace", "consumer-c payments", "enter")
	if got := strings.Join(rowOrder(a), " "); got != "payments/1" {
		t.Errorf("filter %q: rows %s", a.group.rows.query, got)
	}
	typeKeys(a, "esc") // esc outside the input clears the filter too
	typeKeys(a, "l")
	if got := len(rowOrder(a)); got != 6 {
		t.Errorf("only lag: %d rows %v, want 6 (orders/4 has none)", got, rowOrder(a))
	}
	typeKeys(a, "l")
	if got := len(rowOrder(a)); got != 7 {
		t.Errorf("only lag off: %d rows", got)
	}

	// The next poll keeps the view.
	typeKeys(a, "l", "o")
	a.group.st.Now = a.group.st.Now.Add(5 * time.Second)
	a.group.applySnapshot(statusSnapshot(statusPolls))
	if a.group.rows.sort != model.SortByLagAge || !a.group.rows.onlyLag || a.group.table.Len() != 6 {
		t.Errorf("after a poll: sort %s only-lag %v rows %d", a.group.rows.sort, a.group.rows.onlyLag, a.group.table.Len())
	}
}

func TestStatusWordsWithoutColour(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		a := statusApp(t, sz[0], sz[1], true)
		out := a.View().Content
		if loc := colourSGR.FindStringIndex(out); loc != nil {
			t.Errorf("NO_COLOR view has a colour sequence %q", out[loc[0]:loc[1]])
		}
		for _, w := range []string{"✓ OK", "▴ LAGGING", "▮ STALLED", "↺ REWOUND", "? UNOWNED", "worst:"} {
			if !strings.Contains(out, w) {
				t.Errorf("%dx%d NO_COLOR view lacks %q:\n%s", sz[0], sz[1], w, out)
			}
		}
	}
}

func TestStoppedGroup(t *testing.T) {
	a, _ := buildState(t, []pollResult{{snap: emptySnapshot()}}, 120, 40)
	out := plain(a)
	for _, w := range []string{"⊘ STOPPED", "worst: payments/3 unowned 43 behind, 15m00s old, ⊘ STOPPED"} {
		if !strings.Contains(out, w) {
			t.Errorf("empty group view lacks %q:\n%s", w, out)
		}
	}
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		in   []int64
		w    int
		want string
	}{
		{[]int64{0, 0, 0}, 10, "▁▁▁"},
		{[]int64{1, 1, 1, 1}, 10, "▂▂▂▂"}, // steady lag in flight: a flat low line
		{[]int64{0, 7, 14}, 10, "▁▂▃"},    // one level a decade
		{[]int64{1, 1000}, 10, "▂▅"},
		{[]int64{5, 1, 2, 3}, 2, "▂▂"}, // the last w points
		{[]int64{10_000_000, 1 << 62}, 5, "██"},
		{nil, 5, ""},
	}
	for _, tt := range tests {
		if got := sparkline(tt.in, tt.w); got != tt.want {
			t.Errorf("sparkline(%v, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
	}
}

func TestDurAndRateText(t *testing.T) {
	durs := map[time.Duration]string{0: "0s", 300 * time.Millisecond: "0.3s", 12 * time.Second: "12s",
		124 * time.Second: "2m04s", 3*time.Hour + 5*time.Minute: "3h05m", 50 * time.Hour: "2d02h"}
	for d, want := range durs {
		if got := model.Age(d); got != want {
			t.Errorf("model.Age(%v) = %q, want %q", d, got, want)
		}
	}
	rates := map[float64]string{0: "0", 0.44: "0.4", 12.4: "12", 1234: "1.2k", 35_000: "35k", 1_250_000: "1.2M"}
	for r, want := range rates {
		if got := rateNum(model.Rate{PerSec: r, Known: true}); got != want {
			t.Errorf("rateNum(%v) = %q, want %q", r, got, want)
		}
	}
	if got := rateNum(model.Rate{}); got != "-" {
		t.Errorf("unknown rate = %q", got)
	}
}

// BenchmarkView10kSortFilter renders a 10,000-partition table sorted by
// lag age, with only-lag on and a filter matching a third of the rows.
func BenchmarkView10kSortFilter(b *testing.B) {
	a, _ := buildState(b, []pollResult{{snap: bigSnapshot(10000)}}, 120, 40)
	typeKeys(a, "o", "l", "/", "events-1", "enter")
	if n := a.group.table.Len(); n < 3000 || n > 3400 {
		b.Fatalf("%d rows after the filter, want a third", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = a.View()
	}
}

// BenchmarkApply10kSortFilter takes one poll of 10,000 partitions with the
// same view: statuses and rates (History.Annotate), the timeline tracker,
// filter and sort, layout.
func BenchmarkApply10kSortFilter(b *testing.B) {
	a, _ := buildState(b, []pollResult{{snap: bigSnapshot(10000)}}, 120, 40)
	typeKeys(a, "o", "l", "/", "events-1", "enter")
	snap := bigSnapshot(10000)
	b.ReportAllocs()
	for b.Loop() {
		a.group.applySnapshot(snap)
		a.group.relayout()
	}
}

func TestHeaderETAAndFallingBehind(t *testing.T) {
	s := stableSnapshot()
	s.ConsumeRate = model.Rate{PerSec: 120, Known: true}
	s.ProduceRate = model.Rate{PerSec: 80, Known: true}
	s.ETA, s.ETAKnown = 124*time.Second, true
	s.TotalLagHistory = []int64{0, 100, 527}
	h := NewHeader(NewStyles(true))
	h.SetSize(120, 2)
	h.SetState(WatchState{Group: "order-workers", Snap: s, HasSnap: true, LastGood: t0, Now: t0})
	out := h.View()
	for _, w := range []string{"consume 120/s vs produce 80/s", "zero lag in 2m04s", "lag 527* ▁▄▄"} {
		if !strings.Contains(out, w) {
			t.Errorf("header lacks %q:\n%s", w, out)
		}
	}
	s.ETAKnown, s.FallingBehind = false, true
	h.SetState(WatchState{Group: "order-workers", Snap: s, HasSnap: true, LastGood: t0, Now: t0})
	if out := h.View(); !strings.Contains(out, "falling behind") || strings.Contains(out, "zero lag in") {
		t.Errorf("falling behind header:\n%s", out)
	}
}

// TestNarrowTableNamesTheOnlyTopicOnce: at 40 columns, when every row has
// the same topic, the title names it and the rows keep the status words
// instead of repeating the topic.
func TestNarrowTableNamesTheOnlyTopicOnce(t *testing.T) {
	a := statusApp(t, 40, 10, false)
	if out := plain(a); !strings.Contains(out, "TOPIC") {
		t.Fatalf("two topics, 40 columns: no TOPIC column:\n%s", out)
	}
	typeKeys(a, "/", "orders", "enter")
	out := plain(a)
	checkFits(t, out, 40, 10)
	for _, w := range []string{"Partitions 5 of 7 in orders", "↺ REWOUND", "▴ LAGGING"} {
		if !strings.Contains(out, w) {
			t.Errorf("one topic, 40 columns: lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "TOPIC") {
		t.Errorf("one topic, 40 columns: TOPIC column still there:\n%s", out)
	}
}

// The filter is a text input: a paste lands at the cursor, home and the
// arrows move it, ctrl+w deletes a word, and the input line draws the
// cursor where typing goes.
func TestFilterPasteCursorAndWords(t *testing.T) {
	a := statusApp(t, 120, 40, false)
	typeKeys(a, "/")
	a.Update(tea.PasteMsg{Content: "stall"})
	typeKeys(a, "enter")
	if got := strings.Join(rowOrder(a), " "); got != "orders/2" || a.group.rows.query != "stall" {
		t.Fatalf("pasted stall: query %q rows %s, want orders/2", a.group.rows.query, got)
	}

	typeKeys(a, "esc", "/", "tal")
	a.Update(tea.KeyPressMsg{Code: tea.KeyHome})
	typeKeys(a, "s")
	a.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
	typeKeys(a, "l")
	a.Update(tea.KeyPressMsg{Code: tea.KeyLeft})
	if out := plain(a); !strings.Contains(out, "filter / stal"+glyphInputCursor+"l") {
		t.Errorf("the cursor is not drawn before the last l:\n%s", out)
	}
	typeKeys(a, "enter")
	if got := strings.Join(rowOrder(a), " "); got != "orders/2" || a.group.rows.query != "stall" {
		t.Fatalf("tal, home, s, end, l: query %q rows %s, want stall → orders/2", a.group.rows.query, got)
	}

	typeKeys(a, "esc", "/", "consumer-c payments")
	a.Update(tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl})
	typeKeys(a, "enter")
	if got := strings.Join(rowOrder(a), " "); got != "payments/1 orders/4" || a.group.rows.query != "consumer-c" {
		t.Fatalf("ctrl+w after consumer-c payments: query %q rows %s, want consumer-c's payments/1 orders/4", a.group.rows.query, got)
	}
}

// A pasted escape sequence, control, format or bidi character never
// reaches the terminal, in the input line or in the title once applied;
// what is printable of it is kept.
func TestFilterHostilePaste(t *testing.T) {
	a := statusApp(t, 120, 40, false)
	typeKeys(a, "/", "or")
	a.Update(tea.PasteMsg{Content: hostileName + "\u202e\u2066\t\r\n\u009b2J"})
	if d := a.group.rows.draft(); !model.IsPrintable(d) || !strings.HasPrefix(d, "orevil]0;PWNED") {
		t.Errorf("draft after a hostile paste: %q, want printable, starting orevil]0;PWNED", d)
	}
	for _, stage := range []string{"typing", "applied"} {
		raw := a.View().Content
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\x1b[?1049l", "\x1b[1;1H", "\r", "\u202e", "\u2066", "\u009b"} {
			if strings.Contains(raw, bad) {
				t.Errorf("%s: the pasted %q reached the screen", stage, bad)
			}
		}
		typeKeys(a, "enter")
	}
	if q := a.group.rows.query; !model.IsPrintable(q) || !strings.Contains(plain(a), "filter \"orevil]0;PWNED") {
		t.Errorf("applied query %q, or the title does not show it:\n%s", q, plain(a))
	}
}
