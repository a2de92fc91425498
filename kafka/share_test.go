package kafka

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kgwatch/kgwatch/model"
)

// shareGroup starts n franz-go share consumers (KIP-932) of group on
// topic, reading from the start.
func (tc *testCluster) shareGroup(t *testing.T, group, topic string, n int) {
	t.Helper()
	tc.SetGroupConfigs(group, map[string]string{"share.auto.offset.reset": "earliest"})
	for i := range n {
		tc.kgoJoin(t, fmt.Sprintf("share-%c", 'a'+i), kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
	}
}

// A share group is shown, not called missing: its type, state, members,
// each partition's owners (several members may share one) as the broker
// assigned them, and its start offsets; Poll (what --once prints) works.
func TestPollShareGroup(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "jobs-q", "jobs"
	tc.createTopic(t, topic, 2)
	tc.produceEach(t, topic, 2, 5, time.Now())
	tc.shareGroup(t, group, topic, 2)

	w := newTestWatcher(t, tc, group)
	var s model.Snapshot
	waitFor(t, 20*time.Second, "a Stable share group of 2 with every record acknowledged", func() bool {
		var err error
		if s, err = w.Poll(context.Background()); err != nil {
			t.Fatalf("poll: %v", err)
		}
		if s.Group.State != model.StateStable || len(s.Members) != 2 || len(s.Partitions) != 2 {
			return false
		}
		for _, p := range s.Partitions {
			if len(p.Owners) == 0 || p.Committed != 5 {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprintf("%+v %+v", s.Group, s.Partitions) })

	if g := s.Group; g.Type != model.TypeShare || g.ProtocolType != "share" || g.Assignor == "" || g.Epoch < 1 {
		t.Errorf("group %+v: want a share group with its assignor and epoch", g)
	}
	info := tc.GroupInfo(group)
	want := map[model.TopicPartition][]string{}
	for _, m := range info.Members {
		for topic, parts := range m.Assignment {
			for _, p := range parts {
				tp := model.TopicPartition{Topic: topic, Partition: p}
				want[tp] = append(want[tp], m.MemberID)
			}
		}
	}
	for _, p := range s.Partitions {
		var got []string
		for _, o := range p.Owners {
			got = append(got, o.MemberID)
		}
		slices.Sort(got)
		slices.Sort(want[p.TopicPartition])
		if !slices.Equal(got, want[p.TopicPartition]) || p.MemberID != p.Owners[0].MemberID {
			t.Errorf("%s/%d owners %v, the broker assigned %v", p.Topic, p.Partition, got, want[p.TopicPartition])
		}
		if p.Lag != 0 || p.LogEnd != 5 || p.Err != "" {
			t.Errorf("%s/%d: start offset %d log-end %d lag %d err %q; want 5, 5, 0", p.Topic, p.Partition, p.Committed, p.LogEnd, p.Lag, p.Err)
		}
	}
	b, err := model.MarshalJSONSnapshot(s)
	if err != nil || !strings.Contains(string(b), `"group_type": "share"`) || !strings.Contains(string(b), `"owners": [`) {
		t.Errorf("JSON (%v) lacks group_type share or owners:\n%s", err, b)
	}
	if table := model.FormatTable(s); strings.Contains(table, "does not exist") {
		t.Errorf("table calls the share group missing:\n%s", table)
	}
	if v, w := tc.version("ShareGroupDescribe"), tc.version("DescribeShareGroupOffsets"); v != 1 || w != 1 {
		t.Errorf("ShareGroupDescribe v%d, DescribeShareGroupOffsets v%d: want v1 each (kmsg's and kfake's highest)", v, w)
	}
	// A steady poll reads the group once, as what it is: its describe and
	// its start offsets, no OffsetFetch.
	tc.resetCounts()
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := tc.requestCounts(); c["ShareGroupDescribe"] != 1 || c["DescribeShareGroupOffsets"] != 1 ||
		c["OffsetFetch"]+c["DescribeGroups"]+c["ConsumerGroupDescribe"]+c["Metadata"] != 0 {
		t.Errorf("steady poll sent %v: want one ShareGroupDescribe, one DescribeShareGroupOffsets, no other describe, topic ids cached", c)
	}
}

// The broker's lag of a share group where records wait: produced after the
// consumers stopped, they are the lag, and the group (no members) is
// STOPPED.
func TestPollShareGroupLag(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "jobs-q", "jobs"
	tc.createTopic(t, topic, 1)
	tc.produceEach(t, topic, 1, 3, time.Now())
	tc.SetGroupConfigs(group, map[string]string{"share.auto.offset.reset": "earliest"})
	m := tc.kgoJoin(t, "share-a", kgo.ShareGroup(group), kgo.ConsumeTopics(topic))
	w := newTestWatcher(t, tc, group)
	pollUntil(t, w, "start offset 3", func(s model.Snapshot) bool {
		return len(s.Partitions) == 1 && s.Partitions[0].Committed == 3
	})
	m.leave()
	tc.produceEach(t, topic, 1, 4, time.Now())
	s := pollUntil(t, w, "an Empty share group with 4 waiting", func(s model.Snapshot) bool {
		return s.Group.State == model.StateEmpty && len(s.Partitions) == 1 && s.Partitions[0].LogEnd == 7
	})
	p := s.Partitions[0]
	if p.Lag != 4 || p.Committed != 3 || !p.LagFromBroker {
		t.Errorf("start offset %d lag %d (broker's %v); want 3 and the broker's 4", p.Committed, p.Lag, p.LagFromBroker)
	}
	h := model.NewHistory(model.HistoryOptions{})
	h.Annotate(&s)
	if s.Partitions[0].Status != model.StatusStopped {
		t.Errorf("status %s, want STOPPED (no members, lag waiting)", s.Partitions[0].Status)
	}
}

// The overview lists a share group with its type, state, members and lag,
// beside a classic and a consumer-protocol group.
func TestOverviewGroupTypes(t *testing.T) {
	tc := newTestCluster(t, false, fast848())
	tc.createTopic(t, "orders", 3)
	tc.produceEach(t, "orders", 3, 2, time.Now())
	tc.shareGroup(t, "jobs-q", "orders", 2)
	tc.consumer848(t, "g848", "consumer-x", []string{"orders"})
	tc.commit(t, "classic-idle", "orders", map[int]int64{0: 1, 1: 1, 2: 1})

	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	var gs []model.GroupSummary
	waitFor(t, 20*time.Second, "three groups, members joined", func() bool {
		gs = overviewOnce(t, o)
		byID := map[string]model.GroupSummary{}
		for _, g := range gs {
			byID[g.ID] = g
		}
		return len(gs) == 3 && byID["jobs-q"].Members == 2 && byID["g848"].Members == 1 && byID["jobs-q"].Committed == 3
	}, func() string { return fmt.Sprintf("%+v", gs) })
	for _, g := range gs {
		want := map[string]model.GroupType{"jobs-q": model.TypeShare, "g848": model.TypeConsumer, "classic-idle": model.TypeClassic}[g.ID]
		if g.Type != want || g.Err != "" {
			t.Errorf("%s: type %q err %q, want %q", g.ID, g.Type, g.Err, want)
		}
		if g.ID == "jobs-q" && (g.State != model.StateStable || g.Partitions != 3) {
			t.Errorf("share group %+v: want Stable over 3 partitions", g)
		}
		if g.ID == "classic-idle" && g.TotalLag != 3 {
			t.Errorf("classic group lag %d, want 3", g.TotalLag)
		}
		// The protocol type Apache Kafka lists: "consumer" for a
		// consumer-protocol group, "share" for a share group, none for a
		// classic group only commits made (kfake lists "" for the
		// first); the group view says the same.
		wantPT := map[string]string{"jobs-q": "share", "g848": "consumer", "classic-idle": ""}[g.ID]
		s, err := newTestWatcher(t, tc, g.ID).Poll(context.Background())
		if err != nil {
			t.Fatalf("poll %s: %v", g.ID, err)
		}
		if g.ProtocolType != wantPT || s.Group.ProtocolType != wantPT {
			t.Errorf("%s: protocol type %q in the overview, %q in the group view; want %q", g.ID, g.ProtocolType, s.Group.ProtocolType, wantPT)
		}
	}
	b, err := model.MarshalJSONOverview(gs)
	if err != nil || !strings.Contains(string(b), `"protocol_type": "consumer"`) || !strings.Contains(string(b), `"protocol_type": "share"`) {
		t.Errorf("overview JSON (%v) lacks protocol_type consumer or share:\n%s", err, b)
	}
	if n := tc.mixedDescribes(); n > 0 {
		t.Errorf("%d DescribeGroups mixed classic and consumer groups", n)
	}
}

// TestOverviewEmptyShareGroup: a share group whose members left is listed
// Empty and still read: its start offsets (DescribeShareGroupOffsets, asked
// of the groups each kind describes) give its committed partitions and
// lag, as while it had members. Only a classic group listed Empty goes
// undescribed.
func TestOverviewEmptyShareGroup(t *testing.T) {
	tc := newTestCluster(t, false, fast848())
	tc.createTopic(t, "orders", 3)
	tc.produceEach(t, "orders", 3, 4, time.Now())
	tc.SetGroupConfigs("jobs-q", map[string]string{"share.auto.offset.reset": "earliest"})
	m := tc.kgoJoin(t, "share-a", kgo.ShareGroup("jobs-q"), kgo.ConsumeTopics("orders"))
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second}))
	defer o.Close()
	gs := waitShareGroupReading3(t, o)
	m.leave()
	waitFor(t, 20*time.Second, "the share group Empty, its start offsets still read", func() bool {
		gs = overviewOnce(t, o)
		return len(gs) == 1 && gs[0].State == model.StateEmpty
	}, func() string { return fmt.Sprintf("%+v", gs) })
	if g := gs[0]; g.Type != model.TypeShare || g.Committed != 3 || g.Partitions != 3 || g.Err != "" {
		t.Errorf("empty share group %+v: want type share, 3 partitions with start offsets", g)
	}
}

// waitShareGroupReading3 polls o until its one group, a share group with
// one member, reads the start offsets of its 3 partitions.
func waitShareGroupReading3(t *testing.T, o *judgedOverview) []model.GroupSummary {
	t.Helper()
	var gs []model.GroupSummary
	waitFor(t, 20*time.Second, "the share group reading its 3 partitions", func() bool {
		gs = overviewOnce(t, o)
		return len(gs) == 1 && gs[0].Members == 1 && gs[0].Committed == 3
	}, func() string { return fmt.Sprintf("%+v", gs) })
	return gs
}
