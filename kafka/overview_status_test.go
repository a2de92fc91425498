package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// findGroup returns group id's summary.
func findGroup(t *testing.T, gs []model.GroupSummary, id string) model.GroupSummary {
	t.Helper()
	for _, g := range gs {
		if g.ID == id {
			return g
		}
	}
	t.Fatalf("group %s not in the overview: %+v", id, gs)
	return model.GroupSummary{}
}

// sameAsGroupView checks that the overview's summary of a group says what
// Watcher.Poll's snapshot of it says: total and max lag, the partitions
// counted from the log start, the oldest lag's age (within a few seconds:
// two polls, two moments).
func sameAsGroupView(t *testing.T, tc *testCluster, g model.GroupSummary) model.Snapshot {
	t.Helper()
	s, err := newTestWatcher(t, tc, g.ID).Poll(context.Background())
	if err != nil {
		t.Fatalf("poll %s: %v", g.ID, err)
	}
	from := 0
	for _, p := range s.Partitions {
		if p.LagFromStart && p.LogEnd >= 0 {
			from++
		}
	}
	near := s.MaxLagAge-g.MaxLagAge < 3*time.Second && g.MaxLagAge-s.MaxLagAge < 3*time.Second
	if g.TotalLag != s.TotalLag || g.MaxLag != s.MaxLag || g.FromStartPartitions != from || g.LagFromStart != (from > 0) ||
		g.Partitions != len(s.Partitions) || g.MaxLagAgeKnown != s.MaxLagAgeKnown || !near {
		t.Errorf("group %s: overview total %d max %d from start %d (%v) rows %d age %v (%v); group view total %d max %d from start %d rows %d age %v (%v)",
			g.ID, g.TotalLag, g.MaxLag, g.FromStartPartitions, g.LagFromStart, g.Partitions, g.MaxLagAge, g.MaxLagAgeKnown,
			s.TotalLag, s.MaxLag, from, len(s.Partitions), s.MaxLagAge, s.MaxLagAgeKnown)
	}
	return s
}

// earliestPartitions records the partitions ListOffsets asks the log
// start of (timestamp -2), until reset.
type earliestPartitions struct {
	mu  sync.Mutex
	tps []string
	n   int // such requests
}

func (e *earliestPartitions) watch(tc *testCluster) {
	tc.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		e.mu.Lock()
		defer e.mu.Unlock()
		asked := false
		for _, t := range req.(*kmsg.ListOffsetsRequest).Topics {
			for _, p := range t.Partitions {
				if p.Timestamp == -2 {
					e.tps = append(e.tps, fmt.Sprintf("%s/%d", t.Topic, p.Partition))
					asked = true
				}
			}
		}
		if asked {
			e.n++
		}
		return nil, nil, false
	})
}

func (e *earliestPartitions) take() (tps []string, requests int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	tps, requests = e.tps, e.n
	e.tps, e.n = nil, 0
	sort.Strings(tps)
	return tps, requests
}

