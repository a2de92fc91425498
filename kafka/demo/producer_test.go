package demo

import (
	"math"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model/testutil"
)

// No rate, however absurd, overflows the producer's interval or stalls it
// for ever: a rate the demo does not take is held to MinRate … MaxRate.
func TestOrderIntervalTakesAnyRate(t *testing.T) {
	t.Parallel()
	low, high := time.Second/MaxRate, time.Duration(float64(time.Second)/MinRate)
	for _, r := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-300, 5e-324, 1e308, math.MaxFloat64, MinRate, MaxRate, 5, 0.5} {
		iv := orderInterval(r)
		if iv < low || iv > high {
			t.Errorf("orderInterval(%g) = %s, want within [%s, %s]", r, iv, low, high)
		}
	}
	if iv := orderInterval(5); iv != 200*time.Millisecond {
		t.Errorf("orderInterval(5) = %s, want 200ms", iv)
	}
	for _, tt := range []struct{ in, want float64 }{
		{math.NaN(), 0}, {-3, 0}, {math.Inf(-1), 0}, {0, 0}, {1e-300, MinRate}, {1e308, MaxRate}, {math.Inf(1), MaxRate}, {2, 2},
	} {
		if got := clampRate(tt.in); got != tt.want {
			t.Errorf("clampRate(%g) = %g, want %g", tt.in, got, tt.want)
		}
	}
	for r, ok := range map[float64]bool{0: true, MinRate: true, MaxRate: true, 5: true, 0.001: false, 1e308: false, -1: false, math.NaN(): false, math.Inf(1): false} {
		if ValidRate(r) != ok {
			t.Errorf("ValidRate(%g) = %v, want %v", r, !ok, ok)
		}
	}
}

// The producer's pace on a simulated clock: at rate 50 it sends 50 orders
// a second whether a send takes 1ms or 15ms; sends slower than the
// interval cap the rate at what they allow; after a stall it starts again
// from then instead of sending the backlog in a burst.
func TestPacerRate(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	// run sends for span of simulated time, each send taking took (stall:
	// the first one takes that long instead), and returns the times sent.
	run := func(rate float64, took, stall, span time.Duration) []time.Duration {
		clk := testutil.NewClock(t0)
		var p pacer
		p.restart(clk.Now())
		var sent []time.Duration
		for clk.Now().Sub(t0) < span {
			if w := p.wait(clk.Now()); w > 0 {
				clk.Advance(w)
				continue
			}
			sent = append(sent, clk.Now().Sub(t0))
			d := took
			if len(sent) == 1 && stall > 0 {
				d = stall
			}
			p.sent(clk.Advance(d), orderInterval(rate))
		}
		return sent
	}
	in := func(sent []time.Duration, from, to time.Duration) int {
		n := 0
		for _, s := range sent {
			if s >= from && s < to {
				n++
			}
		}
		return n
	}
	for _, took := range []time.Duration{time.Millisecond, 15 * time.Millisecond} {
		sent := run(50, took, 0, 10*time.Second)
		for sec := range 10 {
			from := time.Duration(sec) * time.Second
			if n := in(sent, from, from+time.Second); n != 50 {
				t.Errorf("rate 50, sends taking %s: %d orders in second %d, want 50", took, n, sec)
			}
		}
	}
	if n := in(run(50, 40*time.Millisecond, 0, 2*time.Second), time.Second, 2*time.Second); n != 25 {
		t.Errorf("rate 50, sends taking 40ms: %d orders a second, want the 25 they allow", n)
	}
	sent := run(50, time.Millisecond, 3*time.Second, 5*time.Second)
	if n := in(sent, 3*time.Second, 4*time.Second); n != 50 {
		t.Errorf("after a 3s stall: %d orders in the next second, want 50 (no burst to catch up)", n)
	}
}
