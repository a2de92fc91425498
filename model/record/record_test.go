package record

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
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
	// Shrunk, then grown again in place: the elements it regains are
	// zero but for what the record lists, not what they held before.
	shrunk := filled[model.Snapshot](t, 7)
	shrunk.Partitions = shrunk.Partitions[:1]
	regrown := shrunk
	regrown.Partitions = []model.PartitionLag{shrunk.Partitions[0], {TopicPartition: model.TopicPartition{Topic: "x"}}, {LogEnd: 3}}
	regrown.Members = nil
	snaps = append(snaps, filled[model.Snapshot](t, 7), shrunk, regrown)
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
	w.PollFailed(a.Add(-2345678912*time.Nanosecond), a, "other", "poll failed: connection refused")
	want = append(want, Record{Kind: KindFailed, At: a, Started: a.Add(-2345678912 * time.Nanosecond), Group: "other", Err: "poll failed: connection refused"})
	a = tick()
	w.Failed(a, "other", "poll failed: i/o timeout")
	want = append(want, Record{Kind: KindFailed, At: a, Started: a, Group: "other", Err: "poll failed: i/o timeout"})
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
	_, err := NewReader(strings.NewReader(magic + "6\n" + "whatever follows"))
	var nf *NewerFormatError
	if !errors.As(err, &nf) || nf.Format != 6 || err.Error() != "recorded by a newer kgwatch (format 6)" {
		t.Errorf("format 6: %v", err)
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
	d := decoder{buf: e.buf, strs: &rstrs, grow: budget(len(e.buf)), carry: true}
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
	// Polls of 40 partitions: slices by columns, some range-coded.
	rng := rand.New(rand.NewPCG(5, 6))
	o := group(40)
	f.Add(rawRecords(&testing.T{}, testHeader(), func(w *Writer) {
		for range 3 {
			s := poll(&o, rng, true)
			w.Snapshot(s.CompletedAt, "g", s)
		}
		w.Close()
	}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var in bytes.Buffer
		in.WriteString(magic + strconv.Itoa(Version) + "\n")
		zw := gzip.NewWriter(&in)
		zw.Write(raw)
		zw.Close()
		data := in.Bytes()
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		recs, end := readAll(r)
		// Scan finds what Next finds.
		sum, err := Scan(bytes.NewReader(data))
		wantEnd := end
		if end == io.EOF {
			wantEnd = nil
		}
		if err != nil || sum.Records != len(recs) || fmt.Sprint(sum.End) != fmt.Sprint(wantEnd) {
			t.Fatalf("Next read %d records, then %v; Scan %d, then %v (%v)", len(recs), end, sum.Records, sum.End, err)
		}
	})
}

// rawRecords is what build writes, past the first line and the
// compression: the records themselves.
func rawRecords(t *testing.T, h Header, build func(w *Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	build(w)
	w.Flush()
	z, err := gzip.NewReader(bytes.NewReader(buf.Bytes()[len(magic)+2:]))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(z)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal(err)
	}
	return raw
}

// recordingOf makes records a recording (no end mark unless they have
// one).
func recordingOf(raw []byte) []byte {
	var in bytes.Buffer
	in.WriteString(magic + strconv.Itoa(Version) + "\n")
	zw := gzip.NewWriter(&in)
	zw.Write(raw)
	zw.Close()
	return in.Bytes()
}

func appendFrame(raw []byte, k Kind, body []byte) []byte {
	raw = append(raw, byte(k))
	raw = binary.AppendUvarint(raw, uint64(len(body)))
	return append(raw, body...)
}

// frames splits records into their kinds and bodies.
func frames(t *testing.T, raw []byte) (kinds []Kind, bodies [][]byte) {
	t.Helper()
	for len(raw) > 0 {
		n, w := binary.Uvarint(raw[1:])
		if w <= 0 || uint64(len(raw)-1-w) < n {
			t.Fatalf("not records: % x", raw)
		}
		kinds = append(kinds, Kind(raw[0]))
		bodies = append(bodies, raw[1+w:1+w+int(n)])
		raw = raw[1+w+int(n):]
	}
	return kinds, bodies
}

