package kafka

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kgwatch/kgwatch/model"
)

// judgedOverview is an OverviewWatcher whose polls are judged as the
// TUI's overview judges them: by one model.OverviewPipeline, poll after
// poll.
type judgedOverview struct {
	*OverviewWatcher
	pipe *model.OverviewPipeline
}

// judge judges o's polls with the default options.
func judge(o *OverviewWatcher) *judgedOverview {
	return &judgedOverview{OverviewWatcher: o, pipe: model.NewOverviewPipeline(model.OverviewPipelineOptions{})}
}

// Overview reads one overview and judges it.
func (j *judgedOverview) Overview(ctx context.Context) ([]model.GroupSummary, error) {
	obs, err := j.OverviewWatcher.Overview(ctx)
	if err != nil {
		return nil, err
	}
	return j.pipe.Observe(&obs), nil
}

// overviewOnce reads one overview with a deadline.
func overviewOnce(t *testing.T, o *judgedOverview) []model.GroupSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	gs, err := o.Overview(ctx)
	if err != nil {
		t.Fatalf("overview: %v", err)
	}
	return gs
}

func TestOverviewThreeGroups(t *testing.T) {
	for _, kafka40 := range []bool{false, true} {
		t.Run(fmt.Sprintf("kafka40=%v", kafka40), func(t *testing.T) {
			tc := newTestCluster(t, kafka40)
			tc.createTopic(t, "orders", 3)
			tc.createTopic(t, "payments", 1)
			tc.produceEach(t, "orders", 3, 10, time.Now())

			// stable: two members, commits 8 of 10 on each partition.
			a := tc.joinGroup(t, "stable", "consumer-a", "orders")
			b := tc.joinGroup(t, "stable", "consumer-b", "orders")
			gens := waitAssigned(t, 3, a, b)
			if err := gens[0].CommitOffsets(map[string]map[int]int64{"orders": {0: 8, 1: 8, 2: 8}}); err != nil {
				t.Fatalf("commit: %v", err)
			}
			// empty-lag: no member, commits 5, 4, 1.
			tc.commit(t, "empty-lag", "orders", map[int]int64{0: 5, 1: 4, 2: 1})
			// no-commits: one member owning payments/0, nothing committed.
			n := tc.joinGroup(t, "no-commits", "consumer-n", "payments")
			waitAssigned(t, 1, n)

			o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
			defer o.Close()
			var gs []model.GroupSummary
			waitFor(t, 10*time.Second, "three groups, Stable ones settled", func() bool {
				gs = overviewOnce(t, o)
				return len(gs) == 3 && gs[1].State == model.StateStable && gs[2].State == model.StateStable
			}, func() string { return fmt.Sprintf("%+v", gs) })
			// The group in trouble first: empty with lag is STOPPED. The
			// records were just written: the lag ages are known and
			// short; no-commits' partition is empty (age 0).
			want := []model.GroupSummary{
				{ID: "empty-lag", State: model.StateEmpty, Type: model.TypeClassic, // an admin commit makes a group with no protocol
					Members: 0, Partitions: 3, Committed: 3, TotalLag: 20, MaxLag: 9, MaxLagAgeKnown: true, Status: model.StatusStopped},
				{ID: "stable", State: model.StateStable, Type: model.TypeClassic, ProtocolType: "consumer", Members: 2, Partitions: 3, Committed: 3, TotalLag: 6, MaxLag: 2,
					MaxLagAgeKnown: true, Status: model.StatusOK},
				{ID: "no-commits", State: model.StateStable, Type: model.TypeClassic, ProtocolType: "consumer", Members: 1, Partitions: 1, Committed: 0, TotalLag: 0, MaxLag: 0,
					LagFromStart: true, FromStartPartitions: 1, MaxLagAgeKnown: true, Status: model.StatusOK},
			}
			for i := range want {
				g := gs[i]
				if g.MaxLagAge < 0 || g.MaxLagAge > time.Minute {
					t.Errorf("group %s: max lag age %v, want under a minute", g.ID, g.MaxLagAge)
				}
				g.MaxLagAge = 0
				if g != want[i] {
					t.Errorf("group %d:\n got %+v\nwant %+v", i, gs[i], want[i])
				}
			}
			if r := tc.refusals(); len(r) > 0 {
				t.Fatalf("requests refused by Kafka 4.0: %v", r)
			}
		})
	}
}

