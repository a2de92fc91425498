package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// observingSource is an ObservationSource as kafka.Watcher is one: each
// poll is an observation the page builds, its topics those of the last
// poll cleared and filled again (so the page must have built the last
// before it asks for the next).
type observingSource struct {
	polls int
	obs   model.Observation
}

func (s *observingSource) Observe(context.Context) (model.Observation, error) {
	s.obs = bigObservation(s.obs.Topics, s.polls)
	s.polls++
	return s.obs, nil
}

func (s *observingSource) Poll(ctx context.Context) (model.Snapshot, error) {
	o, err := s.Observe(ctx)
	return model.NewSnapshot(o), err
}

// bigObservation is poll i of a group of 600 partitions whose commits and
// log ends move, written into topics (cleared first): from poll 4 on a
// member leaves and its partitions move to the others, and a third of
// the partitions stop committing.
func bigObservation(topics []model.TopicObservation, i int) model.Observation {
	o := model.Observation{
		TakenAt: t0.Add(time.Duration(i) * time.Second), Brokers: testBrokers, Topics: topics,
		Group: model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer", Assignor: "range"},
	}
	o.Clear()
	members := 6
	if i >= 4 {
		members = 5
	}
	for m := range members {
		o.Members = append(o.Members, model.Member{MemberID: fmt.Sprintf("member-%02d", m), ClientID: fmt.Sprintf("worker-%02d", m), Host: "/10.0.0.1"})
	}
	for p := range 600 {
		t := tp(fmt.Sprintf("events-%d", p%3), int32(p/3))
		o.Members[p%members].Partitions = append(o.Members[p%members].Partitions, t)
		moved := int64(i)
		if p%3 == 0 && i >= 4 {
			moved = 4
		}
		o.SetCommitted(t, int64(p*100)+10*moved)
		o.SetOffsets(t, model.PartitionOffsets{LogStart: 0, LogEnd: int64(p*100+(p*37)%1000) + 12*int64(i)})
	}
	return o
}

// TestPageBuildsObservationsInOneSetOfRows: a page on an
// ObservationSource builds each snapshot in the rows of the one it
// shows, and shows, poll after poll (commits moving, a member leaving,
// partitions stalling), what a page fed the same polls as snapshots
// shows.
func TestPageBuildsObservationsInOneSetOfRows(t *testing.T) {
	clkA, clkB := testutil.NewClock(t0), testutil.NewClock(t0)
	built := &observingSource{}
	a := testApp(t, built, clkA, 120, 40)
	polled := &fakeSource{}
	for i := range 12 {
		polled.results = append(polled.results, pollResult{snap: model.NewSnapshot(bigObservation(nil, i))})
	}
	b := testApp(t, polled, clkB, 120, 40)
	rows := &a.group.st.Snap.Partitions[0]
	for i := 1; i < 12; i++ {
		clkA.Set(t0.Add(time.Duration(i) * time.Second))
		clkB.Set(t0.Add(time.Duration(i) * time.Second))
		pollNow(t, a)
		pollNow(t, b)
		if got := &a.group.st.Snap.Partitions[0]; got != rows {
			t.Fatalf("poll %d: the page built its snapshot in new rows", i)
		}
		if ga, gb := plain(a), plain(b); ga != gb {
			t.Fatalf("poll %d: the page that builds shows\n%s\nthe page fed snapshots shows\n%s", i, ga, gb)
		}
	}
	if s := plain(a); !strings.Contains(s, "LAGGING: no commit") || !strings.Contains(s, "worker-05 (ember-05) left") {
		t.Fatalf("the polls show no stall or rebalance: the test proves less than it says\n%s", s)
	}
}
