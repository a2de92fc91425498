package demo

import (
	"strconv"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

func TestEventPipeNeverBlocks(t *testing.T) {
	p := NewEventPipe(4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 10 {
			p.Emit(model.Event{Detail: strconv.Itoa(i)})
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("emit blocked on a full pipe")
	}
	if got := p.dropped.Load(); got != 6 {
		t.Errorf("dropped %d events, want 6", got)
	}
	// The oldest went; the newest four remain, in order.
	for i := 6; i < 10; i++ {
		if e := <-p.Events(); e.Detail != strconv.Itoa(i) {
			t.Fatalf("event %q, want %d", e.Detail, i)
		}
	}
}
