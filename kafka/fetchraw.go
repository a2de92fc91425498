package kafka

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// The lag-age Fetch is a kmsg request like the others; its answer's
// record bytes stay raw (kmsg keeps RecordBatches as a slice of the
// response) and are read here, in place: only the batch headers and the
// records up to the wanted offset (kafka-go's decoder decoded every record
// of every batch into a 64 KiB page of its own, skipped batches cut short
// by the byte limits and ignored LogAppendTime).

// Fetch versions the lag-age read sends: v4 is the first whose records
// carry timestamps, v13 the first to name topics by id only.
const (
	minFetch = 4
	maxFetch = 12
)

// fetchStamps is what a Fetch response says of each requested record:
// stamps of the one at each partition's fetch offset, also of the further
// offsets asked that the answer reached.
type fetchStamps struct {
	stamps map[model.TopicPartition]readResult
	also   map[stampKey]stamp
}

// readResult is what a Fetch response says about one wanted record.
type readResult struct {
	stamp
	leaderMoved bool
}

// readFetch reads a Fetch answer to topics: for each requested partition
// it finds the wanted record and the records at the further offsets also
// names (nil: none).
func readFetch(res *kmsg.FetchResponse, topics []kmsg.FetchRequestTopic, also map[model.TopicPartition][]int64) (*fetchStamps, error) {
	if res.ErrorCode != 0 {
		return nil, fmt.Errorf("fetch: %w", errCode(res.ErrorCode))
	}
	n := 0
	for _, t := range topics {
		n += len(t.Partitions)
	}
	asked := askedOffsets{topics: topics}
	out := &fetchStamps{stamps: make(map[model.TopicPartition]readResult, n)}
	for ti, t := range res.Topics {
		for pi, p := range t.Partitions {
			tp := model.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			offset, ok := asked.find(ti, pi, tp)
			if !ok {
				continue
			}
			switch ec := kafka.Error(p.ErrorCode); {
			case ec == kafka.OffsetOutOfRange:
				// Only partitions with lag are read, so the offset is
				// below log-start: retention deleted the record. (Below
				// v5 the answer does not say the log start: -1.)
				if p.LogStartOffset < 0 || offset < p.LogStartOffset {
					out.stamps[tp] = readResult{stamp: stamp{offset: offset, gone: true}}
				}
			case ec != 0:
				if leaderMoved(p.ErrorCode) {
					out.stamps[tp] = readResult{leaderMoved: true}
				}
			default:
				if s, ok := stampIn(p.RecordBatches, offset, p.HighWatermark); ok {
					out.stamps[tp] = readResult{stamp: s}
				}
				for _, off := range also[tp] {
					if s, ok := stampIn(p.RecordBatches, off, p.HighWatermark); ok {
						if out.also == nil {
							out.also = make(map[stampKey]stamp)
						}
						out.also[stampKey{tp, off}] = s
					}
				}
			}
		}
	}
	return out, nil
}

// askedOffsets finds the offset a Fetch request asked of a partition in
// its answer. Brokers answer in the order asked, so the answer's topic i,
// partition j is looked for at the request's; a map of the request is made
// only for an answer in another order (at 10,000 partitions the map made
// for every answer was 2% of the TUI's allocation).
type askedOffsets struct {
	topics []kmsg.FetchRequestTopic
	idx    map[model.TopicPartition]int64
}

func (a *askedOffsets) find(ti, pi int, tp model.TopicPartition) (int64, bool) {
	if ti < len(a.topics) && a.topics[ti].Topic == tp.Topic {
		if ps := a.topics[ti].Partitions; pi < len(ps) && ps[pi].Partition == tp.Partition {
			return ps[pi].FetchOffset, true
		}
	}
	if a.idx == nil {
		a.idx = make(map[model.TopicPartition]int64)
		for _, t := range a.topics {
			for _, p := range t.Partitions {
				a.idx[model.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.FetchOffset
			}
		}
	}
	offset, ok := a.idx[tp]
	return offset, ok
}

// stampIn reads the record at offset in a partition's records (hw: its
// high watermark); false when the records do not reach it.
func stampIn(records []byte, offset, hw int64) (stamp, bool) {
	if ts, rec, found := recordAt(records, offset); found {
		return stamp{offset: offset, ts: unixMillis(ts), rec: rec}, true
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

// unixMillis is t in unix milliseconds, 0 for the zero time (millis'
// inverse).
func unixMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// varintLen is the length of v as a zigzag varint.
func varintLen(v int64) int {
	var buf [binary.MaxVarintLen64]byte
	return binary.PutVarint(buf[:], v)
}
