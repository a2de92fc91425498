package record

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kgwatch/kgwatch/model"
)

// fill sets every field of v, at any depth, to a value of its own
// derived from seed: no two leaves equal, none zero. It knows Go's kinds,
// not the codec's, so a field the codec drops shows as a difference. A
// kind it does not know fails the test: teach it, and the codec.
func fill(t *testing.T, v reflect.Value, seed int, path string) {
	t.Helper()
	n := seed*1000 + len(path)*7 + int(hash(path)%997)
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(n%120 + 1))
		if v.Type().Bits() >= 32 {
			v.SetInt(int64(n) * 7919)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(n%200 + 1))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(n) + 0.25)
	case reflect.String:
		v.SetString(fmt.Sprintf("%s#%d", path, seed))
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), seed+i, fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, seed+i, fmt.Sprintf("%s{k%d}", path, i))
			fill(t, e, seed+i, fmt.Sprintf("%s{%d}", path, i))
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(1_700_000_000+int64(n), int64(n)*1001%1e9)))
			return
		}
		for i := range v.NumField() {
			fill(t, v.Field(i), seed, path+"."+v.Type().Field(i).Name)
		}
	default:
		t.Fatalf("%s: fill does not know kind %s: teach fill and the codec (codec.go)", path, v.Kind())
	}
}

func hash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// diff lists where a and b differ: times by instant, slices nil or not.
func diff(a, b reflect.Value, path string, out *[]string) {
	if a.Type() == reflect.TypeFor[time.Time]() {
		if ta, tb := a.Interface().(time.Time), b.Interface().(time.Time); !ta.Equal(tb) || ta.IsZero() != tb.IsZero() {
			*out = append(*out, fmt.Sprintf("%s: %v != %v", path, ta, tb))
		}
		return
	}
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			diff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name, out)
		}
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			*out = append(*out, fmt.Sprintf("%s: len %d (nil %v) != len %d (nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil()))
			return
		}
		it := a.MapRange()
		for it.Next() {
			vb := b.MapIndex(it.Key())
			if !vb.IsValid() {
				*out = append(*out, fmt.Sprintf("%s: key %v missing", path, it.Key()))
				continue
			}
			diff(it.Value(), vb, fmt.Sprintf("%s{%v}", path, it.Key()), out)
		}
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			*out = append(*out, fmt.Sprintf("%s: len %d (nil %v) != len %d (nil %v)", path, a.Len(), a.IsNil(), b.Len(), b.IsNil()))
			return
		}
		for i := range a.Len() {
			diff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			*out = append(*out, fmt.Sprintf("%s: %v != %v", path, a.Interface(), b.Interface()))
		}
	}
}

func sameValue[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	var out []string
	diff(reflect.ValueOf(got), reflect.ValueOf(want), what, &out)
	if len(out) > 0 {
		t.Errorf("%s not carried:\n  %s", what, strings.Join(out, "\n  "))
	}
}

func filled[T any](t *testing.T, seed int) T {
	var v T
	fill(t, reflect.ValueOf(&v).Elem(), seed, reflect.TypeFor[T]().Name())
	return v
}

var t0 = time.Date(2026, 3, 14, 3, 12, 40, 123456789, time.UTC)

func testHeader() Header {
	return Header{Kgwatch: "test", Started: t0, Mode: "tui", Group: "g", Brokers: []string{"a:9092"}, Interval: time.Second}
}

