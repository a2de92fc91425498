package model

import (
	"reflect"
	"testing"
	"time"
)

// A record set by reference (a watcher's cache) gives the rows a copy set
// by value gives, and the rows point to it instead of copying it; hiding
// keys (--hide-keys) and building again leave it as it was, and a row
// without lag, or whose lag is only markers, takes none.
func TestOldestRecordByReference(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	recs := []OldestRecord{
		{Offset: 5, Time: at.Add(-time.Minute), Size: 40, ValueSize: 10, Key: "order-5", KeySize: 7, Headers: []RecordHeader{{Name: "trace", Value: "abc"}}, HeaderCount: 1},
		{Offset: 9, Time: at.Add(-time.Second), Size: 20, ValueSize: -1, KeySize: -1},
		{Offset: 3, Time: at, Size: 30, Key: "k", KeySize: 1},
	}
	observe := func(byRef bool) (Observation, []*OldestRecord) {
		o := Observation{TakenAt: at, Group: Group{ID: "g", State: StateStable}}
		var refs []*OldestRecord
		for i, r := range recs {
			tp := TopicPartition{Topic: "orders", Partition: int32(i)}
			o.SetCommitted(tp, r.Offset)
			end := r.Offset + 4
			if i == 2 {
				end = r.Offset // no lag: no record shown
			}
			o.SetOffsets(tp, PartitionOffsets{LogStart: 0, LogEnd: end})
			o.SetOldestTimestamp(tp, r.Time)
			if byRef {
				c := r
				refs = append(refs, &c)
				o.Part(tp).SetOldestRecordRef(&c)
			} else {
				o.SetOldestRecord(tp, r)
			}
		}
		return o, refs
	}
	byValue, _ := observe(false)
	byRef, refs := observe(true)
	want := NewSnapshot(byValue)
	got := NewSnapshot(byRef)
	if !reflect.DeepEqual(got.Partitions, want.Partitions) {
		t.Fatalf("by reference the rows are\n%+v\nby value\n%+v", got.Partitions, want.Partitions)
	}
	for i, p := range got.Partitions {
		if shows := len(p.Oldest) > 0; shows != (i < 2) {
			t.Errorf("row %d shows a record: %v", i, shows)
		}
		if len(p.Oldest) > 0 && &p.Oldest[0] != refs[i] {
			t.Errorf("row %d copied the record set by reference", i)
		}
	}
	got.HideKeys()
	var b SnapshotBuilder
	again := b.Build(&byRef)
	again.HideKeys()
	for i, r := range refs {
		if !reflect.DeepEqual(*r, recs[i]) {
			t.Errorf("record %d changed under the rows: %+v, was %+v", i, *r, recs[i])
		}
	}
	if got.Partitions[0].Oldest[0].Key != "" || !got.Partitions[0].Oldest[0].Hidden {
		t.Errorf("hidden row shows %+v", got.Partitions[0].Oldest[0])
	}
}