func joinFrames(kinds []Kind, bodies [][]byte) []byte {
	var raw []byte
	for i, k := range kinds {
		raw = appendFrame(raw, k, bodies[i])
	}
	return raw
}

// leafNamed is the index of c's leaf name.
func leafNamed(t *testing.T, c *codec, name string) int {
	t.Helper()
	for i, l := range c.leaves {
		if l.name == name {
			return i
		}
	}
	t.Fatalf("no leaf %s", name)
	return -1
}

// appendMask appends the mask of a value of c with the leaves at bits set.
func appendMask(b []byte, c *codec, bits ...int) []byte {
	words := make([]uint64, (len(c.leaves)+63)/64)
	for _, i := range bits {
		words[i/64] |= 1 << (i % 64)
	}
	for _, w := range words {
		b = binary.AppendUvarint(b, w)
	}
	return b
}

// readAll reads r to its end: the records and how it ends.
func readAll(r *Reader) (recs []Record, end error) {
	for {
		rec, err := r.Next()
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

// TestASmallRecordCannotAskForMuch: a record of ~10 KB (1.6 KB
// compressed) whose 2,000 members each grow their partitions by 4,096
// elements nobody wrote asked for ~200 MB (and as much again for the
// copy); it is damage, found before the memory is taken.
func TestASmallRecordCannotAskForMuch(t *testing.T) {
	raw := rawRecords(t, testHeader(), func(w *Writer) { w.Snapshot(t0, "g", model.Snapshot{TakenAt: t0}) })
	c, _ := bodyCodecs()
	mi := leafNamed(t, c.snapshot, "Members")
	mc := c.snapshot.leaves[mi].elem
	pi := leafNamed(t, mc, "Partitions")
	const members, zeros = 2000, 4096
	body := binary.AppendVarint(nil, int64(time.Second))
	body = binary.AppendUvarint(body, 0) // the group
	body = appendMask(body, c.snapshot, mi)
	body = binary.AppendUvarint(body, members+1)
	// The members' column of partitions: every member's differs, each
	// grown by zeros, no column of them set.
	body = appendMask(body, mc, pi)
	body = binary.AppendUvarint(body, 0) // no number column
	for range members / 8 {
		body = append(body, 0xff)
	}
	for range members {
		body = binary.AppendUvarint(body, zeros+1)
		body = appendMask(body, mc.leaves[pi].elem)
		body = binary.AppendUvarint(body, 0)
	}
	data := recordingOf(appendFrame(raw, KindSnapshot, body))
	t.Logf("a record of %d bytes, a file of %d", len(body), len(data))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	recs, end := readAll(r)
	runtime.ReadMemStats(&after)
	var d *DamagedError
	if len(recs) != 1 || !errors.As(end, &d) || !errors.Is(end, ErrTooLarge) || !d.After.Equal(t0) {
		t.Fatalf("%d records, then %v: want 1, then too large after %s", len(recs), end, t0)
	}
	if took := after.TotalAlloc - before.TotalAlloc; took > 16<<20 {
		t.Errorf("reading it took %d MB", took>>20)
	}
	if sum, err := Scan(bytes.NewReader(data)); err != nil || !errors.Is(sum.End, ErrTooLarge) || sum.Records != 1 {
		t.Errorf("Scan: %d records, %v, %v", sum.Records, sum.End, err)
	}

	// A record longer than any kgwatch writes is refused from its
	// length, before its bytes are read.
	huge := appendFrame(raw[:len(raw):len(raw)], KindSnapshot, nil)
	huge = append(huge[:len(huge)-1], binary.AppendUvarint(nil, maxRecord+1)...)
	r, _ = NewReader(bytes.NewReader(recordingOf(append(huge, 1, 2, 3))))
	if _, end := readAll(r); !errors.Is(end, ErrTooLarge) {
		t.Errorf("a record of %d bytes: %v, want too large", maxRecord+1, end)
	}
}

// TestWhatTheReaderHoldsIsBounded: a snapshot past maxHeld, and groups
// whose snapshots together hold more than twice it, are damage; a
// snapshot of 10,000 partitions is far from it.
func TestWhatTheReaderHoldsIsBounded(t *testing.T) {
	big := model.NewSnapshot(group(10000))
	small := model.NewSnapshot(group(2000))
	raw := rawRecords(t, testHeader(), func(w *Writer) {
		w.Snapshot(t0, "g", big)
		for i, g := range []string{"a", "b", "c"} {
			w.Snapshot(t0.Add(time.Duration(i+1)*time.Second), g, small)
		}
	})
	data := recordingOf(raw)
	r, _ := NewReader(bytes.NewReader(data))
	if recs, end := readAll(r); len(recs) != 4 || end != ErrUnfinished {
		t.Fatalf("with the real limits: %d records, %v", len(recs), end)
	}
	c, _ := bodyCodecs()
	bigHeld, smallHeld := c.snapshot.held(unsafe.Pointer(&big)), c.snapshot.held(unsafe.Pointer(&small))
	t.Logf("10,000 partitions hold %d KiB, 2,000 %d KiB; the limit is %d MiB", bigHeld>>10, smallHeld>>10, maxHeld>>20)

	defer func(m uint64) { maxHeld = m }(maxHeld)
	// Room for a small snapshot, not for one of 3,000 partitions grown
	// from it (by less than a record may add); room for two small ones
	// of different groups (twice the limit), not three.
	maxHeld = 1 << 20
	raw = rawRecords(t, testHeader(), func(w *Writer) {
		w.Snapshot(t0, "g", small)
		w.Snapshot(t0.Add(time.Second), "g", model.NewSnapshot(group(3000)))
	})
	r, _ = NewReader(bytes.NewReader(recordingOf(raw)))
	recs, end := readAll(r)
	if len(recs) != 1 || !errors.Is(end, ErrTooLarge) || !regexp.MustCompile(`\(a poll: it holds 1\.[1-9] MiB, at most 1\.0\)`).MatchString(end.Error()) {
		t.Errorf("a snapshot past the limit: %d records, %v", len(recs), end)
	}
	raw = rawRecords(t, testHeader(), func(w *Writer) {
		for i, g := range []string{"g", "a", "b"} {
			w.Snapshot(t0.Add(time.Duration(i)*time.Second), g, small)
		}
	})
	r, _ = NewReader(bytes.NewReader(recordingOf(raw)))
	recs, end = readAll(r)
	if len(recs) != 2 || !errors.Is(end, ErrTooLarge) || !regexp.MustCompile(`the groups' snapshots hold 2\.[1-9] MiB, at most 2\.0`).MatchString(end.Error()) {
		t.Errorf("groups past the limit together: %d records, %v", len(recs), end)
	}

	// Groups declared by the thousand: each costs the reader a little.
	var decl []byte
	for i := range maxStreams + 1 {
		b := binary.AppendVarint(nil, 0)
		b = binary.AppendUvarint(b, uint64(i+1))
		b = binary.AppendUvarint(b, 1)
		decl = appendFrame(decl, kindStream, append(b, 'x'))
	}
	r, _ = NewReader(bytes.NewReader(recordingOf(append(rawRecords(t, testHeader(), func(*Writer) {}), decl...))))
	if _, end := readAll(r); !errors.Is(end, ErrTooLarge) {
		t.Errorf("%d groups: %v", maxStreams+1, end)
	}
}

// TestDamageInABody: a record whose frame is whole but whose body does
// not decode (a byte too many, an unknown kind, a time past any
// recording's) ends the recording where it is, for Next and for Scan
// alike, after the records before it.
func TestDamageInABody(t *testing.T) {
	s := model.Snapshot{TakenAt: t0, Partitions: []model.PartitionLag{{TopicPartition: model.TopicPartition{Topic: "t"}, LogEnd: 5}}}
	raw := rawRecords(t, testHeader(), func(w *Writer) {
		for i := range 3 {
			s.Partitions[0].LogEnd++
			w.Snapshot(t0.Add(time.Duration(i)*time.Second), "g", s)
		}
		w.Close()
	})
	kinds, bodies := frames(t, raw)
	if string(kindsOf(kinds)) != "HSSSZ" {
		t.Fatalf("records %s", kindsOf(kinds))
	}
	for _, c := range []struct {
		name string
		edit func(kinds []Kind, bodies [][]byte)
		want string
	}{
		{"a byte too many", func(_ []Kind, b [][]byte) { b[2] = append(b[2], 0) }, "a record is corrupt (a poll: 1 bytes left over)"},
		{"an unknown kind", func(k []Kind, _ [][]byte) { k[2] = 'Q' }, "a record is corrupt (a record of unknown kind 'Q': not a kind of format 5)"},
		{"dated 146 years on", func(_ []Kind, b [][]byte) {
			b[2] = append(binary.AppendVarint(nil, 1<<62), b[2][1:]...) // its time was 1s, one byte
		}, "a record is corrupt (a poll: dated 2172-"},
		{"a time that overflows", func(_ []Kind, b [][]byte) {
			b[2] = append(binary.AppendVarint(nil, math.MaxInt64), b[2][1:]...)
		}, "a record is corrupt (a poll: its time overflows)"},
	} {
		k, b := slicesClone(kinds), slicesCloneBodies(bodies)
		c.edit(k, b)
		data := recordingOf(joinFrames(k, b))
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		recs, end := readAll(r)
		var d *DamagedError
		if len(recs) != 1 || !errors.As(end, &d) || d.Truncated || !d.After.Equal(t0) || !strings.HasPrefix(end.Error(), c.want) {
			t.Errorf("%s: %d records, then %v (%+v): want 1, then %q after %s", c.name, len(recs), end, d, c.want, t0)
		}
		sum, err := Scan(bytes.NewReader(data))
		if err != nil || sum.Records != 1 || !sum.Last.Equal(t0) || sum.End == nil || sum.End.Error() != end.Error() {
			t.Errorf("%s: Scan found %d records to %s, %v (%v): want what Next found", c.name, sum.Records, sum.Last, sum.End, err)
		}
	}
}

func kindsOf(ks []Kind) []byte {
	out := make([]byte, len(ks))
	for i, k := range ks {
		out[i] = byte(k)
	}
	return out
}

func slicesClone(ks []Kind) []Kind { return append([]Kind(nil), ks...) }

func slicesCloneBodies(bs [][]byte) [][]byte {
	out := make([][]byte, len(bs))
	for i, b := range bs {
		out[i] = append([]byte(nil), b...)
	}
	return out
}

// TestChecksumChecked: a recording read to its end mark is read to its
// stream's end, where gzip checks its checksum: a byte changed on the way
// (which may decode as another number) is damage.
func TestChecksumChecked(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testHeader())
	w.Snapshot(t0, "g", model.Snapshot{TakenAt: t0})
	w.Close()
	data := buf.Bytes()
	data[len(data)-8] ^= 1 // gzip's trailer: the CRC-32, then the length
	r, _ := NewReader(bytes.NewReader(data))
	recs, end := readAll(r)
	if len(recs) != 1 || !errors.Is(end, ErrChecksum) {
		t.Errorf("%d records, then %v: want 1, then %v", len(recs), end, ErrChecksum)
	}
	// What follows the stream is not the recording's.
	buf.Reset()
	w, _ = NewWriter(&buf, testHeader())
	w.Close()
	r, _ = NewReader(bytes.NewReader(append(buf.Bytes(), "trailing"...)))
	if _, end := readAll(r); end != io.EOF {
		t.Errorf("bytes after the stream: %v, want io.EOF", end)
	}
}

// TestHeaderChecked: a header holding what no kgwatch writes is refused
// (a *HeaderError naming the field), as are headers that cannot be read;
// zero is each setting's default.
func TestHeaderChecked(t *testing.T) {
	ok := testHeader()
	ok.Interval, ok.Timeout, ok.StallAfter, ok.TimelineSize = 0, 0, 0, 0
	for _, h := range []Header{ok, testHeader(), {Started: t0, Overview: true, Interval: MaxInterval, Timeout: MinTimeout, StallAfter: MaxStallAfter, TimelineSize: MaxTimelineSize}} {
		var buf bytes.Buffer
		writeHeader(t, &buf, h)
		if _, err := NewReader(&buf); err != nil {
			t.Errorf("%+v: %v", h, err)
		}
	}
	for _, c := range []struct {
		edit func(h *Header)
		want string
	}{
		{func(h *Header) { h.Interval = -5 }, "its header says interval_ns -5 (-5ns) (want 0 or from 100ms to 1h)"},
		{func(h *Header) { h.Interval = MinInterval - 1 }, "interval_ns 99999999"},
		{func(h *Header) { h.Interval = MaxInterval + 1 }, "interval_ns 3600000000001"},
		{func(h *Header) { h.Timeout = 1 << 62 }, "timeout_ns"},
		{func(h *Header) { h.StallAfter = -1 }, "stall_after_ns -1"},
		{func(h *Header) { h.StallAfter = 1 }, "stall_after_ns 1 (1ns) (want 0 or from 1s to 168h)"},
		{func(h *Header) { h.TimelineSize = 100_000_000 }, "timeline_size 100000000 (want 0 or from 1 to 100000)"},
		{func(h *Header) { h.TimelineSize = -1 }, "timeline_size -1"},
		{func(h *Header) { h.Started = time.Time{} }, "started 0001-01-01T00:00:00Z"},
		{func(h *Header) { h.Started = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC) }, "started 9999-12-31"},
		{func(h *Header) { h.Group = "" }, `group ""`},
		{func(h *Header) { h.Overview = true }, `group "g" (want none in a recording of the overview)`},
	} {
		h := testHeader()
		c.edit(&h)
		if _, err := NewWriter(io.Discard, h); err == nil {
			t.Errorf("NewWriter wrote a header that says %s", c.want)
		}
		var buf bytes.Buffer
		writeHeader(t, &buf, h)
		_, err := NewReader(&buf)
		var he *HeaderError
		if !errors.As(err, &he) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want a header error saying %q", err, c.want)
		}
	}
	var buf bytes.Buffer
	buf.WriteString(magic + strconv.Itoa(Version) + "\n")
	zw := gzip.NewWriter(&buf)
	zw.Write(appendFrame(nil, kindHeader, []byte(`{"format":1,"started":"x"}`)))
	zw.Close()
	if _, err := NewReader(&buf); err == nil || !strings.HasPrefix(err.Error(), "its header cannot be read (") {
		t.Errorf("a header that is not one: %v", err)
	}
}

