package model

import "time"

// Judging is how a watch judges its group's polls: the flags every way of
// watching shares (the TUI, --once, --events, replay), given once and
// turned into the pipeline's options in one place. Zero fields take their
// defaults.
type Judging struct {
	// StallAfter is `--stall-after` (zero: the model's default).
	StallAfter time.Duration
	// MaxLagAge is `--max-lag-age` (zero: no limit).
	MaxLagAge time.Duration
	// HideKeys is `--hide-keys`: the records partitions are stuck on show
	// their keys' and header values' sizes, not their bytes
	// (PipelineOptions.HideKeys).
	HideKeys bool
	// MaxRebalances is `--max-rebalances` (zero: no limit).
	MaxRebalances int
	// TimelineSize is the number of events the timeline keeps (zero:
	// DefaultTimelineCapacity).
	TimelineSize int
}

// History is the statuses' and rates' options j asks for.
func (j Judging) History() HistoryOptions {
	return HistoryOptions{StallAfter: j.StallAfter, MaxLagAge: j.MaxLagAge}
}

// Pipeline is the options of a pipeline judging group as j says, polled
// every interval, its inputs told to tap (nil: none).
func (j Judging) Pipeline(group string, interval time.Duration, tap Tap) PipelineOptions {
	return PipelineOptions{
		Group:         group,
		TimelineSize:  j.TimelineSize,
		History:       j.History(),
		Tap:           tap,
		Interval:      interval,
		HideKeys:      j.HideKeys,
		MaxRebalances: j.MaxRebalances,
	}
}
