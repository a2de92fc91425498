package model

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// clockScenario is one rebalance as the broker saw it: the members before
// and after, the coordinator's clocks (start, end in seconds), and the
// group's state at any instant, for polls to sample.
type clockScenario struct {
	name     string
	protocol string // eager, cooperative, consumer
	before   []Member
	after    []Member
	revoked  []Member // cooperative: the view after the revoke phase (nil: one phase)
	clocks   [][2]float64
	reports  []Event // the demo's own consumers' reports, if they are the demo's
}

// at returns the snapshot a poll at sec sees.
func (sc clockScenario) at(sec float64) Snapshot {
	first, last := sc.clocks[0][0], sc.clocks[len(sc.clocks)-1][1]
	var state string
	var members []Member
	switch {
	case sec < first:
		state, members = StateStable, sc.before
	case sec >= last:
		state, members = StateStable, sc.after
	case sc.revoked != nil && sec >= sc.clocks[0][1] && sec < sc.clocks[1][0]:
		state, members = StateStable, sc.revoked
	default:
		state = StatePreparingRebalance
		for _, m := range sc.after {
			members = append(members, Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.Host})
		}
	}
	if sc.protocol != "consumer" {
		assignor := "range"
		if sc.protocol == "cooperative" {
			assignor = "cooperative-sticky"
		}
		return snapN(sec, state, 3, assignor, members...)
	}
	// Consumer protocol: owners at every poll, the target epoch moving.
	target := int32(1)
	if sec >= first {
		target = 2
	}
	var cms []Member
	for _, m := range sc.after {
		owns, tgt := partsOf(m), partsOf(m)
		epoch := int32(2)
		if sec < last {
			owns, epoch = nil, 1
			for _, b := range sc.before {
				if b.MemberID == m.MemberID {
					owns = partsOf(b)
				}
			}
		}
		cms = append(cms, cmem(m.ClientID, epoch, owns, tgt))
		cms[len(cms)-1].MemberID = m.MemberID
	}
	if sec < first {
		cms = cms[:0]
		for _, b := range sc.before {
			c := cmem(b.ClientID, 1, partsOf(b), partsOf(b))
			c.MemberID = b.MemberID
			cms = append(cms, c)
		}
	}
	state = StateStable
	if sec >= first && sec < last {
		state = StateReconciling
	}
	return csnap(sec, state, target, cms...)
}

func partsOf(m Member) []int32 {
	var out []int32
	for _, tp := range m.Partitions {
		out = append(out, tp.Partition)
	}
	return out
}

// clockScenarios is the matrix: each trigger under each protocol, all
// rebalancing from 1.00s to 1.37s by the coordinator's clock.
func clockScenarios() []clockScenario {
	a, c := "consumer-a", "consumer-c"
	const rdkafka = "rdkafka" // an outside client: no reports
	var scs []clockScenario
	for _, proto := range []string{"eager", "cooperative", "consumer"} {
		coop := proto == "cooperative"
		join := func(name, client string, reports []Event) clockScenario {
			sc := clockScenario{name: name, protocol: proto,
				before: []Member{mem(a, 0, 1, 2)}, after: []Member{mem(a, 0, 1), mem(client, 2)},
				clocks: [][2]float64{{1.0, 1.37}}, reports: reports}
			if coop {
				// Revoke phase to 1.20s, Stable until consumer-a rejoins
				// at 1.25s, assign phase to 1.37s.
				sc.revoked = []Member{mem(a, 0, 1), mem(client)}
				sc.clocks = [][2]float64{{1.0, 1.2}, {1.25, 1.37}}
			}
			return sc
		}
		two := []Member{mem(a, 0, 1), mem(c, 2)}
		scs = append(scs,
			join("demo join", c, []Event{
				{Time: at(0.95), Type: EventDemoSpawned, ClientID: c},
				{Time: at(1.36), Type: EventDemoAssigned, ClientID: c},
			}),
			join("outside join", rdkafka, nil),
			clockScenario{name: "leave", protocol: proto, before: two, after: []Member{mem(a, 0, 1, 2)}, clocks: [][2]float64{{1.0, 1.37}}},
			// kill -9: the clock starts at the session's expiry.
			clockScenario{name: "kill -9 eviction", protocol: proto, before: two, after: []Member{mem(a, 0, 1, 2)}, clocks: [][2]float64{{1.0, 1.37}}},
			// max.poll.interval: consumer-c rejoins with a new member id.
			clockScenario{name: "max.poll rejoin", protocol: proto, before: two,
				after: []Member{mem(a, 0), memID("consumer-c-new", c, 1, 2)}, clocks: [][2]float64{{1.0, 1.37}}},
		)
	}
	return scs
}

