package record

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
	"unsafe"
)

// The codec writes a value as the difference from the value before it, one
// field at a time, following the struct by reflection: a struct is
// flattened into its leaves (bool, integer, float, string, time.Time, and
// slices, whose elements are structs or leaves again). A value is a bitmask
// of the leaves that differ from the previous value, then each differing
// leaf: nothing for a bool (it flipped), the difference for a number or a
// time, the string (by reference once seen, see strtab), the slice as its
// length and its differing elements, each a value against the element at
// the same index before. A value written on its own is the difference from
// the zero value. So a new field of model.Snapshot, Member or PartitionLag
// is recorded with no change here, and the file's schema (the leaves'
// names and kinds, in the header) lets a later kgwatch read it: leaves it
// does not know are read and dropped, leaves the file lacks stay zero.
//
// encoding/gob and JSON follow the struct too, but write whole values:
// at 1,000 partitions a poll is ~100 KB before compression, where its
// difference from the poll before is a few hundred bytes.

// kind is how a leaf is written.
type kind uint8

const (
	kindBool kind = iota + 1
	kindInt
	kindUint
	kindFloat
	kindString
	kindTime
	kindSlice
	kindMap
)

var kindNames = map[kind]string{
	kindBool: "bool", kindInt: "int", kindUint: "uint", kindFloat: "float",
	kindString: "string", kindTime: "time", kindSlice: "slice", kindMap: "map",
}

func kindNamed(s string) (kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return k, true
		}
	}
	return 0, false
}

var timeType = reflect.TypeFor[time.Time]()

// leaf is one field of a flattened struct. Leaves are reached by their
// offset from the start of the value (the sum of the offsets of the
// fields on the way), as encoding/gob and encoding/json reach fields by
// reflection: here by pointer, because reflect.Value.Field on every leaf
// of 10,000 rows took most of a poll's recording time.
type leaf struct {
	name string
	kind kind
	typ  reflect.Type
	off  uintptr
	size uintptr // of an int, uint or float
	elem *codec  // kindSlice: the element's codec; kindMap: the value's
	key  *codec  // kindMap: the key's (a string or an integer)
}

// codec writes and reads values of one type.
type codec struct {
	typ    reflect.Type
	leaves []leaf
	zero   unsafe.Pointer // a zero value, never written to
}

// newCodec returns the codec of t, or an error naming the first field it
// cannot record (a map, a pointer, an interface, an unexported field).
func newCodec(t reflect.Type) (*codec, error) {
	c := &codec{typ: t, zero: reflect.New(t).UnsafePointer()}
	if t.Kind() == reflect.Struct && t != timeType {
		if err := c.flatten(t, 0, ""); err != nil {
			return nil, err
		}
		return c, nil
	}
	l, err := newLeaf(t, 0, "")
	if err != nil {
		return nil, err
	}
	c.leaves = []leaf{l}
	return c, nil
}

func (c *codec) flatten(t reflect.Type, off uintptr, prefix string) error {
	for i := range t.NumField() {
		f := t.Field(i)
		name := prefix + f.Name
		if !f.IsExported() {
			return fmt.Errorf("%s.%s: unexported field", t, name)
		}
		if f.Type.Kind() == reflect.Struct && f.Type != timeType {
			if err := c.flatten(f.Type, off+f.Offset, name+"."); err != nil {
				return err
			}
			continue
		}
		l, err := newLeaf(f.Type, off+f.Offset, name)
		if err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		c.leaves = append(c.leaves, l)
	}
	return nil
}

func newLeaf(t reflect.Type, off uintptr, name string) (leaf, error) {
	l := leaf{name: name, typ: t, off: off, size: t.Size()}
	switch t.Kind() {
	case reflect.Bool:
		l.kind = kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		l.kind = kindInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		l.kind = kindUint
	case reflect.Float32, reflect.Float64:
		l.kind = kindFloat
	case reflect.String:
		l.kind = kindString
	case reflect.Slice:
		elem, err := newCodec(t.Elem())
		if err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
		l.kind, l.elem = kindSlice, elem
	case reflect.Map:
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return l, fmt.Errorf("%s: cannot record a map keyed by %s", name, t.Key().Kind())
		}
		key, err := newCodec(t.Key())
		if err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
		elem, err := newCodec(t.Elem())
		if err != nil {
			return l, fmt.Errorf("%s: %w", name, err)
		}
		l.kind, l.key, l.elem = kindMap, key, elem
	case reflect.Struct:
		if t != timeType {
			return l, fmt.Errorf("%s: nested struct outside a struct", name)
		}
		l.kind = kindTime
	default:
		return l, fmt.Errorf("%s: cannot record a %s", name, t.Kind())
	}
	return l, nil
}

