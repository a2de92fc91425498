package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kgwatch/kgwatch/model"
)

// colRow is a row with a leaf of each kind a column is written by.
type colRow struct {
	A     int64
	B     int64
	Sum   int64 // A+B, or not: a prediction the writer may find
	Small int8
	U     uint32
	Age   time.Duration
	Flag  bool
	Name  string
	At    time.Time
	F     float64
	Tags  []colTag
	Count map[string]int32
}

type colTag struct {
	K string
	N int64
}

type colTable struct{ Rows []colRow }

// colSteps is a sequence of tables as polls would give them: rows that
// move a little, a lot, or to extremes; that come and go.
func colSteps(rng *rand.Rand, polls int) []colTable {
	var out []colTable
	var rows []colRow
	for p := range polls {
		n := len(rows)
		switch {
		case p == 0:
			n = 3
		case p%7 == 3:
			n = rng.IntN(3000)
		case p%7 == 5:
			n = max(0, n-rng.IntN(10))
		case p%7 == 6:
			n += rng.IntN(10)
		}
		next := make([]colRow, n)
		copy(next, rows)
		for i := range next {
			r := &next[i]
			switch rng.IntN(10) {
			case 0: // unchanged
			case 1:
				r.A, r.B = math.MaxInt64-int64(rng.IntN(3)), math.MinInt64+int64(rng.IntN(3))
				r.Age = time.Duration(math.MinInt64 + rng.Int64N(5))
				r.U = math.MaxUint32
				r.Small = math.MinInt8
			default:
				r.A += int64(rng.IntN(8))
				r.B -= int64(rng.IntN(3))
				r.Small += int8(rng.IntN(3))
				r.U += uint32(rng.IntN(5))
				r.Age = time.Duration(rng.IntN(400)) * time.Millisecond
				if rng.IntN(4) == 0 {
					r.Age += time.Duration(rng.IntN(1e6))
				}
			}
			r.Sum = r.A + r.B
			if rng.IntN(50) == 0 {
				r.Sum++
			}
			r.Flag = r.A%3 == 0
			if rng.IntN(30) == 0 {
				r.Name = []string{"", "a", "b", strings.Repeat("x", 2000)}[rng.IntN(4)]
				r.At = time.Unix(1_700_000_000+rng.Int64N(100), rng.Int64N(1e9))
				r.F = rng.Float64()
				r.Tags = append([]colTag(nil), r.Tags...)
				if rng.IntN(2) == 0 {
					r.Tags = append(r.Tags, colTag{K: "k", N: rng.Int64N(1 << 40)})
				} else {
					r.Tags = nil
				}
				r.Count = map[string]int32{"x": rng.Int32()}
			}
		}
		if p%11 == 10 {
			next = nil
		}
		rows = next
		out = append(out, colTable{Rows: rows})
	}
	return out
}

// TestColumnsCarried writes tables column by column, each against the
// one before, and reads them back: every value, at every size (row by
// row under fewElems, through the range coder and as varints above), to
// the extremes of each kind.
func TestColumnsCarried(t *testing.T) {
	c, err := newCodec(reflect.TypeFor[colTable]())
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlan(c.schema(), c)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	steps := colSteps(rng, 60)
	var strs, rstrs strtab
	e := encoder{strs: &strs}
	var got colTable
	prev := colTable{}
	coded := 0
	// One decoder throughout, as a reader's: the columns' models carry
	// from one table to the next.
	d := decoder{strs: &rstrs, carry: true}
	for i, cur := range steps {
		e.buf = e.buf[:0]
		e.value(c, unsafe.Pointer(&prev), unsafe.Pointer(&cur))
		prev = cur
		d.buf, d.grow = e.buf, budget(len(e.buf))+1<<30
		if err := d.value(p, unsafe.Pointer(&got)); err != nil {
			t.Fatalf("table %d: %v", i, err)
		}
		if len(d.buf) != 0 {
			t.Fatalf("table %d: %d bytes left over", i, len(d.buf))
		}
		sameValue(t, "table", clone(c, &got), cur)
		if t.Failed() {
			t.Fatalf("table %d of %d rows", i, len(cur.Rows))
		}
		if len(e.rcbuf) > 0 || cap(e.rcbuf) > 0 {
			coded++
		}
	}
	if coded == 0 {
		t.Error("no column went through the range coder")
	}
}

