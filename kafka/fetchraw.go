package kafka

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"

	"github.com/kgwatch/kgwatch/model"
)

// The lag-age Fetch reads its response itself (protocol.RawExchanger)
// rather than through kafka-go's decoder, which decodes every record of
// every batch into a 64 KiB page of its own (10,000 partitions: 640 MB
// allocated per poll), skips batches cut short by the byte limits, and
// ignores LogAppendTime. Here only the batch headers and the records up to
// the wanted offset are read, in place, from one buffer.

// fetchCorrelationID tags raw fetch exchanges; the connection is not
// shared while one is in flight.
const fetchCorrelationID = 0x4b48

// Required records the negotiated version; the exchange is always raw.
func (r *fetchRequest) Required(versions map[protocol.ApiKey]int16) bool {
	r.version = versions[protocol.Fetch]
	return true
}

// RawExchange writes the request and reads, from its response, the
// timestamp of the record at each requested offset.
func (r *fetchRequest) RawExchange(rw io.ReadWriter) (protocol.Message, error) {
	if r.version < 4 {
		return nil, fmt.Errorf("fetch v%d: the broker is older than Kafka 0.11, records carry no timestamps", r.version)
	}
	if err := protocol.WriteRequest(rw, r.version, fetchCorrelationID, clientID, r); err != nil {
		return nil, err
	}
	var hdr [8]byte
	if _, err := io.ReadFull(rw, hdr[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(hdr[:4]))
	if id := int32(binary.BigEndian.Uint32(hdr[4:])); id != fetchCorrelationID {
		return nil, fmt.Errorf("fetch response: correlation id %d, want %d", id, fetchCorrelationID)
	}
	if size < 4 || size > fetchMaxBytes+fetchMaxBytes/2 {
		return nil, fmt.Errorf("fetch response: size %d out of range", size)
	}
	body := make([]byte, size-4)
	if _, err := io.ReadFull(rw, body); err != nil {
		return nil, err
	}
	return parseFetch(body, r.version, r.Topics, r.also)
}

// fetchStamps is what a Fetch response says of each requested record:
// stamps of the one at each partition's fetch offset, also of the further
// offsets asked (fetchRequest.also) that the answer reached.
type fetchStamps struct {
	stamps map[model.TopicPartition]readResult
	also   map[stampKey]stamp
}

func (*fetchStamps) ApiKey() protocol.ApiKey { return protocol.Fetch }

// readResult is what a Fetch response says about one wanted record.
type readResult struct {
	stamp
	leaderMoved bool
}

// errShortFetch reports a response that ends before its fields do.
var errShortFetch = errors.New("fetch response: truncated")

type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = errShortFetch
		r.b = nil
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) i16() int16 {
	if b := r.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *reader) i32() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *reader) i64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// parseFetch reads a Fetch response (versions 4 to 11, not flexible) and,
