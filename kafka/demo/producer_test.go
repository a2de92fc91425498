package demo

import (
	"math"
	"testing"
	"time"
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