// TestDerivedColumnCostsNothing: a leaf that is the sum of two others
// (as a lag is its log end less its commit) adds next to nothing to a
// table of 1,000 rows, and an age written as itself costs less than its
// difference from the age before.
func TestDerivedColumnCostsNothing(t *testing.T) {
	type with struct{ A, B, Sum int64 }
	type without struct{ A, B int64 }
	type ages struct{ Age time.Duration }
	size := func(t *testing.T, typ reflect.Type, rows func(poll int, v reflect.Value)) int {
		c, err := newCodec(reflect.SliceOf(typ))
		if err != nil {
			t.Fatal(err)
		}
		prev, cur := reflect.New(reflect.SliceOf(typ)), reflect.New(reflect.SliceOf(typ))
		prev.Elem().Set(reflect.MakeSlice(reflect.SliceOf(typ), 1000, 1000))
		cur.Elem().Set(reflect.MakeSlice(reflect.SliceOf(typ), 1000, 1000))
		rows(0, prev.Elem())
		rows(1, cur.Elem())
		var strs strtab
		e := encoder{strs: &strs}
		e.value(c, prev.UnsafePointer(), cur.UnsafePointer())
		return len(e.buf)
	}
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 1)) }
	r1, r2 := rng(), rng()
	fill := func(r *rand.Rand, sum bool) func(int, reflect.Value) {
		return func(poll int, v reflect.Value) {
			for i := range v.Len() {
				a, b := int64(1e6+i*37+poll*r.IntN(8)), int64(1e6+i*37-r.IntN(3))
				v.Index(i).Field(0).SetInt(a)
				v.Index(i).Field(1).SetInt(b)
				if sum {
					v.Index(i).Field(2).SetInt(a - b)
				}
			}
		}
	}
	w, wo := size(t, reflect.TypeFor[with](), fill(r1, true)), size(t, reflect.TypeFor[without](), fill(r2, false))
	if w > wo+16 {
		t.Errorf("a derived leaf costs %d bytes on 1,000 rows (%d with it, %d without), want at most 16", w-wo, w, wo)
	}
	r := rng()
	age := size(t, reflect.TypeFor[ages](), func(_ int, v reflect.Value) {
		for i := range v.Len() {
			v.Index(i).Field(0).SetInt(int64(time.Duration(r.IntN(400)) * time.Millisecond))
		}
	})
	// 400 values a row: 8.6 bits, 1,080 bytes; their differences 9.6.
	if age > 1150 {
		t.Errorf("1,000 ages uniform over 400ms: %d bytes, want near 1,080", age)
	}
}

// TestColumnOfAnUnknownLeaf: a column written from a leaf this build
// does not know (a newer kgwatch's field, dropped) cannot be read into
// one it knows: it is an error, never a wrong value.
func TestColumnOfAnUnknownLeaf(t *testing.T) {
	type rowA struct{ New, Old int64 }
	type rowB struct{ Old int64 }
	ca, _ := newCodec(reflect.TypeFor[[]rowA]())
	cb, _ := newCodec(reflect.TypeFor[[]rowB]())
	prev, cur := make([]rowA, 100), make([]rowA, 100)
	for i := range cur {
		prev[i] = rowA{New: int64(i * 1000), Old: int64(i*1000 + 5)}
		cur[i] = rowA{New: int64(i*1000 + i%7*13), Old: int64(i*1000 + i%7*13 + 5)} // Old is New+5
	}
	var strs strtab
	e := encoder{strs: &strs}
	e.value(ca, unsafe.Pointer(&prev), unsafe.Pointer(&cur))
	first := len(e.buf)
	e.value(ca, unsafe.Pointer(&cur), unsafe.Pointer(&cur))
	p, err := newPlan(ca.schema(), cb)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]rowB, 100)
	var rstrs strtab
	d := decoder{buf: e.buf[:first], strs: &rstrs, grow: 1 << 20, carry: true}
	err = d.value(p, unsafe.Pointer(&got))
	if err == nil || errors.Is(err, errCorrupt) || !strings.Contains(err.Error(), "does not know") {
		t.Errorf("read into a build without the leaf referred to: %v, want an error naming it", err)
	}
}