// writeHeader writes a recording of h alone, as a writer that does not
// check it would.
func writeHeader(t *testing.T, w io.Writer, h Header) {
	t.Helper()
	c, _ := bodyCodecs()
	h.Format = Version
	fh := fileHeader{Header: h, Schemas: map[string][]fieldSchema{}}
	for name, cd := range c.byName() {
		fh.Schemas[name] = cd.schema()
	}
	js, err := json.Marshal(fh)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, magic+strconv.Itoa(Version)+"\n")
	zw := gzip.NewWriter(w)
	zw.Write(appendFrame(appendFrame(nil, kindHeader, js), kindEnd, nil))
	zw.Close()
}

// TestDurationsCarried: a duration is written as milliseconds and a
// remainder; every value, whole milliseconds or not, negative, at the
// limits of int64, reads back as written, and an age that moved 400ms
// costs 2 bytes.
func TestDurationsCarried(t *testing.T) {
	type v struct{ D time.Duration }
	c, err := newCodec(reflect.TypeFor[v]())
	if err != nil {
		t.Fatal(err)
	}
	seq := []time.Duration{0, 1, 999_999, time.Millisecond, -time.Millisecond - 1, 400 * time.Millisecond,
		math.MaxInt64, math.MinInt64, time.Hour + 7, -999_999, 0, 2 * time.Millisecond}
	var strs, rstrs strtab
	e := encoder{strs: &strs}
	prev := v{}
	for _, d := range seq {
		cur := v{d}
		e.value(c, unsafe.Pointer(&prev), unsafe.Pointer(&cur))
		prev = cur
	}
	p, err := newPlan(c.schema(), c)
	if err != nil {
		t.Fatal(err)
	}
	dec := decoder{buf: e.buf, strs: &rstrs, grow: budget(len(e.buf)), carry: true}
	var got v
	for i, want := range seq {
		if err := dec.value(p, unsafe.Pointer(&got)); err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		if got.D != want {
			t.Errorf("value %d: %d, want %d", i, got.D, want)
		}
	}
	e = encoder{strs: &strs}
	a, b := v{time.Second}, v{time.Second + 400*time.Millisecond}
	e.value(c, unsafe.Pointer(&a), unsafe.Pointer(&b))
	if n := len(e.buf); n != 1+2 { // the mask, then the difference
		t.Errorf("an age moved 400ms: %d bytes (% x), want 3", n, e.buf)
	}
	// A remainder that cannot be one is damage, not a value.
	bad := decoder{buf: binary.AppendVarint([]byte{1, 2}, 1e6), strs: &rstrs, grow: 1 << 20}
	if err := bad.value(p, unsafe.Pointer(&got)); !errors.Is(err, errCorrupt) {
		t.Errorf("a remainder of 1,000,000ns: %v, want corrupt", err)
	}
}