// TestOverviewRequestCount: an overview's requests grow with the brokers,
// not with the groups: one OffsetFetch (v8+) per coordinator for all its
// groups.
func TestOverviewRequestCount(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 6)
	tc.produceEach(t, "orders", 6, 5, time.Now())
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()

	made := 0
	measure := func(groups int) map[string]int {
		for ; made < groups; made++ {
			tc.commit(t, fmt.Sprintf("group-%03d", made), "orders", map[int]int64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 0})
		}
		gs := overviewOnce(t, o) // warm: connections, metadata
		if len(gs) != groups {
			t.Fatalf("overview lists %d groups, want %d", len(gs), groups)
		}
		tc.resetCounts()
		gs = overviewOnce(t, o)
		for _, g := range gs {
			if g.TotalLag != 15 || g.MaxLag != 5 || g.Err != "" {
				t.Fatalf("group %+v: want total lag 15, max 5, no error", g)
			}
		}
		return tc.requestCounts()
	}
	small, large := measure(3), measure(40)
	t.Logf("3 groups: %v; 40 groups: %v", small, large)
	// Every group is Empty (commits only): listed Empty, none is
	// described.
	if small["DescribeGroups"]+large["DescribeGroups"] != 0 {
		t.Errorf("DescribeGroups sent for groups listed Empty: %v, %v", small, large)
	}
	for _, c := range []map[string]int{small, large} {
		if c["ListGroups"] != 3 {
			t.Errorf("ListGroups = %d, want 3 (one per broker): %v", c["ListGroups"], c)
		}
		if c["DescribeGroups"] > 3 || c["ListOffsets"] > 3 || c["OffsetFetch"] > 3 {
			t.Errorf("DescribeGroups %d, ListOffsets %d, OffsetFetch %d: want at most one per broker: %v", c["DescribeGroups"], c["ListOffsets"], c["OffsetFetch"], c)
		}
		if c["FindCoordinator"] != 0 || c["Metadata"] != 0 {
			t.Errorf("FindCoordinator %d, Metadata %d: want none (listing broker coordinates; metadata cached): %v", c["FindCoordinator"], c["Metadata"], c)
		}
	}
	if large["OffsetFetch"] != 3 {
		t.Errorf("40 groups: OffsetFetch = %d, want 3 (one per coordinator)", large["OffsetFetch"])
	}
	if !o.Batched() {
		t.Error("Batched() = false on a Kafka 4.0 cluster")
	}
	if r := tc.refusals(); len(r) > 0 {
		t.Fatalf("requests refused by Kafka 4.0: %v", r)
	}
}

func TestOverviewNoGroups(t *testing.T) {
	tc := newTestCluster(t, false)
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	if gs := overviewOnce(t, o); len(gs) != 0 {
		t.Fatalf("overview of an empty cluster = %+v, want none", gs)
	}
}

func TestOverviewUnreachable(t *testing.T) {
	o := NewOverviewWatcher(Config{Brokers: []string{"127.0.0.1:1"}, Timeout: time.Second})
	defer o.Close()
	_, err := o.Overview(context.Background())
	if err == nil || !containsAll(err.Error(), "127.0.0.1:1") {
		t.Fatalf("overview of an unreachable broker: err = %v, want one naming 127.0.0.1:1", err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// Every broker unreachable: one line naming each.
func TestOverviewErrorsOnOneLine(t *testing.T) {
	tc := newTestCluster(t, false)
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: time.Second}))
	defer o.Close()
	overviewOnce(t, o) // learn the brokers
	tc.Close()
	_, err := o.Overview(context.Background())
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("overview of a stopped cluster: err = %q, want one line", err)
	}
}

// groupNames returns n group ids.
func groupNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("group-%04d", i)
	}
	return out
}

