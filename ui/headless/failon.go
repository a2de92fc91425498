package headless

import (
	"fmt"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// failOnStorm is --fail-on's word for a rebalance storm (--events, with
// --max-rebalances).
const failOnStorm = "storm"

// FailOn is --fail-on: the status (or storm) at which --once and
// --events exit 3. The zero FailOn never trips.
type FailOn struct {
	word   string
	status model.Status
}

// ParseFailOn reads --fail-on's word: a status (lagging, unowned,
// stopped; with --events stalled and rewound too), or storm with
// --events and --max-rebalances. Its errors are model.UsageErrors.
func ParseFailOn(word string, once, events bool, maxRebalances int) (FailOn, error) {
	if strings.EqualFold(word, failOnStorm) {
		switch {
		case !events:
			return FailOn{}, model.UsageError{Msg: "--fail-on storm goes with --events (one --once poll counts no rebalances)"}
		case maxRebalances == 0:
			return FailOn{}, model.UsageError{Msg: "--fail-on storm needs --max-rebalances N: the storm is more than N rebalances in 10 minutes"}
		}
		return FailOn{word: failOnStorm}, nil
	}
	s, ok := model.ParseStatus(word)
	switch {
	case !once && !events:
		return FailOn{}, model.UsageError{Msg: "--fail-on goes with --once or --events: it sets the exit status"}
	case !ok || s == model.StatusOK:
		return FailOn{}, model.Usagef("--fail-on %q: use lagging, unowned, stalled, rewound, stopped or storm", word)
	case once && (s == model.StatusStalled || s == model.StatusRewound):
		// At or past STALLED would trip on STOPPED alone: a script
		// asking for STALLED would never hear of one.
		return FailOn{}, model.Usagef("--fail-on %s: one --once poll cannot tell %s (it needs the polls before it); use lagging, unowned or stopped, or watch with --events", word, s)
	}
	return FailOn{word: word, status: s}, nil
}

// Event is --fail-on for --events (Options.Stop): the event that ends
// the watch with exit 3 (a status_changed at or past the status, or a
// rebalance_storm), as a FailOnError; nil for any other.
func (f FailOn) Event(e model.Event) error {
	switch {
	case f.word == failOnStorm && e.Type == model.EventRebalanceStorm,
		f.status != "" && e.Type == model.EventStatusChanged && model.Status(e.State).AtLeast(f.status):
		return FailOnError{fmt.Sprintf("%s (--fail-on %s)", e.Detail, strings.ToLower(f.word))}
	}
	return nil
}

// Partitions is --fail-on's verdict on --once's partitions.
func (f FailOn) Partitions(ps []model.PartitionLag) error {
	return verdict(f, ps, "partition", func(p model.PartitionLag) model.Status { return p.Status })
}

// Groups is --fail-on's verdict on --once's groups (no group given).
func (f FailOn) Groups(gs []model.GroupSummary) error {
	return verdict(f, gs, "group", func(g model.GroupSummary) model.Status { return g.Status })
}

// verdict is a FailOnError naming the things (partitions, groups) at or
// past the status, nil for none.
func verdict[T any](f FailOn, things []T, what string, status func(T) model.Status) error {
	n := 0
	for _, t := range things {
		if status(t).AtLeast(f.status) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return FailOnError{fmt.Sprintf("%s at or past %s (--fail-on %s)", model.Count(n, what), f.status, strings.ToLower(string(f.status)))}
}

// FailOnError is --fail-on's threshold reached: exit code 3, the output
// printed in full.
type FailOnError struct{ Msg string }

func (e FailOnError) Error() string { return e.Msg }
