package cli

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Go collects once the heap has grown by GOGC percent (100) of what the
// last collection left live, whatever the size: a watch of 100,000
// partitions (~170 MB live) let its heap reach 340 MB between
// collections, though its polls make 17 MB of garbage a second. Past a
// size, that growth buys collections it does not need and costs the
// memory of a second copy of the data. kgwatch lets the heap grow, beyond
// what is live, by HeapHeadroom or HeadroomSeconds of what it allocates,
// whichever is more, and never by more than GOGC=100 would: a watch of
// 10,000 partitions or of 5,000 groups (under 32 MB live) is collected as
// before; one of 100,000 partitions keeps its resident memory at 230-250
// MB, where it was 410 MB, for a collection every 2 s instead of every
// 10 s (side by side, 0.8-1.7 points of a core more; the collector
// does not scan the largest part of the data, the partitions' history
// states).
const (
	HeapHeadroom    = 32 << 20
	HeadroomSeconds = 2
	// minGCPercent bounds the percent from below: a live heap far past
	// the headroom is still given a quarter of itself.
	minGCPercent = 25
)

// GCPercent is the GOGC that lets a heap of live bytes grow by
// HeapHeadroom or HeadroomSeconds of allocation at rate bytes a second,
// whichever is more: between minGCPercent and 100.
func GCPercent(live, rate uint64) int {
	if live == 0 {
		return 100
	}
	room := max(uint64(HeapHeadroom), HeadroomSeconds*rate)
	return int(min(max(room*100/live, minGCPercent), 100))
}

// heapBudget follows the live heap and the allocation rate, poll after
// poll of runtime/metrics, and says when GOGC should change.
type heapBudget struct {
	at      time.Time // the last reading, zero before the first
	allocs  uint64    // cumulative allocation at it
	rate    float64   // smoothed allocation rate, bytes a second
	percent int       // the GOGC set, 100 until changed
}

// budgetEvery is how often the live heap is read: soon enough after a
// collection that the next one comes at the budget, not at GOGC=100's
// goal (the first poll of 100,000 partitions grows the heap from nothing
// to 170 MB live, collecting as it goes: read every second, the
// high-water mark was 368 MB), for a few microseconds a reading.
const budgetEvery = 250 * time.Millisecond

// rateSmoothing is the weight of a new reading in the smoothed rate: it
// follows a change of the allocation rate within ~10 readings, and
// forgets a burst (a cold poll, a replay's seek) within ~30.
const rateSmoothing = 0.2

// observe takes a reading at at (live heap, cumulative allocation) and
// returns the GOGC to set, ok false when it stays as it is. A percent
// moves only when off by more than 5 points, so a heap that breathes
// does not set it every second.
func (b *heapBudget) observe(at time.Time, live, allocs uint64) (percent int, ok bool) {
	if b.percent == 0 {
		b.percent = 100
	}
	if !b.at.IsZero() && at.After(b.at) && allocs >= b.allocs {
		r := float64(allocs-b.allocs) / at.Sub(b.at).Seconds()
		if b.rate == 0 {
			b.rate = r
		} else {
			b.rate += rateSmoothing * (r - b.rate)
		}
	}
	b.at, b.allocs = at, allocs
	p := GCPercent(live, uint64(b.rate))
	if d := p - b.percent; d > 5 || d < -5 || (p == 100 && b.percent != 100) {
		b.percent = p
		return p, true
	}
	return 0, false
}

// budgeted reports whether the collector is kgwatch's to tune: neither
// GOGC nor GOMEMLIMIT is set.
func budgeted() bool { return os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" }

// HeapBudget keeps GOGC at GCPercent of the live heap, read every
// budgetEvery, until stop is called; stop waits for the last reading and
// puts back the GOGC there was (a quick run, such as --version, leaves
// the collector as it found it), and may be called more than once.
// Budgets started together (runs of kgwatch in one process, as its tests
// make) put it back once the last stops. It leaves the collector alone
// when GOGC or GOMEMLIMIT is set: the user's choice stands.
func HeapBudget() (stop func()) {
	if !budgeted() {
		return func() {}
	}
	budgets.Lock()
	if budgets.running == 0 {
		// Until the first reading the heap is collected as a large one
		// is: the cold first poll of 100,000 partitions makes most of
		// its garbage before a reading says how large the heap is.
		budgets.was = debug.SetGCPercent(minGCPercent)
	}
	budgets.running++
	budgets.Unlock()
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(budgetEvery)
		defer t.Stop()
		samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/allocs:bytes"}}
		b := heapBudget{percent: minGCPercent}
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				metrics.Read(samples)
				if samples[0].Value.Kind() != metrics.KindUint64 || samples[1].Value.Kind() != metrics.KindUint64 {
					return // a runtime without them: nothing to follow
				}
				if p, ok := b.observe(now, samples[0].Value.Uint64(), samples[1].Value.Uint64()); ok {
					debug.SetGCPercent(p)
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
			budgets.Lock()
			defer budgets.Unlock()
			if budgets.running--; budgets.running == 0 {
				debug.SetGCPercent(budgets.was)
			}
		})
	}
}

// budgets counts the budgets running, and keeps the GOGC there was
// before the first.
var budgets struct {
	sync.Mutex
	running int
	was     int
}
