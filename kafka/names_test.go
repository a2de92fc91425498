package kafka

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A name of MaxGroupNameBytes reaches a real broker and back; one byte
// more is refused before any request, saying why.
func TestCheckGroupName(t *testing.T) {
	longest := strings.Repeat("g", MaxGroupNameBytes)
	if err := CheckGroupName(longest); err != nil {
		t.Fatalf("the longest name Kafka carries was refused: %v", err)
	}
	err := CheckGroupName(longest + "g")
	if err == nil || !strings.Contains(err.Error(), "at most 32767 bytes") {
		t.Fatalf("a name of 32768 bytes: %v", err)
	}
	tc := newTestCluster(t, false)
	w := NewWatcher(Config{Brokers: tc.addrs, Group: longest, Timeout: 5 * time.Second})
	defer w.Close()
	if _, err := w.Poll(context.Background()); err != nil {
		t.Fatalf("polling a group of the longest name: %v", err)
	}
}
