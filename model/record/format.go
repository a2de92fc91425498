// Package record writes and reads kgwatch recordings (`--record FILE`,
// `kgwatch replay FILE`): everything a watch fed its pipeline — each
// snapshot as polled, before annotation, each failed poll, each outside
// event — and what the demo and the overview showed, each with the time it
// was fed, so a replay runs the same model.Pipeline over the same inputs
// and shows the same events.
//
// Like package model it opens no file and reads no clock: the writer is
// given an io.Writer and the times, the reader an io.Reader.
//
// A recording is one line, "kgwatch recording format N", then a gzip
// stream of records. A record is its kind (one byte), its length and its
// bytes: the time it was fed (from the record before), then its body. The
// first record is the header (JSON); a snapshot is written as its
// difference from the group's snapshot before (codec.go; its slices
// column by column from format 4, columns.go); the last record,
// written on Close, marks a clean end. The writer flushes after each poll,
// so a crash loses at most the poll in hand, and the reader stops at the
// first record cut short.
//
// compress/gzip rather than zstd (github.com/klauspost/compress, in go.sum
// through kafka-go): measured with BenchmarkStablePoll, zstd made files
// 10-20% smaller while every partition moves, but 2-3 times larger while
// the group is idle (its block per flush costs more than deflate's sync
// marker), and would be one more direct dependency.
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// Version is the format this package writes. It reads every format up to
// it; a file of a later format is refused (NewerFormatError). Format 2
// wrote durations in milliseconds, 3 the overview as read, 4 slices
// column by column (columns.go), 5 each column's range coder models
// carried from one record to the next (rangecoder.go).
const Version = 5

// magic starts every recording, followed by the format and a newline.
const magic = "kgwatch recording format "

// Header opens a recording: what wrote it, what was watched, and the
// settings that shaped what was seen. It holds no secret: brokers are
// host:port, and no TLS or SASL setting is recorded.
type Header struct {
	// Kgwatch is the version of kgwatch that recorded.
	Kgwatch string `json:"kgwatch"`
	// Format is the recording's format (Version when written).
	Format int `json:"format"`
	// Started is when the recording began, by the recorder's clock.
	Started time.Time `json:"started"`
	// Mode is what recorded: "tui", "events" or "demo".
	Mode string `json:"mode"`
	// Group is the group watched; "" when Overview is set.
	Group string `json:"group,omitempty"`
	// Overview: the overview of every group was watched, and the groups
	// opened from it (each record names its group).
	Overview bool     `json:"overview,omitempty"`
	Brokers  []string `json:"brokers"`
	// Interval, Timeout, StallAfter and MaxLagAge are the flags the watch
	// ran with (zero: the default); TimelineSize the timeline's capacity
	// (zero: the default).
	Interval   time.Duration `json:"interval_ns"`
	Timeout    time.Duration `json:"timeout_ns"`
	StallAfter time.Duration `json:"stall_after_ns,omitempty"`
	MaxLagAge  time.Duration `json:"max_lag_age_ns,omitempty"`
	// MaxRebalances is --max-rebalances (zero: none).
	MaxRebalances int `json:"max_rebalances,omitempty"`
	TimelineSize  int `json:"timeline_size,omitempty"`
	// Keyframes: the writer starts a keyframe every this many polls
	// (zero: none, formats before 4), where a reader can start afresh
	// (keyframe.go).
	Keyframes int `json:"keyframes,omitempty"`
	// Demo, in demo mode, holds the demo's settings the screen explains,
	// as JSON (the UI's DemoSettings).
	Demo json.RawMessage `json:"demo,omitempty"`
}

// fileHeader is the header record: the header and the schema of each
// kind of body, by name.
type fileHeader struct {
	Header
	Schemas map[string][]fieldSchema `json:"schemas"`
}

// Kind is what a record holds.
type Kind uint8

// Record kinds. The byte values are part of the format.
const (
	kindHeader Kind = 'H'
	kindStream Kind = 'N' // a group's number, before its first record
	kindEnd    Kind = 'Z' // written by Close

	// KindSnapshot is a good poll of a group, as its source returned it.
	KindSnapshot Kind = 'S'
	// KindFailed is a failed poll: Err is the error's text.
	KindFailed Kind = 'F'
	// KindEvent is an event from outside the polls (a demo consumer's
	// report), as it was filed.
	KindEvent Kind = 'E'
	// KindDemoStatus is a read of the demo's consumers, producer and
	// (when HasLedger) ledger.
	KindDemoStatus Kind = 'D'
	// KindDemoAction is a demo key's action, what it did, and Err when
	// it failed.
	KindDemoAction Kind = 'A'
	// KindOverview is a good poll of the overview as it was judged
	// (Groups), as formats before 3 recorded it.
	KindOverview Kind = 'O'
	// KindOverviewFailed is a failed poll of the overview.
	KindOverviewFailed Kind = 'o'
	// KindOverviewPoll is a good poll of the overview as its source read
	// it, before it was judged (Overview; format 3).
	KindOverviewPoll Kind = 'P'
)

