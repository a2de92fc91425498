package model

import "testing"

func TestOrderBookLedger(t *testing.T) {
	p0 := TopicPartition{Topic: "orders", Partition: 0}
	p1 := TopicPartition{Topic: "orders", Partition: 1}
	tests := []struct {
		name string
		run  func(b *OrderBook)
		want Ledger
	}{
		{
			name: "empty",
			run:  func(*OrderBook) {},
			want: Ledger{},
		},
		{
			name: "produced, not yet placed, is in flight and never lost",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Commit(p0, 10)
			},
			want: Ledger{Produced: 1, InFlight: 1},
		},
		{
			// An outside member (kcat through --listen) took p0 for
			// o2–o3 and committed past them; the demo's consumer
			// resumes after it: processed outside, not lost.
			name: "committed past by an outside member",
			run: func(b *OrderBook) {
				for i, id := range []string{"o1", "o2", "o3", "o4"} {
					b.Produce(id)
					b.Place(id, p0, int64(i))
				}
				b.Fetched(p0, 0)
				b.Start("o1")
				b.Finish("o1")
				b.Commit(p0, 1)
				b.Fetched(p0, 3) // the outside member committed 3
				b.Start("o4")
				b.Finish("o4")
				b.Commit(p0, 4)
			},
			want: Ledger{Produced: 4, Processed: 2, Outside: 2},
		},
		{
			name: "commit before, killed: lost, not outside, when the next fetch resumes at the commit",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Place("o1", p0, 0)
				b.Produce("o2")
				b.Place("o2", p0, 1)
				b.Fetched(p0, 0)
				b.Commit(p0, 1)
				b.Start("o1")
				b.Abort("o1")
				b.Fetched(p0, 1)
				b.Commit(p0, 2)
				b.Start("o2")
				b.Finish("o2")
			},
			want: Ledger{Produced: 2, Processed: 1, Lost: 1},
		},
		{
			name: "commit after: processed once, committed",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Place("o1", p0, 0)
				b.Start("o1")
				b.Finish("o1")
				b.Commit(p0, 1)
			},
			want: Ledger{Produced: 1, Processed: 1},
		},
		{
			name: "commit after: killed before commit, reprocessed",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Place("o1", p0, 0)
				b.Start("o1")
				b.Finish("o1")
				b.Start("o1")
				b.Finish("o1")
				b.Commit(p0, 1)
			},
			want: Ledger{Produced: 1, Processed: 1, Duplicates: 1},
		},
		{
			name: "commit before: killed while processing is lost",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Place("o1", p0, 0)
				b.Produce("o2")
				b.Place("o2", p0, 1)
				b.Commit(p0, 1)
				b.Start("o1")
				b.Abort("o1")
			},
			want: Ledger{Produced: 2, Lost: 1, InFlight: 1},
		},
		{
			name: "being processed past the commit is in flight, not lost",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Place("o1", p1, 4)
				b.Commit(p1, 5)
				b.Start("o1")
			},
			want: Ledger{Produced: 1, InFlight: 1},
		},
		{
			name: "a commit on another partition does not lose anything",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Place("o1", p1, 0)
				b.Commit(p0, 100)
			},
			want: Ledger{Produced: 1, InFlight: 1},
		},
		{
			name: "forgotten writes and unknown ids do not count",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Forget("o1")
				b.Start("zz")
				if n := b.Finish("zz"); n != 0 {
					t.Errorf("Finish(unknown) = %d, want 0", n)
				}
				b.CommitFailed()
				b.CommitFailed()
			},
			want: Ledger{CommitFailures: 2},
		},
		{
			name: "a rewound commit brings a lost order back in flight",
			run: func(b *OrderBook) {
				b.Produce("o1")
				b.Place("o1", p0, 3)
				b.Commit(p0, 4)
				b.Commit(p0, 3)
			},
			want: Ledger{Produced: 1, InFlight: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewOrderBook()
			tt.run(b)
			got := b.Ledger()
			if got != tt.want {
				t.Fatalf("Ledger() = %+v, want %+v", got, tt.want)
			}
			if got.Processed+got.Outside+got.Lost+got.InFlight != got.Produced {
				t.Fatalf("Ledger() = %+v: processed + outside + lost + in-flight != produced", got)
			}
		})
	}
}

func TestOrderBookFinishCountsTimes(t *testing.T) {
	b := NewOrderBook()
	b.Produce("o1")
	for want := 1; want <= 3; want++ {
		b.Start("o1")
		if got := b.Finish("o1"); got != want {
			t.Fatalf("Finish #%d = %d", want, got)
		}
	}
	if b.Times("o1") != 3 || !b.Known("o1") || b.Known("o2") {
		t.Fatalf("Times/Known wrong: %d %v %v", b.Times("o1"), b.Known("o1"), b.Known("o2"))
	}
	if l := b.Ledger(); l.Duplicates != 1 || l.Processed != 1 {
		t.Fatalf("an order processed 3 times: %+v, want 1 processed, 1 duplicate", l)
	}
}