// TestEveryFieldCarried writes values with every field of Snapshot (its
// Group, Members, Partitions at any depth), Event, DemoStatus, DemoAction,
// DemoOutcome and GroupSummary set, changed, zeroed and set again, and
// reads them back: a field the recording does not carry fails here.
func TestEveryFieldCarried(t *testing.T) {
	snaps := []model.Snapshot{
		filled[model.Snapshot](t, 1),
		filled[model.Snapshot](t, 2), // every leaf changed
		{},                           // every leaf back to zero
		filled[model.Snapshot](t, 3),
		filled[model.Snapshot](t, 3), // nothing changed
	}
	// Slices that grow and shrink, and empty against nil.
	grow := filled[model.Snapshot](t, 4)
	grow.Partitions = append(grow.Partitions, filled[model.PartitionLag](t, 5), filled[model.PartitionLag](t, 6))
	grow.Members = grow.Members[:1]
	grow.Brokers = []string{}
	snaps = append(snaps, grow)
	events := []model.Event{filled[model.Event](t, 1), {}, filled[model.Event](t, 2)}
	demos := []model.DemoStatus{filled[model.DemoStatus](t, 1), filled[model.DemoStatus](t, 2), {}}
	action, outcome := filled[model.DemoAction](t, 1), filled[model.DemoOutcome](t, 1)
	overviews := [][]model.GroupSummary{
		{filled[model.GroupSummary](t, 1), filled[model.GroupSummary](t, 2)},
		{filled[model.GroupSummary](t, 3)},
		nil,
	}

	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	at := t0
	tick := func() time.Time { at = at.Add(time.Second + 7*time.Millisecond); return at }
	var want []Record
	for i, s := range snaps {
		a := tick()
		if err := w.Snapshot(a, "g", s); err != nil {
			t.Fatal(err)
		}
		want = append(want, Record{Kind: KindSnapshot, At: a, Group: "g", Snapshot: s})
		if i < len(events) {
			a := tick()
			w.Event(a, "g", events[i])
			want = append(want, Record{Kind: KindEvent, At: a, Group: "g", Event: events[i]})
		}
		if i < len(demos) {
			a := tick()
			w.DemoStatus(a, demos[i])
			want = append(want, Record{Kind: KindDemoStatus, At: a, Demo: demos[i]})
		}
		if i < len(overviews) {
			a := tick()
			w.Overview(a, overviews[i])
			want = append(want, Record{Kind: KindOverview, At: a, Groups: overviews[i]})
		}
	}
	a := tick()
	w.DemoAction(a, action, outcome, "it failed")
	want = append(want, Record{Kind: KindDemoAction, At: a, Action: action, Outcome: outcome, Err: "it failed"})
	a = tick()
	w.Failed(a, "other", "poll failed: connection refused")
	want = append(want, Record{Kind: KindFailed, At: a, Group: "other", Err: "poll failed: connection refused"})
	a = tick()
	w.Snapshot(a, "other", snaps[0])
	want = append(want, Record{Kind: KindSnapshot, At: a, Group: "other", Snapshot: snaps[0]})
	a = tick()
	w.OverviewFailed(a, "no broker")
	want = append(want, Record{Kind: KindOverviewFailed, At: a, Err: "no broker"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.Group != "g" || h.Format != Version || !h.Started.Equal(t0) || h.Interval != time.Second {
		t.Errorf("header %+v", h)
	}
	for i, w := range want {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		sameValue(t, fmt.Sprintf("record %d (%c)", i, w.Kind), got, w)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("after the last record: %v, want io.EOF", err)
	}
}

// TestReplayedSnapshotIsOwnCopy: the pipeline annotates what it is given
// in place; that must not leak into the next snapshot's difference, on
// either side.
func TestReplayedSnapshotIsOwnCopy(t *testing.T) {
	s := model.Snapshot{TakenAt: t0, Partitions: []model.PartitionLag{{TopicPartition: model.TopicPartition{Topic: "t"}, LogEnd: 5}}}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testHeader())
	w.Snapshot(t0, "g", s)
	s.Partitions[0].Status = model.StatusStalled // annotated after recording
	s2 := model.Snapshot{TakenAt: t0.Add(time.Second), Partitions: []model.PartitionLag{{TopicPartition: model.TopicPartition{Topic: "t"}, LogEnd: 6}}}
	w.Snapshot(t0.Add(time.Second), "g", s2)
	w.Close()

	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.Next()
	a.Snapshot.Partitions[0].Status = model.StatusLagging // annotated by the replay
	b, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if p := b.Snapshot.Partitions[0]; p.Status != "" || p.LogEnd != 6 {
		t.Errorf("second snapshot's row %+v, want LogEnd 6 and no status", p)
	}
}

func TestRefusesWhatIsNotARecording(t *testing.T) {
	var good bytes.Buffer
	w, _ := NewWriter(&good, testHeader())
	w.Close()
	gzipOnly := good.Bytes()[len(magic)+2:]
	for name, in := range map[string][]byte{
		"empty":          nil,
		"text":           []byte("hello, world\n"),
		"binary":         {0x1f, 0x8b, 0, 1, 2, 3},
		"gzip, no magic": gzipOnly,
		"magic only":     []byte(magic + "1\n"),
		"magic, junk":    []byte(magic + "1\nnot gzip at all"),
		"bad format":     []byte(magic + "x\n"),
		"format 0":       []byte(magic + "0\n"),
		"long line":      bytes.Repeat([]byte("k"), 100000),
	} {
		if _, err := NewReader(bytes.NewReader(in)); !errors.Is(err, ErrNotRecording) {
			t.Errorf("%s: %v, want ErrNotRecording", name, err)
		}
	}
	_, err := NewReader(strings.NewReader(magic + "3\n" + "whatever follows"))
	var nf *NewerFormatError
	if !errors.As(err, &nf) || nf.Format != 3 || err.Error() != "recorded by a newer kgwatch (format 3)" {
		t.Errorf("format 3: %v", err)
	}
}

// TestTruncated cuts a recording at every byte: the reader returns the
// records before the cut and then a *DamagedError (cut short) or
// ErrUnfinished (cut between records), never a wrong record, never a
// panic.
func TestTruncated(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testHeader())
	var want []model.Snapshot
	for i := range 5 {
		s := model.Snapshot{TakenAt: t0.Add(time.Duration(i) * time.Second), TotalLag: int64(i * 10),
			Members:    []model.Member{{MemberID: "m" + fmt.Sprint(i%2), ClientID: "c"}},
			Partitions: []model.PartitionLag{{TopicPartition: model.TopicPartition{Topic: "t", Partition: 0}, LogEnd: int64(100 + i)}}}
		w.Snapshot(s.TakenAt, "g", s)
		want = append(want, s)
	}
	w.Close()
	full := buf.Bytes()
	sawDamaged, sawUnfinished := false, false
	for cut := len(magic) + 2; cut < len(full); cut++ {
		r, err := NewReader(bytes.NewReader(full[:cut]))
		if err != nil {
			if !errors.Is(err, ErrNotRecording) {
				t.Fatalf("cut at %d: %v", cut, err)
			}
			continue
		}
		n := 0
		for {
			rec, err := r.Next()
			if err != nil {
				var d *DamagedError
				switch {
				case errors.As(err, &d):
					sawDamaged = true
					if !d.Truncated {
						t.Errorf("cut at %d: damaged but not truncated: %v", cut, err)
					}
				case err == ErrUnfinished:
					sawUnfinished = true
				case err == io.EOF && n == len(want):
					// Cut inside gzip's trailer, after the end mark.
				default:
					t.Errorf("cut at %d: %v", cut, err)
				}
				break
			}
			sameValue(t, fmt.Sprintf("cut at %d, record %d", cut, n), rec.Snapshot, want[n])
			n++
		}
	}
	if !sawDamaged || !sawUnfinished {
		t.Errorf("cuts gave damaged %v, unfinished %v: want both", sawDamaged, sawUnfinished)
	}
}

