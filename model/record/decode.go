package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"
)

// errCorrupt is a record whose bytes do not decode.
var errCorrupt = errors.New("its bytes do not decode")

// decoder reads values written by an encoder, following the file's
// schema (plans), from buf.
type decoder struct {
	buf  []byte
	strs *strtab
	grow uint64 // bytes of elements the record may still add (charge)
	// rc and models read a column coded by the range coder; from
	// format 5 (carry) by each column's models carried from the records
	// before, since the last keyframe.
	rc      rangeDecoder
	models  colModels
	carry   bool
	carried carriedModels[*plan]
	// heads are each slice's columns' heads as last read (format 5),
	// headBytes their bytes.
	heads     map[*plan]*[]byte
	headBytes int
	headLeft  int // the bytes of hd left after numColumn read a head
	// at is the record's time (format 5's times may be written from it).
	at time.Time
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		return 0, errCorrupt
	}
	d.buf = d.buf[n:]
	return v, nil
}

func (d *decoder) varint() (int64, error) {
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		return 0, errCorrupt
	}
	d.buf = d.buf[n:]
	return v, nil
}

// plan is how to read the values of one codec of the file into a type of
// this build: each leaf of the file's schema, and where it goes (no
// target: it is read and dropped).
type plan struct {
	c      *codec // nil: nothing to read into
	leaves []planLeaf
}

func (p *plan) elemAt(s *sliceHeader, i int) unsafe.Pointer { return p.c.elemAt(s, i) }

type planLeaf struct {
	kind   kind
	target *leaf // nil: skipped
	elem   *plan
	key    *plan // kindMap
}

// newPlan matches the file's leaves to c's by name and kind. c may be
// nil: every leaf is skipped.
func newPlan(fs []fieldSchema, c *codec) (*plan, error) {
	p := &plan{c: c}
	for _, f := range fs {
		k, ok := kindNamed(f.Kind)
		if !ok {
			return nil, fmt.Errorf("field %q: unknown kind %q", f.Name, f.Kind)
		}
		pl := planLeaf{kind: k}
		var target *leaf
		if c != nil {
			for i := range c.leaves {
				// A duration of format 1 was an int: read into one.
				// A slice of format 4 is written by columns.
				if c.leaves[i].name == f.Name && (c.leaves[i].kind == k || k == kindInt && c.leaves[i].kind == kindDuration ||
					k == kindColumns && c.leaves[i].kind == kindSlice) {
					target = &c.leaves[i]
					break
				}
			}
		}
		if k == kindSlice || k == kindColumns || k == kindMap {
			var ec, kc *codec
			if target != nil {
				ec, kc = target.elem, target.key
			}
			ep, err := newPlan(f.Elem, ec)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", f.Name, err)
			}
			pl.elem = ep
			if k == kindMap {
				kp, err := newPlan(f.Key, kc)
				if err != nil {
					return nil, fmt.Errorf("field %q: %w", f.Name, err)
				}
				pl.key = kp
			}
		}
		pl.target = target
		p.leaves = append(p.leaves, pl)
	}
	return p, nil
}

// Bounds on what a record may make the reader hold. A record is read
// into the value before it (the group's last snapshot, the demo's last
// read, the last overview), so a few bytes can ask for much: a slice's
// length past the end of the one before is elements nobody wrote (zero),
// and each element of a slice may grow a slice of its own. So what a
// record adds is bounded by its length (growPerByte, more than any value
// kgwatch writes needs: a first snapshot of 100,000 partitions decodes to
// ~10 bytes a byte), and what a value holds after it by maxHeld.
const (
	maxSliceLen = 1 << 24
	maxLeaves   = 1 << 12
	// growBase and growPerByte bound the bytes of elements and map
	// entries a record may add to what the reader holds.
	growBase    = 64 << 10
	growPerByte = 256
)

// maxHeld bounds the bytes a value holds once read (its slices' elements
// and maps' entries, at any depth, and its strings too long to share): a
// snapshot of ~700,000 partitions (344 bytes each, and 24 in its owner's
// list). What the reader holds across every group's last snapshot, the
// demo's and the overview's is bounded by twice that. A variable for the
// tests.
var maxHeld uint64 = 256 << 20

// errBudget is a record adding more than its length allows.
var errBudget = tooLarge("it asks for more memory than its length allows")

// charge takes n bytes from what the record may still add.
func (d *decoder) charge(n uint64) error {
	if n > d.grow {
		return errBudget
	}
	d.grow -= n
	return nil
}

// budget is what a record of n bytes may add.
func budget(n int) uint64 { return min(maxHeld, growBase+growPerByte*uint64(n)) }

