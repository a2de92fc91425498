package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// produced is a partition written at rate records a second from t=0: the
// record at offset o was written at o/rate seconds.
type produced struct{ rate float64 }

func (p produced) end(at time.Duration) int64 { return int64(p.rate * at.Seconds()) }

func (p produced) writtenAt(offset int64) time.Time {
	return ht0.Add(time.Duration(float64(offset) / p.rate * float64(time.Second)))
}

// agedSnap is one partition at poll time at: committed c, log end from the
// producer, and the age of the oldest unprocessed record known, as the
// watcher reads it.
func agedSnap(at time.Duration, p produced, c int64) Snapshot {
	tp := TopicPartition{Topic: "orders", Partition: 0}
	o := Observation{
		TakenAt:         ht0.Add(at),
		Group:           Group{ID: "g", State: StateStable},
		Members:         []Member{{MemberID: "m", ClientID: "consumer-a", Partitions: []TopicPartition{tp}}},
		Committed:       map[TopicPartition]int64{tp: c},
		Offsets:         map[TopicPartition]PartitionOffsets{tp: {LogStart: 0, LogEnd: p.end(at)}},
		OldestTimestamp: map[TopicPartition]time.Time{},
	}
	if c < p.end(at) {
		o.OldestTimestamp[tp] = p.writtenAt(c)
	}
	return NewSnapshot(o)
}

// A partition written 1,000/s and consumed 30/s turns non-OK within 5s
// of falling behind, polled every second.
func TestFallingBehindFlagsWithinSeconds(t *testing.T) {
	h := NewHistory(HistoryOptions{})
	p := produced{rate: 1000}
	// Caught up for a minute, then the consumer slows to 30/s at 60s.
	var flagged time.Duration = -1
	var c int64
	for at := time.Duration(0); at <= 70*time.Second; at += time.Second {
		if at <= 60*time.Second {
			c = p.end(at)
		} else {
			c += 30
		}
		s := agedSnap(at, p, c)
		h.Annotate(&s)
		st := s.Partitions[0].Status
		if at <= 60*time.Second && st != StatusOK {
			t.Fatalf("at %s, caught up: %s", at, st)
		}
		if at > 60*time.Second && st != StatusOK && flagged < 0 {
			flagged = at - 60*time.Second
		}
	}
	if flagged < 0 || flagged > 5*time.Second {
		t.Fatalf("1,000/s produced against 30/s consumed flagged after %s, want within 5s", flagged)
	}
}

// A consumer that keeps up with 1,000/s, committing every few hundred
// milliseconds with jitter in what each poll sees, stays OK over five
// minutes of polls; and so do ones that commit every 5s (the Java
// client's auto-commit) or 8s, whose lag is a sawtooth of 5,000 or 8,000:
// their commits stop for longer than the short window, but no longer than
// they always do.
func TestKeepingUpNeverFlaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name        string
		commitEvery time.Duration
	}{
		{"commits every 200ms", 200 * time.Millisecond},
		{"auto-commit every 5s", 5 * time.Second},
		{"commits every 8s (a batch consumer)", 8 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistory(HistoryOptions{})
			p := produced{rate: 1000}
			at := time.Duration(0)
			for at < 5*time.Minute {
				// Polls every ~1s, ±300ms.
				at += 700*time.Millisecond + time.Duration(rng.IntN(600))*time.Millisecond
				// The last commit: processed up to a moment 0–300ms before
				// the commit, at the last multiple of commitEvery.
				commitAt := at.Truncate(tt.commitEvery)
				n := int64(commitAt / tt.commitEvery)
				c := p.end(commitAt - time.Duration(n*7919%300)*time.Millisecond)
				s := agedSnap(at, p, max(c, 0))
				h.Annotate(&s)
				if st := s.Partitions[0].Status; st != StatusOK {
					t.Fatalf("at %s: %s (lag %d, age %s) for a consumer keeping up", at, st, s.Partitions[0].Lag, s.Partitions[0].LagAge)
				}
			}
		})
	}
}

// After its consumer dies (no more commits), a partition whose records
// keep coming turns non-OK well before a 10s session timeout ends, with
// the lag age known or not.
func TestDeadMemberFlagsBeforeSessionTimeout(t *testing.T) {
	for _, ages := range []bool{true, false} {
		h := NewHistory(HistoryOptions{})
		p := produced{rate: 5} // the demo's producer, on one partition
		var flagged time.Duration = -1
		var c int64
		for at := time.Duration(0); at <= 40*time.Second; at += time.Second {
			if at <= 20*time.Second {
				c = p.end(at) // alive: processes each order as it comes
			}
			s := agedSnap(at, p, c)
			if !ages {
				s = hsnap(at, StateStable, []hp{{c, p.end(at), "consumer-a"}})
			}
			h.Annotate(&s)
			if st := s.Partitions[0].Status; at > 20*time.Second && st != StatusOK && flagged < 0 {
				flagged = at - 20*time.Second
			}
		}
		if flagged < 0 || flagged >= 10*time.Second {
			t.Errorf("ages known %v: a dead member's partition flagged %s after the death, want well before the 10s session timeout", ages, flagged)
		}
	}
}
