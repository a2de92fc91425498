package kafka

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// kfake has no streams groups (KIP-1071). These tests answer what a Kafka
// 4.2 broker answers for one through kfake Controls, faithful to Apache
// Kafka's schema (StreamsGroupDescribeResponse.json v0-v1) and to its
// GroupMetadataManager: ApiVersions advertises StreamsGroupDescribe
// (key 89) v0-v1; StreamsGroupDescribe describes the group; ListGroups
// lists it with GroupType "streams", protocol type "streams" and a
// streams state; ConsumerGroupDescribe and ShareGroupDescribe answer
// GROUP_ID_NOT_FOUND ("Group … is not a consumer group") and
// DescribeGroups state Dead with, from v6, GROUP_ID_NOT_FOUND
// (describeAsKafka4). Everything else, the commits of the application id
// (tc.commit, so OffsetFetch is real), topics and offsets, is kfake's.

// streamsApp is a streams group the controls answer for; set changes it
// between polls.
type streamsApp struct {
	mu sync.Mutex
	g  kmsg.StreamsGroupDescribeResponseGroup
}

func (a *streamsApp) set(g kmsg.StreamsGroupDescribeResponseGroup) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.g = g
}

func (a *streamsApp) get() kmsg.StreamsGroupDescribeResponseGroup {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.g
}

// serveStreams makes tc answer for the streams group app as Kafka 4.2
// does (see the comment above).
func serveStreams(t *testing.T, tc *testCluster, app *streamsApp) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", tc.addrs[0], 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	base, err := askVersions(conn)
	conn.Close()
	if err != nil {
		t.Fatalf("api versions: %v", err)
	}
	id := app.get().Group
	tc.markNonClassic(id)
	tc.ControlKey(int16(kmsg.ApiVersions), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		res := req.ResponseKind().(*kmsg.ApiVersionsResponse)
		for key, r := range base {
			res.ApiKeys = append(res.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: key, MinVersion: r[0], MaxVersion: r[1]})
		}
		res.ApiKeys = append(res.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: int16(kmsg.StreamsGroupDescribe), MinVersion: 0, MaxVersion: 1})
		slices.SortFunc(res.ApiKeys, func(a, b kmsg.ApiVersionsResponseApiKey) int { return int(a.ApiKey) - int(b.ApiKey) })
		return res, nil, true
	})
	tc.ControlKey(int16(kmsg.StreamsGroupDescribe), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		res := req.ResponseKind().(*kmsg.StreamsGroupDescribeResponse)
		for _, g := range req.(*kmsg.StreamsGroupDescribeRequest).Groups {
			if g == id {
				res.Groups = append(res.Groups, app.get())
				continue
			}
			rg := kmsg.NewStreamsGroupDescribeResponseGroup()
			rg.Group, rg.ErrorCode = g, kerr.GroupIDNotFound.Code
			rg.ErrorMessage = kmsg.StringPtr("Group " + g + " not found.")
			res.Groups = append(res.Groups, rg)
		}
		return res, nil, true
	})
	tc.ControlKey(int16(kmsg.ConsumerGroupDescribe), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		r := req.(*kmsg.ConsumerGroupDescribeRequest)
		if !slices.Contains(r.Groups, id) {
			return nil, nil, false
		}
		res := r.ResponseKind().(*kmsg.ConsumerGroupDescribeResponse)
		for _, g := range r.Groups {
			rg := kmsg.NewConsumerGroupDescribeResponseGroup()
			rg.Group, rg.ErrorCode = g, kerr.GroupIDNotFound.Code
			rg.ErrorMessage = kmsg.StringPtr("Group " + g + " is not a consumer group.")
			res.Groups = append(res.Groups, rg)
		}
		return res, nil, true
	})
	tc.ControlKey(int16(kmsg.ShareGroupDescribe), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		r := req.(*kmsg.ShareGroupDescribeRequest)
		if !slices.Contains(r.GroupIDs, id) {
			return nil, nil, false
		}
		res := r.ResponseKind().(*kmsg.ShareGroupDescribeResponse)
		for _, g := range r.GroupIDs {
			rg := kmsg.NewShareGroupDescribeResponseGroup()
			rg.GroupID, rg.ErrorCode = g, kerr.GroupIDNotFound.Code
			rg.ErrorMessage = kmsg.StringPtr("Group " + g + " is not a share group.")
			res.Groups = append(res.Groups, rg)
		}
		return res, nil, true
	})
	tc.ControlKey(int16(kmsg.ListGroups), func(req kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		// Every group of these tests is the application: the coordinator
		// lists it; the other brokers list nothing.
		res := req.ResponseKind().(*kmsg.ListGroupsResponse)
		if tc.CurrentNode() == tc.CoordinatorFor(id) {
			lg := kmsg.NewListGroupsResponseGroup()
			lg.Group, lg.ProtocolType, lg.GroupState, lg.GroupType = id, "streams", app.get().State, "streams"
			res.Groups = append(res.Groups, lg)
		}
		return res, nil, true
	})
}

