package model

import (
	"testing"
	"time"
)

func TestNextPollDelay(t *testing.T) {
	stable := Group{State: StateStable}
	tests := []struct {
		name     string
		g        Group
		base     time.Duration
		failures int
		want     time.Duration
	}{
		{"stable", stable, time.Second, 0, time.Second},
		{"stable slow", stable, 5 * time.Second, 0, 5 * time.Second},
		{"preparing", Group{State: StatePreparingRebalance}, time.Second, 0, FastInterval},
		{"completing", Group{State: StateCompletingRebalance}, time.Second, 0, FastInterval},
		{"rebalancing never slower than base", Group{State: StatePreparingRebalance}, 100 * time.Millisecond, 0, 100 * time.Millisecond},
		{"empty", Group{State: StateEmpty}, time.Second, 0, time.Second},
		{"waiting for group", Group{State: StateDead}, time.Second, 0, time.Second},
		{"no base", stable, 0, 0, time.Second},
		// After failures: 1s, 2s, 4s … capped at the interval (at least
		// 1s, at most MaxBackoff), so an outage's end is seen within
		// about one interval.
		{"1 failure", stable, time.Second, 1, time.Second},
		{"2 failures capped at the interval", stable, time.Second, 2, time.Second},
		{"many failures capped at the interval", stable, time.Second, 1000, time.Second},
		{"fast interval: retries capped at 1s", stable, 100 * time.Millisecond, 3, time.Second},
		{"slow interval: 2 failures", stable, 5 * time.Second, 2, 2 * time.Second},
		{"slow interval: 3 failures", Group{State: StatePreparingRebalance}, 5 * time.Second, 3, 4 * time.Second},
		{"slow interval: 4 failures capped", stable, 5 * time.Second, 4, 5 * time.Second},
		{"very slow interval: 4 failures", stable, time.Minute, 4, 8 * time.Second},
		{"very slow interval: capped at MaxBackoff", stable, time.Minute, 1000, MaxBackoff},
		{"no base: capped at 1s", stable, 0, 5, time.Second},
		{"KIP-848 assigning", Group{State: StateAssigning}, time.Second, 0, FastInterval},
		{"KIP-848 reconciling", Group{State: StateReconciling}, time.Second, 0, FastInterval},
	}
	for _, tt := range tests {
		if got := NextPollDelay(tt.g, tt.base, tt.failures, 0); got != tt.want {
			t.Errorf("%s: NextPollDelay = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The backoff counts from the start of the failed poll: one that hung
// until its timeout is followed at once by the next.
func TestBackoffFromPollStart(t *testing.T) {
	stable := Group{State: StateStable}
	for _, tt := range []struct {
		failures int
		took     time.Duration
		want     time.Duration
	}{
		{1, 0, time.Second},
		{1, 300 * time.Millisecond, 700 * time.Millisecond},
		{1, 10 * time.Second, 0},
		{3, 10 * time.Second, 0},
		{5, 3 * time.Second, 7 * time.Second},
	} {
		if got := NextPollDelay(stable, time.Minute, tt.failures, tt.took); got != tt.want {
			t.Errorf("%d failures, the last took %s: next poll in %s, want %s", tt.failures, tt.took, got, tt.want)
		}
	}
	if got := NextPollDelay(stable, time.Second, 0, 5*time.Second); got != time.Second {
		t.Errorf("a good poll that took 5s: next in %s, want the interval", got)
	}
}
