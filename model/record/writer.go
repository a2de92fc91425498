package record

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"
	"unsafe"

	"github.com/kgwatch/kgwatch/model"
)

// Writer appends records to a recording. It is not safe for concurrent
// use. After an error every call returns it.
type Writer struct {
	dst  *bufio.Writer
	z    *gzip.Writer
	c    *codecs
	strs strtab
	enc  encoder
	body []byte
	err  error

	last    time.Time // the time of the record before
	groups  map[string]*wstream
	main    string
	demo    model.DemoStatus
	hasDemo bool
	ov      overviewBody
	ovPoll  overviewPollBody

	// every is Header.Keyframes; polls the polls since the last
	// keyframe, which began at byte keyAt of the file, its first poll
	// keySize bytes long (keyframe.go).
	file           *byteCounter
	every, polls   int
	keyAt, keySize int64
}

// wstream is a group's records: its number and its last snapshot.
type wstream struct {
	id   uint64
	prev model.Snapshot
}

// NewWriter starts a recording on w: it writes the header and flushes it,
// so a recording that fails at once still has its header. h.Format is set
// to Version. A header the reader would refuse (Header.Check) is an
// error.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if err := h.Check(); err != nil {
		return nil, fmt.Errorf("recording header: %w", err)
	}
	c, err := bodyCodecs()
	if err != nil {
		return nil, err
	}
	h.Format = Version
	if h.Keyframes == 0 {
		h.Keyframes = KeyframePolls
	}
	fh := fileHeader{Header: h, Schemas: map[string][]fieldSchema{}}
	for name, cd := range c.byName() {
		fh.Schemas[name] = cd.schema()
	}
	js, err := json.Marshal(fh)
	if err != nil {
		return nil, fmt.Errorf("encode recording header: %w", err)
	}
	file := &byteCounter{w: w}
	dst := bufio.NewWriterSize(file, 64<<10)
	if _, err := dst.WriteString(magic + strconv.Itoa(Version) + "\n"); err != nil {
		return nil, err
	}
	z, err := gzip.NewWriterLevel(dst, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	rw := &Writer{
		dst: dst, z: z, file: file, c: c, last: h.Started,
		main: h.Group, every: h.Keyframes,
		groups: map[string]*wstream{h.Group: {id: 0}},
	}
	rw.enc.strs = &rw.strs
	rw.frame(kindHeader, js)
	if err := rw.Flush(); err != nil {
		return nil, err
	}
	return rw, nil
}

// frame writes one record: kind, length, body.
func (w *Writer) frame(k Kind, body []byte) {
	if w.err != nil {
		return
	}
	if len(body) > maxRecord {
		// No reader would take it: the recording ends here, said.
		w.err = fmt.Errorf("write recording: a record of %s MiB, more than a recording holds (%s MiB)", mib(uint64(len(body))), mib(maxRecord))
		return
	}
	var hdr [1 + binary.MaxVarintLen64]byte
	hdr[0] = byte(k)
	n := binary.PutUvarint(hdr[1:], uint64(len(body)))
	if _, err := w.z.Write(hdr[:1+n]); err != nil {
		w.err = fmt.Errorf("write recording: %w", err)
		return
	}
	if _, err := w.z.Write(body); err != nil {
		w.err = fmt.Errorf("write recording: %w", err)
	}
}

// begin starts a body with its time.
func (w *Writer) begin(at time.Time) {
	w.enc.buf = w.enc.buf[:0]
	w.enc.buf = binary.AppendVarint(w.enc.buf, at.UnixNano()-w.last.UnixNano())
	w.last = at
	w.enc.at = at
}

func (w *Writer) end(k Kind) error {
	w.frame(k, w.enc.buf)
	return w.err
}

// groupRecord begins a record of group's stream at at: its time, then
// the stream's id.
func (w *Writer) groupRecord(at time.Time, group string) *wstream {
	st := w.stream(at, group)
	w.begin(at)
	w.enc.buf = binary.AppendUvarint(w.enc.buf, st.id)
	return st
}

