package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kgwatch/kgwatch/model"
)

// a share group's commits are DescribeShareGroupOffsets',
// not OffsetFetch's. When the coordinator refuses that request (loading,
// a broker restart), the group's commits were not read: it should be
// CommitsUnread and keep its verdict and lag as a classic group does.
func TestOverviewShareStartsUnreadKeepVerdict(t *testing.T) {
	tc := newTestCluster(t, false, fast848())
	tc.createTopic(t, "orders", 3)
	tc.produceEach(t, "orders", 3, 4, time.Now())
	tc.SetGroupConfigs("jobs-q", map[string]string{"share.auto.offset.reset": "earliest"})
	m := tc.kgoJoin(t, "share-a", kgo.ShareGroup("jobs-q"), kgo.ConsumeTopics("orders"))
	var refuse atomic.Bool
	tc.ControlKey(int16(kmsg.DescribeShareGroupOffsets), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		if !refuse.Load() {
			return nil, nil, false
		}
		req := kreq.(*kmsg.DescribeShareGroupOffsetsRequest)
		res := kreq.ResponseKind().(*kmsg.DescribeShareGroupOffsetsResponse)
		for _, rg := range req.Groups {
			g := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
			g.GroupID, g.ErrorCode = rg.GroupID, kerr.CoordinatorLoadInProgress.Code
			res.Groups = append(res.Groups, g)
		}
		return res, nil, true
	})
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	gs := waitShareGroupReading3(t, o)
	m.leave()
	tc.produceEach(t, "orders", 3, 5, time.Now())
	waitFor(t, 20*time.Second, "the share group Empty with lag: STOPPED", func() bool {
		gs = overviewOnce(t, o)
		return len(gs) == 1 && gs[0].State == model.StateEmpty && gs[0].Status == model.StatusStopped
	}, func() string { return fmt.Sprintf("%+v", gs) })
	before := gs[0]
	t.Logf("before: %s lag %d parts %d", before.Status, before.TotalLag, before.Partitions)

	refuse.Store(true)
	obs, err := o.OverviewWatcher.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !obs.Groups[0].CommitsUnread {
		t.Errorf("DescribeShareGroupOffsets refused: CommitsUnread false (err %q)", obs.Groups[0].Summary.Err)
	}
	during := o.pipe.Observe(&obs)[0]
	if during.Status != before.Status || during.TotalLag != before.TotalLag || !strings.Contains(during.Err, "start offsets") {
		t.Errorf("start offsets unread: %s lag %d parts %d err %q; want %s lag %d kept, the error said",
			during.Status, during.TotalLag, during.Partitions, during.Err, before.Status, before.TotalLag)
	}
}

// a classic group whose FIRST overview poll cannot read its
// commits has no verdict to keep. It is then judged from its assignments
// alone, each counted as never committed: the fault the commit fixes for
// later polls. A healthy Stable group with every record consumed should
// not read LAGGING with its whole log as lag.
func TestOverviewFirstPollCommitsUnreadNoVerdict(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 1)
	tc.produce(t, "orders", 0, 10, time.Now().Add(-time.Hour))
	m := tc.joinGroup(t, "g", "c1", "orders")
	defer m.leave()
	gens := waitAssigned(t, 1, m)
	if err := gens[0].CommitOffsets(map[string]map[int]int64{"orders": {0: 10}}); err != nil {
		t.Fatal(err)
	}
	refuseOffsetFetch(tc, nil)
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	var g model.GroupSummary
	waitFor(t, 20*time.Second, "group g Stable with its member", func() bool {
		for _, s := range overviewOnce(t, o) {
			if s.ID == "g" {
				g = s
			}
		}
		return g.State == model.StateStable && g.Members == 1
	}, func() string { return fmt.Sprintf("%+v", g) })
	t.Logf("first polls, commits unread: %s lag %d from start %v err %q", g.Status, g.TotalLag, g.LagFromStart, g.Err)
	if g.Status != model.StatusOK && g.Status != "" || g.TotalLag != 0 {
		t.Errorf("commits never read: %s, lag %d (from start %v); want no verdict from unread commits (lag 0 / unknown), err %q",
			g.Status, g.TotalLag, g.LagFromStart, g.Err)
	}
}

