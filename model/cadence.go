package model

import "time"

// The polling cadence, shared by the TUI, `--events` and the overview.
const (
	// MinInterval is the shortest poll interval kgwatch accepts: each
	// poll costs a few requests per broker of a production cluster.
	MinInterval = 100 * time.Millisecond
	// FastInterval is the poll interval while a group rebalances, so the
	// rebalance's start and end are timed well.
	FastInterval = 200 * time.Millisecond
	// MaxBackoff caps the retry delay after failed polls.
	MaxBackoff = 10 * time.Second
)

// NextPollDelay chooses how long to wait before the next poll of group g,
// once the last one is done; took is how long that one took. After
// failures it backs off 1s, 2s, 4s … capped at MaxBackoff, counted from the
// start of the failed poll: a poll that hung until its timeout is followed
// at once by the next, so a broker that stops answering (kill -STOP) is
// seen answering again within moments of it, at one poll per backoff. While
// the group is between generations it polls every FastInterval (never
// slower than base). Otherwise, including while waiting for a group that
// does not exist yet, it polls every base.
func NextPollDelay(g Group, base time.Duration, failures int, took time.Duration) time.Duration {
	if failures > 0 {
		return max(Backoff(failures)-max(took, 0), 0)
	}
	if base <= 0 {
		base = time.Second
	}
	if g.Rebalancing() && FastInterval < base {
		return FastInterval
	}
	return base
}

// Backoff returns the retry delay after the given number of consecutive
// failures: 1s, 2s, 4s, 8s, then MaxBackoff.
func Backoff(failures int) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := time.Second
	for i := 1; i < failures && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}
