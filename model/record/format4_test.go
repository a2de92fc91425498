package record

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// format4Text is what a reader reads of a recording, as
// testdata/format4.golden holds it: each record's kind and time, and
// each snapshot's times, members and partitions.
func format4Text(t *testing.T, r *Reader) string {
	t.Helper()
	var got strings.Builder
	for {
		rec, err := r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		fmt.Fprintf(&got, "%c %d %s\n", rec.Kind, rec.At.UnixNano(), rec.Group)
		switch rec.Kind {
		case KindFailed:
			fmt.Fprintf(&got, "  err=%q started=%d\n", rec.Err, rec.Started.UnixNano())
		case KindEvent:
			fmt.Fprintf(&got, "  event %s %d %q\n", rec.Event.Type, rec.Event.Time.UnixNano(), rec.Event.Detail)
		case KindSnapshot:
			s := rec.Snapshot
			fmt.Fprintf(&got, "  poll taken=%d completed=%d members=%d partitions=%d\n", s.TakenAt.UnixNano(), s.CompletedAt.UnixNano(), len(s.Members), len(s.Partitions))
			for _, p := range s.Partitions {
				fmt.Fprintf(&got, "  %s/%d owner=%s committed=%d start=%d end=%d age=%d known=%v\n", p.Topic, p.Partition, p.ClientID, p.Committed, p.LogStart, p.LogEnd, int64(p.LagAge), p.LagAgeKnown)
			}
		}
	}
	return got.String()
}

// TestReadsFormat4: a recording written by kgwatch's format 4
// (testdata/format4.kgw, written by the build before format 5: busy
// polls of 24 partitions (every ninth idle) with keyframes after 16, a
// failed poll, the group cut to 18 after it, then an event) plays as it was written
// (testdata/format4.golden), from its start and from each keyframe.
func TestReadsFormat4(t *testing.T) {
	data, err := os.ReadFile("testdata/format4.kgw")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/format4.golden")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header().Format != 4 {
		t.Fatalf("format %d, want the fixture's 4", r.Header().Format)
	}
	if got := format4Text(t, r); got != string(want) {
		t.Errorf("read:\n%s\nwant:\n%s", got, want)
	}
	r, err = NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var marks []Mark
	for {
		if m, ok := r.Mark(); ok {
			marks = append(marks, m)
		}
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if len(marks) != 2 {
		t.Fatalf("%d keyframes, want the fixture's 2", len(marks))
	}
	for _, m := range marks {
		r, err := Resume(bytes.NewReader(data), m)
		if err != nil {
			t.Fatal(err)
		}
		if got := format4Text(t, r); !strings.HasSuffix(string(want), got) || !strings.HasPrefix(got, "S ") {
			t.Errorf("resumed at byte %d:\n%s\nwant the end of the golden", m.Offset, got)
		}
	}
}
