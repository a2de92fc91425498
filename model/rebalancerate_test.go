package model

import (
	"fmt"
	"testing"
	"time"
)

// crashLoop is a classic eager group of six partitions whose consumer-c
// crashes and comes back every every, from offset on, cycles times: each
// time the group rebalances for took (PreparingRebalance, then
// CompletingRebalance for its last third) and settles with consumer-c
// under a new member id, one generation on. The generation is known
// only while Stable, as DescribeGroups shows members' subscriptions.
type crashLoop struct {
	every, offset, took time.Duration
	cycles              int
}

// rebalances is how many of its rebalances have completed by t.
func (c crashLoop) rebalances(t time.Duration) int {
	if t < c.offset+c.took {
		return 0
	}
	return min(int((t-c.offset-c.took)/c.every)+1, c.cycles)
}

// at is the group at t.
func (c crashLoop) at(t time.Duration) Snapshot {
	done := c.rebalances(t)
	state := stable
	if done < c.cycles && t >= c.offset {
		into := (t - c.offset) % c.every
		if into < c.took && int((t-c.offset)/c.every) == done {
			state = preparing
			if into >= c.took*2/3 {
				state = complete
			}
		}
	}
	sec := t.Seconds()
	if state != stable {
		return snapN(sec, state, 6, "range", mem("consumer-a"), mem("consumer-b"), memID(fmt.Sprintf("c-%d", done), "consumer-c"))
	}
	s := snapN(sec, stable, 6, "range", mem("consumer-a", 0, 1), mem("consumer-b", 2, 3), memID(fmt.Sprintf("c-%d", done), "consumer-c", 4, 5))
	s.Group.Generation = int32(1 + done)
	return s
}

// watch polls c every interval from 0 to until through a pipeline and
// returns the counts at the last poll and the events of every poll.
func (c crashLoop) watch(p *Pipeline, from, until, interval time.Duration) (RebalanceStats, []Event) {
	var events []Event
	for t := from; t <= until; t += interval {
		s := c.at(t)
		events = append(events, p.Observe(&s)...)
	}
	return p.Rebalances(), events
}

// A member crash-looping every 20s for 10 minutes is 30 rebalances, at
// every poll interval: at 250ms and 1s polls each is seen whole, timed,
// and stops all six partitions (eager) for its 3s; at 5s polls they fall
// between polls and are counted inferred, their time unknown. Once the
// loop ends the windows roll off: the minute first, then ten minutes,
// then the hour.
func TestRebalanceRateCrashLoop(t *testing.T) {
	loop := crashLoop{every: 20 * time.Second, offset: 6100 * time.Millisecond, took: 3 * time.Second, cycles: 30}
	for _, iv := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, time.Second, 5 * time.Second, 10 * time.Second} {
		t.Run(iv.String(), func(t *testing.T) {
			p := NewPipeline(PipelineOptions{Group: "order-workers", Interval: iv})
			st, _ := loop.watch(p, 0, 600*time.Second, iv)
			ten := st.Window(StormWindow)
			if ten.Count < 29 || ten.Count > 31 {
				t.Fatalf("10m count %d, want 30±1 (%+v)", ten.Count, ten)
			}
			if h := st.Window(LongWindow); h.Count != ten.Count {
				t.Errorf("1h count %d, want the 10m's %d: the watch is 10 minutes old", h.Count, ten.Count)
			}
			if m := st.Window(ShortWindow); m.Count < 2 || m.Count > 4 {
				t.Errorf("1m count %d, want 3±1 (one every 20s)", m.Count)
			}
			seenWhole := iv < loop.took
			if seenWhole {
				// 30 rebalances × 3s × 6 partitions, each timed to a poll.
				want, slack := 540*time.Second, time.Duration(30*6)*iv
				if ten.Untimed != 0 || ten.Inferred != 0 || ten.Stopped < want-slack || ten.Stopped > want+slack {
					t.Errorf("stopped %s (untimed %d, inferred %d), want %s±%s, all timed", ten.Stopped, ten.Untimed, ten.Inferred, want, slack)
				}
				if ten.Rebalancing < 90*time.Second-30*iv || ten.Rebalancing > 90*time.Second+30*iv {
					t.Errorf("rebalancing %s, want 90s (30 × 3s)", ten.Rebalancing)
				}
			} else if ten.Inferred != ten.Count || ten.Untimed != ten.Count || ten.Stopped != 0 {
				t.Errorf("polls every %s cannot see a 3s rebalance: want all inferred and untimed, got %+v", iv, ten)
			}

			// The loop has ended: the windows roll off.
			st, _ = loop.watch(p, 600*time.Second+iv, 660*time.Second, iv)
			if m := st.Window(ShortWindow); m.Count != 0 {
				t.Errorf("a minute after the last: 1m count %d, want 0", m.Count)
			}
			if got := st.Window(StormWindow).Count; got != 27 {
				t.Errorf("at 11m: 10m count %d, want 27 (those completed after 1m)", got)
			}
			st, _ = loop.watch(p, 3600*time.Second, 4200*time.Second, 10*time.Second)
			if st.TenMinutes.Count != 0 || st.Hour.Count != 0 || st.Hour.Stopped != 0 {
				t.Errorf("an hour after the last: %+v %+v, want none", st.TenMinutes, st.Hour)
			}
		})
	}
}

