package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// clockOf is the group page's clock step of the poll in flight.
func clockOf(a *App) pollClockMsg[polled] {
	return pollClockMsg[polled]{p: a.group.poll, seq: a.group.poll.seq}
}

// startPoll moves the clock to at and lets the page's pending tick start
// its next poll, which is left unanswered.
func startPoll(t *testing.T, a *App, clk *clock, at time.Time) {
	t.Helper()
	clk.Set(at)
	if _, cmd := a.Update(tickOf(a, a.group.poll.seq, 0)); cmd == nil {
		t.Fatal("the due tick started no poll")
	}
	if _, ok := a.group.poll.inFlight(); !ok {
		t.Fatal("no poll in flight after the due tick")
	}
}

// headerLine is the view's line holding want, or the whole header.
func headerLine(a *App, want string) string {
	out := plain(a)
	for _, l := range strings.Split(out, "\n")[:4] {
		if strings.Contains(l, want) {
			return l
		}
	}
	return strings.Join(strings.Split(out, "\n")[:4], "\n")
}

// While a poll goes unanswered (a frozen cluster, shorter than
// --timeout), the header's age of the data counts up every clock step,
// and once the data is three intervals old it no longer reads as
// "updated": it says no answer came. The timeline says it too, once the
// poll has waited three intervals, and the answer says how long it took.
// Before, nothing redrew the page until the answer: the header kept
// "updated 1.0s ago" and "✓ OK" through a 6s freeze.
func TestHeaderAgeCountsWhilePollUnanswered(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	a := testApp(t, src, clk, 120, 40)
	startPoll(t, a, clk, t0.Add(time.Second))

	for _, step := range []struct {
		sec  int
		want string
	}{
		{2, "updated 2.0s ago"},
		{3, "⋯ data 3.0s old"},
		{4, "⋯ data 4.0s old"},
		{6, "⋯ data 6.0s old"},
	} {
		clk.Set(t0.Add(time.Duration(step.sec) * time.Second))
		if _, cmd := a.Update(clockOf(a)); cmd == nil {
			t.Fatalf("+%ds: the clock step of the poll in flight was not re-armed", step.sec)
		}
		if l := headerLine(a, step.want); !strings.Contains(l, step.want) {
			t.Errorf("+%ds: header lacks %q:\n%s", step.sec, step.want, l)
		}
		if step.sec >= 3 && strings.Contains(plain(a), "updated") {
			t.Errorf("+%ds: data %ds old still reads as updated", step.sec, step.sec)
		}
		unanswered := strings.Contains(plain(a), "the cluster has not answered a poll for")
		if got, want := unanswered, step.sec >= 4; got != want { // the poll began at +1s
			t.Errorf("+%ds: timeline shows poll_unanswered %v, want %v", step.sec, got, want)
		}
	}

	answer := stableSnapshot()
	answer.TakenAt, answer.CompletedAt = t0.Add(time.Second), t0.Add(7*time.Second)
	clk.Set(t0.Add(7 * time.Second))
	a.Update(answerOf(a, a.group.poll.seq, answer))
	out := plain(a)
	for _, want := range []string{"updated 0.0s ago", "the cluster answered a poll after 6.00s"} {
		if !strings.Contains(out, want) {
			t.Errorf("after the answer the view lacks %q:\n%s", want, out)
		}
	}
	if _, cmd := a.Update(clockOf(a)); cmd != nil {
		t.Error("a clock step after the answer was re-armed: a second loop")
	}
}

// After a failed poll the stale mark counts every second through the
// retry's wait and through the retry itself while it goes unanswered
// (before, it jumped once per --timeout).
func TestStaleMarkTicksThroughTheRetry(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
	a := testApp(t, src, clk, 120, 40)
	startPoll(t, a, clk, t0.Add(time.Second))
	clk.Set(t0.Add(2 * time.Second))
	a.Update(pollResultMsg[polled]{p: a.group.poll, seq: a.group.poll.seq, err: errors.New("no answer within 1s"), started: t0.Add(time.Second)})
	startPoll(t, a, clk, t0.Add(2*time.Second)) // the retry: at once, the failed poll took the cap
	for sec := 3; sec <= 6; sec++ {
		clk.Set(t0.Add(time.Duration(sec) * time.Second))
		a.Update(clockOf(a))
		want := fmt.Sprintf("⚠ stale %d.0s", sec)
		if l := headerLine(a, want); !strings.Contains(l, want) {
			t.Errorf("+%ds: header lacks %q:\n%s", sec, want, l)
		}
	}
}

