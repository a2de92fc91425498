package recorder

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
)

func snapshotAt(t0 time.Time, i int) model.Snapshot {
	return model.NewSnapshot(model.Observation{TakenAt: t0.Add(time.Duration(i) * time.Second), Group: model.Group{ID: "g", State: model.StateStable}})
}

// TestRecorderSaysWhenItStops: a write that fails (the file closed under
// the recorder, as a full disk or a lost mount fails it) is said at once,
// once, to OnStop and in Status, with how far the file goes; Close says it
// again for the exit, and the bytes written are counted as they go.
func TestRecorderSaysWhenItStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.kgw")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(f, p, record.Header{Mode: "events", Group: "g", Brokers: []string{"k:9092"}, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	stops := make(chan error, 4)
	r.OnStop(func(err error) { stops <- err })
	header := r.Status().Bytes
	if fi, _ := os.Stat(p); header <= 0 || fi.Size() != header {
		t.Fatalf("counted %d bytes, the file has %d", header, fi.Size())
	}
	tap := r.Tap("g")
	t0 := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	tap.Observed(snapshotAt(t0, 0))
	deadline := time.Now().Add(5 * time.Second)
	for r.Status().Bytes == header && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if st := r.Status(); st.Bytes == header || st.Err != nil || st.Until.IsZero() {
		t.Fatalf("after a poll: %+v", st)
	}
	f.Close()
	for i := range 3 {
		tap.Observed(snapshotAt(t0, i+1))
	}
	select {
	case err := <-stops:
		if !strings.Contains(err.Error(), "--record "+p+" stopped: ") || !strings.Contains(err.Error(), "(the file holds what came before ") {
			t.Errorf("told %q", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a failed write was not told")
	}
	if st := r.Status(); st.Err == nil {
		t.Errorf("status after a failed write: %+v", st)
	}
	err = r.Close()
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("Close: %v", err)
	}
	if len(stops) != 0 {
		t.Errorf("told %d more times", len(stops))
	}
}

// stuckFile is a disk that takes the header, then holds every write
// until released.
type stuckFile struct {
	bytes.Buffer
	writes  int
	release chan struct{}
}

func (s *stuckFile) Write(p []byte) (int, error) {
	if s.writes++; s.writes > 1 {
		<-s.release
	}
	return s.Buffer.Write(p)
}

func (s *stuckFile) Close() error { return nil }

// feed gives the recorder n polls of g from a goroutine, and fails the
// test when they are not all taken at once, the disk being stuck.
func feed(t *testing.T, r *Recorder, n int) {
	t.Helper()
	fed := make(chan struct{})
	go func() {
		defer close(fed)
		tap := r.Tap("g")
		t0 := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
		for i := range n {
			tap.Observed(snapshotAt(t0, i))
		}
	}()
	select {
	case <-fed:
	case <-time.After(10 * time.Second):
		t.Fatal("feeding the recorder waited on the stuck disk")
	}
}

func newStuck(t *testing.T) (*Recorder, *stuckFile) {
	t.Helper()
	disk := &stuckFile{release: make(chan struct{})}
	r, err := New(disk, "x.kgw", record.Header{Mode: "events", Group: "g", Brokers: []string{"k:9092"}, Interval: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return r, disk
}

// TestRecorderNeverBlocksTheWatch: with the disk stuck, a thousand polls
// are taken at once (the TUI's update loop and --events never wait on
// the disk), and every one of them is in the file once it comes back.
func TestRecorderNeverBlocksTheWatch(t *testing.T) {
	r, disk := newStuck(t)
	const polls = 1000
	feed(t, r, polls)
	if st := r.Status(); st.Err != nil {
		t.Fatalf("stopped: %v", st.Err)
	}
	close(disk.release)
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	rd, err := record.NewReader(&disk.Buffer)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		if rec.Kind == record.KindSnapshot {
			n++
		}
	}
	if sum := rd.Summary(); n != polls || sum.End != nil {
		t.Errorf("the file holds %d polls (%v), want %d", n, sum.End, polls)
	}
}

// TestRecorderStopsWhenTheDiskFallsBehind: past MaxQueued bytes waiting,
// the recording stops, said once to OnStop, in Status and by Close, and
// the watch is never held.
func TestRecorderStopsWhenTheDiskFallsBehind(t *testing.T) {
	r, disk := newStuck(t)
	r.maxQueued = 10 * recordSize
	stops := make(chan error, 4)
	r.OnStop(func(err error) { stops <- err })
	feed(t, r, 100)
	select {
	case err := <-stops:
		if !errors.Is(err, ErrFellBehind) || !strings.Contains(err.Error(), "--record x.kgw stopped: the disk fell behind: ") {
			t.Errorf("told %q", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the recording stopping was not told")
	}
	if st := r.Status(); !errors.Is(st.Err, ErrFellBehind) {
		t.Errorf("status: %+v", st)
	}
	close(disk.release)
	if err := r.Close(); !errors.Is(err, ErrFellBehind) {
		t.Errorf("Close: %v", err)
	}
	if len(stops) != 0 {
		t.Errorf("told %d more times", len(stops))
	}
}
