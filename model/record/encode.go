package record

import (
	"cmp"
	"encoding/binary"
	"reflect"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// encoder appends a value's difference from its predecessor to buf.
type encoder struct {
	buf  []byte
	strs *strtab
	mask []uint64
	// scratch holds a column written on trial (numColumn).
	scratch []byte
	// rc and rcbuf code a column through the range coder; carried
	// holds each column's models from one record to the next (format
	// 5), saved the models of a column coded on trial.
	rc      rangeEncoder
	rcbuf   []byte
	rcUsed  bool // a column of the slice is in rc
	carried carriedModels[*codec]
	saved   colModels
	// lastHeads are each slice's columns' heads as last written (format
	// 5); heads, head and section what columns notes of them.
	lastHeads map[*codec]*[]byte
	heads     []int
	head      []byte
	section   []byte
	// at is the record's time (timeFromRecord); tbuf a time written on
	// trial.
	at   time.Time
	tbuf []byte
	// parts are a column's sampled residuals by context, then all of
	// them (context).
	parts [numCtx + 1][]byte
}

// value appends the value at cur against the one at prev (both of c's
// type): the mask of the leaves that differ, then each of them.
func (e *encoder) value(c *codec, prev, cur unsafe.Pointer) {
	words := (len(c.leaves) + 63) / 64
	start := len(e.mask)
	for range words {
		e.mask = append(e.mask, 0)
	}
	e.maskOf(c, prev, cur, e.mask[start:])
	e.leaves(c, prev, cur, e.mask[start:])
	e.mask = e.mask[:start]
}

// maskOf sets the bits of the leaves that differ; it reports whether any
// does.
func (e *encoder) maskOf(c *codec, prev, cur unsafe.Pointer, mask []uint64) bool {
	any := false
	for i := range c.leaves {
		if !equalLeaf(&c.leaves[i], prev, cur) {
			mask[i/64] |= 1 << (i % 64)
			any = true
		}
	}
	return any
}

func (e *encoder) leaves(c *codec, prev, cur unsafe.Pointer, mask []uint64) {
	for _, w := range mask {
		e.buf = binary.AppendUvarint(e.buf, w)
	}
	for i := range c.leaves {
		if mask[i/64]&(1<<(i%64)) != 0 {
			e.leaf(&c.leaves[i], prev, cur)
		}
	}
}

func (e *encoder) leaf(l *leaf, prev, cur unsafe.Pointer) {
	prev, cur = l.at(prev), l.at(cur)
	switch l.kind {
	case kindBool: // flipped: nothing to write
	case kindInt:
		e.buf = binary.AppendVarint(e.buf, l.getInt(cur)-l.getInt(prev))
	case kindDuration:
		// Ages and durations are mostly whole milliseconds (Kafka's
		// timestamps are): the difference in milliseconds, shifted left,
		// its low bit saying a remainder in nanoseconds follows. An age
		// that moved 400ms is 2 bytes, not the 5 of 400,000,000ns, which
		// at 1,000 busy partitions a second is megabytes an hour.
		d := l.getInt(cur) - l.getInt(prev)
		q, r := d/1e6, d%1e6
		if r == 0 {
			e.buf = binary.AppendVarint(e.buf, q<<1)
		} else {
			e.buf = binary.AppendVarint(e.buf, q<<1|1)
			e.buf = binary.AppendVarint(e.buf, r)
		}
	case kindUint:
		e.buf = binary.AppendVarint(e.buf, int64(l.getUint(cur)-l.getUint(prev)))
	case kindFloat:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, l.getFloat(cur))
	case kindString:
		e.buf = e.strs.append(e.buf, *(*string)(cur))
	case kindTime:
		e.time((*time.Time)(prev), (*time.Time)(cur))
	case kindSlice:
		e.columns(l.elem, (*sliceHeader)(prev), (*sliceHeader)(cur))
	case kindMap:
		e.mapOf(l, reflect.NewAt(l.typ, cur).Elem())
	}
}

// Time leaves (format 5). A poll's times are clock readings a few
// milliseconds from the record's own (At): what moves is their
// nanoseconds, the same jitter in each, which as a second and
// nanoseconds from the time before (formats 1 to 4) is written every
// time. So a time is a varint x, whose low two bits (x&3) say how it is
// written and the rest (x>>2) the start of it: 0 (x is 0), then varints
// of its seconds and its nanoseconds from the time before (as formats 1
// to 4, and the only way for times far apart: one zero); 1, its difference
// from the time before as a duration is written (whole milliseconds
// shifted left, the low bit saying a varint of the nanoseconds left
// follows); 2, so its difference from the record's time.
const (
	timeSecs = iota
	timeFromPrev
	timeFromRecord
)

// maxTimeSecs bounds the seconds between two times written as a
// duration (timeFromPrev, timeFromRecord): their nanoseconds fit an
// int64.
const maxTimeSecs = 1 << 32