// at is the leaf in the value at p.
func (l *leaf) at(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, l.off) }

func (l *leaf) getInt(p unsafe.Pointer) int64 {
	switch l.size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

func (l *leaf) setInt(p unsafe.Pointer, v int64) {
	switch l.size {
	case 1:
		*(*int8)(p) = int8(v)
	case 2:
		*(*int16)(p) = int16(v)
	case 4:
		*(*int32)(p) = int32(v)
	default:
		*(*int64)(p) = v
	}
}

func (l *leaf) getUint(p unsafe.Pointer) uint64 {
	switch l.size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

func (l *leaf) setUint(p unsafe.Pointer, v uint64) {
	switch l.size {
	case 1:
		*(*uint8)(p) = uint8(v)
	case 2:
		*(*uint16)(p) = uint16(v)
	case 4:
		*(*uint32)(p) = uint32(v)
	default:
		*(*uint64)(p) = v
	}
}

func (l *leaf) getFloat(p unsafe.Pointer) uint64 {
	if l.size == 4 {
		return math.Float64bits(float64(*(*float32)(p)))
	}
	return math.Float64bits(*(*float64)(p))
}

func (l *leaf) setFloat(p unsafe.Pointer, bits uint64) {
	if l.size == 4 {
		*(*float32)(p) = float32(math.Float64frombits(bits))
		return
	}
	*(*float64)(p) = math.Float64frombits(bits)
}

// sliceHeader is a slice as the runtime lays it out (reflect.SliceHeader).
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

// elemAt is element i of the slice at p.
func (c *codec) elemAt(s *sliceHeader, i int) unsafe.Pointer {
	return unsafe.Add(s.data, uintptr(i)*c.typ.Size())
}

// fieldSchema describes a leaf in the header, so a reader of another
// version can tell the leaves apart.
type fieldSchema struct {
	Name string        `json:"name,omitempty"`
	Kind string        `json:"kind"`
	Elem []fieldSchema `json:"elem,omitempty"`
	Key  []fieldSchema `json:"key,omitempty"`
}

func (c *codec) schema() []fieldSchema {
	out := make([]fieldSchema, len(c.leaves))
	for i, l := range c.leaves {
		out[i] = fieldSchema{Name: l.name, Kind: kindNames[l.kind]}
		if l.elem != nil {
			out[i].Elem = l.elem.schema()
		}
		if l.key != nil {
			out[i].Key = l.key.schema()
		}
	}
	return out
}

// zeroSec is the Unix second of the zero time.Time.
var zeroSec = time.Time{}.Unix()

// equalLeaf reports whether leaf l holds the same in the values at a and b.
func equalLeaf(l *leaf, a, b unsafe.Pointer) bool {
	a, b = l.at(a), l.at(b)
	switch l.kind {
	case kindBool:
		return *(*bool)(a) == *(*bool)(b)
	case kindInt:
		return l.getInt(a) == l.getInt(b)
	case kindUint:
		return l.getUint(a) == l.getUint(b)
	case kindFloat:
		return l.getFloat(a) == l.getFloat(b)
	case kindString:
		return *(*string)(a) == *(*string)(b)
	case kindTime:
		ta, tb := (*time.Time)(a), (*time.Time)(b)
		return ta.Unix() == tb.Unix() && ta.Nanosecond() == tb.Nanosecond()
	case kindSlice:
		sa, sb := (*sliceHeader)(a), (*sliceHeader)(b)
		if (sa.data == nil) != (sb.data == nil) || sa.len != sb.len {
			return false
		}
		if sa.data == sb.data {
			return true
		}
		for i := range sa.len {
			if !l.elem.equal(l.elem.elemAt(sa, i), l.elem.elemAt(sb, i)) {
				return false
			}
		}
		return true
	case kindMap:
		ma, mb := reflect.NewAt(l.typ, a).Elem(), reflect.NewAt(l.typ, b).Elem()
		if ma.IsNil() != mb.IsNil() || ma.Len() != mb.Len() {
			return false
		}
		it := ma.MapRange()
		for it.Next() {
			vb := mb.MapIndex(it.Key())
			if !vb.IsValid() || !l.elem.equal(addressable(it.Value()), addressable(vb)) {
				return false
			}
		}
		return true
	}
	return false
}

// addressable is a pointer to a copy of v (a map's key or value, which
// cannot be addressed).
func addressable(v reflect.Value) unsafe.Pointer {
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.UnsafePointer()
}

func (c *codec) equal(a, b unsafe.Pointer) bool {
	for i := range c.leaves {
		if !equalLeaf(&c.leaves[i], a, b) {
			return false
		}
	}
	return true
}

// encoder appends a value's difference from its predecessor to buf.
type encoder struct {
	buf  []byte
	strs *strtab
	mask []uint64
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
	case kindUint:
		e.buf = binary.AppendVarint(e.buf, int64(l.getUint(cur)-l.getUint(prev)))
	case kindFloat:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, l.getFloat(cur))
	case kindString:
		e.buf = e.strs.append(e.buf, *(*string)(cur))
	case kindTime:
		tp, tc := (*time.Time)(prev), (*time.Time)(cur)
		e.buf = binary.AppendVarint(e.buf, tc.Unix()-tp.Unix())
		e.buf = binary.AppendVarint(e.buf, int64(tc.Nanosecond()-tp.Nanosecond()))
	case kindSlice:
		e.slice(l.elem, (*sliceHeader)(prev), (*sliceHeader)(cur))
	case kindMap:
		e.mapOf(l, reflect.NewAt(l.typ, cur).Elem())
	}
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

// slice appends cur's length (0 for nil, else length+1), the number of
// elements that differ from prev's at the same index (or from the zero
// value past prev's end), and each of those: its distance from the one
// before, then its value.
func (e *encoder) slice(c *codec, prev, cur *sliceHeader) {
	if cur.data == nil {
		e.buf = binary.AppendUvarint(e.buf, 0)
		return
	}
	n := cur.len
	e.buf = binary.AppendUvarint(e.buf, uint64(n)+1)
	words := (len(c.leaves) + 63) / 64
	// The masks of the elements that differ, found first: their count
	// comes before them.
	start := len(e.mask)
	var changed []int
	for i := range n {
		p := c.zero
		if i < prev.len {
			p = c.elemAt(prev, i)
		}
		at := len(e.mask)
		for range words {
			e.mask = append(e.mask, 0)
		}
		if e.maskOf(c, p, c.elemAt(cur, i), e.mask[at:]) {
			changed = append(changed, i)
		} else {
			e.mask = e.mask[:at]
		}
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(len(changed)))
	last := -1
	for k, i := range changed {
		p := c.zero
		if i < prev.len {
			p = c.elemAt(prev, i)
		}
		e.buf = binary.AppendUvarint(e.buf, uint64(i-last-1))
		last = i
		m := start + k*words
		e.leaves(c, p, c.elemAt(cur, i), e.mask[m:m+words])
	}
	e.mask = e.mask[:start]
}

// errCorrupt is a record whose bytes do not decode.
var errCorrupt = errors.New("corrupt record")

// decoder reads values written by an encoder, following the file's
// schema (plans), from buf.
type decoder struct {
	buf  []byte
	strs *strtab
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
				if c.leaves[i].name == f.Name && c.leaves[i].kind == k {
					target = &c.leaves[i]
					break
				}
			}
		}
		if k == kindSlice || k == kindMap {
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

// Bounds on what a record may ask the reader to allocate.
const (
	maxSliceLen = 1 << 24
	// maxZeroGrowth bounds the zero elements a slice may gain at once.
	maxZeroGrowth = 1 << 12
	maxLeaves     = 1 << 12
)

// value reads a difference into the value at v, which holds the
// previous value (nil: read and drop).
func (d *decoder) value(p *plan, v unsafe.Pointer) error {
	n := len(p.leaves)
	if n > maxLeaves {
		return errCorrupt
	}
	var mask [4]uint64
	words := (n + 63) / 64
	mbuf := mask[:0]
	if words > len(mask) {
		mbuf = make([]uint64, 0, words)
	}
	for range words {
		w, err := d.uvarint()
		if err != nil {
			return err
		}
		mbuf = append(mbuf, w)
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
		ds, err := d.varint()
		if err != nil {
			return err
		}
		dn, err := d.varint()
		if err != nil {
			return err
		}
		if f != nil {
			t := (*time.Time)(f)
			sec, nsec := t.Unix()+ds, int64(t.Nanosecond())+dn
			if sec == zeroSec && nsec == 0 {
				*t = time.Time{}
			} else {
				*t = time.Unix(sec, nsec)
			}
		}
	case kindSlice:
		var typ reflect.Type
		if l != nil {
			typ = l.typ
		}
		return d.slice(pl.elem, typ, f)
	case kindMap:
		return d.mapOf(pl, f)
	default:
		return errCorrupt
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
		out = reflect.MakeMapWithSize(pl.target.typ, int(n))
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
// holding the previous slice; nil: drop it), as a new slice: the previous
// one may be shared, so it is never written to.
func (d *decoder) slice(p *plan, typ reflect.Type, f unsafe.Pointer) error {
	n1, err := d.uvarint()
	if err != nil {
		return err
	}
	if n1 == 0 {
		if f != nil {
			*(*sliceHeader)(f) = sliceHeader{}
		}
		return nil
	}
	changed, err := d.uvarint()
	if err != nil {
		return err
	}
	n := n1 - 1
	// Elements past the previous slice's end that are not listed are
	// zero: a few (a sparkline growing by a point of 0); more than that
	// is a record asking for memory it does not hold.
	var prevLen uint64
	if f != nil {
		prevLen = uint64((*sliceHeader)(f).len)
	}
	if n > maxSliceLen || changed > n || changed > uint64(len(d.buf)) || n > prevLen+changed+maxZeroGrowth {
		return errCorrupt
	}
	var hdr *sliceHeader
	if f != nil {
		old := reflect.NewAt(typ, f).Elem()
		out := reflect.MakeSlice(typ, int(n), int(n))
		reflect.Copy(out, old)
		old.Set(out)
		hdr = (*sliceHeader)(f)
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

// clone returns a copy of the value at v whose slices (at any depth) are
// its own, so changes to what v shares cannot reach it.
func clone[T any](c *codec, v *T) T {
	out := *v
	cloneInto(c, unsafe.Pointer(&out))
	return out
}

func cloneInto(c *codec, v unsafe.Pointer) {
	for i := range c.leaves {
		l := &c.leaves[i]
		if l.kind == kindMap {
			cloneMap(l, l.at(v))
			continue
		}
		if l.kind != kindSlice {
			continue
		}
		f := l.at(v)
		if (*sliceHeader)(f).data == nil {
			continue
		}
		old := reflect.NewAt(l.typ, f).Elem()
		n := old.Len()
		s := reflect.MakeSlice(l.typ, n, n)
		reflect.Copy(s, old)
		old.Set(s)
		if l.elem.hasSlices() {
			h := (*sliceHeader)(f)
			for j := range n {
				cloneInto(l.elem, l.elem.elemAt(h, j))
			}
		}
	}
}

// cloneMap makes the map at f a copy of its own.
func cloneMap(l *leaf, f unsafe.Pointer) {
	old := reflect.NewAt(l.typ, f).Elem()
	if old.IsNil() {
		return
	}
	m := reflect.MakeMapWithSize(l.typ, old.Len())
	it := old.MapRange()
	for it.Next() {
		v := reflect.New(l.typ.Elem())
		v.Elem().Set(it.Value())
		cloneInto(l.elem, v.UnsafePointer())
		m.SetMapIndex(it.Key(), v.Elem())
	}
	old.Set(m)
}

// hasSlices reports whether c's values hold slices or maps, which a
// clone must copy.
func (c *codec) hasSlices() bool {
	for _, l := range c.leaves {
		if l.kind == kindSlice || l.kind == kindMap {
			return true
		}
	}
	return false
}
