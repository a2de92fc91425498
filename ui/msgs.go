package ui

import (
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// pollMsg carries the result of one poll. Seq is the poll loop's sequence
// number when the poll started; a result whose Seq is no longer current is
// stale and dropped.
type pollMsg struct {
	Seq  uint64
	Snap model.Snapshot
	Err  error
}

// tickMsg asks for the next poll. Like pollMsg it carries the loop's
// sequence number, so a stale tick never starts a second loop.
type tickMsg struct {
	Seq uint64
	// Remaining is the wait still to go before polling. Long waits are cut
	// into one-second ticks so relative times on screen stay fresh.
	Remaining time.Duration
}
