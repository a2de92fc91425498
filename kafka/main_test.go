package kafka

import (
	"os"
	"testing"
)

// TestMain runs every test with pooled response bodies overwritten once
// decoded (beforeReuse): an answer that kept a slice of its body, and so
// must not be pooled, then reads garbage and fails the test that reads it.
func TestMain(m *testing.M) {
	beforeReuse = func(b []byte) {
		for i := range b {
			b[i] = 0xa5
		}
	}
	os.Exit(m.Run())
}