// TestReadsFormat1: a recording written by kgwatch's format 1 (ages as
// nanosecond integers; testdata/format1.kgw, written by the build before
// format 2) plays with its ages to the nanosecond.
func TestReadsFormat1(t *testing.T) {
	f, err := os.Open("testdata/format1.kgw")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header().Format != 1 {
		t.Fatalf("format %d, want the fixture's 1", r.Header().Format)
	}
	var ages []time.Duration
	var lags []int64
	for {
		rec, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		if rec.Kind != KindSnapshot {
			continue
		}
		for _, p := range rec.Snapshot.Partitions {
			ages, lags = append(ages, p.LagAge), append(lags, p.Lag)
		}
	}
	wantAges := []time.Duration{0, 273913578, 423913578, 0, 1273913578, 1423913578, 0, 2273913578, 2423913578}
	wantLags := []int64{0, 1, 2, 5, 6, 7, 15, 16, 17}
	if !slices.Equal(ages, wantAges) || !slices.Equal(lags, wantLags) {
		t.Errorf("ages %v lags %v, want %v %v", ages, lags, wantAges, wantLags)
	}
}

// pipeTap writes what a pipeline is fed to a recording, as --record's tap
// does.
type pipeTap struct {
	w     *Writer
	group string
}

func (p pipeTap) Observed(s model.Snapshot) { p.w.Snapshot(s.TakenAt, p.group, s) }
func (p pipeTap) Failed(started, at time.Time, err error) {
	p.w.PollFailed(started, at, p.group, err.Error())
}
func (p pipeTap) Added(e model.Event) { p.w.Event(e.Time, p.group, e) }

