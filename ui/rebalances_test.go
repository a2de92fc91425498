package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// crashLoopSnap is order-workers at 20s·cycle+at: consumer-b crash-loops,
// each cycle a 2s eager rebalance from which it comes back under a new
// member id (b-1, b-2 …) owning p2.
func crashLoopSnap(cycle int, at time.Duration, state string) model.Snapshot {
	obs := model.Observation{
		TakenAt: t0.Add(time.Duration(cycle)*20*time.Second + at),
		Brokers: testBrokers,
		Group:   model.Group{ID: "order-workers", State: state, Type: model.TypeClassic, ProtocolType: "consumer", Assignor: "range"},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{},
		Offsets:   map[model.TopicPartition]model.PartitionOffsets{},
	})
	a := model.Member{MemberID: "a-0", ClientID: "consumer-a", Host: "/127.0.0.1"}
	b := model.Member{MemberID: fmt.Sprintf("b-%d", cycle), ClientID: "consumer-b", Host: "/127.0.0.1"}
	if state == model.StateStable {
		a.Partitions = []model.TopicPartition{tp(storyTopic, 0), tp(storyTopic, 1)}
		b.Partitions = []model.TopicPartition{tp(storyTopic, 2)}
	}
	obs.Members = []model.Member{a, b}
	for p := range int32(3) {
		obs.SetCommitted(tp(storyTopic, p), 1000)
		obs.SetOffsets(tp(storyTopic, p), model.PartitionOffsets{LogEnd: 1000})
	}
	return model.NewSnapshot(obs)
}

// crashLoopApp watches seven cycles of crashLoopSnap with
// --max-rebalances 5, at w×h.
func crashLoopApp(t *testing.T, w, h int) *App {
	t.Helper()
	clk := testutil.NewClock(t0)
	src := &fakeSource{results: []pollResult{{snap: crashLoopSnap(0, 0, model.StateStable)}}}
	for c := range 7 {
		src.results = append(src.results,
			pollResult{snap: crashLoopSnap(c, 5*time.Second, model.StatePreparingRebalance)},
			pollResult{snap: crashLoopSnap(c+1, -13*time.Second, model.StateStable)}) // 20(c+1)−13 = 20c+7
	}
	a := New(Watch{Group: "order-workers", Source: src}, Options{
		Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now, Judging: model.Judging{MaxRebalances: 5},
	})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	feed(t, a, a.Init())
	for c := range 7 {
		for _, at := range []time.Duration{5 * time.Second, 7 * time.Second} {
			clk.Set(t0.Add(time.Duration(c)*20*time.Second + at))
			pollNow(t, a)
		}
	}
	clk.Set(t0.Add(6*20*time.Second + 8*time.Second))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a
}

// The header counts the rebalances of the last 10 minutes and the
// partition-time they stopped (7 × 2s × 3 partitions, eager), marked ≋
// past --max-rebalances; narrower, the stopped time gives way, then the
// count; the timeline says when the storm began.
func TestHeaderRebalanceCount(t *testing.T) {
	for _, tt := range []struct {
		w, h      int
		want, not []string
	}{
		{120, 40, []string{"· ≋ 7 rebalances/10m · 42s stopped\n", "≋ rebalance storm: 6 rebalances in the last 10m, more than --max-rebalances 5"}, nil},
		{80, 24, []string{"≋ 7 rebalances/10m"}, nil},
		// A storm is an alarm: it keeps its place even at 40 columns.
		{40, 10, []string{"≋ 7 rebalances/10m"}, []string{"stopped"}},
	} {
		t.Run(fmt.Sprintf("%dx%d", tt.w, tt.h), func(t *testing.T) {
			a := crashLoopApp(t, tt.w, tt.h)
			out := plain(a)
			checkFits(t, out, tt.w, tt.h)
			header := strings.Join(strings.SplitN(out, "\n", 4)[:3], "\n")
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %q in\n%s", w, out)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(header, w) {
					t.Errorf("%q in the header at %dx%d, which cannot hold it:\n%s", w, tt.w, tt.h, header)
				}
			}
		})
	}
}