// stream returns group's stream, declaring it first if it is new.
func (w *Writer) stream(at time.Time, group string) *wstream {
	s, ok := w.groups[group]
	if ok {
		return s
	}
	s = &wstream{id: uint64(len(w.groups))}
	w.groups[group] = s
	w.begin(at)
	w.enc.buf = binary.AppendUvarint(w.enc.buf, s.id)
	w.enc.buf = appendString(w.enc.buf, group)
	w.end(kindStream)
	return s
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// Snapshot records a good poll of group at at, as its source returned it
// (before annotation), and flushes. s is kept, as what the next poll of
// group is written against: its slices must not change once Snapshot
// returns (--record's tap gives it arrays of its own; a copy here cost
// 8 ms and 4.4 MB a poll at 10,000 partitions).
func (w *Writer) Snapshot(at time.Time, group string, s model.Snapshot) error {
	if w.err != nil {
		return w.err
	}
	w.poll()
	st := w.groupRecord(at, group)
	w.enc.value(w.c.snapshot, unsafe.Pointer(&st.prev), unsafe.Pointer(&s))
	st.prev = s
	if err := w.end(KindSnapshot); err != nil {
		return err
	}
	return w.Flush()
}

// Failed records a failed poll of group at at, and flushes.
func (w *Writer) Failed(at time.Time, group, errText string) error {
	return w.PollFailed(at, at, group, errText)
}

// PollFailed is Failed for a poll that began at started (format 2: how
// long before at it began; a replay then bounds an outage as the live
// watch did).
func (w *Writer) PollFailed(started, at time.Time, group, errText string) error {
	if w.err != nil {
		return w.err
	}
	w.poll()
	w.groupRecord(at, group)
	w.enc.buf = appendString(w.enc.buf, errText)
	w.enc.buf = binary.AppendUvarint(w.enc.buf, uint64(max(at.Sub(started), 0)))
	if err := w.end(KindFailed); err != nil {
		return err
	}
	return w.Flush()
}

// Event records an event from outside the polls of group, filed at at.
// It is flushed with the next poll.
func (w *Writer) Event(at time.Time, group string, e model.Event) error {
	if w.err != nil {
		return w.err
	}
	w.groupRecord(at, group)
	w.enc.value(w.c.event, w.c.event.zero, unsafe.Pointer(&e))
	return w.end(KindEvent)
}

// DemoStatus records a read of the demo at at, unless it is the same as
// the one before. It is flushed with the next poll.
func (w *Writer) DemoStatus(at time.Time, s model.DemoStatus) error {
	if w.err != nil {
		return w.err
	}
	prev, cur := unsafe.Pointer(&w.demo), unsafe.Pointer(&s)
	if w.hasDemo && w.c.demo.equal(prev, cur) {
		return nil
	}
	w.begin(at)
	w.enc.value(w.c.demo, prev, cur)
	w.demo, w.hasDemo = clone(w.c.demo, &s), true
	return w.end(KindDemoStatus)
}

// DemoAction records a demo key's action at at, what it did and the
// error's text when it failed, and flushes.
func (w *Writer) DemoAction(at time.Time, a model.DemoAction, out model.DemoOutcome, errText string) error {
	if w.err != nil {
		return w.err
	}
	b := actionBody{Action: a, Outcome: out, Err: errText}
	w.begin(at)
	w.enc.value(w.c.action, w.c.action.zero, unsafe.Pointer(&b))
	if err := w.end(KindDemoAction); err != nil {
		return err
	}
	return w.Flush()
}

// OverviewPoll records a good poll of the overview at at, as its source
// read it (before it was judged: a replay judges it again, with the same
// pipeline), and flushes. o is not kept.
func (w *Writer) OverviewPoll(at time.Time, o *model.OverviewObservation) error {
	if w.err != nil {
		return w.err
	}
	w.poll()
	b := overviewPollOf(o)
	w.begin(at)
	w.enc.value(w.c.overviewPoll, unsafe.Pointer(&w.ovPoll), unsafe.Pointer(&b))
	w.ovPoll = b // its slices are its own
	if err := w.end(KindOverviewPoll); err != nil {
		return err
	}
	return w.Flush()
}

// Overview records a good poll of the overview at at as it was judged,
// and flushes: the record of formats before 3, which kgwatch no longer
// writes (OverviewPoll); it is written here to test that they replay.
func (w *Writer) Overview(at time.Time, gs []model.GroupSummary) error {
	if w.err != nil {
		return w.err
	}
	w.poll()
	b := overviewBody{Groups: gs}
	w.begin(at)
	w.enc.value(w.c.overview, unsafe.Pointer(&w.ov), unsafe.Pointer(&b))
	w.ov = clone(w.c.overview, &b)
	if err := w.end(KindOverview); err != nil {
		return err
	}
	return w.Flush()
}

// OverviewFailed records a failed poll of the overview at at, and
// flushes.
func (w *Writer) OverviewFailed(at time.Time, errText string) error {
	if w.err != nil {
		return w.err
	}
	w.poll()
	w.begin(at)
	w.enc.buf = appendString(w.enc.buf, errText)
	if err := w.end(KindOverviewFailed); err != nil {
		return err
	}
	return w.Flush()
}

// Flush writes out everything recorded so far.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.out(w.z.Flush)
}

// Close ends the recording with its end mark. It does not close the
// io.Writer given to NewWriter.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	w.frame(kindEnd, nil)
	if w.err != nil {
		return w.err
	}
	return w.out(w.z.Close)
}

// out pushes the compressed stream out (z: flush it, or close it at the
// end) and flushes the buffered file.
func (w *Writer) out(z func() error) error {
	if err := z(); err != nil {
		w.err = fmt.Errorf("write recording: %w", err)
		return w.err
	}
	if err := w.dst.Flush(); err != nil {
		w.err = fmt.Errorf("write recording: %w", err)
	}
	return w.err
}