// value reads a difference into the value at v, which holds the
// previous value (nil: read and drop).
func (d *decoder) value(p *plan, v unsafe.Pointer) error {
	var mask [4]uint64
	mbuf, err := d.mask(len(p.leaves), mask[:0])
	if err != nil {
		return err
	}
	for i := range p.leaves {
		if mbuf[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		pl := &p.leaves[i]
		var f unsafe.Pointer
		if pl.target != nil && v != nil {
			f = pl.target.at(v)
		}
		if err := d.leaf(pl, f); err != nil {
			return err
		}
	}
	return nil
}

// mask reads the mask of a value of n leaves into buf.
func (d *decoder) mask(n int, buf []uint64) ([]uint64, error) {
	if n > maxLeaves {
		return nil, errCorrupt
	}
	words := (n + 63) / 64
	buf = buf[:0]
	if words > cap(buf) {
		buf = make([]uint64, 0, words)
	}
	for range words {
		w, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		buf = append(buf, w)
	}
	return buf, nil
}

// duration reads a duration as whole milliseconds and what is left
// (encoder.leaf).
func (d *decoder) duration() (int64, error) {
	x, err := d.varint()
	if err != nil {
		return 0, err
	}
	v := (x >> 1) * 1e6
	if x&1 != 0 {
		r, err := d.varint()
		if err != nil {
			return 0, err
		}
		if r == 0 || r <= -1e6 || r >= 1e6 {
			return 0, errCorrupt
		}
		v += r
	}
	return v, nil
}

// leaf reads one leaf's difference into the leaf at f (nil: drop it).
func (d *decoder) leaf(pl *planLeaf, f unsafe.Pointer) error {
	l := pl.target
	switch pl.kind {
	case kindBool:
		if f != nil {
			*(*bool)(f) = !*(*bool)(f)
		}
	case kindInt:
		x, err := d.varint()
		if err != nil {
			return err
		}
		if f != nil {
			l.setInt(f, l.getInt(f)+x)
		}
	case kindDuration:
		v, err := d.duration()
		if err != nil {
			return err
		}
		if f != nil {
			l.setInt(f, l.getInt(f)+v)
		}
	case kindUint:
		x, err := d.varint()
		if err != nil {
			return err
		}
		if f != nil {
			l.setUint(f, l.getUint(f)+uint64(x))
		}
	case kindFloat:
		if len(d.buf) < 8 {
			return errCorrupt
		}
		bits := binary.LittleEndian.Uint64(d.buf)
		d.buf = d.buf[8:]
		if f != nil {
			l.setFloat(f, bits)
		}
	case kindString:
		s, err := d.strs.read(d)
		if err != nil {
			return err
		}
		if f != nil {
			*(*string)(f) = s
		}
	case kindTime:
		return d.time(f)
	case kindSlice, kindColumns:
		var typ reflect.Type
		if l != nil {
			typ = l.typ
		}
		if pl.kind == kindColumns {
			return d.columns(pl.elem, typ, f)
		}
		return d.slice(pl.elem, typ, f)
	case kindMap:
		return d.mapOf(pl, f)
	default:
		return errCorrupt
	}
	return nil
}

// time reads a time leaf's difference into the time at f (nil: drop
// it): from format 5 as encoder.time writes it.
func (d *decoder) time(f unsafe.Pointer) error {
	x, err := d.varint()
	if err != nil {
		return err
	}
	mode := timeSecs
	if d.carry {
		mode, x = int(uint64(x)&3), x>>2
	}
	var base time.Time
	var ds, dn int64
	switch mode {
	case timeSecs:
		if d.carry {
			if x != 0 {
				return errCorrupt
			}
			if x, err = d.varint(); err != nil {
				return err
			}
		}
		if dn, err = d.varint(); err != nil {
			return err
		}
		ds = x
	case timeFromPrev, timeFromRecord:
		v := (x >> 1) * 1e6
		if x&1 != 0 {
			r, err := d.varint()
			if err != nil || r == 0 || r <= -1e6 || r >= 1e6 {
				return errCorrupt
			}
			v += r
		}
		ds, dn = v/1e9, v%1e9
		if mode == timeFromRecord {
			base = d.at
		}
	default:
		return errCorrupt
	}
	if f == nil {
		return nil
	}
	t := (*time.Time)(f)
	if mode != timeFromRecord {
		base = *t
	}
	sec, nsec := base.Unix()+ds, int64(base.Nanosecond())+dn
	if sec == zeroSec && nsec == 0 {
		*t = time.Time{}
	} else {
		*t = time.Unix(sec, nsec)
	}
	return nil
}

// mapOf reads a map into the map at f (nil: drop it), as a new map.
func (d *decoder) mapOf(pl *planLeaf, f unsafe.Pointer) error {
	n1, err := d.uvarint()
	if err != nil {
		return err
	}
	var m reflect.Value
	if f != nil {
		m = reflect.NewAt(pl.target.typ, f).Elem()
	}
	if n1 == 0 {
		if f != nil {
			m.SetZero()
		}
		return nil
	}
	n := n1 - 1
	if n > uint64(len(d.buf)) {
		return errCorrupt // each entry takes two bytes at least
	}
	var out reflect.Value
	if f != nil {
		t := pl.target.typ
		if err := d.charge(n * uint64(max(t.Key().Size()+t.Elem().Size(), 1))); err != nil {
			return err
		}
		out = reflect.MakeMapWithSize(t, int(n))
	}
	for range n {
		var kp, vp reflect.Value
		var kptr, vptr unsafe.Pointer
		if f != nil {
			kp, vp = reflect.New(pl.target.typ.Key()), reflect.New(pl.target.typ.Elem())
			kptr, vptr = kp.UnsafePointer(), vp.UnsafePointer()
		}
		if err := d.value(pl.key, kptr); err != nil {
			return err
		}
		if err := d.value(pl.elem, vptr); err != nil {
			return err
		}
		if f != nil {
			out.SetMapIndex(kp.Elem(), vp.Elem())
		}
	}
	if f != nil {
		m.Set(out)
	}
	return nil
}

// slice reads a slice difference into the slice at f (of type typ,
// holding the previous slice; nil: drop it). The previous slice is the
// reader's own (what it returns are clones), so it is changed in place
// when it has room.
func (d *decoder) slice(p *plan, typ reflect.Type, f unsafe.Pointer) error {
	hdr, n, ok, err := d.sliceHead(typ, f)
	if err != nil || !ok {
		return err
	}
	return d.rows(p, hdr, n)
}

// sliceHead reads a slice's length into the slice at f (of type typ;
// nil: drop it) and resizes it to it: hdr is the slice (nil when
// dropped), n its length; ok is false for a nil slice, which is all.
func (d *decoder) sliceHead(typ reflect.Type, f unsafe.Pointer) (hdr *sliceHeader, n uint64, ok bool, err error) {
	n1, err := d.uvarint()
	if err != nil {
		return nil, 0, false, err
	}
	if n1 == 0 {
		if f != nil {
			reflect.NewAt(typ, f).Elem().SetZero()
		}
		return nil, 0, false, nil
	}
	n = n1 - 1
	if n > maxSliceLen {
		return nil, 0, false, errCorrupt
	}
	if f != nil {
		hdr = (*sliceHeader)(f)
		// Elements past the previous slice's end that are not written
		// are zero: a few (a sparkline growing by a point of 0), more
		// than the record's length allows is a record asking for
		// memory it does not hold.
		if prev := uint64(hdr.len); n > prev {
			if err := d.charge((n - prev) * uint64(max(typ.Elem().Size(), 1))); err != nil {
				return nil, 0, false, err
			}
		}
		resize(typ, f, int(n))
	}
	return hdr, n, true, nil
}

// rows reads the elements of a slice of n (hdr, resized to it; nil: drop
// them) that differ: their count, then each one's distance from the one
// before, then its difference.
func (d *decoder) rows(p *plan, hdr *sliceHeader, n uint64) error {
	changed, err := d.uvarint()
	if err != nil {
		return err
	}
	if changed > n || changed > uint64(len(d.buf)) {
		return errCorrupt
	}
	i := -1
	for range changed {
		gap, err := d.uvarint()
		if err != nil {
			return err
		}
		if gap >= n || uint64(i+1)+gap >= n {
			return errCorrupt
		}
		i += int(gap) + 1
		var ev unsafe.Pointer
		if hdr != nil {
			ev = p.elemAt(hdr, i)
		}
		if err := d.value(p, ev); err != nil {
			return err
		}
	}
	return nil
}

// resize sets the length of the slice at f (of type typ) to n: in place
// when it has room, else in a new array holding its elements (with room
// for half as many again when it grows from some: a slice that grows by a
// few each record is not copied whole each time). Elements it gains are
// zero, and those it loses are zeroed (their slices and strings let go
// of); a nil slice becomes an empty one.
func resize(typ reflect.Type, f unsafe.Pointer, n int) {
	h := (*sliceHeader)(f)
	s := reflect.NewAt(typ, f).Elem()
	if h.data == nil || n > h.cap {
		c := n
		if h.len > 0 {
			c = max(n, h.cap+h.cap/2)
		}
		out := reflect.MakeSlice(typ, n, c)
		reflect.Copy(out, s)
		s.Set(out)
		return
	}
	if n < h.len {
		s.Slice(n, h.len).Clear()
	}
	old := h.len
	s.SetLen(n)
	if n > old {
		s.Slice(old, n).Clear()
	}
}

// held is the bytes the value at v holds: its slices' elements and its
// maps' entries, at any depth, and its strings too long for the string
// table (a shorter one is shared by every field holding it).
func (c *codec) held(v unsafe.Pointer) uint64 {
	var n uint64
	for _, i := range c.holding {
		l := &c.leaves[i]
		f := l.at(v)
		switch l.kind {
		case kindString:
			if s := len(*(*string)(f)); s > maxStringLen {
				n += uint64(s)
			}
		case kindSlice:
			h := (*sliceHeader)(f)
			n += uint64(h.len) * uint64(l.elem.typ.Size())
			if l.elem.holds {
				for j := range h.len {
					n += l.elem.held(l.elem.elemAt(h, j))
				}
			}
		case kindMap:
			m := reflect.NewAt(l.typ, f).Elem()
			n += uint64(m.Len()) * uint64(l.key.typ.Size()+l.elem.typ.Size())
			if l.elem.holds || l.key.holds {
				it := m.MapRange()
				for it.Next() {
					n += l.key.held(addressable(it.Key())) + l.elem.held(addressable(it.Value()))
				}
			}
		}
	}
	return n
}
