package record

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// Keyframes (format 4). Every Header.Keyframes polls, or sooner once
// keyframeBytes have been written since the last, the writer starts a
// keyframe before a poll's record: it ends the gzip member and starts
// another (gzip members concatenate, and deflate's window does not cross
// one), starts the string table afresh (and, from format 5, the number
// columns' models and heads, carried from record to record between
// keyframes) and writes each group's next
// snapshot, the next demo read and the next overview whole (diffed from
// the zero value). A reader met the member's end the same way, and
// starts over too; one that has not read the records before (Resume) can
// start there, given the keyframe's Mark, as if the records before had
// been read. A replay seeks so (ui/replay.go): from the nearest keyframe
// it checkpointed, never from the start.

// KeyframePolls is how many polls a writer records between keyframes by
// default, when they change much: at 1,000 busy partitions a replay
// feeds ~1.4 ms a poll, so a seek feeds at most ~85 ms, and the
// keyframes' whole snapshots cost the file ~1.4% (BenchmarkStablePoll,
// format 5: ~19 of 1,377 B a poll; ~7% in format 4, whose keyframes
// were not predicted row from row). Polls that change little wait longer
// (keyframeSpan), up to keyframeWait times as many: a keyframe of an idle
// group of 10,000 partitions every 60 polls made its recording 11 times
// larger.
const KeyframePolls = 60

const (
	// keyframeBytes starts a keyframe sooner on a recording of large
	// snapshots: a span holds at most about this much of the file.
	keyframeBytes = 2 << 20
	// keyframeSpan: a keyframe is due once the span since the last
	// takes this many times the keyframe's first poll of the file.
	keyframeSpan = 2
	keyframeWait = 4
)

// poll counts a poll about to be written, first starting a keyframe when
// one is due.
func (w *Writer) poll() {
	if w.every <= 0 {
		return
	}
	span := w.written() - w.keyAt
	if w.polls == 1 && w.keySize == 0 {
		w.keySize = span // the keyframe's first poll
	}
	due := w.polls >= w.every && (span >= keyframeSpan*w.keySize || w.polls >= keyframeWait*w.every) || span >= keyframeBytes
	if !due {
		w.polls++
		return
	}
	if err := w.z.Close(); err != nil {
		w.err = fmt.Errorf("write recording: %w", err)
		return
	}
	w.z.Reset(w.dst)
	w.strs = strtab{}
	w.enc.carried.reset()
	for _, h := range w.enc.lastHeads {
		*h = (*h)[:0] // none: the next heads are written
	}
	for _, s := range w.groups {
		s.prev = model.Snapshot{}
	}
	w.demo, w.hasDemo = model.DemoStatus{}, false
	w.ov, w.ovPoll = overviewBody{}, overviewPollBody{}
	w.polls, w.keyAt, w.keySize = 1, w.written(), 0
}

// written is how many bytes of the file the writer has written, flushed
// or not (the last poll was flushed: all of it compressed).
func (w *Writer) written() int64 { return w.file.n + int64(w.dst.Buffered()) }

// byteCounter counts the bytes written through it.
type byteCounter struct {
	w io.Writer
	n int64
}

func (c *byteCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// countReader counts the bytes read through it: the offset in the file
// of what a reader has read.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Mark is where a keyframe starts: its offset in the file and what a
// reader must know of the records before it (their groups, the time of
// the last). Resume starts a reader there.
type Mark struct {
	// Offset is the keyframe's gzip member's offset in the file.
	Offset int64
	// Last is the time of the record before it.
	Last    time.Time
	read    int
	streams map[uint64]string
	seen    []string
}

// Mark reports whether the next record starts a keyframe, and where.
// It reads ahead to the next record's first byte; a recording of a
// format without keyframes has none.
func (r *Reader) Mark() (Mark, bool) {
	if r.err != nil || r.h.Keyframes == 0 {
		return Mark{}, false
	}
	if !r.atKey && r.in.Buffered() == 0 {
		if _, err := r.in.Peek(1); errors.Is(err, io.EOF) {
			r.nextMember() // an error comes again at Next
		}
	}
	if !r.atKey {
		return Mark{}, false
	}
	m := Mark{Offset: r.keyAt, Last: r.last, read: r.read, seen: slices.Clone(r.seen), streams: make(map[uint64]string, len(r.groups))}
	for id, s := range r.groups {
		m.streams[id] = s.name
	}
	return m, true
}

// nextMember starts reading the gzip member after the one read to its
// end: a keyframe, where the reader starts over as the writer did.
// io.EOF: there is none.
func (r *Reader) nextMember() error {
	at := r.file.n - int64(r.br.Buffered())
	if err := r.z.Reset(r.br); err != nil {
		return err
	}
	r.z.Multistream(false)
	r.in.Reset(r.z)
	r.startOver()
	r.atKey, r.keyAt = true, at
	return nil
}

// startOver forgets what the records before a keyframe left: the
// strings, and the values the next are diffed from.
func (r *Reader) startOver() {
	r.strs = strtab{}
	r.dec.carried.clear()
	r.dec.heads, r.dec.headBytes = nil, 0
	for _, s := range r.groups {
		s.prev, s.held = model.Snapshot{}, 0
	}
	r.demoSt, r.ov, r.ovPoll = model.DemoStatus{}, overviewBody{}, overviewPollBody{}
	r.held, r.demoHeld, r.ovHeld, r.ovPollHeld = 0, 0, 0, 0
}

// Resume reads the recording in f from the keyframe m marks, as a
// reader that had read it from its start up to there would: it reads
// the header, then seeks f to the keyframe. m is a Mark of a reader of
// the same file.
func Resume(f io.ReadSeeker, m Mark) (*Reader, error) {
	r, err := NewReader(f)
	if err != nil {
		return nil, err
	}
	if r.h.Keyframes == 0 || m.streams == nil {
		return nil, errors.New("resume a recording: it has no keyframe there")
	}
	if _, err := f.Seek(m.Offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("resume a recording: %w", err)
	}
	r.file.n = m.Offset
	r.br.Reset(r.file)
	if err := r.z.Reset(r.br); err != nil {
		return nil, &DamagedError{After: m.Last, Err: fmt.Errorf("no keyframe at byte %d: %w", m.Offset, err)}
	}
	r.z.Multistream(false)
	r.in.Reset(r.z)
	r.groups = make(map[uint64]*rstream, len(m.streams))
	for id, name := range m.streams {
		r.groups[id] = &rstream{name: name, seen: slices.Contains(m.seen, name)}
	}
	r.startOver()
	r.last, r.good, r.read, r.seen = m.Last, m.Last, m.read, slices.Clone(m.seen)
	r.atKey, r.keyAt = true, m.Offset
	return r, nil
}