// TestRangeCoderExtremes codes numbers of every bit length, both signs,
// in every context, and reads them back.
func TestRangeCoderExtremes(t *testing.T) {
	var xs []int64
	for b := range 64 {
		xs = append(xs, 1<<b, -(1 << b), 1<<b-1, -(1<<b - 1))
	}
	xs = append(xs, math.MinInt64, math.MaxInt64, 0, 0, 0)
	for _, how := range []int{codePlain, codeMillis, codeSplit} {
		var e rangeEncoder
		var em, dm colModels
		em.reset(true)
		dm.reset(true)
		e.init(nil)
		want := make([]int64, len(xs))
		for i, x := range xs {
			if how == codeMillis {
				x = x / 1e6 * 1e6
			}
			want[i] = x
			e.column(how, &em[i%numCtx], x)
		}
		out := e.finish()
		var d rangeDecoder
		d.init(out)
		for i, x := range want {
			got, ok := d.column(how, &dm[i%numCtx])
			if !ok || got != x {
				t.Fatalf("coding %d: number %d read %d (%v), want %d", how, i, got, ok, x)
			}
		}
	}
}

// TestStablePollsReplay: the polls BenchmarkStablePoll measures, idle and
// busy, at 5 and 1,000 partitions, read back as they were written.
func TestStablePollsReplay(t *testing.T) {
	for _, n := range []int{5, 1000} {
		for _, busy := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(1, 2))
			o := group(n)
			var buf bytes.Buffer
			w, err := NewWriter(&buf, testHeader())
			if err != nil {
				t.Fatal(err)
			}
			var want []model.Snapshot
			for range 12 {
				s := poll(&o, rng, busy)
				want = append(want, s)
				if err := w.Snapshot(s.CompletedAt, "g", s); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			r, err := NewReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range want {
				rec, err := r.Next()
				if err != nil {
					t.Fatalf("%d partitions, busy %v, poll %d: %v", n, busy, i, err)
				}
				sameValue(t, fmt.Sprintf("%d partitions, busy %v, poll %d", n, busy, i), rec.Snapshot, s)
			}
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("%d partitions: after the polls, %v", n, err)
			}
		}
	}
}

// TestCloneIsOwn: a clone's slices, at any depth, are its own, and the
// rows' slices that share one array cannot reach each other: writing or
// appending to one changes neither the value cloned nor the next row.
func TestCloneIsOwn(t *testing.T) {
	c, err := newCodec(reflect.TypeFor[colTable]())
	if err != nil {
		t.Fatal(err)
	}
	v := colTable{Rows: []colRow{
		{A: 1, Tags: []colTag{{K: "a", N: 1}, {K: "b", N: 2}}},
		{A: 2, Tags: []colTag{}},
		{A: 3},
		{A: 4, Tags: []colTag{{K: "c", N: 3}}, Count: map[string]int32{"x": 1}},
		{A: 5, Tags: []colTag{}},
	}}
	cp := clone(c, &v)
	sameValue(t, "clone", cp, v)
	cp.Rows[0].Tags[1].N = 99
	cp.Rows[0].Tags = append(cp.Rows[0].Tags, colTag{K: "new"})
	cp.Rows[3].Count["x"] = 7
	cp.Rows[1].Tags = append(cp.Rows[1].Tags, colTag{K: "into an empty one"})
	if v.Rows[0].Tags[1].N != 2 || len(v.Rows[0].Tags) != 2 || v.Rows[3].Count["x"] != 1 || len(v.Rows[1].Tags) != 0 {
		t.Errorf("the value cloned changed: %+v", v.Rows)
	}
	if cp.Rows[3].Tags[0].K != "c" || cp.Rows[2].Tags != nil || cp.Rows[1].Tags == nil || cp.Rows[4].Tags == nil || len(cp.Rows[4].Tags) != 0 {
		t.Errorf("an append to one row reached another, or nil and empty were confused: %+v", cp.Rows)
	}
}
