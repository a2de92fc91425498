package model

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkFormatTable50k is the --once table of a 50,000-partition
// group: every partition lagging, owned by one of 10 members.
func BenchmarkFormatTable50k(b *testing.B) {
	const n = 50000
	s := Snapshot{Group: Group{ID: "wide-workers", State: StateStable}, Partitions: make([]PartitionLag, n)}
	for i := range s.Partitions {
		m := i % 10
		s.Partitions[i] = PartitionLag{
			TopicPartition: TopicPartition{Topic: "wide", Partition: int32(i)},
			Committed:      int64(1000 + i), LogEnd: int64(2000 + i), Lag: 1000,
			MemberID: fmt.Sprintf("consumer-%d-6f1c2a", m), Host: fmt.Sprintf("/10.0.0.%d", m), ClientID: fmt.Sprintf("consumer-%d", m),
			LagAge: time.Duration(i) * time.Millisecond, LagAgeKnown: true, Status: StatusOK,
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(FormatTable(s)) == 0 {
			b.Fatal("empty table")
		}
	}
}