// String names the kind in messages.
func (k Kind) String() string {
	switch k {
	case kindHeader:
		return "the header"
	case kindStream:
		return "a group's declaration"
	case kindEnd:
		return "the end mark"
	case KindSnapshot:
		return "a poll"
	case KindFailed:
		return "a failed poll"
	case KindEvent:
		return "an event"
	case KindDemoStatus:
		return "a read of the demo"
	case KindDemoAction:
		return "a demo key"
	case KindOverview:
		return "a poll of the overview"
	case KindOverviewFailed:
		return "a failed poll of the overview"
	case KindOverviewPoll:
		return "a read of the overview"
	}
	return fmt.Sprintf("a record of unknown kind %q", byte(k))
}

// Record is one thing the recorded session was fed.
type Record struct {
	Kind Kind
	// At is when it was fed: the replay plays it when its clock gets
	// there, and a failure's time is At.
	At time.Time
	// Group names the group of a snapshot, a failure or an event.
	Group string

	Snapshot model.Snapshot // KindSnapshot
	Event    model.Event    // KindEvent
	// Err is a failure's text (KindFailed, KindOverviewFailed, a failed
	// KindDemoAction).
	Err string
	// Started is when a failed poll began (KindFailed; At in format 1,
	// which did not record it).
	Started time.Time
	Demo    model.DemoStatus  // KindDemoStatus
	Action  model.DemoAction  // KindDemoAction
	Outcome model.DemoOutcome // KindDemoAction
	// Groups are the groups of a poll of the overview as they were
	// judged (KindOverview).
	Groups []model.GroupSummary
	// Overview is a poll of the overview as read (KindOverviewPoll).
	Overview model.OverviewObservation
}

// actionBody and overviewBody are the bodies that are not model types of
// their own.
type actionBody struct {
	Action  model.DemoAction
	Outcome model.DemoOutcome
	Err     string
}

type overviewBody struct {
	Groups []model.GroupSummary
}

// codecs are the body codecs, by the name the header's schemas use.
type codecs struct {
	snapshot, event, demo, action, overview, overviewPoll *codec
}

var bodyCodecs = sync.OnceValues(func() (*codecs, error) {
	var c codecs
	for _, x := range []struct {
		dst **codec
		t   reflect.Type
	}{
		{&c.snapshot, reflect.TypeFor[model.Snapshot]()},
		{&c.event, reflect.TypeFor[model.Event]()},
		{&c.demo, reflect.TypeFor[model.DemoStatus]()},
		{&c.action, reflect.TypeFor[actionBody]()},
		{&c.overview, reflect.TypeFor[overviewBody]()},
		{&c.overviewPoll, reflect.TypeFor[overviewPollBody]()},
	} {
		cd, err := newCodec(x.t)
		if err != nil {
			return nil, fmt.Errorf("record %s: %w", x.t, err)
		}
		*x.dst = cd
	}
	return &c, nil
})

func (c *codecs) byName() map[string]*codec {
	return map[string]*codec{
		"snapshot": c.snapshot, "event": c.event, "demo": c.demo,
		"action": c.action, "overview": c.overview, "overview_poll": c.overviewPoll,
	}
}

// The ranges a header's settings must fall in: those of the flags that set
// them (kgwatch's --interval, --timeout and --stall-after: one set of
// constants in model, which main checks the flags against). Zero is the default of each. A header outside them
// is damage (HeaderError): a recording must not make a replay poll-time
// arithmetic run on -5ns, or allocate a timeline of 10^8 events.
const (
	MinInterval   = model.MinInterval
	MaxInterval   = model.MaxInterval
	MinTimeout    = model.MinTimeout
	MaxTimeout    = model.MaxTimeout
	MinStallAfter = model.MinStallAfter
	MaxStallAfter = model.MaxStallAfter
	MinMaxLagAge  = model.MinMaxLagAge
	MaxMaxLagAge  = model.MaxMaxLagAge
	// MaxTimelineSize bounds the timeline's capacity (no flag sets it;
	// a timeline allocates it at once, ~270 bytes an event).
	MaxTimelineSize = 100 * model.DefaultTimelineCapacity
)

// HeaderError is a header whose field holds a value no kgwatch writes:
// the file is damaged (or was made by hand).
type HeaderError struct {
	Field string // as the header's JSON names it
	Value string
	Want  string
}

