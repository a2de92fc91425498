package record

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// ovPoll is a raw overview poll at t0+s: two groups on orders/0-2, every
// map of the observation holding something, and the numbers moved by s.
func ovPoll(t *testing.T, s int) model.OverviewObservation {
	tp := func(p int32) model.TopicPartition { return model.TopicPartition{Topic: "orders", Partition: p} }
	at := t0.Add(time.Duration(s) * time.Second)
	n := int64(s)
	return model.OverviewObservation{
		TakenAt: at,
		Groups: []model.OverviewGroup{
			model.OverviewGroupOf(filled[model.GroupSummary](t, s),
				map[model.TopicPartition]int64{tp(0): 10 + n, tp(2): 0}, nil,
				map[model.TopicPartition]bool{tp(0): true, tp(1): false},
				map[model.TopicPartition]string{tp(0): "m-1"}),
			model.OverviewGroupOf(model.GroupSummary{ID: "share", Type: model.TypeShare, State: model.StateStable, Members: 2},
				map[model.TopicPartition]int64{tp(1): 5},
				map[model.TopicPartition]int64{tp(1): 3 + n, tp(2): -1}, nil, nil),
		},
		Offsets: map[model.TopicPartition]model.PartitionOffsets{
			tp(0): {LogStart: model.NoOffset, LogEnd: 20 + n},
			tp(1): {LogStart: 2, LogEnd: 30},
			tp(2): {LogStart: model.NoOffset, LogEnd: model.NoOffset, Err: "no leader"},
		},
		LogErr: fmt.Sprintf("orders/2: no leader (%d)", s),
		Records: map[model.RecordAt]model.RecordStamp{
			{TopicPartition: tp(0), Offset: 10 + n}: {Time: at.Add(-time.Minute)},
			{TopicPartition: tp(1), Offset: 2}:      {Gone: true},
			{TopicPartition: tp(1), Offset: 5}:      {MarkersOnly: true},
		},
	}
}

// A raw poll of the overview is read back as it was written, poll after
// poll (each written as its difference from the one before), groups and
// partitions coming and going.
func TestOverviewPollCarried(t *testing.T) {
	polls := []model.OverviewObservation{ovPoll(t, 1), ovPoll(t, 2), {TakenAt: t0.Add(3 * time.Second)}}
	unread := ovPoll(t, 4)
	unread.Groups[0].CommitsUnread = true // a poll whose OffsetFetch failed
	unread.Groups[1].Parts[0].CommitUnread = true
	fewer := ovPoll(t, 5)
	fewer.Groups = fewer.Groups[1:]
	delete(fewer.Offsets, model.TopicPartition{Topic: "orders", Partition: 0})
	polls = append(polls, unread, fewer, ovPoll(t, 6))

	var buf bytes.Buffer
	h := testHeader()
	h.Group, h.Overview = "", true
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range polls {
		if err := w.OverviewPoll(polls[i].TakenAt, &polls[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.OverviewFailed(t0.Add(7*time.Second), "no broker")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range polls {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("poll %d: %v", i, err)
		}
		if got.Kind != KindOverviewPoll || !got.At.Equal(want.TakenAt) {
			t.Fatalf("poll %d: %s at %v, want a read of the overview at %v", i, got.Kind, got.At, want.TakenAt)
		}
		sameValue(t, fmt.Sprintf("poll %d", i), got.Overview, want)
	}
	if got, err := r.Next(); err != nil || got.Kind != KindOverviewFailed || got.Err != "no broker" {
		t.Errorf("after the polls: %+v, %v; want the failed poll", got, err)
	}
}
