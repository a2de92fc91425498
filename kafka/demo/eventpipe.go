package demo

import (
	"sync/atomic"

	"github.com/kgwatch/kgwatch/model"
)

// EventPipe carries the demo's events (Start's emit) to a screen. Emit
// never blocks: when the buffer is full the oldest event is dropped (and
// counted), so a stalled screen can never stall a demo consumer.
type EventPipe struct {
	ch      chan model.Event
	dropped atomic.Int64
}

// NewEventPipe returns a pipe that holds up to n events.
func NewEventPipe(n int) *EventPipe { return &EventPipe{ch: make(chan model.Event, n)} }

// Events is the pipe's receiving end.
func (p *EventPipe) Events() <-chan model.Event { return p.ch }

// Emit queues e, dropping the oldest event when the pipe is full.
func (p *EventPipe) Emit(e model.Event) {
	for {
		select {
		case p.ch <- e:
			return
		default:
		}
		select {
		case <-p.ch:
			p.dropped.Add(1)
		default:
		}
	}
}
