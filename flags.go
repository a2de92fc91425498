package main

import (
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui/headless"
)

// check checks the watch's flags, parsed into fs, and returns the
// brokers. Every mistake is a model.UsageError.
func (f *watchFlags) check(fs *pflag.FlagSet) ([]string, error) {
	var err error
	if f.format, err = headless.LookupFormat(f.output); err != nil {
		return nil, err
	}
	if f.format, err = headless.CheckView(fs.Changed, f.once, f.group, f.format, f.view); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		name           string
		v, least, most time.Duration
	}{
		// A poll is a few requests per broker: faster than 100ms would
		// load a production cluster for nothing a person can read.
		{"interval", f.interval, model.MinInterval, model.MaxInterval},
		{"timeout", f.timeout, model.MinTimeout, model.MaxTimeout},
		{"stall-after", f.judging.StallAfter, model.MinStallAfter, model.MaxStallAfter},
	} {
		if err := model.CheckRange(d.name, d.v, d.least, d.most); err != nil {
			return nil, err
		}
	}
	if f.judging.MaxLagAge != 0 && (f.judging.MaxLagAge < model.MinMaxLagAge || f.judging.MaxLagAge > model.MaxMaxLagAge) {
		return nil, model.Usagef("--max-lag-age must be 0 (no limit) or from %s to %s, got %s",
			model.Setting(model.MinMaxLagAge), model.Setting(model.MaxMaxLagAge), f.judging.MaxLagAge)
	}
	if err := model.CheckMaxRebalances(f.judging.MaxRebalances); err != nil {
		return nil, err
	}
	if fs.Changed("fail-on") {
		if f.failOn, err = headless.ParseFailOn(f.failOnWord, f.once, f.events, f.judging.MaxRebalances); err != nil {
			return nil, err
		}
	}
	switch {
	case f.group == "" && fs.Changed("group"):
		return nil, model.UsageError{Msg: "--group is empty"}
	case f.group == "" && f.events:
		return nil, model.UsageError{Msg: "--events needs --group: the timeline is one group's"}
	case strings.HasPrefix(f.group, "-"):
		return nil, model.Usagef("--group needs a value, got the flag %q", f.group)
	case kafka.CheckGroupName(f.group) != nil:
		return nil, model.UsageError{Msg: "--group: " + kafka.CheckGroupName(f.group).Error()}
	case strings.HasPrefix(f.brokers, "-"):
		return nil, model.Usagef("--brokers needs a value, got the flag %q", f.brokers)
	case f.once && f.events:
		return nil, model.UsageError{Msg: "--once and --events do not go together"}
	case f.once && f.record != "":
		return nil, model.UsageError{Msg: "--once and --record do not go together: record a watch (the TUI or --events)"}
	}
	brokersFrom := "--brokers"
	if !fs.Changed("brokers") && os.Getenv("KAFKA_BROKERS") != "" {
		brokersFrom = "$KAFKA_BROKERS"
	}
	return kafka.ParseBrokers(f.brokers, brokersFrom)
}
