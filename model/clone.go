package model

import (
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"
)

// Clone returns a deep copy of *src and the bytes the copy allocated (an
// estimate: the sizes of the arrays, maps and values it made). It copies
// what reflection reaches, unexported fields too, without naming any
// type's fields, so a type that changes is still copied whole (a replay's
// checkpoints copy a Pipeline this way): structs and arrays field by
// field, slices (their length) and maps afresh, pointers to fresh values,
// interfaces' values. Values reached twice through the same pointer or
// map are copied once, so aliasing within *src holds in the copy. Func
// values, unsafe pointers and *time.Location are shared, as is what
// holds no pointer but strings. A channel cannot be copied: it is an
// error, as is anything reflection cannot copy; Clone never panics.
func Clone[T any](src *T) (dst *T, bytes int64, err error) {
	if src == nil {
		return nil, 0, nil
	}
	c := cloner{seen: map[seenKey]unsafe.Pointer{}}
	defer func() {
		if p := recover(); p != nil {
			dst, bytes, err = nil, 0, fmt.Errorf("clone %T: %v", src, p)
		}
	}()
	t := reflect.TypeFor[T]()
	out := reflect.New(t)
	c.seen[seenKey{unsafe.Pointer(src), reflect.PointerTo(t)}] = out.UnsafePointer()
	if err := c.copy(out.UnsafePointer(), unsafe.Pointer(src), t); err != nil {
		return nil, 0, fmt.Errorf("clone %T: %w", src, err)
	}
	return (*T)(out.UnsafePointer()), c.bytes + int64(t.Size()), nil
}

// cloner copies one value graph.
type cloner struct {
	seen  map[seenKey]unsafe.Pointer // the copy of each pointer or map met
	bytes int64
}

type seenKey struct {
	p unsafe.Pointer
	t reflect.Type
}

var locationType = reflect.TypeFor[*time.Location]()

// shallowTypes caches whether a type is copied by assignment.
var shallowTypes sync.Map // reflect.Type → bool

// shallow reports whether a value of t is copied whole by assignment:
// it holds no pointer but strings (immutable), funcs and the shared
// kinds.
func shallow(t reflect.Type) bool {
	if v, ok := shallowTypes.Load(t); ok {
		return v.(bool)
	}
	var s bool
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128,
		reflect.String, reflect.Func, reflect.UnsafePointer:
		s = true
	case reflect.Pointer:
		s = t == locationType
	case reflect.Array:
		s = t.Len() == 0 || shallow(t.Elem())
	case reflect.Struct:
		s = true
		for i := range t.NumField() {
			if !shallow(t.Field(i).Type) {
				s = false
				break
			}
		}
	}
	shallowTypes.Store(t, s)
	return s
}

// valueAt is the value of type t at p, settable whatever its field's name.
func valueAt(p unsafe.Pointer, t reflect.Type) reflect.Value { return reflect.NewAt(t, p).Elem() }

// copy copies the value of type t at src to dst (zero before).
func (c *cloner) copy(dst, src unsafe.Pointer, t reflect.Type) error {
	if shallow(t) {
		valueAt(dst, t).Set(valueAt(src, t))
		return nil
	}
	switch t.Kind() {
	case reflect.Array:
		et, n := t.Elem(), t.Len()
		for i := range n {
			off := uintptr(i) * et.Size()
			if err := c.copy(unsafe.Add(dst, off), unsafe.Add(src, off), et); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if err := c.copy(unsafe.Add(dst, f.Offset), unsafe.Add(src, f.Offset), f.Type); err != nil {
				return fmt.Errorf("%s.%s: %w", t, f.Name, err)
			}
		}
	case reflect.Slice:
		return c.slice(dst, src, t)
	case reflect.Map:
		return c.mapOf(dst, src, t)
	case reflect.Pointer:
		return c.pointer(dst, src, t)
	case reflect.Interface:
		v := valueAt(src, t)
		if v.IsNil() {
			return nil
		}
		e := v.Elem()
		et := e.Type()
		cp := reflect.New(et)
		// The interface's value is not addressable: copied out first.
		tmp := reflect.New(et)
		tmp.Elem().Set(e)
		if err := c.copy(cp.UnsafePointer(), tmp.UnsafePointer(), et); err != nil {
			return err
		}
		c.bytes += int64(et.Size())
		valueAt(dst, t).Set(cp.Elem())
	default:
		return fmt.Errorf("a %s cannot be copied", t.Kind())
	}
	return nil
}

func (c *cloner) slice(dst, src unsafe.Pointer, t reflect.Type) error {
	v := valueAt(src, t)
	if v.IsNil() {
		return nil
	}
	et := v.Type().Elem()
	n := v.Len()
	out := reflect.MakeSlice(t, n, v.Cap())
	c.bytes += int64(v.Cap()) * int64(et.Size())
	if shallow(et) {
		reflect.Copy(out, v)
	} else if n > 0 {
		d, s := out.Index(0).Addr().UnsafePointer(), v.Index(0).Addr().UnsafePointer()
		for i := range n {
			off := uintptr(i) * et.Size()
			if err := c.copy(unsafe.Add(d, off), unsafe.Add(s, off), et); err != nil {
				return err
			}
		}
	}
	valueAt(dst, t).Set(out)
	return nil
}

func (c *cloner) mapOf(dst, src unsafe.Pointer, t reflect.Type) error {
	v := valueAt(src, t)
	if v.IsNil() {
		return nil
	}
	key := seenKey{v.UnsafePointer(), t}
	if p, ok := c.seen[key]; ok {
		valueAt(dst, t).Set(valueAt(p, t))
		return nil
	}
	out := reflect.MakeMapWithSize(t, v.Len())
	cell := reflect.New(t)
	cell.Elem().Set(out)
	c.seen[key] = cell.UnsafePointer()
	kt, et := t.Key(), t.Elem()
	c.bytes += int64(v.Len()) * int64(kt.Size()+et.Size())
	kShallow, eShallow := shallow(kt), shallow(et)
	it := v.MapRange()
	k, e := reflect.New(kt).Elem(), reflect.New(et).Elem()
	for it.Next() {
		k.SetIterKey(it)
		e.SetIterValue(it)
		ck, ce := k, e
		if !kShallow {
			ck = reflect.New(kt).Elem()
			if err := c.copy(ck.Addr().UnsafePointer(), k.Addr().UnsafePointer(), kt); err != nil {
				return err
			}
		}
		if !eShallow {
			ce = reflect.New(et).Elem()
			if err := c.copy(ce.Addr().UnsafePointer(), e.Addr().UnsafePointer(), et); err != nil {
				return err
			}
		}
		out.SetMapIndex(ck, ce)
	}
	valueAt(dst, t).Set(out)
	return nil
}

func (c *cloner) pointer(dst, src unsafe.Pointer, t reflect.Type) error {
	v := valueAt(src, t)
	if v.IsNil() {
		return nil
	}
	key := seenKey{v.UnsafePointer(), t}
	if p, ok := c.seen[key]; ok {
		valueAt(dst, t).Set(reflect.NewAt(t.Elem(), p))
		return nil
	}
	et := t.Elem()
	out := reflect.New(et)
	c.seen[key] = out.UnsafePointer()
	c.bytes += int64(et.Size())
	if err := c.copy(out.UnsafePointer(), v.UnsafePointer(), et); err != nil {
		return err
	}
	valueAt(dst, t).Set(out)
	return nil
}