// TestOverviewThousandGroups: 1,000 groups on 3 brokers in under 40
// requests a poll, none refused by Kafka 4.0.
func TestOverviewThousandGroups(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 6)
	tc.produceEach(t, "orders", 6, 5, time.Now())
	tc.commitGroups(t, groupNames(1000), "orders", map[int32]int64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 0})
	// One group with a member, so one coordinator has a group to
	// describe (the 1,000 listed Empty are not described).
	live := tc.joinGroup(t, "live", "consumer-l", "orders")
	waitAssigned(t, 6, live)
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 10 * time.Second}))
	defer o.Close()
	tc.resetCounts()
	overviewOnce(t, o) // cold, as --once: connections, metadata
	cold := tc.requestCounts()
	// kmsg requests at the versions Kafka 4.0 and kmsg share, not
	// kafka-go's (ListGroups v2, DescribeGroups v5, OffsetFetch v5,
	// Metadata v8).
	for name, want := range map[string]int16{"ListGroups": 5, "DescribeGroups": 6, "OffsetFetch": 9, "Metadata": 13} {
		if v := tc.version(name); v != want {
			t.Errorf("%s sent at v%d, want v%d", name, v, want)
		}
	}
	tc.resetCounts()
	gs := overviewOnce(t, o)
	c := tc.requestCounts()
	total, coldTotal := 0, 0
	for _, n := range c {
		total += n
	}
	for _, n := range cold {
		coldTotal += n
	}
	t.Logf("1,000 groups: %d requests %v; cold (--once): %d %v", total, c, coldTotal, cold)
	if coldTotal >= 40 {
		t.Errorf("a cold overview of 1,000 groups sent %d requests, want under 40: %v", coldTotal, cold)
	}
	if len(gs) != 1001 || cold["DescribeGroups"] != 1 || c["DescribeGroups"] != 1 {
		t.Fatalf("%d groups, %d and %d DescribeGroups: want 1001, one describe (of live's coordinator)", len(gs), cold["DescribeGroups"], c["DescribeGroups"])
	}
	for _, g := range gs {
		if g.ID == "live" {
			if g.State != model.StateStable || g.Members != 1 {
				t.Fatalf("live: %+v, want Stable with its member", g)
			}
			continue
		}
		if g.TotalLag != 15 || g.Committed != 6 || g.Err != "" || g.Type != model.TypeClassic || g.State != model.StateEmpty {
			t.Fatalf("group %+v: want lag 15 over 6 committed partitions", g)
		}
	}
	if total >= 40 {
		t.Errorf("%d requests for 1,000 groups, want under 40: %v", total, c)
	}
	if !o.Batched() {
		t.Error("Batched() = false on a Kafka 4.0 cluster")
	}
	if r := tc.refusals(); len(r) > 0 {
		t.Fatalf("requests refused by Kafka 4.0: %v", r)
	}
}

// A broker older than Kafka 3.0 takes one group per OffsetFetch (v7): the
// overview falls back to one per group, and says so.
func TestOverviewWithoutOffsetFetchV8(t *testing.T) {
	tc := newTestCluster(t, false, kfake.MaxVersions(kversion.V2_8_0()))
	tc.createTopic(t, "orders", 3)
	tc.produceEach(t, "orders", 3, 5, time.Now())
	tc.commitGroups(t, groupNames(5), "orders", map[int32]int64{0: 1, 1: 2, 2: 3})
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	overviewOnce(t, o)
	tc.resetCounts()
	gs := overviewOnce(t, o)
	if len(gs) != 5 {
		t.Fatalf("%d groups, want 5", len(gs))
	}
	for _, g := range gs {
		if g.TotalLag != 9 || g.Err != "" || g.State != model.StateEmpty {
			t.Errorf("group %+v: want Empty, lag 9", g)
		}
	}
	c := tc.requestCounts()
	if c["OffsetFetch"] != 5 {
		t.Errorf("OffsetFetch = %d, want one per group (5): %v", c["OffsetFetch"], c)
	}
	// ListGroups v4 names no type: the groups listed Empty are described,
	// in one request per coordinator.
	if c["DescribeGroups"] < 1 || c["DescribeGroups"] > 3 {
		t.Errorf("DescribeGroups = %d, want one per coordinator of the 5 groups (1 to 3): %v", c["DescribeGroups"], c)
	}
	if o.Batched() {
		t.Error("Batched() = true on a broker without OffsetFetch v8")
	}
}

