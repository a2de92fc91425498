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
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/kgwatch/kgwatch/model"
)

// maxRecord bounds one record's length: a snapshot of 100,000 partitions
// written whole is well under it.
const maxRecord = 1 << 28

// Reader reads a recording's records in order. It is not safe for
// concurrent use.
type Reader struct {
	in   *bufio.Reader // the decompressed records
	h    Header
	dec  decoder
	strs strtab
	raw  bytes.Buffer

	snapshot, event, demo, action, overview *plan
	c                                       *codecs

	last   time.Time // the time of the record before
	good   time.Time // the time of the last good record
	read   int       // records read
	groups map[uint64]*rstream
	demoSt model.DemoStatus
	ov     overviewBody
	err    error // sticky: the end
	// atBoundary: the last frame failed before its first byte.
	atBoundary bool
}

type rstream struct {
	name string
	prev model.Snapshot
}

// NewReader reads a recording's first line and header from r. A file that
// is not a recording gives ErrNotRecording; one of a later format a
// *NewerFormatError.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
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
	rd := &Reader{in: bufio.NewReaderSize(z, 64<<10), c: c, groups: map[uint64]*rstream{}}
	rd.dec.strs = &rd.strs
	k, body, err := rd.frame()
	if err != nil || k != kindHeader {
		return nil, fmt.Errorf("%w: no header", ErrNotRecording)
	}
	var fh fileHeader
	if err := json.Unmarshal(body, &fh); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrNotRecording, err)
	}
	if fh.Format != format {
		return nil, fmt.Errorf("%w: header says format %d, first line %d", ErrNotRecording, fh.Format, format)
	}
	rd.h = fh.Header
	for name, dst := range map[string]**plan{
		"snapshot": &rd.snapshot, "event": &rd.event, "demo": &rd.demo,
		"action": &rd.action, "overview": &rd.overview,
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
	r.atBoundary = err != nil
	if err != nil {
		return 0, nil, err
	}
	n, err := binary.ReadUvarint(r.in)
	if err != nil {
		return 0, nil, noEOF(err)
	}
	if n > maxRecord {
		return 0, nil, errCorrupt
	}
	// Grown as the bytes arrive, not from the length the record claims.
	r.raw.Reset()
	if m, err := io.CopyN(&r.raw, r.in, int64(n)); err != nil || uint64(m) != n {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, noEOF(err)
	}
	return Kind(k), r.raw.Bytes(), nil
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
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	for {
		rec, skip, err := r.next()
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
func (r *Reader) next() (rec Record, skip bool, err error) {
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
		return rec, false, io.EOF
	}
	r.dec.buf = body
	dt, err := r.dec.varint()
	if err != nil {
		return rec, false, &DamagedError{After: r.good, Err: err}
	}
	rec.Kind = k
	rec.At = time.Unix(0, r.last.UnixNano()+dt)
	r.last = rec.At
	if err := r.body(&rec); err != nil {
		return rec, false, &DamagedError{After: r.good, Err: fmt.Errorf("%c record: %w", k, err)}
	}
	return rec, k == kindStream, nil
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

// body decodes rec's body (rec.Kind set) from r.dec.
func (r *Reader) body(rec *Record) error {
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
		r.groups[id] = &rstream{name: name}
	case KindSnapshot:
		s, err := r.streamOf()
		if err != nil {
			return err
		}
		if err := r.dec.value(r.snapshot, unsafe.Pointer(&s.prev)); err != nil {
			return err
		}
		rec.Group = s.name
		// The caller annotates what it is given in place: it gets a copy.
		rec.Snapshot = clone(r.c.snapshot, &s.prev)
	case KindFailed:
		s, err := r.streamOf()
		if err != nil {
			return err
		}
		rec.Group = s.name
		if rec.Err, err = r.rawString(); err != nil {
			return err
		}
	case KindEvent:
		s, err := r.streamOf()
		if err != nil {
			return err
		}
		rec.Group = s.name
		if err := r.dec.value(r.event, unsafe.Pointer(&rec.Event)); err != nil {
			return err
		}
	case KindDemoStatus:
		if err := r.dec.value(r.demo, unsafe.Pointer(&r.demoSt)); err != nil {
			return err
		}
		rec.Demo = clone(r.c.demo, &r.demoSt)
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
		rec.Groups = clone(r.c.overview, &r.ov).Groups
	case KindOverviewFailed:
		var err error
		if rec.Err, err = r.rawString(); err != nil {
			return err
		}
	default:
		// A kind of a later version of this format would have bumped
		// it: an unknown kind is damage.
		return fmt.Errorf("unknown record kind %q", byte(rec.Kind))
	}
	if len(r.dec.buf) != 0 {
		return fmt.Errorf("%d bytes left over", len(r.dec.buf))
	}
	return nil
}

// Summary is what Scan finds in a recording.
type Summary struct {
	Header Header
	// First and Last are the times of the first and last records; zero
	// when there is none.
	First, Last time.Time
	Records     int
	// Groups are the groups with snapshots, failures or events, in the
	// order they first appear.
	Groups []string
	// End is how the recording ends: nil after its end mark, else
	// ErrUnfinished or a *DamagedError.
	End error
}

// Scan reads a recording through without decoding its bodies: its
// header, its span, its groups and how it ends. It fails as NewReader
// does.
func Scan(r io.Reader) (Summary, error) {
	rd, err := NewReader(r)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Header: rd.h}
	seen := map[string]bool{}
	for {
		k, body, err := rd.frame()
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF && rd.atBoundary:
			sum.End = ErrUnfinished
			return sum, nil
		case errors.Is(err, io.ErrUnexpectedEOF):
			sum.End = &DamagedError{After: sum.Last, Truncated: true}
			return sum, nil
		case err != nil:
			sum.End = &DamagedError{After: sum.Last, Err: err}
			return sum, nil
		}
		if k == kindEnd {
			return sum, nil
		}
		rd.dec.buf = body
		dt, err := rd.dec.varint()
		if err != nil {
			sum.End = &DamagedError{After: sum.Last, Err: err}
			return sum, nil
		}
		rd.last = time.Unix(0, rd.last.UnixNano()+dt)
		switch k {
		case kindStream:
			if err := rd.body(&Record{Kind: k}); err != nil {
				sum.End = &DamagedError{After: sum.Last, Err: err}
				return sum, nil
			}
			continue
		case KindSnapshot, KindFailed, KindEvent:
			s, err := rd.streamOf()
			if err != nil {
				sum.End = &DamagedError{After: sum.Last, Err: err}
				return sum, nil
			}
			if !seen[s.name] {
				seen[s.name] = true
				sum.Groups = append(sum.Groups, s.name)
			}
		}
		if sum.Records == 0 {
			sum.First = rd.last
		}
		sum.Records++
		sum.Last = rd.last
	}
}