// failWriter fails after n bytes, as a full disk does.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errors.New("no space left on device")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriteErrorSticks(t *testing.T) {
	w, err := NewWriter(&failWriter{n: 64 << 10}, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	s := model.Snapshot{TakenAt: t0, Partitions: make([]model.PartitionLag, 20000)}
	for i := range s.Partitions {
		s.Partitions[i].Err = fmt.Sprintf("error %d with a long text that does not compress away %x", i, hash(fmt.Sprint(i)))
	}
	var first error
	for i := 0; i < 50 && first == nil; i++ {
		s.TakenAt = s.TakenAt.Add(time.Second)
		first = w.Snapshot(s.TakenAt, "g", s)
	}
	if first == nil || !strings.Contains(first.Error(), "no space left") {
		t.Fatalf("no write error: %v", first)
	}
	if err := w.Event(t0, "g", model.Event{}); err != first {
		t.Errorf("after an error: %v, want %v", err, first)
	}
}

func TestHeaderOfNoWriterFails(t *testing.T) {
	if _, err := NewWriter(&failWriter{n: 3}, testHeader()); err == nil {
		t.Error("NewWriter on a writer that fails: no error")
	}
}

// TestOlderAndNewerSchemas reads values written by a build whose struct
// has a field this one lacks, and lacks one this one has: the unknown
// leaf (and the slice of an unknown element) is read and dropped, the
// missing one stays zero, the others arrive.
func TestOlderAndNewerSchemas(t *testing.T) {
	type elemA struct {
		P int32
		Q string
	}
	type writtenBy struct {
		Kept    string
		Gone    int64
		Rows    []elemA
		Extras  []elemA
		At      time.Time
		Counts  map[string]elemA
		Dropped map[int32]string
	}
	type elemB struct{ Q string }
	type readBy struct {
		Kept   string
		Added  bool
		Rows   []elemB
		At     time.Time
		Counts map[string]elemB
	}
	ca, err := newCodec(reflect.TypeFor[writtenBy]())
	if err != nil {
		t.Fatal(err)
	}
	cb, err := newCodec(reflect.TypeFor[readBy]())
	if err != nil {
		t.Fatal(err)
	}
	var strs strtab
	e := encoder{strs: &strs}
	v1 := writtenBy{Kept: "k", Gone: 7, Rows: []elemA{{1, "a"}, {2, "b"}}, Extras: []elemA{{3, "x"}}, At: t0,
		Counts: map[string]elemA{"g1": {1, "one"}}, Dropped: map[int32]string{3: "three", 1: "one"}}
	v2 := writtenBy{Kept: "k2", Gone: 9, Rows: []elemA{{1, "a"}, {2, "c"}, {4, "d"}}, Extras: []elemA{{5, "y"}}, At: t0.Add(time.Second),
		Counts: map[string]elemA{"g1": {1, "one"}, "g2": {2, "two"}}, Dropped: map[int32]string{2: "two"}}
	e.value(ca, ca.zero, unsafe.Pointer(&v1))
	e.value(ca, unsafe.Pointer(&v1), unsafe.Pointer(&v2))

	p, err := newPlan(ca.schema(), cb)
	if err != nil {
		t.Fatal(err)
	}
	var rstrs strtab
	d := decoder{buf: e.buf, strs: &rstrs}
	var got readBy
	if err := d.value(p, unsafe.Pointer(&got)); err != nil {
		t.Fatal(err)
	}
	sameValue(t, "first", got, readBy{Kept: "k", Rows: []elemB{{"a"}, {"b"}}, At: t0, Counts: map[string]elemB{"g1": {"one"}}})
	if err := d.value(p, unsafe.Pointer(&got)); err != nil {
		t.Fatal(err)
	}
	sameValue(t, "second", got, readBy{Kept: "k2", Rows: []elemB{{"a"}, {"c"}, {"d"}}, At: t0.Add(time.Second),
		Counts: map[string]elemB{"g1": {"one"}, "g2": {"two"}}})
	if len(d.buf) != 0 {
		t.Errorf("%d bytes not read", len(d.buf))
	}
}