// The overview's header counts the same way while its poll is
// unanswered.
func TestOverviewAgeCountsWhilePollUnanswered(t *testing.T) {
	src := &fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}
	a, clk := overviewApp(t, src, &watched{}, 120, 30)
	o := a.overview
	clk.Set(t0.Add(time.Second))
	if _, cmd := a.Update(pollTickMsg[model.OverviewObservation]{p: o.poll, seq: o.poll.seq}); cmd == nil {
		t.Fatal("the due tick started no overview poll")
	}
	for _, step := range []struct {
		sec  int
		want string
	}{
		{2, "updated 2.0s ago"},
		{4, "⋯ data 4.0s old"},
	} {
		clk.Set(t0.Add(time.Duration(step.sec) * time.Second))
		if _, cmd := a.Update(pollClockMsg[model.OverviewObservation]{p: o.poll, seq: o.poll.seq}); cmd == nil {
			t.Fatalf("+%ds: the overview's clock step was not re-armed", step.sec)
		}
		if out := plain(a); !strings.Contains(out, step.want) {
			t.Errorf("+%ds: overview lacks %q:\n%s", step.sec, step.want, out)
		}
	}
}

// At every size the header says a poll is unanswered, on a line of its
// own: at 40 columns the age item does not fit the summary.
func TestUnansweredBannerAtEverySize(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}, {40, 10}} {
		clk := testutil.NewClock(t0)
		a := testApp(t, &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}, clk, size[0], size[1])
		startPoll(t, a, clk, t0.Add(time.Second))
		clk.Set(t0.Add(5 * time.Second))
		a.Update(clockOf(a))
		if l := headerLine(a, "⋯ no answer for 4.0s"); !strings.HasPrefix(l, "⋯ no answer for 4.0s") {
			t.Errorf("%dx%d: no banner line for the unanswered poll:\n%s", size[0], size[1], l)
		}
	}
}

// Another cluster on the same addresses is a banner for a minute, and
// the timeline's first line.
func TestClusterChangedBanner(t *testing.T) {
	clk := testutil.NewClock(t0)
	first := stableSnapshot()
	first.ClusterID = "cluster-a"
	other := stableSnapshot()
	other.ClusterID, other.TakenAt = "cluster-b", t0.Add(time.Second)
	a := testApp(t, &fakeSource{results: []pollResult{{snap: first}}}, clk, 120, 40)
	clk.Set(t0.Add(time.Second))
	a.Update(answerOf(a, a.group.poll.seq, other))
	clk.Set(t0.Add(13 * time.Second))
	a.Update(staleTick(a))
	want := "⚑ 12s ago: another cluster answers on the same addresses: cluster id cluster-a → cluster-b"
	if l := headerLine(a, "⚑"); !strings.HasPrefix(l, want) {
		t.Errorf("no banner %q:\n%s", want, l)
	}
	clk.Set(t0.Add(61 * time.Second))
	a.Update(staleTick(a))
	if strings.Contains(plain(a), "⚑ 1m") {
		t.Errorf("the banner outlived its minute:\n%s", plain(a))
	}
}

// Through an outage the commit ages count on from the last good poll: a
// member's "0.4s ago" and a partition's COMMIT "0.4s" read "15s" fifteen
// seconds into it (they stood at 0.4s: "0s ago" beside "⚠ stale 16s"
// read as a consumer that had just committed), and again as before once
// a poll answers.
func TestStaleCommitAgesCountOn(t *testing.T) {
	clk := testutil.NewClock(t0)
	src := &fakeSource{}
	for _, s := range story {
		src.results = append(src.results, pollResult{snap: s.snap})
	}
	last := story[len(story)-1]
	src.results = append(src.results, pollResult{err: errors.New("dial tcp 127.0.0.1:29092: connect: connection refused")}, pollResult{snap: last.snap})
	a := testApp(t, src, clk, 120, 40)
	for _, s := range story[1:] {
		clk.Set(t0.Add(s.at))
		pollNow(t, a)
	}
	memberLine := func() string {
		for _, l := range strings.Split(plain(a), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "consumer-a ") {
				return l
			}
		}
		return ""
	}
	commitCell := func() string {
		for _, l := range strings.Split(plain(a), "\n") {
			if f := strings.Fields(l); len(f) > 2 && strings.HasSuffix(f[0], "order-rebalancing") && f[1] == "0" {
				return l
			}
		}
		return ""
	}
	if l := memberLine(); !strings.Contains(l, "0.4s ago") {
		t.Fatalf("fresh: consumer-a's commit not 0.4s ago: %q", l)
	}
	clk.Set(t0.Add(last.at + 15*time.Second))
	pollNow(t, a) // fails
	a.Update(clockOf(a))
	if l := memberLine(); !strings.Contains(l, "15s ago") {
		t.Errorf("stale 15s: consumer-a's commit does not count on: %q\n%s", l, plain(a))
	}
	if l := commitCell(); !strings.Contains(l, " 15s ") {
		t.Errorf("stale 15s: p0's COMMIT does not count on: %q", l)
	}
	clk.Set(t0.Add(last.at + 16*time.Second))
	pollNow(t, a) // answers: the ages are the new poll's again
	if l := memberLine(); strings.Contains(l, "15s ago") || strings.Contains(l, "16s ago") {
		t.Errorf("fresh again: consumer-a's commit still counted on: %q", l)
	}
}
