package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// TestPollWaitsOutCoordinatorLoading: a coordinator that has just taken
// over a group answers COORDINATOR_LOAD_IN_PROGRESS until it has read the
// group's offsets, and FindCoordinator answers COORDINATOR_NOT_AVAILABLE
// while one is elected. Both are retriable: the poll asks again and
// succeeds, it does not fail (--once would exit 1).
func TestPollWaitsOutCoordinatorLoading(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "loaders", "orders")
	w := newTestWatcher(t, tc, "loaders")
	w.cfg.Timeout = 3 * time.Second

	busy := func(key int16, times int, fail func(kmsg.Request) kmsg.Response) {
		n := 0
		tc.ControlKey(key, func(req kmsg.Request) (kmsg.Response, error, bool) {
			n++
			if n < times {
				tc.KeepControl()
			} else {
				tc.DropControl() // keep is sticky once set
			}
			return fail(req), nil, true
		})
	}
	busy(int16(kmsg.FindCoordinator), 2, func(req kmsg.Request) kmsg.Response {
		res := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
		res.ErrorCode = kerr.CoordinatorNotAvailable.Code
		res.NodeID = -1
		return res
	})
	busy(int16(kmsg.DescribeGroups), 2, func(req kmsg.Request) kmsg.Response {
		res := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group, g.ErrorCode = "loaders", kerr.CoordinatorLoadInProgress.Code
		res.Groups = append(res.Groups, g)
		return res
	})
	busy(int16(kmsg.OffsetFetch), 2, func(req kmsg.Request) kmsg.Response {
		res := req.ResponseKind().(*kmsg.OffsetFetchResponse)
		res.ErrorCode = kerr.CoordinatorLoadInProgress.Code
		if req.GetVersion() >= 8 { // one error per group asked
			g := kmsg.NewOffsetFetchResponseGroup()
			g.Group, g.ErrorCode = "loaders", kerr.CoordinatorLoadInProgress.Code
			res.Groups = append(res.Groups, g)
		}
		return res
	})
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatalf("poll while the coordinator loads: %v", err)
	}
	if s.Group.State != "Empty" {
		t.Errorf("state %q, want Empty", s.Group.State)
	}
	assertLag(t, s, 3)
}

// TestPollUndescribableGroupWithCommits: a group that every describe
// kgwatch speaks calls missing (classic DescribeGroups Dead, from v6
// GROUP_ID_NOT_FOUND, as Kafka 4 answers for a group of another type) yet
// has commits exists: its lag is shown and it is not reported as missing.
func TestPollUndescribableGroupWithCommits(t *testing.T) {
	tc := newTestCluster(t, false)
	committedGroup(t, tc, "kip848", "orders")
	tc.ControlKey(int16(kmsg.DescribeGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		res := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
		g := kmsg.NewDescribeGroupsResponseGroup()
		g.Group, g.State = "kip848", "Dead"
		if req.GetVersion() >= 6 {
			g.ErrorCode = kerr.GroupIDNotFound.Code
		}
		res.Groups = append(res.Groups, g)
		return res, nil, true
	})
	w := newTestWatcher(t, tc, "kip848")
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Group.Exists() || s.Group.State != model.StateUnknown {
		t.Errorf("state %q (exists %v), want %q", s.Group.State, s.Group.Exists(), model.StateUnknown)
	}
	if len(s.Partitions) != 6 {
		t.Fatalf("%d partitions, want 6", len(s.Partitions))
	}
	assertLag(t, s, 3)
}
