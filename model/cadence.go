package model

import "time"

// The polling cadence, shared by the TUI, `--events` and the overview.
const (
	// MinInterval is the shortest poll interval kgwatch accepts: each
	// poll costs a few requests per broker of a production cluster.
	MinInterval = 100 * time.Millisecond
	// MaxInterval, MinTimeout … MaxStallAfter are the other ranges of the
	// watch's flags (--interval, --timeout, --stall-after), which a
	// recording's header must fall in too (model/record).
	MaxInterval   = time.Hour
	MinTimeout    = 100 * time.Millisecond
	MaxTimeout    = 10 * time.Minute
	MinStallAfter = time.Second
	MaxStallAfter = 7 * 24 * time.Hour
	// DefaultInterval and DefaultTimeout are --interval's and --timeout's
	// defaults, and what a page or --events polls at when given none.
	DefaultInterval = time.Second
	DefaultTimeout  = 10 * time.Second
	// DefaultStallAfter is --stall-after's default.
	DefaultStallAfter = 30 * time.Second
	// MinMaxLagAge and MaxMaxLagAge bound --max-lag-age (0: no limit).
	MinMaxLagAge = time.Second
	MaxMaxLagAge = 7 * 24 * time.Hour
	// FastInterval is the poll interval while a group rebalances, so the
	// rebalance's start and end are timed well.
	FastInterval = 200 * time.Millisecond
	// MaxBackoff caps the retry delay after failed polls.
	MaxBackoff = 10 * time.Second
	// MinRetryCap is the least the retry delay is capped at: Kafka's own
	// clients back off reconnects and retries to at most a second
	// (reconnect.backoff.max.ms, retry.backoff.max.ms: 1000).
	MinRetryCap = time.Second
)

// NextPollDelay chooses how long to wait before the next poll of group g,
// once the last one is done; took is how long that one took. After
// failures it backs off 1s, 2s, 4s … capped at RetryCap(base), counted from
// the start of the failed poll: a poll that hung until its timeout is
// followed at once by the next, so a broker that stops answering (kill
// -STOP) is seen answering again within moments of it, and one that
// refuses or fails fast is retried about once a poll interval (at most
// once a second), so the outage's end is seen within about one. While
// the group is between generations it polls every FastInterval (never
// slower than base). Otherwise, including while waiting for a group that
// does not exist yet, it polls every base.
func NextPollDelay(g Group, base time.Duration, failures int, took time.Duration) time.Duration {
	if failures > 0 {
		return max(min(Backoff(failures), RetryCap(base))-max(took, 0), 0)
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

// RetryCap is the longest wait between two polls while they fail, for
// the poll interval base: base, but at least MinRetryCap and at most
// MaxBackoff. So an outage's end is seen within about a poll interval of
// it (1s at the default interval). Failed polls start at least the cap
// apart, start to start (a poll that took longer is followed at once):
// never more than once a second, nor more often than the interval, but
// for an interval past 10s, whose outage's end is still looked for every
// 10s. A dead cluster costs little that often: a poll of
// an unreachable cluster fails at its first request (a refused dial, or
// one request hanging until --timeout), and the poll's heavy part
// (offsets of every partition) runs only once brokers answer again.
func RetryCap(base time.Duration) time.Duration {
	if base <= 0 {
		base = time.Second
	}
	return min(max(base, MinRetryCap), MaxBackoff)
}
