package kafka

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestOneApiVersionsPerConnection: a cold poll sends one ApiVersions per
// connection, kafka-go's handshake, whose answer the kmsg requests use:
// they still go at the broker's highest versions (OffsetFetch v9,
// DescribeGroups v5 on kfake), which kafka-go's own codecs could not tell.
func TestOneApiVersionsPerConnection(t *testing.T) {
	t.Parallel()
	tc := newTestCluster(t, false)
	tc.createTopic(t, "orders", 6)
	tc.produceEach(t, "orders", 6, 4, time.Now())
	tc.commit(t, "g", "orders", map[int]int64{0: 1, 1: 2, 2: 3})
	tap := &wireTap{}
	w := newTestWatcher(t, tc, "g")
	w.dial = tap.dial
	tc.resetCounts()
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	versions := 0
	for _, k := range tap.sent() {
		if k == int16(kmsg.ApiVersions) {
			versions++
		}
	}
	tap.mu.Lock()
	conns := len(tap.conns)
	tap.mu.Unlock()
	if versions != conns {
		t.Errorf("%d ApiVersions on %d connections, want one each", versions, conns)
	}
	if o, d := tc.version("OffsetFetch"), tc.version("DescribeGroups"); o != maxOffsetFetch || d < 5 {
		t.Errorf("OffsetFetch v%d, DescribeGroups v%d: want v%d and v5 or above", o, d, maxOffsetFetch)
	}
}