// for each requested partition, finds the wanted record and the records at
// the further offsets also names (nil: none).
func parseFetch(body []byte, version int16, topics []fetchRequestTopic, also map[model.TopicPartition][]int64) (*fetchStamps, error) {
	want := make(map[model.TopicPartition]int64)
	for _, t := range topics {
		for _, p := range t.Partitions {
			want[model.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.FetchOffset
		}
	}
	out := &fetchStamps{stamps: make(map[model.TopicPartition]readResult, len(want))}
	r := &reader{b: body}
	r.i32() // throttle time
	if version >= 7 {
		if code := r.i16(); code != 0 {
			return nil, fmt.Errorf("fetch: %w", errCode(code))
		}
		r.i32() // session id
	}
	nt := r.i32()
	for i := int32(0); i < nt && r.err == nil; i++ {
		topic := string(r.take(int(r.i16())))
		np := r.i32()
		for j := int32(0); j < np && r.err == nil; j++ {
			tp := model.TopicPartition{Topic: topic, Partition: r.i32()}
			code := r.i16()
			hw := r.i64() // high watermark
			r.i64()       // last stable offset
			logStart := int64(-1)
			if version >= 5 {
				logStart = r.i64()
			}
			if na := r.i32(); na > 0 {
				r.take(16 * int(na)) // aborted transactions
			}
			if version >= 11 {
				r.i32() // preferred read replica
			}
			records := r.take(int(max(r.i32(), 0)))
			offset, ok := want[tp]
			if !ok || r.err != nil {
				continue
			}
			switch ec := kafka.Error(code); {
			case ec == kafka.OffsetOutOfRange:
				// Only partitions with lag are read, so the offset is
				// below log-start: retention deleted the record.
				if logStart < 0 || offset < logStart {
					out.stamps[tp] = readResult{stamp: stamp{offset: offset, gone: true}}
				}
			case ec != 0:
				if leaderMoved(code) {
					out.stamps[tp] = readResult{leaderMoved: true}
				}
			default:
				if s, ok := stampIn(records, offset, hw); ok {
					out.stamps[tp] = readResult{stamp: s}
				}
				for _, off := range also[tp] {
					if s, ok := stampIn(records, off, hw); ok {
						if out.also == nil {
							out.also = make(map[stampKey]stamp)
						}
						out.also[stampKey{tp, off}] = s
					}
				}
			}
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

// stampIn reads the record at offset in a partition's records (hw: its
// high watermark); false when the records do not reach it.
func stampIn(records []byte, offset, hw int64) (stamp, bool) {
	if ts, rec, found := recordAt(records, offset); found {
		return stamp{offset: offset, ts: ts, rec: rec}, true
	}
	if end, ok := markersOnly(records, offset); ok && offset < hw && end >= hw {
		// Only control records (transaction markers) lie between offset
		// and the high watermark: no message waits.
		return stamp{offset: offset, markers: true, end: hw}, true
	}
	return stamp{}, false
}

// Record batch (v2) layout.
const (
	batchHeaderLen   = 61
	attrCompression  = 0x07
	attrLogAppend    = 0x08
	attrControl      = 0x20
	offsetMagic      = 16
	offsetAttributes = 21
)

// recordTime returns the timestamp of the first data record at or after
// offset in a partition's record bytes; found is false when they do not
// reach it (a limit cut them short, or they hold no such record). A record
// with no timestamp (message format v0, or -1) gives a zero time, found.
func recordTime(b []byte, offset int64) (ts time.Time, found bool) {
	ts, _, found = recordAt(b, offset)
	return ts, found
}

// recordAt is recordTime with what was read of the record itself
// (recordFields; nil when its fields do not hold together, and for
// messages of format v0 and v1, whose keys are not read).
func recordAt(b []byte, offset int64) (ts time.Time, rec *model.OldestRecord, found bool) {
	for len(b) > offsetMagic {
		base := int64(binary.BigEndian.Uint64(b))
		size := int(int32(binary.BigEndian.Uint32(b[8:])))
		end := 12 + size
		if size < 0 {
			return time.Time{}, nil, false
		}
		complete := len(b) >= end
		entry := b[:min(end, len(b))]
		if b[offsetMagic] < 2 {
			// A v0/v1 message; base is its offset (a compressed wrapper's
			// is the last inner offset).
			if base >= offset {
				ts, ok := legacyRecordTime(entry)
				return ts, nil, ok
			}
		} else {
			if end < batchHeaderLen || len(b) < batchHeaderLen {
				return time.Time{}, nil, false
			}
			attrs := binary.BigEndian.Uint16(b[offsetAttributes:])
			last := base + int64(int32(binary.BigEndian.Uint32(b[23:])))
			if last >= offset && attrs&attrControl == 0 {
				first := int64(binary.BigEndian.Uint64(b[27:]))
				maxTS := int64(binary.BigEndian.Uint64(b[35:]))
				t, rec, ok := firstRecordAtOrAfter(entry[batchHeaderLen:], attrs&attrCompression, base, first, offset)
				if attrs&attrLogAppend != 0 {
					// Every record has the append time, read or not.
					t, ok = millis(maxTS), true
					if rec != nil {
						rec.Time = t
					}
				}
				if ok {
					return t, rec, true
				}
			}
		}
		if !complete {
			return time.Time{}, nil, false
		}
		b = b[end:]
	}
	return time.Time{}, nil, false
}

// markersOnly reports whether a partition's record bytes, read from
// offset, are whole batches in which every record at or after offset is a
// control record (a transaction's commit or abort marker), and the offset
// after the last of them.
func markersOnly(b []byte, offset int64) (end int64, ok bool) {
	for len(b) > 0 {
		if len(b) < batchHeaderLen || b[offsetMagic] < 2 {
			return 0, false // cut short, or a v0/v1 message (never a marker)
		}
		base := int64(binary.BigEndian.Uint64(b))
		size := int(int32(binary.BigEndian.Uint32(b[8:])))
		if size < batchHeaderLen-12 || len(b) < 12+size {
			return 0, false
		}
		last := base + int64(int32(binary.BigEndian.Uint32(b[23:])))
		if last >= offset && binary.BigEndian.Uint16(b[offsetAttributes:])&attrControl == 0 {
			return 0, false
		}
		end, ok = last+1, true
		b = b[12+size:]
	}
	return end, ok
}

// byteReader reads records byte by byte (varints) and skips their bodies.
type byteReader interface {
	io.Reader
	io.ByteReader
}

// firstRecordAtOrAfter walks the records of a v2 batch (decompressing only
// as far as needed) for the first at or after offset, and reads what
// OldestRecord keeps of it (recordFields).
func firstRecordAtOrAfter(data []byte, codec uint16, base, firstTS, offset int64) (time.Time, *model.OldestRecord, bool) {
	var br byteReader = bytes.NewReader(data)
	if codec != 0 {
		c := protocol.Attributes(codec).Compression().Codec()
		if c == nil {
			return time.Time{}, nil, false
		}
		dec := c.NewReader(bytes.NewReader(data))
		defer dec.Close()
		br = bufio.NewReaderSize(dec, 4096)
	}
	for {
		length, err := binary.ReadVarint(br)
		if err != nil || length < 1 {
			return time.Time{}, nil, false
		}
		if _, err := br.ReadByte(); err != nil { // attributes
			return time.Time{}, nil, false
		}
		tsDelta, err := binary.ReadVarint(br)
		if err != nil {
			return time.Time{}, nil, false
		}
		offsetDelta, err := binary.ReadVarint(br)
		if err != nil {
			return time.Time{}, nil, false
		}
		// The rest of the record: length counts from the attributes.
		rest := length - 1 - int64(varintLen(tsDelta)) - int64(varintLen(offsetDelta))
		if base+offsetDelta >= offset {
			ts := millis(firstTS + tsDelta)
			rec := recordFields(br, rest)
			if rec != nil {
				rec.Offset, rec.Time = base+offsetDelta, ts
				rec.Size = int32(min(length+int64(varintLen(length)), math.MaxInt32))
			}
			return ts, rec, true
		}
		if n, err := io.CopyN(io.Discard, br, rest); rest < 0 || err != nil || n != rest {
			return time.Time{}, nil, false
		}
	}
}

// legacyRecordTime reads one message of format v0 or v1 (Kafka before
// 0.11). Only an uncompressed v1 message carries the record's own time.
func legacyRecordTime(m []byte) (time.Time, bool) {
	switch {
	case len(m) < 18:
		return time.Time{}, false
	case m[offsetMagic] == 0:
		return time.Time{}, true // no timestamps in v0
	case m[17]&attrCompression != 0 || len(m) < 26:
		return time.Time{}, false // a wrapper: its time is not the record's
	default:
		return millis(int64(binary.BigEndian.Uint64(m[18:]))), true
	}
}

// millis converts a Kafka timestamp; -1 (none) and other non-positive
// values give the zero time.
func millis(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// varintLen is the length of v as a zigzag varint.
func varintLen(v int64) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutVarint(buf[:], v)
}