// TestReplayedOutageBoundedAsLive: an outage of polls that each hung
// before failing, recorded and fed again, gives connection_restored with
// the live bounds (the least counts from the first failed poll's start,
// which the recording keeps).
func TestReplayedOutageBoundedAsLive(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	live := model.NewPipeline(model.PipelineOptions{Group: "g", Tap: pipeTap{w, "g"}})
	snap := func(at time.Time) *model.Snapshot {
		s := model.NewSnapshot(model.Observation{TakenAt: at, Group: model.Group{ID: "g", State: model.StateStable}})
		return &s
	}
	var liveEvents []model.Event
	liveEvents = append(liveEvents, live.Observe(snap(t0))...)
	for i := range 4 {
		started := t0.Add(time.Duration(1+3*i) * time.Second)
		liveEvents = append(liveEvents, live.PollFailed(started, started.Add(2*time.Second), errors.New("i/o timeout"))...)
	}
	liveEvents = append(liveEvents, live.Observe(snap(t0.Add(14*time.Second)))...)
	w.Close()

	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	replay := model.NewPipeline(model.PipelineOptions{Group: "g"})
	var replayed []model.Event
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		replayed = append(replayed, Feed(replay, &rec)...)
	}
	restored := func(evs []model.Event) *model.Event {
		for i := range evs {
			if evs[i].Type == model.EventConnectionRestored {
				return &evs[i]
			}
		}
		return nil
	}
	l, p := restored(liveEvents), restored(replayed)
	if l == nil || p == nil {
		t.Fatalf("connection_restored live %v, replayed %v", l, p)
	}
	if !l.HasMinDuration || l.MinDuration != 11*time.Second {
		t.Errorf("live: least %s (%v), want 11s: from the first failed poll's start (1s) to the last failure (12s)", l.MinDuration, l.HasMinDuration)
	}
	if p.MinDuration != l.MinDuration || p.Duration != l.Duration || p.Detail != l.Detail {
		t.Errorf("replayed %s–%s %q, live %s–%s %q", p.MinDuration, p.Duration, p.Detail, l.MinDuration, l.Duration, l.Detail)
	}
}

