package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// TestRequestsAtTheNewestVersionBothSpeak: every request of a poll is a
// kmsg request sent at the highest version the broker (here Kafka 4.0's
// table) and kmsg both speak — kafka-go's own codecs stopped at ListOffsets
// v5, FindCoordinator v2 and Fetch v11 — except Fetch, which stops at v12
// (v13 names topics by id only).
func TestRequestsAtTheNewestVersionBothSpeak(t *testing.T) {
	tc := newTestCluster(t, true)
	const group, topic = "codec-workers", "orders"
	tc.createTopic(t, topic, 3)
	tc.produce(t, topic, 0, 10, time.Now().Add(-time.Minute))
	tc.commit(t, group, topic, map[int]int64{0: 2, 1: 0, 2: 0})
	w := newTestWatcher(t, tc, group)
	tc.resetCounts()
	s, err := w.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Partitions[0].LagAgeKnown {
		t.Fatalf("set-up: p0's lag age unknown: no Fetch was read")
	}
	v40 := kversion.V4_0_0()
	newest := func(req kmsg.Request) int16 {
		b, _ := v40.LookupMaxKeyVersion(req.Key())
		return min(b, req.MaxVersion())
	}
	for _, c := range []struct {
		name string
		want int16
	}{
		{"ListOffsets", newest(kmsg.NewPtrListOffsetsRequest())},
		{"FindCoordinator", newest(kmsg.NewPtrFindCoordinatorRequest())},
		{"OffsetFetch", maxOffsetFetch},
		{"Fetch", maxFetch},
	} {
		if got := tc.version(c.name); got != c.want {
			t.Errorf("%s sent at v%d, want v%d", c.name, got, c.want)
		}
	}
	if r := tc.refusals(); len(r) > 0 {
		t.Errorf("requests Kafka 4.0 refuses: %v", r)
	}
}
