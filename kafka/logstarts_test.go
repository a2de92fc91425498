package kafka

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// TestStartCacheNeed: a log start is read again when it was never read,
// when it is logStartEvery old (or the clock went back), when the commit
// is in the oldest tenth of the log or below, and after the record at the
// commit was found deleted; not otherwise. On a simulated clock, across
// ages and commits (start 50, end 200: the oldest tenth ends at 65).
func TestStartCacheNeed(t *testing.T) {
	// Partition numbers a topic's slice holds, and those it does not (a
	// broken broker's: negative, or beyond maxSlot).
	for _, tp := range []model.TopicPartition{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 9}, {Topic: "t", Partition: maxSlot + 7}, {Topic: "t", Partition: -1}} {
		startCacheNeed(t, tp)
	}
}

func startCacheNeed(t *testing.T, tp model.TopicPartition) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, age := range []time.Duration{0, time.Second, logStartEvery - time.Millisecond, logStartEvery, time.Hour, -time.Second} {
		for _, c := range []struct {
			committed int64
			has, gone bool
		}{{100, true, false}, {66, true, false}, {65, true, false}, {50, true, false}, {49, true, false}, {0, false, false}, {100, true, true}} {
			var sc startCache
			if !sc.need(tp, t0, model.NoOffset, false) {
				t.Fatalf("%v: a start never read is not asked", tp)
			}
			sc.fill([]model.TopicPartition{tp}, []model.PartitionOffsets{{LogStart: 50, LogEnd: 200}}, t0)
			if c.gone {
				obs := model.Observation{}.With(model.Readings{OldestGone: map[model.TopicPartition]bool{tp: true}})
				sc.sawGone(&obs)
			}
			want := age >= logStartEvery || age < 0 || c.has && c.committed <= 65 || c.gone
			if got := sc.need(tp, t0.Add(age), c.committed, c.has); got != want {
				t.Errorf("%v: age %v commit %d (has %v, gone %v): need %v, want %v", tp, age, c.committed, c.has, c.gone, got, want)
			}
		}
	}
	var empty startCache
	if !empty.need(tp, t0, 100, true) {
		t.Error("a start never read is not asked")
	}
}

// TestWarmPollAsksLogStartsOnlyWhereTheyMatter: after the first poll a
// warm poll sends one ListOffsets per leader (the log ends) and keeps
// showing the starts it read; a commit in the oldest tenth of its log has
// its start asked every poll; every start is asked again logStartEvery
// later (simulated clock), and one that retention moved then shows.
func TestWarmPollAsksLogStartsOnlyWhereTheyMatter(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "start-workers", "orders"
	tc.createTopic(t, topic, 3)
	for p := range 3 {
		tc.produce(t, topic, p, 20, time.Now().Add(-time.Minute))
	}
	tc.commit(t, group, topic, map[int]int64{0: 10, 1: 10, 2: 10})
	var mu sync.Mutex
	var earliestAsked []int32
	tc.onListOffsets(&mu, func(_ string, rp kmsg.ListOffsetsRequestTopicPartition) {
		if rp.Timestamp == earliest {
			earliestAsked = append(earliestAsked, rp.Partition)
		}
	})
	w := newTestWatcher(t, tc, group)
	now := time.Unix(1_700_000_000, 0)
	w.clock = func() time.Time { return now }
	poll := func(step time.Duration) (model.Snapshot, []int32) {
		t.Helper()
		now = now.Add(step)
		mu.Lock()
		earliestAsked = nil
		mu.Unlock()
		tc.resetCounts()
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		asked := slices.Clone(earliestAsked)
		slices.Sort(asked)
		return s, asked
	}
	starts := func(s model.Snapshot) map[int32]int64 {
		out := map[int32]int64{}
		for _, p := range s.Partitions {
			out[p.Partition] = p.LogStart
		}
		return out
	}
	if _, asked := poll(0); len(asked) != 3 {
		t.Fatalf("first poll asked the start of %v, want all 3 partitions", asked)
	}
	leaders := tc.requestCounts()["ListOffsets"] / 2
	s, asked := poll(time.Second)
	if len(asked) != 0 {
		t.Errorf("warm poll asked the start of %v, want none", asked)
	}
	if n := tc.requestCounts()["ListOffsets"]; n != leaders {
		t.Errorf("warm poll sent %d ListOffsets, want %d (one per leader)", n, leaders)
	}
	if got := starts(s); !maps.Equal(got, map[int32]int64{0: 0, 1: 0, 2: 0}) {
		t.Errorf("warm poll's starts %v, want the 0s read before", got)
	}
	// p2's commit falls into the oldest tenth of its log (0..20).
	tc.commit(t, group, topic, map[int]int64{0: 10, 1: 10, 2: 1})
	for range 2 {
		if _, asked := poll(time.Second); !slices.Equal(asked, []int32{2}) {
			t.Errorf("commit near the start: starts asked %v, want [2]", asked)
		}
	}
	// Retention passes p1's commit; its start is read again within
	// logStartEvery, and from then on at each poll (commit below it).
	tc.deleteRecords(t, topic, 1, 15)
	s, asked = poll(logStartEvery)
	if len(asked) != 3 {
		t.Errorf("logStartEvery later, starts asked %v, want all 3", asked)
	}
	if got := starts(s); !maps.Equal(got, map[int32]int64{0: 0, 1: 15, 2: 0}) {
		t.Errorf("starts %v after retention moved p1's to 15", got)
	}
	if _, asked := poll(time.Second); !slices.Equal(asked, []int32{1, 2}) {
		t.Errorf("commits at or near the start: starts asked %v, want [1 2]", asked)
	}
}

// TestStartReadIsSmall: a log start's slot, kept for every partition the
// group reads (100,000 at the largest), is 32 bytes and holds no
// pointer, so the collector does not scan the slots.
func TestStartReadIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(startRead{}); n > 32 {
		t.Errorf("startRead is %d bytes, want at most 32", n)
	}
	for f := range reflect.TypeFor[startRead]().Fields() {
		switch f.Type.Kind() {
		case reflect.Int64, reflect.Bool:
		default:
			t.Errorf("startRead.%s is a %s: it may hold a pointer", f.Name, f.Type)
		}
	}
}

// TestLagSlotIsSmall: a partition's lag-age slot, kept for every
// partition with lag, is 56 bytes (its record's time in milliseconds, not
// a time.Time; it took 80).
func TestLagSlotIsSmall(t *testing.T) {
	if n := unsafe.Sizeof(stamp{}); n > 40 {
		t.Errorf("stamp is %d bytes, want at most 40", n)
	}
	if n := unsafe.Sizeof(lagSlot{}); n > 56 {
		t.Errorf("lagSlot is %d bytes, want at most 56", n)
	}
}
