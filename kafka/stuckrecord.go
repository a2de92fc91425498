package kafka

import (
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/kgwatch/kgwatch/model"
)

// The record a partition waits on is read from the bytes of the lag-age
// Fetch, in the same walk that finds its timestamp: past its offset delta
// come its key, value and headers (v2 record format). Only what
// model.OldestRecord keeps is copied out: a key's first
// model.MaxKeyBytes, the first model.MaxHeaders headers cut to
// model.MaxHeaderBytes; the value and everything past are skipped (or not
// read at all), so a 1 MiB key costs 64 bytes and no allocation of its
// size. The strings copied share nothing with the response buffer.

// errRecordDamaged: a length in the record runs past the record's own.
var errRecordDamaged = errors.New("record: a field runs past the record")

// fieldReader reads a record's fields from br, at most left bytes (what
// its length says remains). err is the first failure: a read error of br
// (the bytes came cut short: the record is partial) or errRecordDamaged.
type fieldReader struct {
	br   byteReader
	left int64
	err  error
}

// ReadByte reads one byte of the record (for binary.ReadVarint).
func (f *fieldReader) ReadByte() (byte, error) {
	if f.left <= 0 {
		return 0, errRecordDamaged
	}
	c, err := f.br.ReadByte()
	if err != nil {
		return 0, err
	}
	f.left--
	return c, nil
}

// varint reads a varint of at least least; 0 once failed.
func (f *fieldReader) varint(least int64) int64 {
	if f.err != nil {
		return 0
	}
	v, err := binary.ReadVarint(f)
	switch {
	case err != nil:
		f.err = err
		return 0
	case v < least || v > f.left:
		f.err = errRecordDamaged
		return 0
	}
	return v
}

// field reads a field of n bytes (n < 0: a null field, nothing to read)
// and returns its first keep bytes, or as many as came before a failure.
func (f *fieldReader) field(n int64, keep int) string {
	if f.err != nil || n <= 0 {
		return ""
	}
	buf := make([]byte, min(n, int64(keep)))
	got, err := io.ReadFull(f.br, buf)
	f.left -= int64(got)
	if err != nil {
		f.err = err
		return string(buf[:got])
	}
	if rest := n - int64(got); rest > 0 {
		skipped, err := io.CopyN(io.Discard, f.br, rest)
		f.left -= skipped
		if err != nil {
			f.err = err
		}
	}
	return string(buf)
}

// size is a length as OldestRecord keeps it.
func size(n int64) int32 { return int32(min(n, math.MaxInt32)) }

// recordFields reads, from br just past a v2 record's offset delta, its
// key, value size and headers; left is what its length says remains of
// it. The answer cut short within the record gives what came, Partial;
// lengths that do not hold together give nil.
func recordFields(br byteReader, left int64) *model.OldestRecord {
	f := &fieldReader{br: br, left: left}
	r := &model.OldestRecord{}
	keyLen := f.varint(-1)
	if f.err != nil {
		return nil // not even the key's length came
	}
	r.KeySize = size(keyLen)
	r.Key = f.field(keyLen, model.MaxKeyBytes)
	valueLen := f.varint(-1)
	r.ValueSize = size(valueLen)
	f.field(valueLen, 0)
	n := f.varint(0)
	r.HeaderCount = size(n)
	for i := int64(0); i < min(n, model.MaxHeaders) && f.err == nil; i++ {
		var h model.RecordHeader
		nameLen := f.varint(0)
		h.NameSize, h.Name = size(nameLen), f.field(nameLen, model.MaxHeaderBytes)
		valLen := f.varint(-1)
		h.ValueSize, h.Value = size(valLen), f.field(valLen, model.MaxHeaderBytes)
		if f.err == nil {
			r.Headers = append(r.Headers, h)
		}
	}
	switch {
	case f.err == nil:
		return r
	case errors.Is(f.err, errRecordDamaged):
		return nil
	}
	// Cut short: the key (as far as it came) and the sizes stand; the
	// headers are unread.
	r.Partial, r.Headers, r.HeaderCount = true, nil, 0
	return r
}