// tasks is a StreamsGroupDescribe task list: subtopology to partitions.
func tasks(by map[string][]int32) []kmsg.TaskIDs {
	var out []kmsg.TaskIDs
	for _, s := range []string{"0", "1"} {
		if ps, ok := by[s]; ok {
			out = append(out, kmsg.TaskIDs{SubtopologyID: s, Partitions: ps})
		}
	}
	return out
}

// streamsMember is a StreamsGroupDescribe member with current and target
// active tasks (and standbys, current and target).
func streamsMember(id, process, client string, epoch int32, active, target, standby map[string][]int32) kmsg.StreamsGroupDescribeResponseGroupMember {
	m := kmsg.NewStreamsGroupDescribeResponseGroupMember()
	m.MemberID, m.ProcessID, m.ClientID, m.ClientHost = id, process, client, "/10.0.0."+process[len(process)-1:]
	m.MemberEpoch, m.TopologyEpoch = epoch, 1
	m.UserEndpoint = &kmsg.StreamsGroupDescribeResponseGroupMemberUserEndpoint{Host: "app-" + process, Port: 8080}
	m.Assignment = kmsg.StreamsAssignment{ActiveTasks: tasks(active), StandbyTasks: tasks(standby)}
	m.TargetAssignment = kmsg.StreamsAssignment{ActiveTasks: tasks(target), StandbyTasks: tasks(standby)}
	return m
}

// streamsGroup is the application "wordcount": subtopology 0 reads
// orders and writes the repartition topic, which subtopology 1 reads
// (its count store has a changelog).
func streamsGroup(state string, epoch, assignmentEpoch int32, members ...kmsg.StreamsGroupDescribeResponseGroupMember) kmsg.StreamsGroupDescribeResponseGroup {
	g := kmsg.NewStreamsGroupDescribeResponseGroup()
	g.Group, g.State, g.Epoch, g.AssignmentEpoch = "wordcount", state, epoch, assignmentEpoch
	g.Topology = &kmsg.StreamsGroupDescribeResponseGroupTopology{Epoch: 1, Subtopologies: []kmsg.StreamsGroupDescribeResponseGroupTopologySubtopology{
		{SubtopologyID: "0", SourceTopics: []string{"orders"}, RepartitionSinkTopics: []string{"wordcount-repartition"}},
		{SubtopologyID: "1", RepartitionSourceTopics: []kmsg.TopicInfo{{Topic: "wordcount-repartition", NumPartitions: 4}},
			StateChangelogTopics: []kmsg.TopicInfo{{Topic: "wordcount-counts-changelog"}}},
	}}
	g.Members = members
	return g
}

// newStreamsCluster is a cluster with the application's topics, 4
// partitions each holding 5 records, its commits at 2 (lag 3) and the
// group g answered for it.
func newStreamsCluster(t *testing.T, g kmsg.StreamsGroupDescribeResponseGroup) (*testCluster, *streamsApp) {
	tc := newTestCluster(t, false)
	for _, topic := range []string{"orders", "wordcount-repartition"} {
		tc.createTopic(t, topic, 4)
		for p := 0; p < 4; p++ {
			tc.produce(t, topic, p, 5, time.Now())
		}
		tc.commit(t, "wordcount", topic, map[int]int64{0: 2, 1: 2, 2: 2, 3: 2})
	}
	app := &streamsApp{g: g}
	serveStreams(t, tc, app)
	return tc, app
}

var (
	half0 = map[string][]int32{"0": {0, 1}, "1": {0, 1}}
	half1 = map[string][]int32{"0": {2, 3}, "1": {2, 3}}
)

