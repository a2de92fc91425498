package replayer

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
)

// The player reads a recording file on from a keyframe its first pass
// marked (Replay.Resume): the same records as read from the start.
func TestPlayerResumesAtAKeyframe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.kgw")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w, err := record.NewWriter(f, record.Header{Started: t0, Mode: "tui", Group: "g", Brokers: []string{"b:9092"}, Interval: time.Second, Keyframes: 2})
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 30; s++ {
		at := t0.Add(time.Duration(s) * time.Second)
		obs := model.Observation{TakenAt: at, Group: model.Group{ID: "g", State: model.StateStable}}
		obs.SetCommitted(model.TopicPartition{Topic: "t", Partition: 0}, int64(s))
		obs.SetOffsets(model.TopicPartition{Topic: "t", Partition: 0}, model.PartitionOffsets{LogEnd: int64(2 * s)})
		snap := model.NewSnapshot(obs)
		if err := w.Snapshot(at, "g", snap); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec, err := Scan(path, "")
	if err != nil {
		t.Fatal(err)
	}
	rp, _, err := rec.Player("", 1)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := rp.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var all []record.Record
	var mark record.Mark
	at := -1
	for {
		if m, ok := rd.(interface{ Mark() (record.Mark, bool) }).Mark(); ok && at < 0 && len(all) > 10 {
			mark, at = m, len(all)
		}
		r, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		all = append(all, r)
	}
	if at < 0 {
		t.Fatal("no keyframe after the 10th record")
	}
	res, err := rp.Resume(mark)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var rest []record.Record
	for {
		r, err := res.Next()
		if err != nil {
			break
		}
		rest = append(rest, r)
	}
	if !reflect.DeepEqual(rest, all[at:]) {
		t.Fatalf("resumed at record %d: %d records, want %d as read from the start", at, len(rest), len(all)-at)
	}
}
