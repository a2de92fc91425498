package kafka

import (
	"context"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// spreadGroups sets up 1,000 groups on a 6-partition topic of 60 records
// a partition (a minute old), group i committed at offset i%50 on every
// partition: 50 distinct committed offsets a partition, every group with
// lag, so the overview reads the age of 300 records.
func spreadGroups(b testing.TB) *testCluster {
	tc := newTestCluster(b, true)
	tc.createTopic(b, "orders", 6)
	tc.produceEach(b, "orders", 6, 60, time.Now().Add(-time.Minute))
	names := groupNames(1000)
	for k := 0; k < 50; k++ {
		var gs []string
		for i := k; i < len(names); i += 50 {
			gs = append(gs, names[i])
		}
		off := int64(k)
		tc.commitGroups(b, gs, "orders", map[int32]int64{0: off, 1: off, 2: off, 3: off, 4: off, 5: off})
	}
	return tc
}

// BenchmarkOverviewCold1000 is `kgwatch --once` without --group on 1,000
// groups: a new watcher connects and reads everything once.
func BenchmarkOverviewCold1000(b *testing.B) {
	tc := newTestCluster(b, true)
	tc.createTopic(b, "orders", 6)
	tc.produceEach(b, "orders", 6, 5, time.Now())
	tc.commitGroups(b, groupNames(1000), "orders", map[int32]int64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 0})
	benchOverviewCold(b, tc)
}

// BenchmarkOverviewSpreadCold1000 and BenchmarkOverviewSpreadWarm1000: the
// overview of spreadGroups, by a new watcher and by one that has polled
// before.
func BenchmarkOverviewSpreadCold1000(b *testing.B) { benchOverviewCold(b, spreadGroups(b)) }

func BenchmarkOverviewSpreadWarm1000(b *testing.B) { benchOverviewWarm(b, spreadGroups(b), 1000) }

// benchOverviewWarm measures the overview of tc's n groups by a watcher
// that has polled once. The client's goroutines carry the label
// side=client, so -tagfocus side=client profiles them apart from the
// in-process brokers.
func benchOverviewWarm(b *testing.B, tc *testCluster, n int) {
	o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 30 * time.Second}))
	defer o.Close()
	if _, err := o.Overview(context.Background()); err != nil {
		b.Fatal(err)
	}
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pprof.Do(context.Background(), pprof.Labels("side", "client"), func(ctx context.Context) {
			gs, err := o.Overview(ctx)
			if err != nil || len(gs) != n {
				b.Fatalf("%d groups, %v", len(gs), err)
			}
		})
	}
	b.StopTimer()
	reportRequests(b, tc)
}

// BenchmarkOverview5000 is one overview of 5,000 groups (6 committed
// partitions each) by a warm watcher, what the overview TUI sends each
// interval.
func BenchmarkOverview5000(b *testing.B) {
	tc := newTestCluster(b, true)
	tc.createTopic(b, "orders", 6)
	tc.produceEach(b, "orders", 6, 5, time.Now())
	tc.commitGroups(b, groupNames(5000), "orders", map[int32]int64{0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 0})
	benchOverviewWarm(b, tc, 5000)
}
func benchOverviewCold(b *testing.B, tc *testCluster) {
	tc.resetCounts()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pprof.Do(context.Background(), pprof.Labels("side", "client"), func(ctx context.Context) {
			o := judge(NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 10 * time.Second}))
			gs, err := o.Overview(ctx)
			o.Close()
			if err != nil || len(gs) != 1000 {
				b.Fatalf("%d groups, %v", len(gs), err)
			}
		})
	}
	b.StopTimer()
	reportRequests(b, tc)
}

// BenchmarkOverviewDecode5000 is the decode floor of one overview poll of
// 5,000 groups (6 committed partitions each, on one topic, no members),
// what BenchmarkOverview5000's client must at least do with the answers:
// ListGroups, DescribeGroups and OffsetFetch (v9) for every group, as
// three coordinators answer them (here one answer each, 5,000 groups),
// decoded by kmsg, and each group's commits read into its parts
// (committed). No network, no model.
func BenchmarkOverviewDecode5000(b *testing.B) {
	names := groupNames(5000)
	lg := kmsg.NewPtrListGroupsResponse()
	lg.SetVersion(5)
	dg := kmsg.NewPtrDescribeGroupsResponse()
	dg.SetVersion(5)
	of := kmsg.NewPtrOffsetFetchResponse()
	of.SetVersion(maxOffsetFetch)
	for _, n := range names {
		g := kmsg.NewListGroupsResponseGroup()
		g.Group, g.ProtocolType, g.GroupState, g.GroupType = n, "consumer", "Empty", "classic"
		lg.Groups = append(lg.Groups, g)
		d := kmsg.NewDescribeGroupsResponseGroup()
		d.Group, d.State, d.ProtocolType = n, "Empty", "consumer"
		dg.Groups = append(dg.Groups, d)
		og := kmsg.NewOffsetFetchResponseGroup()
		og.Group = n
		ot := kmsg.NewOffsetFetchResponseGroupTopic()
		ot.Topic = "orders"
		for p := int32(0); p < 6; p++ {
			op := kmsg.NewOffsetFetchResponseGroupTopicPartition()
			op.Partition, op.Offset = p, int64(p+1)
			ot.Partitions = append(ot.Partitions, op)
		}
		og.Topics = []kmsg.OffsetFetchResponseGroupTopic{ot}
		of.Groups = append(of.Groups, og)
	}
	bodies := [][]byte{lg.AppendTo(nil), dg.AppendTo(nil), of.AppendTo(nil)}
	b.ReportAllocs()
	b.SetBytes(int64(len(bodies[0]) + len(bodies[1]) + len(bodies[2])))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, d, o := kmsg.NewPtrListGroupsResponse(), kmsg.NewPtrDescribeGroupsResponse(), kmsg.NewPtrOffsetFetchResponse()
		l.SetVersion(5)
		d.SetVersion(5)
		o.SetVersion(maxOffsetFetch)
		for k, r := range []kmsg.Response{l, d, o} {
			if err := r.ReadFrom(bodies[k]); err != nil {
				b.Fatal(err)
			}
		}
		n := 0
		for _, g := range o.Groups {
			c, _ := committed(g)
			n += len(c)
		}
		if len(l.Groups) != 5000 || len(d.Groups) != 5000 || n != 30000 {
			b.Fatalf("%d listed, %d described, %d commits", len(l.Groups), len(d.Groups), n)
		}
	}
}