// FuzzReader reads mutated recordings: never a panic, never a record
// after the reader said the end.
func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testHeader())
	s := filled[model.Snapshot](&testing.T{}, 1)
	w.Snapshot(t0, "g", s)
	s.Partitions[1].LogEnd += 5
	s.Members = s.Members[:1]
	w.Snapshot(t0.Add(time.Second), "g", s)
	w.Event(t0.Add(time.Second), "g", model.Event{Type: model.EventDemoKilled, ClientID: "c"})
	w.Failed(t0.Add(2*time.Second), "h", "boom")
	w.DemoStatus(t0, filled[model.DemoStatus](&testing.T{}, 1))
	w.Overview(t0, []model.GroupSummary{filled[model.GroupSummary](&testing.T{}, 1)})
	w.Close()
	f.Add(buf.Bytes())
	f.Add([]byte(magic + "1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		for range 1000 {
			if _, err := r.Next(); err != nil {
				if _, err2 := r.Next(); err2 != err {
					t.Fatalf("after %v: %v", err, err2)
				}
				return
			}
		}
	})
}

// FuzzRecords is FuzzReader past the compression: it mutates the records
// themselves, so the fuzzer reaches the decoder rather than gzip's checks.
func FuzzRecords(f *testing.F) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testHeader())
	s := filled[model.Snapshot](&testing.T{}, 1)
	w.Snapshot(t0, "g", s)
	s.Partitions[1].LogEnd += 5
	s.Partitions = append(s.Partitions, filled[model.PartitionLag](&testing.T{}, 9))
	w.Snapshot(t0.Add(time.Second), "g", s)
	w.Event(t0.Add(time.Second), "g", filled[model.Event](&testing.T{}, 1))
	w.Failed(t0.Add(2*time.Second), "h", "boom")
	w.DemoStatus(t0, filled[model.DemoStatus](&testing.T{}, 1))
	w.DemoAction(t0, model.DemoAction{Kind: model.DemoKill, ClientID: "c"}, model.DemoOutcome{}, "")
	w.Overview(t0, []model.GroupSummary{filled[model.GroupSummary](&testing.T{}, 1)})
	w.Close()
	z, err := gzip.NewReader(bytes.NewReader(buf.Bytes()[len(magic)+2:]))
	if err != nil {
		f.Fatal(err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in bytes.Buffer
		in.WriteString(magic + "1\n")
		zw := gzip.NewWriter(&in)
		zw.Write(raw)
		zw.Close()
		r, err := NewReader(&in)
		if err != nil {
			return
		}
		for range 1000 {
			if _, err := r.Next(); err != nil {
				return
			}
		}
	})
}
