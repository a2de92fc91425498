package model

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// What is kept of the record a partition waits on, so a hostile producer
// (a 1 MiB key, a thousand headers) costs a few hundred bytes a partition:
// the first MaxKeyBytes of its key, the first MaxHeaders headers and the
// first MaxHeaderBytes of each one's name and value. Sizes are kept whole.
const (
	MaxKeyBytes    = 64
	MaxHeaders     = 8
	MaxHeaderBytes = 32
)

// OldestRecord is what was read of the record a partition with lag waits
// on: the first record at or after its committed offset (with no commit,
// at log start), from the Fetch that reads its timestamp. The record's
// value is never kept. Key and header values are the producer's bytes,
// cut: untrusted, they reach a terminal only through KeyText and
// HeadersText, which make them printable.
type OldestRecord struct {
	// Offset is the record's own offset: the committed one, or past it
	// when only transaction markers or compacted records lie between.
	Offset int64
	// Time is the record's timestamp (its create time, or the broker's
	// append time); zero when it carries none.
	Time time.Time
	// Size is the record as encoded in its batch, uncompressed, in bytes:
	// its length prefix, fields, key, value and headers. ValueSize is the
	// value's length, -1 for a null value (a tombstone).
	Size      int32
	ValueSize int32
	// Key is the key's first MaxKeyBytes bytes; KeySize the key's whole
	// length, -1 for a null key.
	Key     string
	KeySize int32
	// Headers are the record's first MaxHeaders headers, in order;
	// HeaderCount counts them all.
	Headers     []RecordHeader
	HeaderCount int32
	// Hidden: the key and the header values were dropped (--hide-keys);
	// their sizes stay.
	Hidden bool
	// Partial: the answer held only the start of the record (a byte
	// limit cut its batch): the key may be shorter than KeySize says
	// even under MaxKeyBytes, ValueSize may be unread (0), and the headers
	// were not read.
	Partial bool
}

// RecordHeader is one header of an OldestRecord: the first MaxHeaderBytes
// of its name and value, and their whole sizes (ValueSize -1: a null
// value).
type RecordHeader struct {
	Name      string
	NameSize  int32
	Value     string
	ValueSize int32
}

// Hide returns r with its key and header values dropped, their sizes
// kept: what --hide-keys lets through.
func (r OldestRecord) Hide() OldestRecord {
	if r.Hidden {
		return r
	}
	r.Key, r.Hidden = "", true
	if len(r.Headers) > 0 {
		hs := make([]RecordHeader, len(r.Headers))
		for i, h := range r.Headers {
			hs[i] = RecordHeader{Name: h.Name, NameSize: h.NameSize, ValueSize: h.ValueSize}
		}
		r.Headers = hs
	}
	return r
}

// HideKeys drops, in place, the key and header values of every record
// the snapshot's partitions wait on (OldestRecord.Hide).
func (s *Snapshot) HideKeys() {
	for i := range s.Partitions {
		p := &s.Partitions[i]
		if len(p.Oldest) > 0 && !p.Oldest[0].Hidden {
			p.Oldest = []OldestRecord{p.Oldest[0].Hide()} // the rows' records may be shared
		}
	}
}

// OldestRecord returns the record the partition waits on, when it has lag
// and the record was read.
func (p *PartitionLag) OldestRecord() (OldestRecord, bool) {
	if len(p.Oldest) == 0 {
		return OldestRecord{}, false
	}
	return p.Oldest[0], true
}

// StuckOn returns the record a partition is stuck on, when its status
// says a record holds it up: STALLED (its commit has not moved for
// stallAfter), or LAGGING with that record older than stallAfter (a
// commit standing still since before the watch began reads LAGGING
// until the watch itself has seen it still for stallAfter). Partitions of
// a group with no member (STOPPED) wait for a consumer, not on a record.
func (p *PartitionLag) StuckOn(stallAfter time.Duration) (OldestRecord, bool) {
	r, ok := p.OldestRecord()
	switch {
	case !ok:
		return r, false
	case p.Status == StatusStalled:
		return r, true
	case p.Status == StatusLagging:
		return r, p.LagAgeKnown && p.LagAge >= stallAfter
	}
	return r, false
}

// keyCells and valueCells bound a key and a header value on screen.
const (
	keyCells   = 24
	valueCells = 16
)

