package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/kgwatch/kgwatch/model"
)

// maxRecord bounds one record's length, for the writer and the reader: a
// snapshot of 100,000 partitions written whole is ~4 MB, so this holds
// ~800,000. A record claiming more is refused from its length; reading
// one of this length holds at most 1.5 times it (frame).
const maxRecord = 32 << 20

// A record is dated from maxBefore before the recording's start to
// maxAfter after it.
const (
	maxBefore = 24 * time.Hour
	maxAfter  = 10 * 366 * 24 * time.Hour
)

// maxStreams bounds the groups a recording may declare (an overview
// recording declares each group opened from it).
const maxStreams = 1 << 16

// Reader reads a recording's records in order. It is not safe for
// concurrent use.
type Reader struct {
	in   *bufio.Reader // the decompressed records
	z    *gzip.Reader  // the gzip member read (keyframe.go)
	br   *bufio.Reader // the file, read by z
	file *countReader  // the file, counted
	h    Header
	dec  decoder
	strs strtab
	raw  []byte // the record being read (frame)

	snapshot, event, demo, action, overview, overviewPoll *plan
	c                                                     *codecs

	last   time.Time // the time of the record before
	good   time.Time // the time of the last good record
	read   int       // records read
	groups map[uint64]*rstream
	seen   []string // the groups with records, in the order they came
	demoSt model.DemoStatus
	ov     overviewBody
	ovPoll overviewPollBody
	// held is what the values kept hold (codec.held), all of them.
	held, demoHeld, ovHeld, ovPollHeld uint64
	err                                error // sticky: the end
	// atBoundary: the last frame failed before its first byte.
	atBoundary bool
	// atKey: the next record starts a keyframe, at byte keyAt of the
	// file (keyframe.go).
	atKey bool
	keyAt int64
}

type rstream struct {
	name string
	prev model.Snapshot
	held uint64 // prev's (codec.held)
	seen bool   // in Reader.seen
}

// NewReader reads a recording's first line and header from r. A file that
// is not a recording gives ErrNotRecording; one of a later format a
// *NewerFormatError; a header holding what no kgwatch writes a
// *HeaderError.
func NewReader(r io.Reader) (*Reader, error) {
	file := &countReader{r: r}
	br := bufio.NewReaderSize(file, 64<<10)
	line, err := br.Peek(len(magic) + 12)
	if err != nil && len(line) <= len(magic) {
		return nil, ErrNotRecording
	}
	nl := bytes.IndexByte(line, '\n')
	if nl < 0 || !strings.HasPrefix(string(line[:nl]), magic) {
		return nil, ErrNotRecording
	}
	format, err := strconv.Atoi(string(line[len(magic):nl]))
	if err != nil || format < 1 {
		return nil, ErrNotRecording
	}
	if format > Version {
		return nil, &NewerFormatError{Format: format}
	}
	br.Discard(nl + 1)
	z, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%w: no header (%v)", ErrNotRecording, err)
	}
	c, err := bodyCodecs()
	if err != nil {
		return nil, err
	}
	// One gzip member at a time: a member's end is a keyframe's start
	// where the header says it has keyframes (keyframe.go), and what
	// follows the end mark is not the recording's.
	z.Multistream(false)
	rd := &Reader{in: bufio.NewReaderSize(z, 64<<10), z: z, br: br, file: file, c: c, groups: map[uint64]*rstream{}}
	rd.dec.strs = &rd.strs
	k, body, err := rd.frame()
	if err != nil || k != kindHeader {
		return nil, fmt.Errorf("%w: no header", ErrNotRecording)
	}
	var fh fileHeader
	if err := json.Unmarshal(body, &fh); err != nil {
		return nil, &HeaderError{Want: err.Error()}
	}
	if fh.Format != format {
		return nil, fmt.Errorf("%w: header says format %d, first line %d", ErrNotRecording, fh.Format, format)
	}
	if err := fh.Header.Check(); err != nil {
		return nil, err
	}
	rd.h = fh.Header
	rd.dec.carry = format >= 5
	for name, dst := range map[string]**plan{
		"snapshot": &rd.snapshot, "event": &rd.event, "demo": &rd.demo,
		"action": &rd.action, "overview": &rd.overview, "overview_poll": &rd.overviewPoll,
	} {
		p, err := newPlan(fh.Schemas[name], c.byName()[name])
		if err != nil {
			return nil, fmt.Errorf("%w: schema of %s: %v", ErrNotRecording, name, err)
		}
		*dst = p
	}
	rd.groups[0] = &rstream{name: rd.h.Group}
	rd.last, rd.good = rd.h.Started, rd.h.Started
	return rd, nil
}