func (e *HeaderError) Error() string {
	if e.Field == "" {
		return "its header cannot be read (" + e.Want + ")"
	}
	return fmt.Sprintf("its header says %s %s (%s)", e.Field, e.Value, e.Want)
}

// Check reports the first field of h outside what kgwatch writes, as a
// *HeaderError. The demo's settings (Demo) are the UI's: its caller
// checks them.
func (h Header) Check() error {
	for _, d := range []struct {
		field    string
		v        time.Duration
		min, max time.Duration
	}{
		{"interval_ns", h.Interval, MinInterval, MaxInterval},
		{"timeout_ns", h.Timeout, MinTimeout, MaxTimeout},
		{"stall_after_ns", h.StallAfter, MinStallAfter, MaxStallAfter},
		{"max_lag_age_ns", h.MaxLagAge, MinMaxLagAge, MaxMaxLagAge},
	} {
		if d.v != 0 && (d.v < d.min || d.v > d.max) {
			return &HeaderError{Field: d.field, Value: fmt.Sprintf("%d (%s)", int64(d.v), d.v),
				Want: fmt.Sprintf("want 0 or from %s to %s", model.Setting(d.min), model.Setting(d.max))}
		}
	}
	switch {
	case h.TimelineSize < 0 || h.TimelineSize > MaxTimelineSize:
		return &HeaderError{Field: "timeline_size", Value: fmt.Sprint(h.TimelineSize), Want: fmt.Sprintf("want 0 or from 1 to %d", MaxTimelineSize)}
	case h.Keyframes < 0:
		return &HeaderError{Field: "keyframes", Value: fmt.Sprint(h.Keyframes), Want: "want 0 or more"}
	case h.MaxRebalances < 0 || h.MaxRebalances > model.MaxMaxRebalances:
		return &HeaderError{Field: "max_rebalances", Value: fmt.Sprint(h.MaxRebalances), Want: fmt.Sprintf("want 0 or from 1 to %d", model.MaxMaxRebalances)}
	case h.Started.IsZero() || h.Started.Year() < 1970 || h.Started.Year() > 2200:
		// Record times are nanoseconds from it: they must not overflow.
		return &HeaderError{Field: "started", Value: h.Started.Format(time.RFC3339), Want: "want a time from 1970 to 2200"}
	case h.Group == "" && !h.Overview:
		return &HeaderError{Field: "group", Value: `""`, Want: "want the group watched, or overview"}
	case h.Group != "" && h.Overview:
		return &HeaderError{Field: "group", Value: fmt.Sprintf("%q", h.Group), Want: "want none in a recording of the overview"}
	}
	return nil
}

// ErrNotRecording is a file that is not a kgwatch recording.
var ErrNotRecording = errors.New("not a kgwatch recording")

// NewerFormatError is a recording of a format this kgwatch cannot read.
type NewerFormatError struct{ Format int }

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("recorded by a newer kgwatch (format %d)", e.Format)
}

// ErrUnfinished ends a recording whose writer never closed it (kgwatch
// was killed, or the machine stopped): every record in it was read.
var ErrUnfinished = errors.New("the recording ends without its end mark (kgwatch did not exit cleanly)")

// DamagedError ends a recording at a record that cannot be read: cut
// short (Truncated: a crash or a full disk while it was written) or
// corrupt. The records before it were read.
type DamagedError struct {
	// After is the time of the last good record (zero: none).
	After     time.Time
	Truncated bool
	Err       error
}

func (e *DamagedError) Error() string {
	what := "a record is corrupt"
	switch {
	case e.Truncated:
		what = "the last record is cut short"
	case errors.Is(e.Err, ErrTooLarge):
		what = "a record is too large to replay"
	case errors.Is(e.Err, ErrChecksum):
		return ErrChecksum.Error()
	}
	if e.Err != nil && e.Err != errCorrupt {
		what += " (" + e.Err.Error() + ")"
	}
	return what
}

func (e *DamagedError) Unwrap() error { return e.Err }

// ErrChecksum ends a recording read to its end mark whose checksum (of
// every byte of its records) does not match: a record read may hold a
// wrong value. A *DamagedError wraps it.
var ErrChecksum = errors.New("its checksum does not match")

// ErrTooLarge is a record that would make the replay hold more than it
// keeps (see the limits in decode.go): a file made to exhaust memory, or a
// group far larger than any kgwatch watches. A *DamagedError wraps it.
var ErrTooLarge = errors.New("too large to replay")

// tooLarge is ErrTooLarge saying what is too large.
type tooLarge string

func (e tooLarge) Error() string        { return string(e) }
func (e tooLarge) Is(target error) bool { return target == ErrTooLarge }

func tooLargef(format string, args ...any) error { return tooLarge(fmt.Sprintf(format, args...)) }
