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
			// The outside member read p0 first: the demo's consumer
			// had neither committed on it nor been handed a record of
			// it when it resumed past the outsider's commit.
			name: "committed past by an outside member before the demo read the partition",
			run: func(b *OrderBook) {
				for i, id := range []string{"o1", "o2", "o3"} {
					b.Produce(id)
					b.Place(id, p0, int64(i))
				}
				b.Fetched(p0, 2) // the outside member committed 2
				b.Start("o3")
				b.Finish("o3")
				b.Commit(p0, 3)
			},
			want: Ledger{Produced: 3, Processed: 1, Outside: 2},
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
				b.Abort("o1", "consumer-a", "m-a")
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
				b.Abort("o1", "consumer-a", "m-a")
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

// A consumer that dies with its commit in flight does not know whether the
// commit landed. The loss shows when a commit past the order lands (its
// own, whose answer came back to a dead process, or a successor's): Commit
// says it then, once, in the dead consumer's name; an order picked up again
// is the new holder's, and no loss.
func TestOrderBookReportsEachLossOnce(t *testing.T) {
	p0 := TopicPartition{Topic: "orders", Partition: 0}
	p1 := TopicPartition{Topic: "orders", Partition: 1}
	place := func(b *OrderBook, id string, tp TopicPartition, off int64) {
		b.Produce(id)
		b.Place(id, tp, off)
	}
	t.Run("lost at the abort", func(t *testing.T) {
		b := NewOrderBook()
		place(b, "o1", p0, 0)
		b.Fetched(p0, 0)
		b.Start("o1")
		if l := b.Commit(p0, 1); l != nil {
			t.Fatalf("commit while o1 is in hand: losses %v, want none", l)
		}
		loss, ok := b.Abort("o1", "consumer-b", "m-b")
		if !ok || loss != (Loss{ID: "o1", TP: p0, Offset: 0, Client: "consumer-b", Member: "m-b"}) {
			t.Fatalf("Abort = %+v, %v: want o1 lost by consumer-b", loss, ok)
		}
		if l := b.Commit(p0, 2); l != nil {
			t.Fatalf("a later commit reports %v again", l)
		}
	})
	t.Run("lost at a successor's commit", func(t *testing.T) {
		b := NewOrderBook()
		place(b, "o1", p0, 0)
		place(b, "o2", p0, 1)
		place(b, "o3", p1, 3)
		b.Fetched(p0, 0)
		b.Start("o1")
		// consumer-b's commit of 1 lands, but it dies before the answer.
		if _, ok := b.Abort("o1", "consumer-b", "m-b"); ok {
			t.Fatal("Abort reports a loss the book cannot know yet")
		}
		if got := b.Ledger(); got.InFlight != 3 || got.Lost != 0 {
			t.Fatalf("ledger %+v: o1 is in flight until a commit passes it", got)
		}
		if l := b.Commit(p1, 1); l != nil {
			t.Fatalf("a commit on another partition reports %v", l)
		}
		// consumer-a resumes p0 at 1 and commits past o2.
		b.Fetched(p0, 1)
		b.Start("o2")
		b.Finish("o2")
		l := b.Commit(p0, 2)
		want := []Loss{{ID: "o1", TP: p0, Offset: 0, Client: "consumer-b", Member: "m-b"}}
		if len(l) != 1 || l[0] != want[0] {
			t.Fatalf("Commit = %+v, want %+v", l, want)
		}
		if got := b.Ledger(); got.Lost != 1 {
			t.Fatalf("ledger %+v, want o1 lost", got)
		}
		if l := b.Commit(p0, 3); l != nil {
			t.Fatalf("the loss is reported again: %v", l)
		}
	})
	t.Run("picked up again", func(t *testing.T) {
		b := NewOrderBook()
		place(b, "o1", p0, 0)
		b.Fetched(p0, 0)
		b.Start("o1")
		b.Abort("o1", "consumer-b", "m-b") // its commit never landed
		b.Fetched(p0, 0)                   // consumer-a gets o1 again
		b.Start("o1")
		if l := b.Commit(p0, 1); l != nil {
			t.Fatalf("o1 is in consumer-a's hand: losses %v", l)
		}
		b.Finish("o1")
		if got := b.Ledger(); got.Processed != 1 || got.Lost != 0 {
			t.Fatalf("ledger %+v, want o1 processed", got)
		}
	})
	t.Run("given up twice", func(t *testing.T) {
		// consumer-a dies with its commit in flight, which never lands;
		// consumer-b gets the order again and dies the same way, but its
		// commit lands: one loss, consumer-b's.
		b := NewOrderBook()
		place(b, "o1", p0, 5)
		b.Start("o1")
		b.Abort("o1", "consumer-a", "m-a")
		b.Start("o1")
		b.Abort("o1", "consumer-b", "m-b")
		l := b.Commit(p0, 6)
		if len(l) != 1 || l[0].Client != "consumer-b" {
			t.Fatalf("Commit = %+v, want one loss, consumer-b's", l)
		}
		if got := b.Ledger(); got.Lost != 1 {
			t.Fatalf("ledger %+v, want 1 lost", got)
		}
	})
	t.Run("a commit short of the order", func(t *testing.T) {
		b := NewOrderBook()
		place(b, "o1", p0, 5)
		b.Start("o1")
		b.Abort("o1", "consumer-b", "m-b")
		if l := b.Commit(p0, 5); l != nil {
			t.Fatalf("commit 5 does not pass offset 5: %v", l)
		}
		if l := b.Commit(p0, 6); len(l) != 1 || l[0].ID != "o1" {
			t.Fatalf("commit 6 passes offset 5: losses %v", l)
		}
	})
}