// leaderlessMetadata makes the cluster answer Metadata for topic alone as
// Kafka does while some of its partitions have no leader (error
// LEADER_NOT_AVAILABLE, leader -1), and name leader elsewhere: lead maps
// a partition to the leader to give it, -1 for none; the others keep
// kfake's leader.
func leaderlessMetadata(tc *testCluster, topic string, lead map[int32]int32) {
	tc.ControlKey(int16(kmsg.Metadata), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		req := kreq.(*kmsg.MetadataRequest)
		if len(req.Topics) != 1 || req.Topics[0].Topic == nil || *req.Topics[0].Topic != topic {
			return nil, nil, false
		}
		res := req.ResponseKind().(*kmsg.MetadataResponse)
		for i, addr := range tc.addrs {
			host, port, _ := net.SplitHostPort(addr)
			p, _ := strconv.Atoi(port)
			b := kmsg.NewMetadataResponseBroker()
			b.NodeID, b.Host, b.Port = int32(i), host, int32(p)
			res.Brokers = append(res.Brokers, b)
		}
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic = kmsg.StringPtr(topic)
		rt.TopicID = tc.TopicInfo(topic).TopicID
		for _, pi := range tc.PartitionInfos(topic) {
			rp := kmsg.NewMetadataResponseTopicPartition()
			rp.Partition, rp.Leader, rp.LeaderEpoch = pi.Partition, pi.Leader, pi.Epoch
			if l, ok := lead[pi.Partition]; ok {
				rp.Leader = l
				if l < 0 {
					rp.ErrorCode = kerr.LeaderNotAvailable.Code
				}
			}
			rp.Replicas, rp.ISR = []int32{rp.Leader}, []int32{rp.Leader}
			rt.Partitions = append(rt.Partitions, rp)
		}
		res.Topics = append(res.Topics, rt)
		return res, nil, true
	})
}

// A partition without a leader, and one whose leader no broker answers
// for: the overview names each reason (with the partition), not only
// that their log ends are unknown; the others are read.
func TestOverviewNamesLeaderlessPartition(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 4)
	tc.produceEach(t, "orders", 4, 10, time.Now())
	tc.commit(t, "g", "orders", map[int]int64{0: 4, 1: 4, 2: 4, 3: 4})
	leaderlessMetadata(tc, "orders", map[int32]int32{1: -1, 2: 7})

	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 2 * time.Second}))
	defer o.Close()
	g := findGroup(t, overviewOnce(t, o), "g")
	want := "log end of 2 partitions unknown: orders/1: partition metadata: " + errText(kerr.LeaderNotAvailable.Code) +
		"; orders/2: log offsets from leader 7: "
	if !strings.HasPrefix(g.Err, want) || strings.Contains(g.Err, "\n") {
		t.Errorf("group g: err %q, want one line starting %q", g.Err, want)
	}
	t.Logf("group g: %s", g.Err)
	if g.TotalLag != 12 || g.Partitions != 4 {
		t.Errorf("group g: lag %d over %d partitions, want 12 (6 on each of the 2 readable) over 4", g.TotalLag, g.Partitions)
	}
}

// A coordinator whose DescribeGroups answer leaves a group out: that group
// says so in its Err, and its commits and lag are still read; the other
// is described.
func TestOverviewGroupMissingFromDescribe(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 1)
	tc.produceEach(t, "orders", 1, 10, time.Now())
	tc.commit(t, "kept", "orders", map[int]int64{0: 4})
	// dropped has a member, so it is listed Stable and described (a
	// group listed Empty is not).
	d := tc.joinGroup(t, "dropped", "consumer-d", "orders")
	if err := waitAssigned(t, 1, d)[0].CommitOffsets(map[string]map[int]int64{"orders": {0: 7}}); err != nil {
		t.Fatalf("commit: %v", err)
	}
	tc.ControlKey(int16(kmsg.DescribeGroups), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		req := kreq.(*kmsg.DescribeGroupsRequest)
		res := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
		for _, g := range req.Groups {
			if g != "dropped" {
				rg := kmsg.NewDescribeGroupsResponseGroup()
				rg.Group, rg.State = g, model.StateEmpty
				res.Groups = append(res.Groups, rg)
			}
		}
		return res, nil, true
	})
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	gs := overviewOnce(t, o)
	if g := findGroup(t, gs, "dropped"); g.Err != "describe: group missing from the coordinator's answer" || g.TotalLag != 3 {
		t.Errorf("dropped: %+v, want lag 3 and err %q", g, "describe: group missing from the coordinator's answer")
	}
	if g := findGroup(t, gs, "kept"); g.Err != "" || g.State != model.StateEmpty || g.TotalLag != 6 {
		t.Errorf("kept: %+v, want Empty, lag 6, no error", g)
	}
}