// KeyText writes a record's key for a terminal or a sentence: printable
// (Printable: ESC as ␛, bytes not UTF-8 as \xff), cut to a few cells
// ("…" when cut, here or when read), quoted when empty or holding a space
// or comma; "null" for a null key; "12 B hidden" under --hide-keys.
func KeyText(r OldestRecord) string {
	switch {
	case r.KeySize < 0:
		return "null"
	case r.Hidden:
		return Bytes(int64(r.KeySize)) + " hidden"
	}
	return shownBytes(r.Key, int(r.KeySize), keyCells)
}

// HeadersText writes a record's headers: "trace-id=abc, retry=3"; "none";
// "+3 more" past those kept; "unread" when the record came cut short.
// Values are cut as keys are; under --hide-keys each says its size
// alone: "trace-id (3 B)".
func HeadersText(r OldestRecord) string {
	switch {
	case r.Partial:
		return "unread"
	case r.HeaderCount == 0:
		return "none"
	}
	var b strings.Builder
	for i, h := range r.Headers {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(shownBytes(h.Name, int(h.NameSize), valueCells))
		switch {
		case h.ValueSize < 0:
		case r.Hidden:
			b.WriteString(" (" + Bytes(int64(h.ValueSize)) + ")")
		default:
			b.WriteString("=" + shownBytes(h.Value, int(h.ValueSize), valueCells))
		}
	}
	if more := int(r.HeaderCount) - len(r.Headers); more > 0 {
		if len(r.Headers) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("+" + strconv.Itoa(more) + " more")
	}
	return b.String()
}

// shownBytes is bytes kept of a field of size bytes, printable and cut to
// cells: "…" ends it when cut here or when it was read cut.
func shownBytes(kept string, size, cells int) string {
	s := Printable(kept)
	cut := len(kept) < size
	if ansi.StringWidth(s) > cells {
		s, cut = ansi.Truncate(s, cells-1, ""), true
	}
	if cut {
		s += "…"
	}
	if s == "" || strings.ContainsAny(s, " ,=\"") {
		s = `"` + s + `"`
	}
	return s
}

// RecordText says what the record is: "record written 14:01:58, 512 B,
// key order-42, headers trace-id=abc, retry=3" (the date too when it was
// not written on now's day).
func RecordText(r OldestRecord, now time.Time) string {
	written := "record with no timestamp"
	if !r.Time.IsZero() {
		written = "record written " + Clock(r.Time, now)
	}
	return written + ", " + Bytes(int64(r.Size)) + ", key " + KeyText(r) + ", headers " + HeadersText(r)
}

// StuckText is the line for a partition stuck on r (StuckOn): "stuck at
// offset 1,234 since 14:02:11, record written 14:01:58, 512 B, key
// order-42, headers trace-id=abc" while STALLED (since its stall began;
// "since before 14:02:11" when that was before the watch saw it);
// "waiting at offset 1,234, record written …" otherwise.
func StuckText(p *PartitionLag, r OldestRecord, now time.Time) string {
	s := "waiting at offset " + Thousands(r.Offset)
	if p.Status == StatusStalled {
		s = "stuck at offset " + Thousands(r.Offset)
		switch {
		case p.StalledSince.IsZero():
		case p.StalledSinceExact:
			s += " since " + Clock(p.StalledSince, now)
		default:
			s += " since before " + Clock(p.StalledSince, now)
		}
	}
	return s + ", " + RecordText(r, now)
}

// StuckShort is StuckText for a narrow line: what the record is first,
// when last: "stuck at 1,234: key order-42, headers trace-id=abc, 512 B,
// written 14:01:58" ("waiting at" for a LAGGING one).
func StuckShort(p *PartitionLag, r OldestRecord, now time.Time) string {
	verb := "waiting at "
	if p.Status == StatusStalled {
		verb = "stuck at "
	}
	s := verb + Thousands(r.Offset) + ": key " + KeyText(r) + ", headers " + HeadersText(r) + ", " + Bytes(int64(r.Size))
	if !r.Time.IsZero() {
		s += ", written " + Clock(r.Time, now)
	}
	return s
}

// Clock writes a time of day as the screen and the sentences give it,
// "14:01:58", with the date when it is not now's: "Jan 2 14:01:58".
func Clock(t, now time.Time) string {
	t = t.In(now.Location())
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("Jan 2 15:04:05")
}