// A group that owns partitions and never committed: the overview counts
// its lag from the log start as the group view does (total = Watcher.Poll's
// TotalLag), flags it in both, marks it 60* in the table; a group that
// committed some partitions only counts the others from the log start.
// The log starts are asked once per leader, for those partitions only.
func TestOverviewNeverCommitted(t *testing.T) {
	bothVersions(t, func(t *testing.T, tc *testCluster) {
		tc.createTopic(t, "payments", 2)
		tc.createTopic(t, "orders", 3)
		old := time.Now().Add(-2 * time.Minute)
		tc.produceEach(t, "payments", 2, 30, old)
		tc.produceEach(t, "orders", 3, 20, old)
		tc.deleteRecords(t, "orders", 2, 5) // log start 5: lag from start 15

		fresh := tc.joinGroup(t, "fresh", "consumer-f", "payments")
		half := tc.joinGroup(t, "half", "consumer-h", "orders")
		waitAssigned(t, 2, fresh)
		gen := waitAssigned(t, 3, half)[0]
		if err := gen.CommitOffsets(map[string]map[int]int64{"orders": {0: 10}}); err != nil {
			t.Fatalf("commit: %v", err)
		}
		var early earliestPartitions
		early.watch(tc)
		o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
		defer o.Close()
		var gs []model.GroupSummary
		waitFor(t, 10*time.Second, "both groups Stable with their partitions", func() bool {
			gs = overviewOnce(t, o)
			return len(gs) == 2 && gs[0].Partitions+gs[1].Partitions == 5 && gs[0].State == model.StateStable && gs[1].State == model.StateStable
		}, func() string { return fmt.Sprintf("%+v", gs) })
		early.take()
		gs = overviewOnce(t, o)
		tps, requests := early.take()
		if want := "orders/1 orders/2 payments/0 payments/1"; strings.Join(tps, " ") != want || requests > 3 {
			t.Errorf("log starts asked of %v in %d requests, want %s (no commit) in at most one per leader", tps, requests, want)
		}

		f, h := findGroup(t, gs, "fresh"), findGroup(t, gs, "half")
		if f.TotalLag != 60 || !f.LagFromStart || f.FromStartPartitions != 2 || f.Committed != 0 {
			t.Errorf("fresh: %+v, want total 60 from the log start over 2 partitions", f)
		}
		if h.TotalLag != 10+20+15 || !h.LagFromStart || h.FromStartPartitions != 2 || h.Committed != 1 {
			t.Errorf("half: %+v, want 10 + 20 + 15 (p1 and p2 from the log start)", h)
		}
		for _, g := range []model.GroupSummary{f, h} {
			// Records 2 minutes old, never committed: LAGGING from the
			// first poll (model.History.lagging).
			if !g.MaxLagAgeKnown || g.MaxLagAge < 2*time.Minute-5*time.Second || g.Status != model.StatusLagging {
				t.Errorf("%s: age %v (known %v), status %s: want about 2m, LAGGING", g.ID, g.MaxLagAge, g.MaxLagAgeKnown, g.Status)
			}
			s := sameAsGroupView(t, tc, g)
			if out := model.FormatTable(s); !strings.Contains(out, model.LagFromStartNote) {
				t.Errorf("%s: the group's --once table lacks the footnote:\n%s", g.ID, out)
			}
		}
		out := model.FormatOverview(gs)
		if !strings.Contains(out, " 60* ") || !strings.Contains(out, " 45* ") || !strings.HasSuffix(out, model.LagFromStartNote+"\n") {
			t.Errorf("overview table does not mark the totals:\n%s", out)
		}
		b, err := model.MarshalJSONOverview(gs)
		if err != nil || strings.Count(string(b), `"lag_from_start": true`) != 2 {
			t.Errorf("JSON (%v) does not flag both:\n%s", err, b)
		}
	})
}

// A consumer-protocol group (KIP-848) that never commits: its current
// assignments are its rows, counted from the log start, as its group view.
func TestOverviewNeverCommittedConsumerProtocol(t *testing.T) {
	tc := newTestCluster(t, true, fast848())
	tc.createTopic(t, "orders", 3)
	tc.produceEach(t, "orders", 3, 20, time.Now().Add(-time.Minute))
	tc.consumer848(t, "kip848", "consumer-a", []string{"orders"}, kgo.DisableAutoCommit())
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	var g model.GroupSummary
	waitFor(t, 15*time.Second, "the consumer group owning its 3 partitions", func() bool {
		gs := overviewOnce(t, o)
		if len(gs) != 1 {
			return false
		}
		g = gs[0]
		return g.State == model.StateStable && g.Partitions == 3
	}, func() string { return fmt.Sprintf("%+v", g) })
	if g.TotalLag != 60 || !g.LagFromStart || g.FromStartPartitions != 3 || g.Type != model.TypeConsumer || g.ProtocolType != "consumer" {
		t.Errorf("%+v: want a consumer group (protocol type consumer), 60 from the log start over 3 partitions", g)
	}
	sameAsGroupView(t, tc, g)
	if r := tc.refusals(); len(r) > 0 {
		t.Fatalf("requests refused by Kafka 4.0: %v", r)
	}
}

