package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/kgwatch/kgwatch/model"
)

// bodies is the mean length of the records of polls from to to (of a
// stable group of n partitions, busy or idle), before compression.
func bodies(t *testing.T, n int, busy bool, from, to int) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	o := group(n)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i := range to {
		s := poll(&o, rng, busy)
		if err := w.Snapshot(s.CompletedAt, "g", s); err != nil {
			t.Fatal(err)
		}
		if i >= from {
			total += len(w.enc.buf)
		}
	}
	return float64(total) / float64(to-from)
}

// TestFormat5Sizes: what format 5 saves, on the polls
// BenchmarkStablePoll measures (as written by format 4 → 5): a column's
// models carried from one record to the next, and its head written once
// while it stays the same, and a slice's coded columns in one stream
// (1,000 busy partitions: 1,337 bytes a poll, 1,368 without the first,
// 1,359 without the second, 1,342 without the third; 40: 95, 109, 110
// and 98); a keyframe's whole snapshot of numbers that
// count up (partitions, log starts and ends) from the element before
// (15,294 bytes, 20,305 without); a poll's times from the record's (an
// idle group of 3: 28, 38 without).
func TestFormat5Sizes(t *testing.T) {
	for _, c := range []struct {
		what     string
		n        int
		busy     bool
		from, to int
		max      float64
	}{
		{"busy polls of 1,000 partitions", 1000, true, 5, 15, 1350},
		{"busy polls of 40 partitions", 40, true, 5, 30, 96.5},
		{"a whole snapshot of 1,000 partitions", 1000, true, 0, 1, 16000},
		{"idle polls of 3 partitions", 3, false, 5, 30, 31},
	} {
		if got := bodies(t, c.n, c.busy, c.from, c.to); got > c.max {
			t.Errorf("%s: %.1f bytes a record, want at most %.0f", c.what, got, c.max)
		}
	}
}

// TestBusyPollsAcrossKeyframes: busy polls of 1,000 partitions across
// keyframes read back as written, from the start and resumed at each
// keyframe: the models and heads carried from record to record start
// afresh at a keyframe, on both sides.
func TestBusyPollsAcrossKeyframes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	o := group(1000)
	var buf bytes.Buffer
	h := testHeader()
	h.Keyframes = 15
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	var want []model.Snapshot
	for i := range 45 {
		s := poll(&o, rng, i%13 != 12)
		want = append(want, s)
		if err := w.Snapshot(s.CompletedAt, "g", s); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	data := buf.Bytes()
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var marks []Mark
	var at []int
	for i, s := range want {
		if m, ok := r.Mark(); ok {
			marks, at = append(marks, m), append(at, i)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("poll %d: %v", i, err)
		}
		if !reflect.DeepEqual(rec.Snapshot, s) {
			sameValue(t, fmt.Sprintf("poll %d", i), rec.Snapshot, s)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the polls: %v", err)
	}
	if len(marks) < 2 {
		t.Fatalf("%d keyframes in 45 polls, one every 15", len(marks))
	}
	for k, m := range marks {
		rr, err := Resume(bytes.NewReader(data), m)
		if err != nil {
			t.Fatal(err)
		}
		for i := at[k]; i < len(want); i++ {
			rec, err := rr.Next()
			if err != nil {
				t.Fatalf("resumed at keyframe %d, poll %d: %v", k, i, err)
			}
			if !reflect.DeepEqual(rec.Snapshot, want[i]) {
				sameValue(t, fmt.Sprintf("resumed at keyframe %d, poll %d", k, i), rec.Snapshot, want[i])
			}
		}
	}
}

// TestCarriedStateBounded: what a reader carries from record to record
// is bounded, whatever a file asks: a column's models are charged to
// the record that makes them, and there are at most maxCarried; the
// heads kept take at most maxHeads; a record saying its heads are the
// last ones, with none before, is damage.
func TestCarriedStateBounded(t *testing.T) {
	var d decoder
	d.carry = true
	cm := d.carried.of(nil, 0)
	d.grow = modelSize - 1
	if _, err := d.carriedCtx(cm, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("models past what the record may add: %v, want too large", err)
	}
	d.grow = 1 << 30
	d.carried.sets = maxCarried
	if _, err := d.carriedCtx(cm, 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("models past maxCarried: %v, want too large", err)
	}
	d.carried.sets = 0
	if m, err := d.carriedCtx(cm, 1); err != nil || m == nil || d.grow != 1<<30-modelSize {
		t.Errorf("a context's models: %v, %v, charged %d", m, err, 1<<30-d.grow)
	}
	if err := d.keepHeads(nil, nil, make([]byte, maxHeads+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("heads past maxHeads: %v, want too large", err)
	}

	// A record whose slice's heads are "the last", with none before.
	type row struct{ A int64 }
	c, _ := newCodec(reflect.TypeFor[[]row]())
	p, _ := newPlan(c.schema(), c)
	var strs strtab
	e := encoder{strs: &strs}
	prev, cur := make([]row, 10), make([]row, 10)
	for i := range cur {
		prev[i].A = int64(i * 1000)
		cur[i].A = prev[i].A + int64(i%3)
	}
	e.value(c, unsafe.Pointer(&prev), unsafe.Pointer(&cur))
	first := len(e.buf)
	base := append([]row(nil), prev...)
	next := make([]row, 10)
	for i := range next {
		next[i].A = cur[i].A + int64((i+1)%3)
	}
	e.value(c, unsafe.Pointer(&cur), unsafe.Pointer(&next))
	second := e.buf[first:]
	got := append([]row(nil), cur...)
	var rstrs strtab
	fresh := decoder{buf: second, strs: &rstrs, grow: 1 << 20, carry: true}
	if err := fresh.value(p, unsafe.Pointer(&got)); !errors.Is(err, errCorrupt) {
		t.Errorf("the last heads, with none read: %v, want corrupt", err)
	}
	// Read in order, both decode.
	rd := decoder{buf: e.buf, strs: &rstrs, grow: 1 << 20, carry: true}
	got = base
	if err := rd.value(p, unsafe.Pointer(&got)); err != nil {
		t.Fatal(err)
	}
	if err := rd.value(p, unsafe.Pointer(&got)); err != nil || !reflect.DeepEqual(got, next) {
		t.Errorf("read in order: %v, %v, want %v", err, got, next)
	}
}