// The same broker-side span reads the same duration whatever the poll
// interval, for every trigger and protocol, outside members included:
// the coordinator's clock, not the polls' or the demo consumers'.
func TestRebalanceTimedByTheCoordinatorsClock(t *testing.T) {
	const want = 370 * time.Millisecond
	for _, sc := range clockScenarios() {
		for _, every := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second} {
			t.Run(fmt.Sprintf("%s/%s/%v", sc.protocol, sc.name, every), func(t *testing.T) {
				tr := NewTracker("order-workers", 1000)
				// What reaches the tracker, in time order: the polls, the
				// demo's reports, and each clock 10ms after its end (the
				// demo reads the coordinator every 10ms).
				type arrival struct {
					at   time.Time
					poll bool
					e    Event
				}
				var in []arrival
				for p := 30 * time.Millisecond; p < 6*time.Second; p += every {
					in = append(in, arrival{at: tl0.Add(p), poll: true})
				}
				for _, r := range sc.reports {
					in = append(in, arrival{at: r.Time, e: r})
				}
				for _, c := range sc.clocks {
					end := at(c[1])
					e := Event{Time: end, Type: EventDemoRebalanceClocked, Duration: end.Sub(at(c[0])), HasDuration: true}
					in = append(in, arrival{at: end.Add(10 * time.Millisecond), e: e})
				}
				sort.SliceStable(in, func(i, j int) bool { return in[i].at.Before(in[j].at) })
				var done []Event
				for _, a := range in {
					if !a.poll {
						tr.Add(a.e)
						continue
					}
					sec := a.at.Sub(tl0).Seconds()
					for _, e := range tr.Observe(sc.at(sec)) {
						if e.Type == EventRebalanceCompleted && e.Phase != PhaseRevoke {
							done = append(done, e)
						}
					}
				}
				if len(done) != 1 {
					t.Fatalf("%d rebalance_completed (whole or assign phase), want 1: %+v", len(done), done)
				}
				e := done[0]
				if !e.HasDuration || e.Duration != want || !strings.Contains(e.Detail, "(the coordinator's clock") {
					t.Errorf("%q: duration %v (known %v), want %v by the coordinator's clock", e.Detail, e.Duration, e.HasDuration, want)
				}
			})
		}
	}
}

// A rebalance the watch first sees in progress, of a group that was empty
// as it began (the demo's consumers start with the watch), reads its
// duration and its partitions as newly assigned, not "began before the
// watch started: moves unknown".
func TestRebalanceFromEmptyBeforeTheWatch(t *testing.T) {
	for _, clocked := range []bool{true, false} {
		tr := NewTracker("order-workers", 100)
		tr.Observe(snap(0.5, preparing, memID("a-1", "consumer-a"), memID("b-1", "consumer-b")))
		if clocked {
			tr.Add(Event{Time: at(0.8), Type: EventDemoRebalanceClocked, Duration: 600 * time.Millisecond, HasDuration: true, State: StateEmpty})
		}
		var done *Event
		for _, e := range tr.Observe(snap(1, stable, memID("a-1", "consumer-a", 0, 1), memID("b-1", "consumer-b", 2))) {
			if e.Type == EventRebalanceCompleted {
				done = &e
			}
		}
		if done == nil {
			t.Fatalf("clocked %v: no rebalance_completed", clocked)
		}
		if !clocked {
			if !strings.Contains(done.Detail, "moves unknown") {
				t.Errorf("unclocked: %q, want moves unknown (nothing says the group was empty)", done.Detail)
			}
			continue
		}
		if want := "rebalance took 0.60s (the coordinator's clock): 3 partitions newly assigned"; done.Detail != want {
			t.Errorf("clocked: %q, want %q", done.Detail, want)
		}
		if len(done.Moves) != 3 {
			t.Errorf("clocked: moves %+v, want the 3 partitions from nobody", done.Moves)
		}
	}
}