// Faster than the polls: a member crash-looping every 2s for a minute is
// 30 rebalances, and 5s polls see a few of them at most. Between two
// polls the generation moved by two or three: those the differ did not
// complete are counted inferred.
func TestRebalanceRateInfersFromGenerations(t *testing.T) {
	loop := crashLoop{every: 2 * time.Second, offset: 700 * time.Millisecond, took: time.Second, cycles: 30}
	p := NewPipeline(PipelineOptions{Group: "order-workers", Interval: 5 * time.Second})
	st, events := loop.watch(p, 0, 80*time.Second, 5*time.Second)
	completed := 0
	for _, e := range events {
		if e.Type == EventRebalanceCompleted {
			completed++
		}
	}
	ten := st.TenMinutes
	if ten.Count != 30 {
		t.Fatalf("counted %d rebalances, want 30 (%+v)", ten.Count, ten)
	}
	if completed >= 30 || ten.Inferred < 30-completed {
		t.Errorf("the differ completed %d, %d inferred: want the rest of 30 inferred", completed, ten.Inferred)
	}
	if got := RebalanceCount(ten, "/10m"); got != fmt.Sprintf("30 rebalances/10m (%d inferred)", ten.Inferred) {
		t.Errorf("RebalanceCount = %q", got)
	}
}

// The rules one poll at a time: a generation's jump is owed rebalances,
// paid by the ones the differ completes; what is left when nothing is
// open is inferred.
func TestRebalanceRateGenerations(t *testing.T) {
	group := func(state string, gen int32) Group {
		return Group{ID: "g", State: state, Type: TypeClassic, Generation: gen}
	}
	done := func(sec float64) Event {
		return Event{Time: at(sec), Type: EventRebalanceCompleted, Duration: time.Second, HasDuration: true,
			Moves: []Move{{TopicPartition: TopicPartition{Topic: "orders", Partition: 0}}}}
	}
	type poll struct {
		g      Group
		events []Event
		open   bool
	}
	tests := []struct {
		name                   string
		polls                  []poll
		count, inferred, timed int
	}{
		{"a jump of 3 is 3 inferred", []poll{{g: group(stable, 5)}, {g: group(stable, 8)}}, 3, 3, 0},
		{"a jump of 3, one completed: 2 inferred",
			[]poll{{g: group(stable, 5)}, {g: group(preparing, 0), open: true}, {g: group(stable, 8), events: []Event{done(2)}}}, 3, 2, 1},
		{"a jump while open is owed, paid on completion",
			[]poll{{g: Group{ID: "g", State: stable, Type: TypeConsumer, AssignmentEpoch: 4}},
				{g: Group{ID: "g", State: StateReconciling, Type: TypeConsumer, AssignmentEpoch: 5}, open: true},
				{g: Group{ID: "g", State: stable, Type: TypeConsumer, AssignmentEpoch: 5}, events: []Event{done(2)}}}, 1, 0, 1},
		{"completed while Empty (no generation), then the generation: no double count",
			[]poll{{g: group(stable, 5)}, {g: group(empty, 0), events: []Event{done(1)}}, {g: group(stable, 7), events: []Event{done(2)}}}, 2, 0, 2},
		{"no generation known: the completions only",
			[]poll{{g: group(stable, 0)}, {g: group(stable, 0), events: []Event{done(1)}}}, 1, 0, 1},
		{"deleted and created again: its generations start afresh",
			[]poll{{g: group(stable, 40)}, {g: group(StateDead, 0)}, {g: group(stable, 2)}, {g: group(stable, 3)}}, 1, 1, 0},
		{"a generation gone back counts from there",
			[]poll{{g: group(stable, 40)}, {g: group(stable, 3)}, {g: group(stable, 4)}}, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRebalanceRate(0)
			var st RebalanceStats
			for i, p := range tt.polls {
				st = r.Observe(at(float64(i)), p.g, p.events, p.open)
			}
			w := st.TenMinutes
			if w.Count != tt.count || w.Inferred != tt.inferred || w.Count-w.Untimed != tt.timed {
				t.Errorf("got %d rebalances, %d inferred, %d timed; want %d, %d, %d", w.Count, w.Inferred, w.Count-w.Untimed, tt.count, tt.inferred, tt.timed)
			}
		})
	}
}