// TestPollStreamsGroup: a poll shows a streams application's members,
// their process ids and tasks, the owners of the source and repartition
// topics' partitions (from the active tasks) and their lag (OffsetFetch
// of the application id), with the group's epochs.
func TestPollStreamsGroup(t *testing.T) {
	tc, _ := newStreamsCluster(t, streamsGroup("Stable", 5, 5,
		streamsMember("m-a", "proc-1", "wordcount-1", 5, half0, half0, map[string][]int32{"1": {2}}),
		streamsMember("m-b", "proc-2", "wordcount-2", 5, half1, half1, nil)))
	w := newTestWatcher(t, tc, "wordcount")
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g := s.Group
	if g.Type != model.TypeStreams || g.State != "Stable" || g.Epoch != 5 || g.AssignmentEpoch != 5 || g.TopologyEpoch != 1 || len(g.Topology) != 2 {
		t.Fatalf("group %+v, want a Stable streams group, epochs 5/5, topology epoch 1 of 2 subtopologies", g)
	}
	if len(s.Members) != 2 {
		t.Fatalf("members %+v, want 2", s.Members)
	}
	a := s.Members[0]
	if a.MemberID != "m-a" || a.ProcessID != "proc-1" || a.Endpoint != "app-proc-1:8080" || len(a.Tasks.Active) != 4 ||
		!slices.Equal(a.Tasks.Standby, []model.TaskID{{Subtopology: "1", Partition: 2}}) || a.Reconciling {
		t.Errorf("member a %+v: want proc-1, 4 active tasks, standby 1_2, not reconciling", a)
	}
	want := map[model.TopicPartition]string{}
	for _, topic := range []string{"orders", "wordcount-repartition"} {
		for p := int32(0); p < 4; p++ {
			want[model.TopicPartition{Topic: topic, Partition: p}] = map[bool]string{true: "m-a", false: "m-b"}[p < 2]
		}
	}
	if len(s.Partitions) != len(want) {
		t.Errorf("%d partitions, want %d", len(s.Partitions), len(want))
	}
	for _, r := range s.Partitions {
		if r.MemberID != want[r.TopicPartition] {
			t.Errorf("%s/%d owned by %q, want %q", r.Topic, r.Partition, r.MemberID, want[r.TopicPartition])
		}
	}
	assertLag(t, s, 3)
	if s.TotalLag != 24 {
		t.Errorf("total lag %d, want 24", s.TotalLag)
	}
}

// TestStreamsTaskMoveEvents: task 0_2 moves from m-b to m-a over three
// polls, as the coordinator moves it (a new target at epoch 6, m-b
// revokes, m-a takes it): the timeline shows the rebalance starting,
// the member reconciling, the partition moving and the rebalance ending.
func TestStreamsTaskMoveEvents(t *testing.T) {
	tc, app := newStreamsCluster(t, streamsGroup("Stable", 5, 5,
		streamsMember("m-a", "proc-1", "wordcount-1", 5, half0, half0, nil),
		streamsMember("m-b", "proc-2", "wordcount-2", 5, half1, half1, nil)))
	w := newTestWatcher(t, tc, "wordcount")
	tr := model.NewTracker("wordcount", 0)
	var events []model.Event
	poll := func() model.Snapshot {
		t.Helper()
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, tr.Observe(s)...)
		return s
	}
	poll()
	moreA := map[string][]int32{"0": {0, 1, 2}, "1": {0, 1}}
	lessB := map[string][]int32{"0": {3}, "1": {2, 3}}
	app.set(streamsGroup("Reconciling", 6, 6,
		streamsMember("m-a", "proc-1", "wordcount-1", 5, half0, moreA, nil),
		streamsMember("m-b", "proc-2", "wordcount-2", 5, half1, lessB, nil)))
	if s := poll(); !s.Group.Rebalancing() || !s.Members[1].Reconciling {
		t.Fatalf("reconciling poll: state %s, member b reconciling %v", s.Group.State, s.Members[1].Reconciling)
	}
	app.set(streamsGroup("Stable", 6, 6,
		streamsMember("m-a", "proc-1", "wordcount-1", 6, moreA, moreA, nil),
		streamsMember("m-b", "proc-2", "wordcount-2", 6, lessB, lessB, nil)))
	s := poll()
	if got := s.Members[0].Tasks.Active; !slices.Contains(got, model.TaskID{Subtopology: "0", Partition: 2}) {
		t.Errorf("m-a's active tasks %v, want 0_2 among them", got)
	}
	types := map[model.EventType]int{}
	var moved []model.Event
	for _, e := range events {
		types[e.Type]++
		if e.Type == model.EventPartitionMoved {
			moved = append(moved, e)
		}
	}
	for _, typ := range []model.EventType{model.EventRebalanceStarted, model.EventMemberReconciling, model.EventRebalanceCompleted} {
		if types[typ] == 0 {
			t.Errorf("no %s: %v", typ, types)
		}
	}
	if len(moved) != 1 || moved[0].Partitions[0] != (model.TopicPartition{Topic: "orders", Partition: 2}) ||
		moved[0].From != "wordcount-2" || moved[0].To != "wordcount-1" {
		t.Errorf("moves %+v, want orders/2 from wordcount-2 to wordcount-1", moved)
	}
}