// Header is the recording's header.
func (r *Reader) Header() Header { return r.h }

// frame reads one record's kind and body. The body is valid until the
// next call.
func (r *Reader) frame() (Kind, []byte, error) {
	k, err := r.in.ReadByte()
	if errors.Is(err, io.EOF) && r.h.Keyframes > 0 && !r.atKey {
		// The member's end: a keyframe follows, or the file ends.
		if err = r.nextMember(); err == nil {
			k, err = r.in.ReadByte()
		}
	}
	r.atBoundary = err != nil
	if err != nil {
		return 0, nil, err
	}
	r.atKey = false
	n, err := binary.ReadUvarint(r.in)
	if err != nil {
		return 0, nil, noEOF(err)
	}
	if n > maxRecord {
		return 0, nil, tooLargef("a record of %s MiB, at most %s", mib(n), mib(maxRecord))
	}
	// Grown as the bytes arrive, not from the length the record claims,
	// and never past it: doubling, but the last step to the length
	// exactly (a bytes.Buffer grew a record of 32 MiB through 64 MiB,
	// 128 MiB allocated in all).
	buf := r.raw[:0]
	for uint64(len(buf)) < n {
		if len(buf) == cap(buf) {
			next := min(uint64(max(2*cap(buf), 64<<10)), n)
			buf = slices.Grow(buf, int(next)-len(buf))
		}
		m, err := r.in.Read(buf[len(buf):min(uint64(cap(buf)), n)])
		buf = buf[:len(buf)+m]
		if err != nil && uint64(len(buf)) < n {
			return 0, nil, noEOF(err)
		}
	}
	r.raw = buf
	return Kind(k), buf, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Next returns the next record. At the end it returns io.EOF after the
// end mark, ErrUnfinished when there is none, or a *DamagedError at a
// record that cannot be read; every later call returns the same.
func (r *Reader) Next() (Record, error) { return r.nextRecord(true) }

// nextRecord is Next; with copies false the record's snapshot, demo read
// and overview are left out (Scan's reading: no copy of each).
func (r *Reader) nextRecord(copies bool) (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	for {
		rec, skip, err := r.next(copies)
		if err != nil {
			r.err = err
			return Record{}, err
		}
		if !skip {
			r.read++
			r.good = rec.At
			return rec, nil
		}
	}
}

// next reads one record; skip is true for those that are not the
// caller's (stream declarations).
func (r *Reader) next(copies bool) (rec Record, skip bool, err error) {
	k, body, err := r.frame()
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF && r.atBoundary:
		// The stream stops between records: a writer that was killed
		// after its last flush.
		return rec, false, ErrUnfinished
	case errors.Is(err, io.ErrUnexpectedEOF):
		return rec, false, &DamagedError{After: r.good, Truncated: true}
	case err != nil:
		return rec, false, &DamagedError{After: r.good, Err: err}
	}
	if k == kindEnd {
		// Read to the stream's end: gzip checks its checksum there, of
		// every byte before (a flipped bit in a number decodes). A
		// file cut inside the checksum has every record: it is read
		// as one that was not cut.
		switch n, err := io.Copy(io.Discard, r.in); {
		case errors.Is(err, gzip.ErrChecksum):
			return rec, false, &DamagedError{After: r.good, Err: ErrChecksum}
		case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
			return rec, false, &DamagedError{After: r.good, Err: fmt.Errorf("after its end mark: %w", err)}
		case n > 0 || len(body) > 0:
			return rec, false, &DamagedError{After: r.good, Err: fmt.Errorf("%d bytes after its end mark", n+int64(len(body)))}
		}
		return rec, false, io.EOF
	}
	r.dec.buf, r.dec.grow = body, budget(len(body))
	dt, err := r.dec.varint()
	if err != nil {
		return rec, false, &DamagedError{After: r.good, Err: err}
	}
	at := r.last.UnixNano()
	if dt > 0 && at+dt < at || dt < 0 && at+dt > at {
		return rec, false, &DamagedError{After: r.good, Err: fmt.Errorf("%s: its time overflows", k)}
	}
	rec.Kind = k
	rec.At = time.Unix(0, at+dt)
	// The recorder's clock may step back a little (NTP); a record a day
	// before the start, or years after, is not of this recording.
	if off := rec.At.Sub(r.h.Started); off < -maxBefore || off > maxAfter {
		return rec, false, &DamagedError{After: r.good, Err: fmt.Errorf("%s: dated %s, %s from the start", k, rec.At.UTC().Format(time.RFC3339), off.Round(time.Second))}
	}
	r.last = rec.At
	r.dec.at = rec.At
	if err := r.body(&rec, copies); err != nil {
		return rec, false, &DamagedError{After: r.good, Err: fmt.Errorf("%s: %w", k, err)}
	}
	return rec, k == kindStream, nil
}

