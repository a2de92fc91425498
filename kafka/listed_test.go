package kafka

import (
	"context"
	"sync/atomic"
	"testing"

	kafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// TestPollStreamsGroupListedOnce: a group no describe the broker speaks
// knows (a streams group, KIP-1071, on a broker without
// StreamsGroupDescribe: kfake has neither, so ListGroups v5 lists one
// and DescribeGroups calls it missing, as Kafka 4.1 does) is typed from ListGroups on the first poll; later
// polls send no describe and no ListGroups for it, only OffsetFetch. When
// the group is gone (deleted: OffsetFetch finds no commits) its type is
// detected afresh, and a classic group of the same id is described.
func TestPollStreamsGroupListedOnce(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "streamer", "orders")
	// The requests these controls answer are not in tc's counts.
	var streams atomic.Bool
	var listed, described atomic.Int32
	streams.Store(true)
	tc.ControlKey(int16(kmsg.ListGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		if !streams.Load() {
			return nil, nil, false
		}
		listed.Add(1)
		res := req.ResponseKind().(*kmsg.ListGroupsResponse)
		lg := kmsg.NewListGroupsResponseGroup()
		lg.Group, lg.ProtocolType, lg.GroupState, lg.GroupType = "streamer", "streams", "Stable", "streams"
		res.Groups = append(res.Groups, lg)
		return res, nil, true
	})
	tc.ControlKey(int16(kmsg.DescribeGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		if !streams.Load() {
			return nil, nil, false
		}
		described.Add(1)
		// As Kafka 4 answers for a group of another type.
		return NotClassicAnswer(req.(*kmsg.DescribeGroupsRequest)), nil, true
	})
	w := newTestWatcher(t, tc, "streamer")
	poll := func(what string) (model.Snapshot, map[string]int) {
		t.Helper()
		tc.resetCounts()
		listed.Store(0)
		described.Store(0)
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		c := tc.requestCounts()
		c["ListGroups"] += int(listed.Load())
		c["DescribeGroups"] += int(described.Load())
		return s, c
	}
	asStreams := func(what string, s model.Snapshot) {
		t.Helper()
		if s.Group.State != model.StateUnknown || s.Group.Type != "streams" || s.Group.ProtocolType != "streams" {
			t.Fatalf("%s: state %q type %q protocol %q, want %q, streams, streams",
				what, s.Group.State, s.Group.Type, s.Group.ProtocolType, model.StateUnknown)
		}
		if s.Group.Coordinator == "" {
			t.Errorf("%s: no coordinator named", what)
		}
		assertLag(t, s, 3)
	}

	s, first := poll("first poll")
	asStreams("first poll", s)
	for _, name := range []string{"ConsumerGroupDescribe", "ShareGroupDescribe", "DescribeGroups", "ListGroups"} {
		if first[name] != 1 {
			t.Errorf("first poll sent %s %d times, want 1 (detecting the type): %v", name, first[name], first)
		}
	}
	s, second := poll("second poll")
	asStreams("second poll", s)
	t.Logf("first poll %v; second %v", first, second)
	for _, name := range []string{"ConsumerGroupDescribe", "ShareGroupDescribe", "DescribeGroups", "ListGroups"} {
		if second[name] != 0 {
			t.Errorf("second poll sent %s %d times, want none (the type is known from the first): %v", name, second[name], second)
		}
	}
	if second["OffsetFetch"] != 1 {
		t.Errorf("second poll: OffsetFetch %d, want 1: %v", second["OffsetFetch"], second)
	}

	// The streams group is deleted; its id comes back as a classic group.
	streams.Store(false)
	cl, done := tc.client()
	res, err := cl.DeleteGroups(context.Background(), &kafka.DeleteGroupsRequest{GroupIDs: []string{"streamer"}})
	done()
	if err != nil || res.Errors["streamer"] != nil {
		t.Fatalf("delete group: %v %v", err, res)
	}
	s, gone := poll("poll after the delete")
	if s.Group.Exists() || gone["DescribeGroups"] == 0 {
		t.Errorf("after the delete: state %q (exists %v), DescribeGroups %d: want Dead, detected afresh: %v", s.Group.State, s.Group.Exists(), gone["DescribeGroups"], gone)
	}
	tc.commit(t, "streamer", "orders", map[int]int64{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1})
	s, _ = poll("poll of the classic group")
	if s.Group.State != model.StateEmpty || s.Group.Type != model.TypeClassic {
		t.Errorf("classic group: state %q type %q, want %q, %q", s.Group.State, s.Group.Type, model.StateEmpty, model.TypeClassic)
	}
	assertLag(t, s, 3)
}
