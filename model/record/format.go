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
// difference from the group's snapshot before (codec.go); the last record,
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
// it; a file of a later format is refused (NewerFormatError).
const Version = 1

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
	// Interval, Timeout and StallAfter are the flags the watch ran with
	// (zero: the default); TimelineSize the timeline's capacity (zero:
	// the default).
	Interval     time.Duration `json:"interval_ns"`
	Timeout      time.Duration `json:"timeout_ns"`
	StallAfter   time.Duration `json:"stall_after_ns,omitempty"`
	TimelineSize int           `json:"timeline_size,omitempty"`
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
	// KindOverview is a good poll of the overview.
	KindOverview Kind = 'O'
	// KindOverviewFailed is a failed poll of the overview.
	KindOverviewFailed Kind = 'o'
)

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
	Err     string
	Demo    model.DemoStatus  // KindDemoStatus
	Action  model.DemoAction  // KindDemoAction
	Outcome model.DemoOutcome // KindDemoAction
	Groups  []model.GroupSummary
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
	snapshot, event, demo, action, overview *codec
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
		"action": c.action, "overview": c.overview,
	}
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
	if e.Truncated {
		what = "the last record is cut short"
	}
	if e.Err != nil {
		what += " (" + e.Err.Error() + ")"
	}
	return what
}

func (e *DamagedError) Unwrap() error { return e.Err }
