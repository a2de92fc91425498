package kafka

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BenchmarkDecodeFloor10000 is the floor of a warm poll of one group of
// 10,000 partitions on 3 leaders, 10 members, every partition lagging (as
// the live TUI's fixture is): decoding the answers a poll cannot do
// without — DescribeGroups, OffsetFetch, ListOffsets latest per leader and
// the lag-age Fetch per leader — with kmsg, and nothing else: no request
// built, no byte sent, no model. Whatever a poll costs above this is
// kgwatch's own work (and the round trips'). The answers are encoded once,
// at the versions a Kafka 3.x broker answers with.
func BenchmarkDecodeFloor10000(b *testing.B) {
	const parts, leaders, members = 10_000, 3, 10
	type answer struct {
		name string
		raw  []byte
		new  func() kmsg.Response
	}
	var as []answer
	add := func(name string, r kmsg.Response, v int16) {
		r.SetVersion(v)
		as = append(as, answer{name, r.AppendTo(nil), func() kmsg.Response { x := kmsg.ResponseForKey(r.Key()); x.SetVersion(v); return x }})
	}

	dg := kmsg.NewPtrDescribeGroupsResponse()
	g := kmsg.NewDescribeGroupsResponseGroup()
	g.Group, g.State, g.ProtocolType, g.Protocol = "big-workers", "Stable", "consumer", "cooperative-sticky"
	for m := range members {
		gm := kmsg.NewDescribeGroupsResponseGroupMember()
		gm.MemberID = fmt.Sprintf("worker-%d-5f0c3c2e-4a53-4a9e-9d2b-1b3a2f3c4d5e", m)
		gm.ClientID, gm.ClientHost = fmt.Sprintf("worker-%d", m), "/10.0.0.1"
		a := kmsg.NewConsumerMemberAssignment()
		t := kmsg.NewConsumerMemberAssignmentTopic()
		t.Topic = "big"
		for p := m; p < parts; p += members {
			t.Partitions = append(t.Partitions, int32(p))
		}
		a.Topics = append(a.Topics, t)
		gm.MemberAssignment = a.AppendTo(nil)
		meta := kmsg.NewConsumerMemberMetadata()
		meta.Topics = []string{"big"}
		gm.ProtocolMetadata = meta.AppendTo(nil)
		g.Members = append(g.Members, gm)
	}
	dg.Groups = append(dg.Groups, g)
	add("DescribeGroups", dg, 5)

	of := kmsg.NewPtrOffsetFetchResponse()
	og := kmsg.NewOffsetFetchResponseGroup()
	og.Group = "big-workers"
	ot := kmsg.NewOffsetFetchResponseGroupTopic()
	ot.Topic = "big"
	for p := range parts {
		op := kmsg.NewOffsetFetchResponseGroupTopicPartition()
		op.Partition, op.Offset, op.LeaderEpoch = int32(p), int64(1_000_000+p), 3
		ot.Partitions = append(ot.Partitions, op)
	}
	og.Topics = append(og.Topics, ot)
	of.Groups = append(of.Groups, og)
	add("OffsetFetch", of, 8)

	for l := range leaders {
		lo := kmsg.NewPtrListOffsetsResponse()
		lt := kmsg.NewListOffsetsResponseTopic()
		lt.Topic = "big"
		for p := l; p < parts; p += leaders {
			lp := kmsg.NewListOffsetsResponseTopicPartition()
			lp.Partition, lp.Offset, lp.LeaderEpoch, lp.Timestamp = int32(p), int64(1_000_010+p), 3, -1
			lt.Partitions = append(lt.Partitions, lp)
		}
		lo.Topics = append(lo.Topics, lt)
		add(fmt.Sprintf("ListOffsets/leader%d", l), lo, 7)

		fe := kmsg.NewPtrFetchResponse()
		ft := kmsg.NewFetchResponseTopic()
		ft.Topic = "big"
		batch := make([]byte, 61+20) // one batch header and one small record's worth of bytes
		for p := l; p < parts; p += leaders {
			fp := kmsg.NewFetchResponseTopicPartition()
			fp.Partition, fp.HighWatermark, fp.LastStableOffset, fp.LogStartOffset = int32(p), int64(1_000_010+p), int64(1_000_010+p), 0
			fp.RecordBatches = batch
			ft.Partitions = append(ft.Partitions, fp)
		}
		fe.Topics = append(fe.Topics, ft)
		add(fmt.Sprintf("Fetch/leader%d", l), fe, 12)
	}

	decode := func(b *testing.B, as []answer) {
		var total int
		for _, a := range as {
			total += len(a.raw)
		}
		b.ReportAllocs()
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, a := range as {
				if err := a.new().ReadFrom(a.raw); err != nil {
					b.Fatalf("%s: %v", a.name, err)
				}
			}
		}
	}
	b.Run("all", func(b *testing.B) { decode(b, as) })
	for _, kind := range []string{"DescribeGroups", "OffsetFetch", "ListOffsets", "Fetch"} {
		var of []answer
		for _, a := range as {
			if strings.HasPrefix(a.name, kind) {
				of = append(of, a)
			}
		}
		b.Run(kind, func(b *testing.B) { decode(b, of) })
	}
}
