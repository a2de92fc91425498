package model

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// types lists the events' types, in order.
func types(evs []Event) []EventType {
	out := make([]EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// outage keeps the events about the polls themselves (a long test's
// snapshots, whose commits do not move, also change status).
func outage(evs []Event) []Event {
	var out []Event
	for _, e := range evs {
		switch e.Type {
		case EventPollUnanswered, EventPollAnswered, EventConnectionLost, EventConnectionRestored, EventWatchStarted:
			out = append(out, e)
		}
	}
	return out
}

// ms returns tl0 plus n milliseconds.
func ms(n int) time.Time { return tl0.Add(time.Duration(n) * time.Millisecond) }

// answeredAt is snap(…) taken at start and answered at done.
func answeredAt(start, done time.Time) Snapshot {
	s := snap(start.Sub(tl0).Seconds(), stable, mem("consumer-a", 0, 1, 2))
	s.CompletedAt = done
	return s
}

// On a simulated clock, at every poll interval kgwatch accepts: a poll
// that goes unanswered is an event once, at the first tick that finds it
// waited UnansweredAfter the interval (three intervals, at least 3s);
// its answer is poll_answered with how long it waited; and the next poll
// unanswered is news again. A poll answered before then gives nothing.
func TestUnansweredPollOnASimulatedClock(t *testing.T) {
	const tick = 50 * time.Millisecond // finer than the UI's clock
	for _, interval := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second} {
		t.Run(interval.String(), func(t *testing.T) {
			after := UnansweredAfter(interval)
			if want := max(3*interval, 3*time.Second); after != want {
				t.Fatalf("UnansweredAfter(%s) = %s, want %s", interval, after, want)
			}
			p := NewPipeline(PipelineOptions{Group: "order-workers", Interval: interval})
			now := tl0
			first := answeredAt(now, now.Add(10*time.Millisecond))
			p.Observe(&first)

			for round := range 2 {
				// A healthy poll, answered within the threshold less a
				// tick: nothing.
				started := now.Add(interval)
				for now = started; now.Sub(started) < after-tick; now = now.Add(tick) {
					if evs := p.Waiting(now, started); evs != nil {
						t.Fatalf("round %d: poll waiting %s gave %v", round, now.Sub(started), types(evs))
					}
				}
				quick := answeredAt(started, now)
				if evs := outage(p.Observe(&quick)); len(evs) != 0 {
					t.Fatalf("round %d: poll answered after %s gave %v", round, now.Sub(started), types(evs))
				}

				// The next goes unanswered: one event, at the threshold.
				started = now.Add(interval)
				var fired []Event
				var firedAt time.Time
				for now = started; now.Sub(started) <= after+3*time.Second; now = now.Add(tick) {
					evs := p.Waiting(now, started)
					if len(evs) > 0 && fired != nil {
						t.Fatalf("round %d: a second %v at %s", round, types(evs), now.Sub(started))
					}
					if len(evs) > 0 {
						fired, firedAt = evs, now
					}
				}
				if len(fired) != 1 || fired[0].Type != EventPollUnanswered {
					t.Fatalf("round %d: got %v, want one poll_unanswered", round, types(fired))
				}
				if e := fired[0]; !firedAt.Equal(started.Add(after)) || !e.Time.Equal(firedAt) || !e.HasDuration || e.Duration != after {
					t.Errorf("round %d: fired at +%s (event %s, duration %s), want at +%s", round, firedAt.Sub(started), e.Time.Sub(started), e.Duration, after)
				}
				if want := "the cluster has not answered a poll for " + Elapsed(after); fired[0].Detail != want {
					t.Errorf("detail %q, want %q", fired[0].Detail, want)
				}

				late := answeredAt(started, now)
				evs := outage(p.Observe(&late))
				if len(evs) != 1 || evs[0].Type != EventPollAnswered {
					t.Fatalf("round %d: answer gave %v, want one poll_answered", round, types(evs))
				}
				if waited := now.Sub(started); evs[0].Duration != waited || !evs[0].Time.Equal(now) {
					t.Errorf("round %d: poll_answered duration %s at %s, want %s at the answer", round, evs[0].Duration, evs[0].Time, waited)
				}
			}
			if n := len(outage(p.Timeline().Events())); n != 5 { // watch_started, then two pairs
				t.Errorf("timeline holds %d events, want 5: %v", n, types(p.Timeline().Events()))
			}
		})
	}
}

// An unanswered poll that then fails at its timeout is one outage: no
// connection_lost after the poll_unanswered, and its end is the
// connection_restored (not poll_answered) timed from the unanswered
// poll's start. A poll that fails first and then hangs gives no
// poll_unanswered either.
func TestUnansweredThenFailedIsOneOutage(t *testing.T) {
	timeout := errors.New("no answer within 10s")
	p := NewPipeline(PipelineOptions{Group: "order-workers", Interval: time.Second})
	first := answeredAt(ms(0), ms(100))
	p.Observe(&first)

	if evs := p.Waiting(ms(4100), ms(1100)); len(evs) != 1 || evs[0].Type != EventPollUnanswered {
		t.Fatalf("waiting 3s: %v, want poll_unanswered", types(evs))
	}
	if evs := p.PollFailed(ms(1100), ms(11100), timeout); len(evs) != 0 {
		t.Fatalf("timeout after poll_unanswered gave %v, want nothing", types(evs))
	}
	if evs := p.Waiting(ms(15000), ms(12100)); len(evs) != 0 {
		t.Fatalf("retry waiting 2.9s during the outage gave %v", types(evs))
	}
	back := answeredAt(ms(12100), ms(12300))
	evs := p.Observe(&back)
	if len(evs) != 1 || evs[0].Type != EventConnectionRestored {
		t.Fatalf("answer gave %v, want connection_restored alone", types(evs))
	}
	if e := evs[0]; e.MinDuration != 10*time.Second || e.Duration != 12200*time.Millisecond {
		t.Errorf("restored: least %s, most %s; want 10s (from the unanswered poll's start to the timeout), 12.2s", e.MinDuration, e.Duration)
	}

	// Failed first, then a poll that hangs: the outage is told already.
	if evs := p.PollFailed(ms(13300), ms(13400), timeout); len(evs) != 1 || evs[0].Type != EventConnectionLost {
		t.Fatalf("failure: %v, want connection_lost", types(evs))
	}
	if evs := p.Waiting(ms(20000), ms(14400)); len(evs) != 0 {
		t.Fatalf("hanging retry during an outage gave %v", types(evs))
	}
}

// A pipeline fed what a recording holds (the tap's inputs, the
// poll_unanswered among the added events) files the same events: the
// answer is poll_answered in the replay too.
func TestUnansweredReplays(t *testing.T) {
	var tap recordTap
	live := NewPipeline(PipelineOptions{Group: "order-workers", Interval: time.Second, Tap: &tap})
	var want []string
	note := func(evs []Event) {
		for _, e := range evs {
			want = append(want, summary(e))
		}
	}
	first := answeredAt(ms(0), ms(100))
	note(live.Observe(&first))
	note(live.Waiting(ms(2000), ms(1100)))
	note(live.Waiting(ms(4100), ms(1100)))
	late := answeredAt(ms(1100), ms(7000))
	note(live.Observe(&late))

	replay := NewPipeline(PipelineOptions{Group: "order-workers"})
	var got []string
	for _, in := range tap.inputs {
		var evs []Event
		switch {
		case in.snap != nil:
			evs = replay.Observe(in.snap)
		default:
			evs = []Event{replay.Add(in.event)}
		}
		for _, e := range evs {
			got = append(got, summary(e))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("replay:\n%q\nlive:\n%q", got, want)
	}
	if len(want) != 3 {
		t.Errorf("live gave %q, want watch_started, poll_unanswered, poll_answered", want)
	}
}

// recordTap keeps a pipeline's inputs, as a recording does.
type recordTap struct {
	inputs []tapInput
}

type tapInput struct {
	snap  *Snapshot
	event Event
}

func (r *recordTap) Observed(s Snapshot) { r.inputs = append(r.inputs, tapInput{snap: &s}) }
func (r *recordTap) Failed(started, at time.Time, err error) {
	panic("no failure in this test")
}
func (r *recordTap) Added(e Event) { r.inputs = append(r.inputs, tapInput{event: e}) }
