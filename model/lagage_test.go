package model

import (
	"testing"
	"time"
)

func TestLagAge(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	row := func(committed, start, end int64) PartitionLag {
		lag, _ := Lag(committed, start, end)
		return PartitionLag{Committed: committed, LogStart: start, LogEnd: end, Lag: lag}
	}
	for _, c := range []struct {
		name        string
		p           PartitionLag
		ts          time.Time
		hasTS, gone bool
		age         time.Duration
		known       bool
		isGone      bool
	}{
		{"lag, record read", row(5, 0, 10), now.Add(-2 * time.Minute), true, false, 2 * time.Minute, true, false},
		{"no commit, from log-start", row(NoOffset, 3, 10), now.Add(-time.Second), true, false, time.Second, true, false},
		{"lag 0 needs no record", row(10, 0, 10), time.Time{}, false, false, 0, true, false},
		{"lag, nothing read", row(5, 0, 10), time.Time{}, false, false, 0, false, false},
		{"record gone (fetch said so)", row(5, 0, 10), time.Time{}, false, true, 0, false, true},
		{"committed below log-start", row(2, 4, 10), now.Add(-time.Hour), true, false, 0, false, true},
		{"offsets unreadable", row(5, NoOffset, NoOffset), now.Add(-time.Hour), true, false, 0, false, false},
		{"future timestamp", row(5, 0, 10), now.Add(time.Minute), true, false, 0, true, false},
	} {
		age, known, gone := LagAge(c.p, now, c.ts, c.hasTS, c.gone)
		if age != c.age || known != c.known || gone != c.isGone {
			t.Errorf("%s: age %v known %v gone %v; want %v %v %v", c.name, age, known, gone, c.age, c.known, c.isGone)
		}
	}
}

func TestNewSnapshotLagAge(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	a, b, c := TopicPartition{"t", 0}, TopicPartition{"t", 1}, TopicPartition{"t", 2}
	s := NewSnapshot(Observation{
		TakenAt: now,
	}.With(Readings{
		Committed:       map[TopicPartition]int64{a: 5, b: 10, c: 1},
		Offsets:         map[TopicPartition]PartitionOffsets{a: {0, 10, ""}, b: {0, 10, ""}, c: {0, 10, ""}},
		OldestTimestamp: map[TopicPartition]time.Time{a: now.Add(-90 * time.Second)},
		OldestGone:      map[TopicPartition]bool{c: true},
	}))
	p := s.Partitions
	if p[0].LagAge != 90*time.Second || !p[0].LagAgeKnown || p[1].LagAge != 0 || !p[1].LagAgeKnown || !p[2].LagAgeGone || p[2].LagAgeKnown {
		t.Errorf("ages %+v", p)
	}
	if s.MaxLagAge != 90*time.Second || !s.MaxLagAgeKnown {
		t.Errorf("max lag age %v known %v, want 90s", s.MaxLagAge, s.MaxLagAgeKnown)
	}
}