// TestOverviewStreamsGroup: the overview lists a streams group with its
// type, state, members, epoch, lag and status, its source and
// repartition partitions all owned (by the active tasks).
func TestOverviewStreamsGroup(t *testing.T) {
	tc, _ := newStreamsCluster(t, streamsGroup("Stable", 5, 7,
		streamsMember("m-a", "proc-1", "wordcount-1", 7, half0, half0, nil),
		streamsMember("m-b", "proc-2", "wordcount-2", 7, half1, half1, nil)))
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	gs := overviewOnce(t, o)
	if len(gs) != 1 {
		t.Fatalf("overview %+v, want the streams group", gs)
	}
	g := gs[0]
	if g.ID != "wordcount" || g.Type != model.TypeStreams || g.ProtocolType != "streams" || g.State != "Stable" ||
		g.Members != 2 || g.Generation != 7 || g.Partitions != 8 || g.Committed != 8 || g.TotalLag != 24 ||
		g.Status != model.StatusOK || g.Err != "" {
		t.Errorf("overview of the streams group %+v, want Stable, 2 members, epoch 7, 8 partitions, lag 24, OK", g)
	}
	if l := g.Type.Kind().Label; l != "streams" {
		t.Errorf("TYPE column %q, want streams", l)
	}
}

// TestStreamsStandbyWarmupMoves: the coordinator moves task 0_2's standby
// from m-a to m-c, places a warm-up of 0_1 on m-c, has m-a give 0_1 up
// and makes the warm-up active: each is a task_moved, the last saying the
// warm-up became active.
func TestStreamsStandbyWarmupMoves(t *testing.T) {
	member := func(id, n string, epoch int32, active, target, standby, warmup map[string][]int32) kmsg.StreamsGroupDescribeResponseGroupMember {
		m := streamsMember(id, "proc-"+n, "wordcount-"+n, epoch, active, target, standby)
		m.Assignment.WarmupTasks = tasks(warmup)
		return m
	}
	oneA, lessA := map[string][]int32{"0": {0, 1}}, map[string][]int32{"0": {0}}
	oneB := map[string][]int32{"0": {2, 3}}
	s02, s00, w01 := map[string][]int32{"0": {2}}, map[string][]int32{"0": {0}}, map[string][]int32{"0": {1}}
	tc, app := newStreamsCluster(t, streamsGroup("Stable", 5, 5,
		member("m-a", "1", 5, oneA, oneA, s02, nil), member("m-b", "2", 5, oneB, oneB, s00, nil), member("m-c", "3", 5, nil, nil, nil, nil)))
	w := newTestWatcher(t, tc, "wordcount")
	tr := model.NewTracker("wordcount", 0)
	var moved []model.Event
	for _, g := range []kmsg.StreamsGroupDescribeResponseGroup{
		app.get(),
		streamsGroup("Reconciling", 6, 6,
			member("m-a", "1", 5, oneA, lessA, nil, nil), member("m-b", "2", 6, oneB, oneB, s00, nil), member("m-c", "3", 6, nil, w01, s02, w01)),
		streamsGroup("Reconciling", 6, 6,
			member("m-a", "1", 6, lessA, lessA, nil, nil), member("m-b", "2", 6, oneB, oneB, s00, nil), member("m-c", "3", 5, nil, w01, s02, w01)),
		streamsGroup("Stable", 6, 6,
			member("m-a", "1", 6, lessA, lessA, nil, nil), member("m-b", "2", 6, oneB, oneB, s00, nil), member("m-c", "3", 6, w01, w01, s02, nil)),
	} {
		app.set(g)
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr.Observe(s) {
			if e.Type == model.EventTaskMoved {
				moved = append(moved, e)
			}
		}
	}
	want := []string{
		"task 0_1 (warm-up): (unassigned) → wordcount-3",
		"task 0_2 (standby): wordcount-1 → wordcount-3",
		"task 0_1 (active): wordcount-1 → wordcount-3; its warm-up on wordcount-3 became active",
	}
	var got []string
	for _, e := range moved {
		got = append(got, e.Detail)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("task moves\n%v\nwant\n%v", got, want)
	}
	if e := moved[2]; e.TaskKind != model.TaskActive || e.TaskWas != model.TaskWarmup || e.From != "wordcount-1" || e.To != "wordcount-3" {
		t.Errorf("promotion %+v", e)
	}
}
