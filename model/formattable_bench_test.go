package model

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// BenchmarkFormatTable50k is the --once table of a 50,000-partition
// group: every partition lagging, owned by one of 10 members.
func BenchmarkFormatTable50k(b *testing.B) {
	s := wideTable(50000)
	b.ReportAllocs()
	for b.Loop() {
		if len(FormatTable(s)) == 0 {
			b.Fatal("empty table")
		}
	}
}

// wideTable is a snapshot of n partitions, every one lagging, owned by one
// of 10 members.
func wideTable(n int) Snapshot {
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
	return s
}

// BenchmarkWriteTable50k is BenchmarkFormatTable50k written as --once
// writes it, a row at a time.
func BenchmarkWriteTable50k(b *testing.B) {
	s := wideTable(50000)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteTableView(io.Discard, s, TableView{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSON50k and BenchmarkWriteJSON50k are --once -o json of the
// 50,000 partitions of BenchmarkFormatTable50k, held whole and written a
// partition at a time.
func BenchmarkJSON50k(b *testing.B) {
	s := wideTable(50000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MarshalJSONSnapshot(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJSON50k(b *testing.B) {
	s := wideTable(50000)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteJSONSnapshot(io.Discard, s); err != nil {
			b.Fatal(err)
		}
	}
}