// The overview judges groups poll after poll: STOPPED (empty with lag),
// UNOWNED (lag on a partition no member of a stable group owns) and
// LAGGING (records waiting a minute) from the first poll, as --once shows
// them; STALLED once a lagging commit has not
// moved for --stall-after; LAGGING while lag grows faster than commits
// advance; OK when caught up; the group in trouble first.
func TestOverviewStatuses(t *testing.T) {
	tc := newTestCluster(t, false)
	for _, topic := range []string{"orders", "payments", "stuck", "busy", "calm"} {
		tc.createTopic(t, topic, 1)
	}
	old := time.Now().Add(-time.Minute)
	for _, topic := range []string{"orders", "payments", "stuck", "busy", "calm"} {
		tc.produce(t, topic, 0, 20, old)
	}
	tc.commit(t, "stopped", "orders", map[int]int64{0: 5})
	commitAs := func(m *groupMember, offsets map[string]map[int]int64) {
		t.Helper()
		if err := waitAssigned(t, 1, m)[0].CommitOffsets(offsets); err != nil {
			t.Fatalf("commit: %v", err)
		}
	}
	unowned := tc.joinGroup(t, "unowned", "consumer-u", "payments")
	commitAs(unowned, map[string]map[int]int64{"payments": {0: 20}, "orders": {0: 3}}) // orders: nobody's
	stuck := tc.joinGroup(t, "stalled", "consumer-s", "stuck")
	commitAs(stuck, map[string]map[int]int64{"stuck": {0: 2}})
	calm := tc.joinGroup(t, "calm", "consumer-c", "calm")
	commitAs(calm, map[string]map[int]int64{"calm": {0: 20}})
	busy := tc.joinGroup(t, "lagging", "consumer-b", "busy")
	busyGen := waitAssigned(t, 1, busy)[0]
	busyAt := int64(0)
	commitBusy := func() {
		busyAt++
		if err := busyGen.CommitOffsets(map[string]map[int]int64{"busy": {0: busyAt}}); err != nil {
			t.Fatalf("commit busy: %v", err)
		}
	}
	commitBusy()

	statuses := func(gs []model.GroupSummary) string {
		var out []string
		for _, g := range gs {
			out = append(out, g.ID+":"+string(g.Status))
		}
		return strings.Join(out, " ")
	}
	// One poll, as --once: what a single poll can tell.
	once := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	gs := overviewOnce(t, once)
	once.Close()
	// Records a minute old waiting on an owned partition are LAGGING
	// from the first poll (a stall needs --stall-after of watching).
	if got, want := statuses(gs), "stopped:STOPPED unowned:UNOWNED lagging:LAGGING stalled:LAGGING calm:OK"; got != want {
		t.Errorf("one poll: %s, want %s", got, want)
	}

	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	o.pipe = model.NewOverviewPipeline(model.OverviewPipelineOptions{History: model.HistoryOptions{StallAfter: 2 * time.Second}})
	start := time.Now()
	// unowned's lag nobody owns, its commit unmoved for --stall-after,
	// is STALLED by then, the worse (as in the group view); stalled
	// sorts before it with more lag of the same age.
	want := "stopped:STOPPED stalled:STALLED unowned:STALLED lagging:LAGGING calm:OK"
	waitFor(t, 15*time.Second, want, func() bool {
		// busy: 10 records a poll, a minute old, consumed 1 a poll.
		tc.produce(t, "busy", 0, 10, old)
		commitBusy()
		gs = overviewOnce(t, o)
		return statuses(gs) == want
	}, func() string { return statuses(gs) })
	if d := time.Since(start); d < 2*time.Second {
		t.Errorf("STALLED after %s, before --stall-after 2s", d)
	}
	t.Logf("all statuses told after %s", time.Since(start))
	b, err := model.MarshalJSONOverview(gs)
	if err != nil || !strings.Contains(string(b), `"status": "STALLED"`) || !strings.Contains(string(b), `"max_lag_age_ms": `) {
		t.Errorf("JSON (%v):\n%s", err, b)
	}
}

