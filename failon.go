package main

import (
	"fmt"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// failOnStorm is --fail-on's word for a rebalance storm (--events, with
// --max-rebalances).
const failOnStorm = "storm"

// checkFailOn reads --fail-on: a status (lagging, unowned, stopped; with
// --events stalled and rewound too), or storm with --events and
// --max-rebalances.
func (f *watchFlags) checkFailOn() error {
	if strings.EqualFold(f.failOn, failOnStorm) {
		switch {
		case !f.events:
			return model.UsageError{Msg: "--fail-on storm goes with --events (one --once poll counts no rebalances)"}
		case f.maxRebalances == 0:
			return model.UsageError{Msg: "--fail-on storm needs --max-rebalances N: the storm is more than N rebalances in 10 minutes"}
		}
		f.failOn = failOnStorm
		return nil
	}
	s, ok := model.ParseStatus(f.failOn)
	switch {
	case !f.once && !f.events:
		return model.UsageError{Msg: "--fail-on goes with --once or --events: it sets the exit status"}
	case !ok || s == model.StatusOK:
		return model.Usagef("--fail-on %q: use lagging, unowned, stalled, rewound, stopped or storm", f.failOn)
	case f.once && (s == model.StatusStalled || s == model.StatusRewound):
		// At or past STALLED would trip on STOPPED alone: a script
		// asking for STALLED would never hear of one.
		return model.Usagef("--fail-on %s: one --once poll cannot tell %s (it needs the polls before it); use lagging, unowned or stopped, or watch with --events", f.failOn, s)
	}
	f.failOnStatus = s
	return nil
}

// failOnEvent is --fail-on for --events: the event that ends the watch
// with exit 3 (a status_changed at or past the status, or a
// rebalance_storm), as a failOnError; nil for any other.
func (f *watchFlags) failOnEvent(e model.Event) error {
	switch {
	case f.failOn == failOnStorm && e.Type == model.EventRebalanceStorm,
		f.failOnStatus != "" && e.Type == model.EventStatusChanged && model.Status(e.State).AtLeast(f.failOnStatus):
		return failOnError{fmt.Sprintf("%s (--fail-on %s)", e.Detail, strings.ToLower(f.failOn))}
	}
	return nil
}

// failOnError is --fail-on's threshold reached: exit code 3, the output
// printed in full.
type failOnError struct{ msg string }

func (e failOnError) Error() string { return e.msg }

// failOnPartitions is --fail-on's verdict on --once's partitions.
func (f *watchFlags) failOnPartitions(ps []model.PartitionLag) error {
	n := 0
	for _, p := range ps {
		if p.Status.AtLeast(f.failOnStatus) {
			n++
		}
	}
	return failOn(n, "partition", f.failOnStatus)
}

// failOnGroups is --fail-on's verdict on --once's groups (no --group).
func (f *watchFlags) failOnGroups(gs []model.GroupSummary) error {
	n := 0
	for _, g := range gs {
		if g.Status.AtLeast(f.failOnStatus) {
			n++
		}
	}
	return failOn(n, "group", f.failOnStatus)
}

// failOn is --fail-on's verdict on n things (partitions, groups) at or
// past threshold: a failOnError naming them, nil for none.
func failOn(n int, what string, threshold model.Status) error {
	if n == 0 {
		return nil
	}
	return failOnError{fmt.Sprintf("%s at or past %s (--fail-on %s)", model.Count(n, what), threshold, strings.ToLower(string(threshold)))}
}
