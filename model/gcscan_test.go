package model

import (
	"reflect"
	"runtime"
	"testing"
	"time"
)

// pointerEnd is how far into a value of t its pointers reach: the
// collector scans an object up to its last pointer and no further.
func pointerEnd(t reflect.Type) uintptr {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface,
		reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return t.Size()
	case reflect.Array:
		if t.Len() > 0 {
			if e := pointerEnd(t.Elem()); e > 0 {
				return uintptr(t.Len()-1)*t.Elem().Size() + e
			}
		}
	case reflect.Struct:
		end := uintptr(0)
		for i := range t.NumField() {
			f := t.Field(i)
			if e := pointerEnd(f.Type); e > 0 {
				end = max(end, f.Offset+e)
			}
		}
		return end
	}
	return 0
}

// A partition's history state and an overview partition's track keep
// their pointers (strings) first, so the collector does not scan their
// samples and numbers: 10,000 states were 5 MB to scan at every cycle of
// the 10k TUI, where their strings are 640 KB.
func TestHistoryStatesScanOnlyTheirStrings(t *testing.T) {
	for _, c := range []struct {
		v    any
		most uintptr
	}{
		{partState{}, 64},
		{partTrack{}, 24 + 64},
	} {
		ty := reflect.TypeOf(c.v)
		if end := pointerEnd(ty); end > c.most {
			t.Errorf("%s: pointers reach %d of its %d bytes, want at most %d", ty, end, ty.Size(), c.most)
		}
	}
}

// BenchmarkGCHistory10k is one collection with a History of 10,000
// partitions (and the snapshot it judged) live: what each cycle of the
// 10k TUI spends marking them.
func BenchmarkGCHistory10k(b *testing.B) {
	o := benchGroup(10_000)
	h := NewHistory(HistoryOptions{})
	var s Snapshot
	for i := range 20 {
		advance(&o, ht0.Add(time.Duration(i)*time.Second))
		s = NewSnapshot(o)
		h.Annotate(&s)
	}
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	runtime.KeepAlive(h)
	runtime.KeepAlive(s)
}
