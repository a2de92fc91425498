package kafka

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// A watcher that keeps its ListOffsets requests' arrays from read to read
// reads what a fresh one reads, and asks each leader for exactly the
// partitions it is given, whatever they are: reads of other sizes, other
// topics, in other orders, with other log starts wanted, and after a read
// that failed. The arrays are the last read's when they are big enough.
func TestLogOffsetsForKeepsItsRequestsRight(t *testing.T) {
	tc := newTestCluster(t, false)
	topics := []string{"a", "b", "c", "d"}
	for i, topic := range topics {
		tc.createTopic(t, topic, 3+i*2)
		for p := range 3 + i*2 {
			tc.produce(t, topic, p, 1+(i+p)%4, time.Now())
		}
	}
	var mu sync.Mutex
	var asked []askedPart
	tc.onListOffsets(&mu, func(topic string, rp kmsg.ListOffsetsRequestTopicPartition) {
		asked = append(asked, askedPart{model.TopicPartition{Topic: topic, Partition: rp.Partition}, rp.Timestamp})
	})
	ctx := context.Background()
	kept := newTestWatcher(t, tc, "g")
	if err := kept.refreshMetadata(ctx, mustBrokers(t, kept)[sortedKeys(mustBrokers(t, kept))[0]], topics); err != nil {
		t.Fatal(err)
	}
	var all []model.TopicPartition
	for i, topic := range topics {
		for p := range 3 + i*2 {
			all = append(all, model.TopicPartition{Topic: topic, Partition: int32(p)})
		}
	}
	rng := rand.New(rand.NewPCG(19, 3))
	for read := range 60 {
		tps := slices.Clone(all)
		rng.Shuffle(len(tps), func(i, j int) { tps[i], tps[j] = tps[j], tps[i] })
		tps = tps[:rng.IntN(len(tps)+1)]
		if rng.IntN(3) > 0 {
			slices.SortFunc(tps, model.CompareTP) // as the watchers ask them, mostly
		}
		starts := map[model.TopicPartition]bool{}
		for _, tp := range tps {
			starts[tp] = rng.IntN(3) == 0
		}
		need := func(tp model.TopicPartition) bool { return starts[tp] }
		for p := range 2 {
			tc.produce(t, topics[rng.IntN(len(topics))], p, 1, time.Now())
		}

		fresh := newTestWatcher(t, tc, "g")
		freshBrokers := mustBrokers(t, fresh)
		if err := fresh.refreshMetadata(ctx, freshBrokers[sortedKeys(freshBrokers)[0]], topics); err != nil {
			t.Fatal(err)
		}
		want := fresh.logOffsetsFor(ctx, freshBrokers, slices.Values(tps), len(tps), need)
		mu.Lock()
		asked = nil
		mu.Unlock()
		callCtx := ctx
		if read%10 == 9 { // a read given up before it is sent
			c, cancel := context.WithCancel(ctx)
			cancel()
			callCtx = c
		}
		got := kept.logOffsetsFor(callCtx, mustBrokers(t, kept), slices.Values(tps), len(tps), need)
		fresh.Close()
		if callCtx != ctx {
			if len(got.failed) == 0 && len(tps) > 0 {
				t.Fatalf("read %d: a cancelled read failed nothing", read)
			}
			for _, a := range kept.logBuf.asks {
				if a.endBuf.parts != nil || a.startBuf.parts != nil {
					t.Fatalf("read %d: a failed read's request arrays were kept", read)
				}
			}
			continue
		}
		if !slices.Equal(got.tps, want.tps) || !slices.Equal(got.offsets, want.offsets) {
			t.Fatalf("read %d of %v: kept watcher read %v, a fresh one %v", read, tps, got.offsets, want.offsets)
		}
		mu.Lock()
		var wantAsked []askedPart
		for _, tp := range tps {
			wantAsked = append(wantAsked, askedPart{tp, latest})
			if starts[tp] {
				wantAsked = append(wantAsked, askedPart{tp, earliest})
			}
		}
		sortAsked(wantAsked)
		gotAsked := slices.Clone(asked)
		sortAsked(gotAsked)
		mu.Unlock()
		if !slices.Equal(gotAsked, wantAsked) {
			t.Fatalf("read %d: asked %v, want %v", read, gotAsked, wantAsked)
		}
	}
	// The next read of as many partitions uses the same arrays.
	brokers := mustBrokers(t, kept)
	kept.logOffsetsFor(ctx, brokers, slices.Values(all), len(all), nil)
	before := map[int32]*kmsg.ListOffsetsRequestTopicPartition{}
	for _, a := range kept.logBuf.asks {
		before[a.leader] = &a.endBuf.parts[:1][0]
	}
	kept.logOffsetsFor(ctx, brokers, slices.Values(all), len(all), nil)
	for _, a := range kept.logBuf.asks {
		if before[a.leader] != &a.endBuf.parts[:1][0] {
			t.Errorf("leader %d: a read of as many partitions made its request arrays afresh", a.leader)
		}
	}
}

type askedPart struct {
	tp model.TopicPartition
	ts int64
}

func sortAsked(a []askedPart) {
	slices.SortFunc(a, func(x, y askedPart) int {
		if c := model.CompareTP(x.tp, y.tp); c != 0 {
			return c
		}
		return int(x.ts - y.ts)
	})
}

func mustBrokers(t *testing.T, w *Watcher) map[int32]broker {
	t.Helper()
	b, err := w.brokers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A read given up before it is sent sends nothing: kafka-go's transport,
// its pool ready, chooses at random between sending and a done context.
func TestGivenUpReadSendsNothing(t *testing.T) {
	tc := newTestCluster(t, false)
	tc.createTopic(t, "a", 3)
	var mu sync.Mutex
	sent := 0
	tc.onListOffsets(&mu, func(string, kmsg.ListOffsetsRequestTopicPartition) { sent++ })
	w := newTestWatcher(t, tc, "g")
	ctx := context.Background()
	brokers := mustBrokers(t, w)
	if err := w.refreshMetadata(ctx, brokers[sortedKeys(brokers)[0]], []string{"a"}); err != nil {
		t.Fatal(err)
	}
	tps := []model.TopicPartition{{Topic: "a", Partition: 0}, {Topic: "a", Partition: 1}, {Topic: "a", Partition: 2}}
	w.logOffsetsFor(ctx, brokers, slices.Values(tps), len(tps), nil) // the pools ready
	mu.Lock()
	sent = 0
	mu.Unlock()
	done, cancel := context.WithCancel(ctx)
	cancel()
	for range 50 {
		if got := w.logOffsetsFor(done, brokers, slices.Values(tps), len(tps), nil); len(got.failed) == 0 {
			t.Fatal("a read given up failed nothing")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if sent > 0 {
		t.Errorf("50 reads given up sent %d partitions' requests", sent)
	}
}
