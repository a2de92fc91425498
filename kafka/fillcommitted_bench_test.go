package kafka

import (
	"math/rand/v2"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// shuffledCommits is an OffsetFetch answer for a group committed on every
// partition of one n-partition topic, in no order (as kfake, and Kafka's
// OffsetFetch for all partitions, answer).
func shuffledCommits(n int) kmsg.OffsetFetchResponseGroup {
	g := kmsg.NewOffsetFetchResponseGroup()
	g.Group = "g"
	t := kmsg.NewOffsetFetchResponseGroupTopic()
	t.Topic = "wide"
	for _, p := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
		rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
		rp.Partition, rp.Offset, rp.LeaderEpoch = int32(p), int64(p), 3
		t.Partitions = append(t.Partitions, rp)
	}
	g.Topics = append(g.Topics, t)
	return g
}

// BenchmarkFillCommitted10000 puts a 10,000-partition OffsetFetch answer,
// in no order, into an observation reused from poll to poll, as a warm
// poll does.
func BenchmarkFillCommitted10000(b *testing.B) {
	g := shuffledCommits(10000)
	var obs model.Observation
	fillCommitted(g, &obs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obs.Clear()
		fillCommitted(g, &obs)
	}
}
