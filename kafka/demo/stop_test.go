package demo

import (
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// A graceful stop finishes the order in hand and leaves: it takes about
// one processing time, however many orders wait.
func TestStopTakesOneOrderNotSeveral(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.ProcessTime = 400 * time.Millisecond
	cfg.Rate = 50 // orders always waiting
	d, rec := startDemo(t, cfg)
	waitTwoOwnAll(t, d, ownsAll)
	for _, id := range []string{"consumer-b", "consumer-a"} {
		c := consumerOf(t, d, id)
		waitFor(t, 10*time.Second, id+" processing", func() bool {
			d.mu.Lock()
			defer d.mu.Unlock()
			return c.phase == phaseProcessing
		})
		if err := d.Stop(id); err != nil {
			t.Fatal(err)
		}
		took := waitFor(t, 10*time.Second, id+" stopped", func() bool {
			return len(rec.find(model.EventDemoStopped, id)) == 1
		})
		t.Logf("stopping %s took %s", id, took)
		if limit := 2*cfg.ProcessTime + 300*time.Millisecond; took > limit {
			t.Fatalf("stopping %s took %s with %s per order (limit %s): it went on processing", id, took, cfg.ProcessTime, limit)
		}
	}
}