// Groups waiting at different offsets of the same partitions: one Fetch
// per leader reads all their records (retention having deleted some: a
// few rounds), each group's max lag age is its own and the group view's,
// and a warm poll fetches nothing until a commit moves, then only at its
// leader.
func TestOverviewLagAges(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 3)
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i := 0; i < 10; i++ { // record i written at base + i minutes
		for p := 0; p < 3; p++ {
			tc.produce(t, "orders", p, 1, base.Add(time.Duration(i)*time.Minute))
		}
	}
	for k := 0; k < 5; k++ {
		off := int64(2 * k)
		tc.commit(t, fmt.Sprintf("g%d", k), "orders", map[int]int64{0: off, 1: off, 2: off})
	}
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	ageOf := func(gs []model.GroupSummary, k int) time.Duration {
		g := findGroup(t, gs, fmt.Sprintf("g%d", k))
		if !g.MaxLagAgeKnown {
			t.Fatalf("g%d: max lag age unknown: %+v", k, g)
		}
		return g.MaxLagAge
	}
	check := func(gs []model.GroupSummary, oldest func(k int) int) {
		t.Helper()
		for k := 0; k < 5; k++ {
			want := time.Since(base.Add(time.Duration(oldest(k)) * time.Minute))
			if got := ageOf(gs, k); got > want+5*time.Second || got < want-5*time.Second {
				t.Errorf("g%d: max lag age %v, want about %v", k, got, want)
			}
		}
	}
	tc.resetCounts()
	gs := overviewOnce(t, o)
	if n := tc.requestCounts()["Fetch"]; n != 3 {
		t.Errorf("cold: %d Fetch, want 3 (one per leader, all five offsets in one answer)", n)
	}
	check(gs, func(k int) int { return 2 * k })
	for _, g := range gs {
		sameAsGroupView(t, tc, g)
	}

	tc.resetCounts()
	overviewOnce(t, o)
	if n := tc.requestCounts()["Fetch"]; n != 0 {
		t.Errorf("warm, no commit moved: %d Fetch, want 0", n)
	}
	tc.commit(t, "g0", "orders", map[int]int64{0: 1})
	tc.resetCounts()
	gs = overviewOnce(t, o)
	if n := tc.requestCounts()["Fetch"]; n != 1 {
		t.Errorf("after g0 moved on orders/0: %d Fetch, want 1 (its leader)", n)
	}
	check(gs, func(k int) int { return 2 * k }) // g0's p1 and p2 still wait at 0

	// Retention deletes records below 3 on orders/1: g0's and g1's
	// records there are gone (no age), the others are read in the rounds
	// after (the fetch at a deleted offset brings no records).
	tc.deleteRecords(t, "orders", 1, 3)
	tc.commit(t, "g2", "orders", map[int]int64{1: 5}) // a fresh read on orders/1
	tc.resetCounts()
	gs = overviewOnce(t, o)
	if n := tc.requestCounts()["Fetch"]; n > 3 {
		t.Errorf("%d Fetch after retention, want at most %d rounds", n, overviewFetchRounds)
	}
	check(gs, func(k int) int { return 2 * k })
	for _, g := range gs {
		sameAsGroupView(t, tc, g)
	}
	if r := tc.refusals(); len(r) > 0 {
		t.Fatalf("requests refused by Kafka 4.0: %v", r)
	}
}

// 1,000 groups waiting at 50 offsets of each partition: under 40 requests
// cold (as --once) and warm, every group's lag age read.
func TestOverviewThousandGroupsSpread(t *testing.T) {
	tc := spreadGroups(t)
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 10 * time.Second}))
	defer o.Close()
	total := func(c map[string]int) int {
		n := 0
		for _, v := range c {
			n += v
		}
		return n
	}
	tc.resetCounts()
	gs := overviewOnce(t, o)
	cold := tc.requestCounts()
	tc.resetCounts()
	overviewOnce(t, o)
	warm := tc.requestCounts()
	t.Logf("1,000 groups at 50 offsets a partition: cold %d %v; warm %d %v", total(cold), cold, total(warm), warm)
	if total(cold) >= 40 || total(warm) >= 40 || warm["Fetch"] != 0 {
		t.Errorf("cold %d, warm %d requests (warm Fetch %d): want under 40, no Fetch warm", total(cold), total(warm), warm["Fetch"])
	}
	for _, g := range gs {
		if !g.MaxLagAgeKnown || g.MaxLagAge < time.Minute || g.Status != model.StatusStopped {
			t.Fatalf("group %+v: want a lag age over a minute, STOPPED", g)
		}
	}
	// 100 groups commit on: their new records are read, one Fetch per
	// leader.
	tc.commitGroups(t, groupNames(100), "orders", map[int32]int64{0: 55, 1: 55, 2: 55, 3: 55, 4: 55, 5: 55})
	tc.resetCounts()
	overviewOnce(t, o)
	moved := tc.requestCounts()
	t.Logf("after 100 groups committed: %d %v", total(moved), moved)
	if total(moved) >= 40 || moved["Fetch"] != 3 {
		t.Errorf("after 100 groups committed: %d requests, %d Fetch: want under 40, one Fetch per leader", total(moved), moved["Fetch"])
	}
}