// TestALongRecordHoldsAtMostItsLength: a record of maxRecord bytes of
// zeros (a crafted file of ~35 KB) is read allocating about twice its
// length in all (up to 2.5 times under -race), holding at most 1.5 times
// it at once (bytes.Buffer's doubling allocated 4 times it, to a buffer of
// twice it), and refused as damage; one claiming more is refused from its length. The writer
// refuses to write a record no reader would take.
func TestALongRecordHoldsAtMostItsLength(t *testing.T) {
	raw := rawRecords(t, testHeader(), func(w *Writer) { w.Snapshot(t0, "g", model.Snapshot{TakenAt: t0}) })
	body := binary.AppendVarint(nil, int64(time.Second))
	body = binary.AppendUvarint(body, 0) // the group
	body = append(body, make([]byte, maxRecord-len(body))...)
	data := recordingOf(appendFrame(raw, KindSnapshot, body))
	t.Logf("a record of %d bytes, a file of %d", len(body), len(data))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	recs, end := readAll(r)
	runtime.ReadMemStats(&after)
	var d *DamagedError
	if len(recs) != 1 || !errors.As(end, &d) {
		t.Fatalf("%d records, then %v: want 1, then damage", len(recs), end)
	}
	if took := after.TotalAlloc - before.TotalAlloc; took > 3*maxRecord {
		t.Errorf("reading a record of %d MiB allocated %d MiB", maxRecord>>20, took>>20)
	}

	var buf bytes.Buffer
	w, err := NewWriter(&buf, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	err = w.Event(t0, "g", model.Event{Time: t0, Type: model.EventStateChanged, Detail: strings.Repeat("x", maxRecord)})
	if err == nil || !strings.Contains(err.Error(), "more than a recording holds") {
		t.Errorf("writing a record past maxRecord: %v, want refused", err)
	}
}

// TestReadsFormat3: a recording written by kgwatch's format 3 (slices
// row by row; testdata/format3.kgw, written by the build before format 4:
// five busy polls of 12 partitions, the fourth cut to 9 after a failed
// poll, then an event) plays as it was written (testdata/format3.golden).
func TestReadsFormat3(t *testing.T) {
	f, err := os.Open("testdata/format3.kgw")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := os.ReadFile("testdata/format3.golden")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header().Format != 3 {
		t.Fatalf("format %d, want the fixture's 3", r.Header().Format)
	}
	var got strings.Builder
	var kinds []byte
	polls := 0
	for {
		rec, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		kinds = append(kinds, byte(rec.Kind))
		if rec.Kind != KindSnapshot {
			continue
		}
		for _, p := range rec.Snapshot.Partitions {
			fmt.Fprintf(&got, "%d %s/%d owner=%s committed=%d end=%d lag=%d age=%d known=%v\n", polls, p.Topic, p.Partition, p.ClientID, p.Committed, p.LogEnd, p.Lag, int64(p.LagAge), p.LagAgeKnown)
		}
		polls++
	}
	if string(kinds) != "SSSFSSE" {
		t.Errorf("records %s, want SSSFSSE", kinds)
	}
	if got.String() != string(want) {
		t.Errorf("read:\n%s\nwant:\n%s", got.String(), want)
	}
}