// Batched speaks of the last successful Overview: one that failed (a
// broker would not list its groups) after the brokers answered
// ApiVersions does not make it true.
func TestOverviewBatchedAfterFailure(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 1)
	tc.commit(t, "g", "orders", map[int]int64{0: 1})
	var refuse atomic.Bool
	refuse.Store(true)
	tc.ControlKey(int16(kmsg.ListGroups), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		if !refuse.Load() || tc.CurrentNode() != 1 {
			return nil, nil, false
		}
		res := kreq.ResponseKind().(*kmsg.ListGroupsResponse)
		res.ErrorCode = kerr.CoordinatorNotAvailable.Code
		return res, nil, true
	})
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	if _, err := o.Overview(context.Background()); err == nil {
		t.Fatal("overview with a broker refusing ListGroups: no error")
	}
	if o.Batched() {
		t.Error("Batched() = true after a failed first Overview")
	}
	refuse.Store(false)
	overviewOnce(t, o)
	if !o.Batched() {
		t.Error("Batched() = false after a successful Overview on a Kafka 4.0 cluster")
	}
}

// TestOffsetFetchManyAsOffsetFetch: the overview's batched OffsetFetch,
// its groups allocated once, is the request offsetFetch makes of the same
// groups, field for field and byte for byte at v8 and v9.
func TestOffsetFetchManyAsOffsetFetch(t *testing.T) {
	reads := make([]groupRead, 7)
	for i := range reads {
		reads[i].sum.ID = fmt.Sprint("group-", i)
	}
	for _, idx := range [][]int{{0}, {3, 1, 6}, {0, 1, 2, 3, 4, 5, 6}} {
		got, want := offsetFetchMany(reads, idx), offsetFetch(groupIDs(reads, idx)...)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: %+v, offsetFetch makes %+v", idx, got, want)
		}
		for _, v := range []int16{8, 9} {
			got.SetVersion(v)
			want.SetVersion(v)
			if g, w := got.AppendTo(nil), want.AppendTo(nil); !bytes.Equal(g, w) {
				t.Fatalf("%v at v%d: %x, offsetFetch encodes %x", idx, v, g, w)
			}
		}
	}
}

// TestOverviewCommitsUnreadKeepsVerdict: a poll whose OffsetFetch the
// coordinator answers with an error (loading, moved: a broker restart)
// marks the group CommitsUnread, and the overview keeps its verdict and
// lag. It read an Empty group with lag STOPPED, then OK with lag 0: with
// its commits unread, the group had no rows.
func TestOverviewCommitsUnreadKeepsVerdict(t *testing.T) {
	tc := newTestCluster(t, true)
	tc.createTopic(t, "orders", 1)
	tc.produce(t, "orders", 0, 10, time.Now())
	tc.commit(t, "g", "orders", map[int]int64{0: 1})
	var refuse atomic.Bool
	refuseOffsetFetch(tc, &refuse)
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	find := func(sums []model.GroupSummary) model.GroupSummary {
		t.Helper()
		for _, s := range sums {
			if s.ID == "g" {
				return s
			}
		}
		t.Fatalf("group g not in the overview: %+v", sums)
		return model.GroupSummary{}
	}
	before := find(overviewOnce(t, o))
	if before.Status != model.StatusStopped || before.TotalLag != 9 {
		t.Fatalf("before: %s, lag %d; want STOPPED, lag 9", before.Status, before.TotalLag)
	}
	refuse.Store(true)
	obs, err := o.OverviewWatcher.Overview(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range obs.Groups {
		if g.Summary.ID == "g" && !g.CommitsUnread {
			t.Error("group g's OffsetFetch refused: CommitsUnread false")
		}
	}
	during := find(o.pipe.Observe(&obs))
	if during.Status != model.StatusStopped || during.TotalLag != 9 || !strings.Contains(during.Err, "commits") {
		t.Errorf("commits unread: %s, lag %d, err %q; want STOPPED, lag 9 kept, the error said", during.Status, during.TotalLag, during.Err)
	}
	refuse.Store(false)
	if after := find(overviewOnce(t, o)); after.Status != model.StatusStopped || after.TotalLag != 9 || after.Err != "" {
		t.Errorf("read again: %s, lag %d, err %q; want STOPPED, lag 9, no error", after.Status, after.TotalLag, after.Err)
	}
}
