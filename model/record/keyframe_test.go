package record

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// keyframed is an overview recording with keyframes every 5 polls: the
// overview's polls, two groups' snapshots (one group declared late),
// failures, events, demo reads and actions between them.
func keyframed(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	h := testHeader()
	h.Group, h.Overview, h.Keyframes = "", true, 5
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := group(30), group(12)
	b.Group.ID = "billing"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for s := 1; s <= 40; s++ {
		at := t0.Add(time.Duration(s) * time.Second)
		o := ovPoll(t, s)
		must(w.OverviewPoll(at, &o))
		must(w.Snapshot(at, "order-workers", poll(&a, rng, true)))
		if s > 12 {
			must(w.Snapshot(at, "billing", poll(&b, rng, s%3 == 0)))
		}
		if s%7 == 0 {
			must(w.PollFailed(at.Add(-time.Second), at, "order-workers", "coordinator gone"))
			must(w.Event(at, "billing", model.Event{Type: model.EventRebalanceStarted, Time: at, Group: "billing"}))
		}
		if s%4 == 0 {
			must(w.DemoStatus(at, model.DemoStatus{Paused: s%8 == 0, Rate: float64(s)}))
			must(w.DemoAction(at, model.DemoAction{Kind: model.DemoRate, Rate: 3}, model.DemoOutcome{}, ""))
		}
		if s%9 == 0 {
			must(w.OverviewFailed(at, "no coordinator"))
		}
	}
	must(w.Close())
	return buf.Bytes()
}

// A reader resumed at any keyframe reads what the reader that read from
// the start reads from there on, to the same end and summary.
func TestResumeAtEveryKeyframe(t *testing.T) {
	data := keyframed(t)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var all []Record
	var marks []Mark
	var at []int // the record each mark is before
	for {
		if m, ok := r.Mark(); ok {
			marks, at = append(marks, m), append(at, len(all))
		}
		rec, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		all = append(all, rec)
	}
	sum := r.Summary()
	// 40 overview polls, 40 + 28 snapshots, 5 failures, 4 overview
	// failures: 117 polls, a keyframe at most every 5 (20 written).
	if len(marks) < 10 || len(marks) > 23 {
		t.Fatalf("%d keyframes in 117 polls, one every 5 or more", len(marks))
	}
	for i, m := range marks {
		rr, err := Resume(bytes.NewReader(data), m)
		if err != nil {
			t.Fatalf("keyframe %d (byte %d): %v", i, m.Offset, err)
		}
		rest, end := readAll(rr)
		if !errors.Is(end, io.EOF) {
			t.Fatalf("keyframe %d: read to %v", i, end)
		}
		if !reflect.DeepEqual(rest, all[at[i]:]) {
			t.Fatalf("keyframe %d: resumed, the reader read %d records, other than the %d read from the start", i, len(rest), len(all)-at[i])
		}
		if got := rr.Summary(); !reflect.DeepEqual(got, sum) {
			t.Fatalf("keyframe %d: summary %+v, want %+v", i, got, sum)
		}
	}
	// A keyframe's snapshot is written whole: the member stands alone.
	if m := marks[3]; !bytes.Equal(data[m.Offset:m.Offset+2], []byte{0x1f, 0x8b}) {
		t.Fatal("a keyframe does not start a gzip member")
	}
}

// A recording cut between two keyframes' members is unfinished, not
// damaged; one whose member is cut short, damaged or unfinished as
// before.
func TestCutAtAKeyframe(t *testing.T) {
	data := keyframed(t)
	r, _ := NewReader(bytes.NewReader(data))
	var m Mark
	for {
		var ok bool
		if m, ok = r.Mark(); ok {
			break
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	cut, err := NewReader(bytes.NewReader(data[:m.Offset]))
	if err != nil {
		t.Fatal(err)
	}
	if _, end := readAll(cut); !errors.Is(end, ErrUnfinished) {
		t.Fatalf("cut at a keyframe: %v, want unfinished", end)
	}
	garbage := append(bytes.Clone(data[:m.Offset]), "not gzip at all"...)
	bad, _ := NewReader(bytes.NewReader(garbage))
	var de *DamagedError
	if _, end := readAll(bad); !errors.As(end, &de) {
		t.Fatalf("garbage where a keyframe starts: %v, want damage", end)
	}
}

// A recording of a format without keyframes has no mark, and is read
// as before; resuming one is an error, not a misread.
func TestOldFormatHasNoKeyframes(t *testing.T) {
	data, err := os.ReadFile("testdata/format1.kgw")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := r.Mark(); ok {
			t.Fatal("a format 1 recording has a keyframe")
		}
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if _, err := Resume(bytes.NewReader(data), Mark{Offset: 10}); err == nil {
		t.Fatal("a format 1 recording resumed")
	}
}
