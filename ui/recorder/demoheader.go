package recorder

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
)

// demoHeader is the demo's settings as a recording's header holds them
// (record.Header.Demo), named as the rest of the header is. It converts
// to and from ui.DemoSettings: a field added there fails to compile here
// until it has its name.
type demoHeader struct {
	SessionTimeout  time.Duration `json:"session_timeout_ns"`
	MaxPollInterval time.Duration `json:"max_poll_interval_ns"`
	Commit          string        `json:"commit"`
	CommitDelay     time.Duration `json:"commit_delay_ns"`
	ProcessTime     time.Duration `json:"process_time_ns"`
	SlowProcessTime time.Duration `json:"slow_process_time_ns"`
	Static          bool          `json:"static,omitempty"`
	BrokerHeartbeat time.Duration `json:"broker_heartbeat_ns,omitempty"`
}

// DemoHeader is the header of the recording of a demo watching group
// with settings set and options opts.
func DemoHeader(group string, set ui.DemoSettings, opts ui.Options) (record.Header, error) {
	js, err := json.Marshal(demoHeader(set))
	if err != nil {
		return record.Header{}, fmt.Errorf("--record: demo settings: %w", err)
	}
	return record.Header{
		Mode: "demo", Group: group, Brokers: opts.Brokers,
		Interval: opts.Interval, Timeout: opts.Timeout, StallAfter: opts.StallAfter, MaxLagAge: opts.MaxLagAge,
		MaxRebalances: opts.MaxRebalances, TimelineSize: opts.TimelineSize, Demo: js,
	}, nil
}

// DemoSettings reads h's demo settings (none when h is not of a demo),
// refusing values no flag of kgwatch demo takes. Recordings made before
// the header named them in snake_case named them as ui.DemoSettings's
// fields ("SessionTimeout"): those are read too.
func DemoSettings(h record.Header) (ui.DemoSettings, error) {
	if len(h.Demo) == 0 {
		return ui.DemoSettings{}, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(h.Demo, &fields); err != nil {
		return ui.DemoSettings{}, &record.HeaderError{Field: "demo", Value: "that is not an object", Want: model.Printable(err.Error())}
	}
	var set demoHeader
	var err error
	if _, old := fields["SessionTimeout"]; old {
		var o ui.DemoSettings
		err = json.Unmarshal(h.Demo, &o)
		set = demoHeader(o)
	} else {
		err = json.Unmarshal(h.Demo, &set)
	}
	if err != nil {
		return ui.DemoSettings{}, &record.HeaderError{Field: "demo", Value: "what cannot be read", Want: model.Printable(err.Error())}
	}
	// Zero: not recorded.
	for _, d := range []struct {
		field    string
		v        time.Duration
		min, max time.Duration
	}{
		{"session_timeout_ns", set.SessionTimeout, demo.MinSessionTimeout, demo.MaxSessionTimeout},
		{"max_poll_interval_ns", set.MaxPollInterval, demo.MinMaxPollInterval, demo.MaxMaxPollInterval},
		{"commit_delay_ns", set.CommitDelay, 0, demo.MaxCommitDelay},
		{"process_time_ns", set.ProcessTime, demo.MinWork, demo.MaxWork},
		{"slow_process_time_ns", set.SlowProcessTime, demo.MinWork, demo.MaxWork},
		{"broker_heartbeat_ns", set.BrokerHeartbeat, time.Millisecond, demo.MaxSessionTimeout},
	} {
		if d.v != 0 && (d.v < d.min || d.v > d.max) {
			return ui.DemoSettings{}, &record.HeaderError{Field: "demo " + d.field, Value: fmt.Sprintf("%d (%s)", int64(d.v), d.v),
				Want: fmt.Sprintf("want 0 or from %s to %s", model.Setting(d.min), model.Setting(d.max))}
		}
	}
	if c := set.Commit; c != "" && c != demo.CommitAfter && c != demo.CommitBefore {
		return ui.DemoSettings{}, &record.HeaderError{Field: "demo commit", Value: fmt.Sprintf("%q", c), Want: "want after or before"}
	}
	return ui.DemoSettings(set), nil
}
