package kafka

import (
	"math/rand/v2"
	"reflect"
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
	var sc commitStage
	fillCommitted(g, &obs, &sc)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obs.Clear()
		fillCommitted(g, &obs, &sc)
	}
}

// BenchmarkFillCommittedCold10000 is FillCommitted10000 with the caches
// emptied before each fill (64 MB walked), as a live poll finds them:
// the UI, the pipeline and three other answers ran since the last one.
func BenchmarkFillCommittedCold10000(b *testing.B) {
	g := shuffledCommits(10000)
	var obs model.Observation
	var sc commitStage
	fillCommitted(g, &obs, &sc)
	evict := make([]byte, 64<<20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for k := 0; k < len(evict); k += 64 {
			evict[k]++
		}
		obs.Clear()
		for k := range obs.Topics[0].Partitions {
			_ = obs.Topics[0].Partitions[k].Partition
		}
		for k := 0; k < len(evict); k += 64 {
			evict[k]++
		}
		b.StartTimer()
		fillCommitted(g, &obs, &sc)
	}
}

// fillCommitted through the stage fills the observation as the answer's
// order does: random answers of large topics, shuffled, with duplicates
// (the last offset wins, an epoch sticks), errors, epochs unknown, gaps,
// negative and far numbers, into fresh and reused observations.
func TestFillCommittedStagedAsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var sc commitStage
	var staged, reused model.Observation
	filled := 0 // topics the stage filled
	for trial := 0; trial < 200; trial++ {
		g := kmsg.NewOffsetFetchResponseGroup()
		for ti := 0; ti < 1+r.IntN(3); ti++ {
			tt := kmsg.NewOffsetFetchResponseGroupTopic()
			tt.Topic = []string{"a", "b", "c", "d"}[ti]
			n := []int{10, stageFrom, 300, 2000}[r.IntN(4)]
			// Most topics suit the stage; some name a negative or a far
			// partition, which it leaves to the answer's order.
			odd := r.IntN(6)
			for _, p := range r.Perm(n) {
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = int32(p), int64(r.IntN(5)-1), int32(r.IntN(4)-1)
				switch r.IntN(40) {
				case 0:
					rp.ErrorCode = 16 // NOT_COORDINATOR
				case 1:
					rp.Partition = int32(n + r.IntN(n+10)) // a gap
				case 2:
					switch odd {
					case 0:
						rp.Partition = -1
					case 1:
						rp.Partition = int32(3*n + 2000)
					}
				case 3, 4:
					tt.Partitions = append(tt.Partitions, rp) // a duplicate
					rp.Offset, rp.LeaderEpoch = int64(r.IntN(9)), int32(r.IntN(3)-1)
				}
				tt.Partitions = append(tt.Partitions, rp)
			}
			g.Topics = append(g.Topics, tt)
		}
		var want model.Observation
		for i := range g.Topics {
			fillTopicCommits(&g.Topics[i], &want)
			if len(g.Topics[i].Partitions) >= stageFrom && new(commitStage).fill(&g.Topics[i], &model.Observation{}) {
				filled++
			}
		}
		staged = model.Observation{}
		fillCommitted(g, &staged, &sc)
		reused.Clear()
		fillCommitted(g, &reused, &sc)
		for _, got := range []*model.Observation{&staged, &reused} {
			for tp, w := range want.All() {
				if p := got.Find(tp); p == nil || !reflect.DeepEqual(*p, *w) {
					t.Fatalf("trial %d: %v staged %+v, in order %+v", trial, tp, p, w)
				}
			}
			for tp, p := range got.All() {
				if w := want.Find(tp); w == nil || !reflect.DeepEqual(*p, *w) {
					t.Fatalf("trial %d: %v staged %+v, in order %+v", trial, tp, p, w)
				}
			}
		}
	}
	if filled < 100 {
		t.Fatalf("the stage filled %d topics of the answers: the test hardly tries it", filled)
	}
}