func mib(n uint64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) }

// keep notes that a value kept now holds n bytes where it held *was.
func (r *Reader) keep(was *uint64, n uint64) error {
	if n > maxHeld {
		return tooLargef("it holds %s MiB, at most %s", mib(n), mib(maxHeld))
	}
	r.held = r.held - *was + n
	*was = n
	if r.held > 2*maxHeld {
		return tooLargef("the groups' snapshots hold %s MiB, at most %s", mib(r.held), mib(2*maxHeld))
	}
	return nil
}

func (r *Reader) streamOf() (*rstream, error) {
	id, err := r.dec.uvarint()
	if err != nil {
		return nil, err
	}
	s, ok := r.groups[id]
	if !ok {
		return nil, fmt.Errorf("group %d not declared", id)
	}
	return s, nil
}

func (r *Reader) rawString() (string, error) {
	n, err := r.dec.uvarint()
	if err != nil || n > uint64(len(r.dec.buf)) {
		return "", errCorrupt
	}
	s := string(r.dec.buf[:n])
	r.dec.buf = r.dec.buf[n:]
	return s, nil
}

// body decodes rec's body (rec.Kind set) from r.dec; with copies false
// it leaves out the copies of what the reader keeps.
func (r *Reader) body(rec *Record, copies bool) error {
	var s *rstream
	switch rec.Kind {
	case KindSnapshot, KindFailed, KindEvent:
		var err error
		if s, err = r.streamOf(); err != nil {
			return err
		}
		rec.Group = s.name
	}
	switch rec.Kind {
	case kindStream:
		id, err := r.dec.uvarint()
		if err != nil {
			return err
		}
		name, err := r.rawString()
		if err != nil {
			return err
		}
		if _, ok := r.groups[id]; !ok && len(r.groups) >= maxStreams {
			return tooLargef("more than %d groups", maxStreams)
		}
		r.groups[id] = &rstream{name: name}
	case KindSnapshot:
		if err := r.dec.value(r.snapshot, unsafe.Pointer(&s.prev)); err != nil {
			return err
		}
		if err := r.keep(&s.held, r.c.snapshot.held(unsafe.Pointer(&s.prev))); err != nil {
			return err
		}
		if copies {
			// The caller annotates what it is given in place: it gets
			// a copy.
			rec.Snapshot = clone(r.c.snapshot, &s.prev)
		}
	case KindFailed:
		var err error
		if rec.Err, err = r.rawString(); err != nil {
			return err
		}
		rec.Started = rec.At
		if r.h.Format >= 2 {
			took, err := r.dec.uvarint()
			if err != nil || took > math.MaxInt64 {
				return errCorrupt
			}
			rec.Started = rec.At.Add(-time.Duration(took))
		}
	case KindEvent:
		if err := r.dec.value(r.event, unsafe.Pointer(&rec.Event)); err != nil {
			return err
		}
	case KindDemoStatus:
		if err := r.dec.value(r.demo, unsafe.Pointer(&r.demoSt)); err != nil {
			return err
		}
		if err := r.keep(&r.demoHeld, r.c.demo.held(unsafe.Pointer(&r.demoSt))); err != nil {
			return err
		}
		if copies {
			rec.Demo = clone(r.c.demo, &r.demoSt)
		}
	case KindDemoAction:
		var b actionBody
		if err := r.dec.value(r.action, unsafe.Pointer(&b)); err != nil {
			return err
		}
		rec.Action, rec.Outcome, rec.Err = b.Action, b.Outcome, b.Err
	case KindOverview:
		if err := r.dec.value(r.overview, unsafe.Pointer(&r.ov)); err != nil {
			return err
		}
		if err := r.keep(&r.ovHeld, r.c.overview.held(unsafe.Pointer(&r.ov))); err != nil {
			return err
		}
		if copies {
			rec.Groups = clone(r.c.overview, &r.ov).Groups
		}
	case KindOverviewFailed:
		var err error
		if rec.Err, err = r.rawString(); err != nil {
			return err
		}
	case KindOverviewPoll:
		if r.h.Format < 3 {
			return fmt.Errorf("not a kind of format %d", r.h.Format)
		}
		if err := r.dec.value(r.overviewPoll, unsafe.Pointer(&r.ovPoll)); err != nil {
			return err
		}
		if err := r.keep(&r.ovPollHeld, r.c.overviewPoll.held(unsafe.Pointer(&r.ovPoll))); err != nil {
			return err
		}
		if copies {
			rec.Overview = r.ovPoll.observation()
		}
	default:
		// A new kind of record comes with a new format number, which
		// an older reader refuses (NewerFormatError): an unknown kind
		// in a format this reader knows is damage.
		return fmt.Errorf("not a kind of format %d", r.h.Format)
	}
	if len(r.dec.buf) != 0 {
		return fmt.Errorf("%d bytes left over", len(r.dec.buf))
	}
	if s != nil && !s.seen {
		s.seen = true
		r.seen = append(r.seen, s.name)
	}
	return nil
}