// nanosBetween is cur less base in nanoseconds; ok is false when that
// does not fit.
func nanosBetween(base, cur *time.Time) (int64, bool) {
	ds := cur.Unix() - base.Unix()
	if ds <= -maxTimeSecs || ds >= maxTimeSecs {
		return 0, false
	}
	return ds*1e9 + int64(cur.Nanosecond()-base.Nanosecond()), true
}

// time appends the time leaf cur, prev before it, in the fewest bytes.
func (e *encoder) time(prev, cur *time.Time) {
	at := len(e.buf)
	e.buf = binary.AppendVarint(e.buf, timeSecs)
	e.buf = binary.AppendVarint(e.buf, cur.Unix()-prev.Unix())
	e.buf = binary.AppendVarint(e.buf, int64(cur.Nanosecond()-prev.Nanosecond()))
	best := e.buf[at:]
	try := func(mode int64, base *time.Time) {
		d, ok := nanosBetween(base, cur)
		if !ok {
			return
		}
		q, r := d/1e6, d%1e6
		e.tbuf = e.tbuf[:0]
		if r == 0 {
			e.tbuf = binary.AppendVarint(e.tbuf, (q<<1)<<2|mode)
		} else {
			e.tbuf = binary.AppendVarint(e.tbuf, (q<<1|1)<<2|mode)
			e.tbuf = binary.AppendVarint(e.tbuf, r)
		}
		if len(e.tbuf) < len(best) {
			e.buf = append(e.buf[:at], e.tbuf...)
			best = e.buf[at:]
		}
	}
	try(timeFromPrev, prev)
	try(timeFromRecord, &e.at)
}

// mapOf appends a map whole: its length (0 for nil, else length+1), then
// each key and value, in the keys' order, each against the zero value.
func (e *encoder) mapOf(l *leaf, m reflect.Value) {
	if m.IsNil() {
		e.buf = binary.AppendUvarint(e.buf, 0)
		return
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(m.Len())+1)
	keys := m.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int {
		switch a.Kind() {
		case reflect.String:
			return strings.Compare(a.String(), b.String())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return cmp.Compare(a.Int(), b.Int())
		}
		return cmp.Compare(a.Uint(), b.Uint())
	})
	for _, k := range keys {
		e.value(l.key, l.key.zero, addressable(k))
		e.value(l.elem, l.elem.zero, addressable(m.MapIndex(k)))
	}
}

// rows appends the elements of cur that differ from prev's at the same
// index (or from the zero value past prev's end): their count, then each
// one's distance from the one before, then its value (as formats 1 to 3
// wrote every slice; format 4 writes those of fewer than fewElems so).
func (e *encoder) rows(c *codec, prev, cur *sliceHeader) {
	n := cur.len
	words := (len(c.leaves) + 63) / 64
	// The masks of the elements that differ, found first: their count
	// comes before them.
	start := len(e.mask)
	var changed []int
	for i := range n {
		at := len(e.mask)
		for range words {
			e.mask = append(e.mask, 0)
		}
		if e.maskOf(c, c.prevElem(prev, i), c.elemAt(cur, i), e.mask[at:]) {
			changed = append(changed, i)
		} else {
			e.mask = e.mask[:at]
		}
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(len(changed)))
	last := -1
	for k, i := range changed {
		e.buf = binary.AppendUvarint(e.buf, uint64(i-last-1))
		last = i
		m := start + k*words
		e.leaves(c, c.prevElem(prev, i), c.elemAt(cur, i), e.mask[m:m+words])
	}
	e.mask = e.mask[:start]
}

// strtab is the strings seen so far, shared by writer and reader: a string
// seen before is written as its number. It starts over when full, on both
// sides at the same record, so it stays small.
type strtab struct {
	ids  map[string]uint64 // writer
	list []string          // reader
}

const (
	maxStrings   = 1 << 14
	maxStringLen = 1 << 10 // longer strings are written out each time
	maxStringRaw = 1 << 24
)

func (t *strtab) append(buf []byte, s string) []byte {
	if id, ok := t.ids[s]; ok {
		return binary.AppendUvarint(buf, id+1)
	}
	buf = binary.AppendUvarint(buf, 0)
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	buf = append(buf, s...)
	if len(s) <= maxStringLen {
		if t.ids == nil || len(t.ids) >= maxStrings {
			t.ids = make(map[string]uint64)
		}
		t.ids[s] = uint64(len(t.ids))
	}
	return buf
}

func (t *strtab) read(d *decoder) (string, error) {
	id, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if id > 0 {
		if id-1 >= uint64(len(t.list)) {
			return "", errCorrupt
		}
		return t.list[id-1], nil
	}
	n, err := d.uvarint()
	if err != nil || n > uint64(len(d.buf)) || n > maxStringRaw {
		return "", errCorrupt
	}
	s := string(d.buf[:n])
	d.buf = d.buf[n:]
	if len(s) <= maxStringLen {
		if len(t.list) >= maxStrings {
			t.list = t.list[:0]
		}
		t.list = append(t.list, s)
	}
	return s, nil
}
