package record

import (
	"fmt"
	"math"
	"reflect"
	"time"
	"unsafe"
)

// The codec writes a value as the difference from the value before it, one
// field at a time, following the struct by reflection: a struct is
// flattened into its leaves (bool, integer, float, string, time.Time, and
// slices, whose elements are structs or leaves again). A value is a bitmask
// of the leaves that differ from the previous value, then each differing
// leaf: nothing for a bool (it flipped), the difference for a number or a
// time, the string (by reference once seen, see strtab), the slice by
// its columns (format 4, columns.go; before, as its length and its
// differing elements, each a value against the element at the same index
// before). A value written on its own is the difference from
// the zero value. So a new field of model.Snapshot, Member or PartitionLag
// is recorded with no change here, and the file's schema (the leaves'
// names and kinds, in the header) lets a later kgwatch read it: leaves it
// does not know are read and dropped, leaves the file lacks stay zero.
//
// encoding/gob and JSON follow the struct too, but write whole values:
// at 1,000 partitions a poll is ~100 KB before compression, where its
// difference from the poll before is about 1.4 KB (the log ends' moves,
// the commits' distance from them, the ages), near the entropy of what
// moved.

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
	// kindDuration is a time.Duration: an integer written as whole
	// milliseconds and what is left (format 2; format 1 wrote it as an
	// int, which it still reads into one).
	kindDuration
	// kindColumns is a slice as format 4 writes it, column by column
	// (columns.go): a kindSlice leaf of this build, which formats 1 to 3
	// wrote row by row (kind "slice").
	kindColumns
)

var kindNames = map[kind]string{
	kindBool: "bool", kindInt: "int", kindUint: "uint", kindFloat: "float",
	kindString: "string", kindTime: "time", kindSlice: "slice", kindMap: "map", kindDuration: "duration",
	kindColumns: "columns",
}

func kindNamed(s string) (kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return k, true
		}
	}
	return 0, false
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

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
	size   uintptr // typ.Size()
	leaves []leaf
	zero   unsafe.Pointer // a zero value, never written to
	// holds: its values hold slices, maps or strings (what held counts),
	// in the leaves holding.
	holds   bool
	holding []int
}

// newCodec returns the codec of t, or an error naming the first field it
// cannot record (a map, a pointer, an interface, an unexported field).
func newCodec(t reflect.Type) (*codec, error) {
	c := &codec{typ: t, size: t.Size(), zero: reflect.New(t).UnsafePointer()}
	if t.Kind() == reflect.Struct && t != timeType {
		if err := c.flatten(t, 0, ""); err != nil {
			return nil, err
		}
	} else {
		l, err := newLeaf(t, 0, "")
		if err != nil {
			return nil, err
		}
		c.leaves = []leaf{l}
	}
	for i, l := range c.leaves {
		if l.kind == kindSlice || l.kind == kindMap || l.kind == kindString {
			c.holding = append(c.holding, i)
		}
	}
	c.holds = len(c.holding) > 0
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
		if t == durationType {
			l.kind = kindDuration
		}
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
	return unsafe.Add(s.data, uintptr(i)*c.size)
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
		k := l.kind
		if k == kindSlice {
			k = kindColumns // as this build writes it
		}
		out[i] = fieldSchema{Name: l.name, Kind: kindNames[k]}
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
	case kindInt, kindDuration:
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

// clone returns a copy of the value at v whose slices (at any depth) are
// its own, so changes to what v shares cannot reach it.
func clone[T any](c *codec, v *T) T {
	out := *v
	cloneInto(c, unsafe.Pointer(&out))
	return out
}

func cloneInto(c *codec, v unsafe.Pointer) { cloneElems(c, v, 1) }

// cloneElems gives the n values of c from data on their own slices and
// maps, at any depth: the slices of one leaf of all n share one new
// array (each with no room past its length, so an append to one cannot
// reach the next), so a snapshot of 10,000 partitions, each with its
// owners, is cloned in a few allocations, not 10,000.
func cloneElems(c *codec, data unsafe.Pointer, n int) {
	if !c.hasSlices() {
		return
	}
	for i := range c.leaves {
		l := &c.leaves[i]
		switch l.kind {
		case kindMap:
			for j := range n {
				cloneMap(l, l.at(unsafe.Add(data, uintptr(j)*c.size)))
			}
			continue
		case kindSlice:
		default:
			continue
		}
		total, some := 0, false
		for j := range n {
			if h := (*sliceHeader)(l.at(unsafe.Add(data, uintptr(j)*c.size))); h.data != nil {
				total += h.len
				some = true
			}
		}
		if !some {
			continue
		}
		base := reflect.MakeSlice(l.typ, total, total).UnsafePointer()
		// The old slice is held in old while the field takes its part
		// of the new array (reflect.Value.Slice3 would allocate each).
		old := reflect.New(l.typ)
		oh := (*sliceHeader)(old.UnsafePointer())
		off := 0
		for j := range n {
			f := l.at(unsafe.Add(data, uintptr(j)*c.size))
			h := (*sliceHeader)(f)
			if h.data == nil {
				continue
			}
			*oh = *h
			at := base // an empty one points at the array, never past its end
			if oh.len > 0 {
				at = unsafe.Add(base, uintptr(off)*l.elem.size)
			}
			*h = sliceHeader{data: at, len: oh.len, cap: oh.len}
			reflect.Copy(reflect.NewAt(l.typ, f).Elem(), old.Elem())
			off += oh.len
		}
		*oh = sliceHeader{}
		cloneElems(l.elem, base, total)
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