// Summary is what Scan finds in a recording.
type Summary struct {
	Header Header
	// Last is the time of the last good record; zero when there is none.
	Last    time.Time
	Records int
	// Groups are the groups with snapshots, failures or events, in the
	// order they first appear.
	Groups []string
	// End is how the recording ends: nil after its end mark, else
	// ErrUnfinished or a *DamagedError.
	End error
}

// Summary is what r has read: once Next has returned an error, the
// whole recording's (Scan's); before, End is nil.
func (r *Reader) Summary() Summary {
	sum := Summary{Header: r.h, Last: r.good, Records: r.read, Groups: slices.Clone(r.seen)}
	if r.read == 0 {
		sum.Last = time.Time{}
	}
	if r.err != io.EOF {
		sum.End = r.err
	}
	return sum
}

// Scan reads a recording through, every record decoded as Next decodes
// it (so it finds the damage Next would), without copying what it reads:
// its header, its span, its groups and how it ends. It fails as
// NewReader does.
func Scan(r io.Reader) (Summary, error) {
	rd, err := NewReader(r)
	if err != nil {
		return Summary{}, err
	}
	return rd.Rest(), nil
}

// Rest reads the rest of the recording as Scan does and returns its
// Summary: the records Next has returned, and the rest.
func (r *Reader) Rest() Summary {
	for {
		if _, err := r.nextRecord(false); err != nil {
			return r.Summary()
		}
	}
}