// Stopped time: an eager rebalance stops every partition of the group for
// its duration; a cooperative one only those it moves.
func TestRebalanceStoppedPartitions(t *testing.T) {
	for _, tt := range []struct {
		assignor string
		want     time.Duration
	}{
		{"range", 6 * 2 * time.Second},              // six partitions, 2s
		{"cooperative-sticky", 2 * 2 * time.Second}, // p2 and p5 moved to consumer-c
	} {
		t.Run(tt.assignor, func(t *testing.T) {
			p := NewPipeline(PipelineOptions{Group: "order-workers"})
			for _, s := range []Snapshot{
				snapN(0, stable, 6, tt.assignor, mem("consumer-a", 0, 1, 2), mem("consumer-b", 3, 4, 5)),
				snapN(1, preparing, 6, tt.assignor, mem("consumer-a"), mem("consumer-b"), mem("consumer-c")),
				snapN(3, stable, 6, tt.assignor, mem("consumer-a", 0, 1), mem("consumer-b", 3, 4), mem("consumer-c", 2, 5)),
			} {
				p.Observe(&s)
			}
			w := p.Rebalances().TenMinutes
			if w.Count != 1 || w.Rebalancing != 2*time.Second || w.Stopped != tt.want {
				t.Errorf("got %+v, want 1 rebalance of 2s stopping %s", w, tt.want)
			}
		})
	}
}

// --max-rebalances: the timeline says rebalance_storm once the last 10
// minutes count more, and rebalance_storm_ended once they count no more,
// each once; every rebalance_completed carries the counts up to it.
func TestRebalanceStormEvents(t *testing.T) {
	loop := crashLoop{every: 20 * time.Second, offset: 6100 * time.Millisecond, took: 3 * time.Second, cycles: 30}
	p := NewPipeline(PipelineOptions{Group: "order-workers", Interval: time.Second, MaxRebalances: 20})
	_, events := loop.watch(p, 0, 900*time.Second, time.Second)
	var storms []Event
	last := 0
	for _, e := range events {
		switch e.Type {
		case EventRebalanceStorm, EventRebalanceStormEnded:
			storms = append(storms, e)
		case EventRebalanceCompleted:
			if n := e.Rebalances.Window(StormWindow).Count; n != last+1 {
				t.Errorf("%s: rebalance_completed says %d in 10m, want %d", e.Time.Format(time.TimeOnly), n, last+1)
			}
			last = e.Rebalances.TenMinutes.Count
		}
	}
	if len(storms) != 2 || storms[0].Type != EventRebalanceStorm || storms[1].Type != EventRebalanceStormEnded {
		t.Fatalf("want one storm and its end, got %v", storms)
	}
	// The 21st rebalance completes at 20×20s + 9.1s; the storm ends once
	// the 10th (9.1s + 9×20s) is 10 minutes old.
	if got := storms[0].Time.Sub(tl0); got != 410*time.Second {
		t.Errorf("storm at %s, want 410s (the 21st rebalance seen)", got)
	}
	if got := storms[1].Time.Sub(tl0); got != 790*time.Second {
		t.Errorf("storm over at %s, want 790s", got)
	}
	if want := "rebalance storm: 21 rebalances in the last 10m, more than --max-rebalances 20; partitions stopped 6m18s"; storms[0].Detail != want {
		t.Errorf("detail %q\nwant   %q", storms[0].Detail, want)
	}
	if !RebalanceStorm(storms[0].Rebalances, 20) || RebalanceStorm(storms[1].Rebalances, 20) {
		t.Error("RebalanceStorm disagrees with the events")
	}
}
