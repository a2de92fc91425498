package model

import "time"

const (
	// maxETA: beyond this the group is not meaningfully catching up.
	maxETA = 365 * 24 * time.Hour
	// verdictShare and verdictMin: "falling behind" and an ETA need
	// consumption and production apart by this share of the larger and
	// at least this many messages a second.
	verdictShare = 0.05
	verdictMin   = 0.5
)

// groupVerdict sets s's FallingBehind and ETA from the group's rates (set
// on s) and the total lag they start from, lagThen. stuck: some lag is not
// being worked off at all; rewound: some partition is REWOUND, so the
// rates mix before and after it. It keeps the verdict for the next poll's
// hysteresis.
func (h *History) groupVerdict(s *Snapshot, lagThen int64, stuck, rewound bool) {
	consume, produce := s.ConsumeRate, s.ProduceRate
	s.ETA, s.ETAKnown, s.FallingBehind = 0, false, false
	s.FallingBehindKnown = consume.Known && produce.Known && !rewound
	falling, catching := false, false
	if consume.Known && produce.Known && s.TotalLag > 0 && !rewound {
		// A verdict needs a real difference, held: the rates a margin
		// apart and total lag moved that way across the window; it then
		// holds while they stay half the margin apart. A consumer one
		// message behind a 5/s producer reads 4.8 vs 4.9 one second and
		// 5.0 vs 4.9 the next: no verdict.
		net := consume.PerSec - produce.PerSec
		margin := max(verdictShare*max(consume.PerSec, produce.PerSec), verdictMin)
		falling = -net > margin && s.TotalLag > lagThen || h.falling && -net > margin/2
		// A stalled, stopped or unowned partition's lag does not drain
		// however fast the others go: no ETA then.
		catching = !stuck && (net > margin && s.TotalLag < lagThen || h.catching && net > margin/2)
		if catching {
			eta := float64(s.TotalLag) / net
			if eta < maxETA.Seconds() {
				s.ETA, s.ETAKnown = time.Duration(eta*float64(time.Second)), true
			}
		}
		s.FallingBehind = falling
	}
	h.falling, h.catching = falling, catching
}