// The per-group OffsetFetch (a broker before v8) and a
// request that gets no answer at all (connection dropped) keep the
// verdict too.
func TestOverviewCommitsUnreadOtherPaths(t *testing.T) {
	for _, sc := range []struct {
		name   string
		old    bool
		noResp bool
	}{{"per-group, error code", true, false}, {"per-group, no answer", true, true}, {"batched, no answer", false, true}} {
		t.Run(sc.name, func(t *testing.T) {
			var tc *testCluster
			if sc.old {
				tc = newTestCluster(t, false, kfake.MaxVersions(kversion.V2_8_0()))
			} else {
				tc = newTestCluster(t, true)
			}
			tc.createTopic(t, "orders", 1)
			tc.produce(t, "orders", 0, 10, time.Now())
			tc.commit(t, "g", "orders", map[int]int64{0: 1})
			var refuse atomic.Bool
			tc.ControlKey(int16(kmsg.OffsetFetch), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
				tc.KeepControl()
				if !refuse.Load() {
					return nil, nil, false
				}
				if sc.noResp {
					return nil, errors.New("dropped"), true
				}
				res := kreq.ResponseKind().(*kmsg.OffsetFetchResponse)
				res.ErrorCode = kerr.CoordinatorLoadInProgress.Code
				return res, nil, true
			})
			o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 2 * time.Second}))
			defer o.Close()
			before := overviewOnce(t, o)[0]
			refuse.Store(true)
			during := overviewOnce(t, o)[0]
			if during.Status != before.Status || during.TotalLag != before.TotalLag || during.Err == "" {
				t.Errorf("before %s lag %d; during %s lag %d err %q", before.Status, before.TotalLag, during.Status, during.TotalLag, during.Err)
			}
			t.Logf("before %s lag %d; during %s lag %d err %q", before.Status, before.TotalLag, during.Status, during.TotalLag, during.Err)
		})
	}
}

// One partition's commit answered with an error is a row with its verdict
// kept and lag 0, not dropped (counted from the log start).
func TestOverviewPartitionCommitErrorKept(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 2)
	tc.produceEach(t, "orders", 2, 10, time.Now())
	tc.commit(t, "g", "orders", map[int]int64{0: 1, 1: 1})
	var refuse atomic.Bool
	tc.ControlKey(int16(kmsg.OffsetFetch), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		if !refuse.Load() {
			return nil, nil, false
		}
		res := kreq.ResponseKind().(*kmsg.OffsetFetchResponse)
		for _, rg := range kreq.(*kmsg.OffsetFetchRequest).Groups {
			g := kmsg.NewOffsetFetchResponseGroup()
			g.Group = rg.Group
			tp := kmsg.NewOffsetFetchResponseGroupTopic()
			tp.Topic = "orders"
			for p := int32(0); p < 2; p++ {
				pp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				pp.Partition, pp.Offset = p, 1
				if p == 1 {
					pp.Offset, pp.ErrorCode = -1, kerr.UnstableOffsetCommit.Code
				}
				tp.Partitions = append(tp.Partitions, pp)
			}
			g.Topics = append(g.Topics, tp)
			res.Groups = append(res.Groups, g)
		}
		return res, nil, true
	})
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	before := overviewOnce(t, o)[0]
	refuse.Store(true)
	during := overviewOnce(t, o)[0]
	t.Logf("before %s lag %d parts %d; during %s lag %d parts %d err %q", before.Status, before.TotalLag, before.Partitions, during.Status, during.TotalLag, during.Partitions, during.Err)
	if during.Status != before.Status || during.Partitions != 2 || during.TotalLag != 9 || during.Err == "" || strings.Contains(during.Err, "log end") {
		t.Errorf("want %s kept over 2 partitions, lag 9 (p1 unknown), an error", before.Status)
	}
}

// refuseOffsetFetch makes tc answer every OffsetFetch, while refuse holds
// (always, when refuse is nil), as a coordinator loading its groups does:
// COORDINATOR_LOAD_IN_PROGRESS, for the request and, at v8 and later,
// for each group asked.
func refuseOffsetFetch(tc *testCluster, refuse *atomic.Bool) {
	tc.ControlKey(int16(kmsg.OffsetFetch), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		if refuse != nil && !refuse.Load() {
			return nil, nil, false
		}
		res := kreq.ResponseKind().(*kmsg.OffsetFetchResponse)
		res.ErrorCode = kerr.CoordinatorLoadInProgress.Code
		if req := kreq.(*kmsg.OffsetFetchRequest); kreq.GetVersion() >= 8 {
			for _, rg := range req.Groups {
				g := kmsg.NewOffsetFetchResponseGroup()
				g.Group, g.ErrorCode = rg.Group, kerr.CoordinatorLoadInProgress.Code
				res.Groups = append(res.Groups, g)
			}
		}
		return res, nil, true
	})
}
