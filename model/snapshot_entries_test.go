package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNewSnapshotRowsAnyNumbering builds random groups, with partitions
// numbered densely (as Kafka numbers them: found by slot) and sparsely or
// negatively (a hostile broker: found by map), and checks the rows against
// a plain reading of the observation: every partition committed, owned or
// targeted appears once, in topic then partition order, with its commit,
// its first owner, its further owners and its pending member.
func TestNewSnapshotRowsAnyNumbering(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	topics := []string{"b", "a", "c", "a.b"}
	for iter := 0; iter < 400; iter++ {
		sparse := iter%2 == 1
		part := func() int32 {
			if sparse {
				switch r.IntN(4) {
				case 0:
					return -1 - r.Int32N(5)
				case 1:
					return math.MaxInt32 - r.Int32N(3)
				}
				if iter%16 == 1 {
					// Below maxDense: Part fills the slots up to it,
					// 100,000 of them and more, too slow to do in every
					// sparse round under -race (145 s of CI's model run).
					return r.Int32N(1_000_000)
				}
				return maxDense + r.Int32N(1_000_000)
			}
			return r.Int32N(40)
		}
		tp := func() TopicPartition { return TopicPartition{Topic: topics[r.IntN(len(topics))], Partition: part()} }
		o := Observation{Group: Group{ID: "g", State: StateStable, Type: TypeShare}}
		for i := r.IntN(30); i > 0; i-- {
			o.SetCommitted(tp(), r.Int64N(100))
		}
		for m := r.IntN(5); m > 0; m-- {
			mem := Member{MemberID: string(rune('a'+m)) + "-id", ClientID: string(rune('a' + m))}
			for i := r.IntN(15); i > 0; i-- {
				mem.Partitions = append(mem.Partitions, tp())
			}
			for i := r.IntN(5); i > 0; i-- {
				mem.TargetPartitions = append(mem.TargetPartitions, tp())
			}
			o.Members = append(o.Members, mem)
		}
		s := NewSnapshot(o)

		// The plain reading.
		type want struct {
			committed int64
			owners    []string
			pending   string
		}
		wants := map[TopicPartition]*want{}
		get := func(tp TopicPartition) *want {
			if wants[tp] == nil {
				wants[tp] = &want{committed: NoOffset}
			}
			return wants[tp]
		}
		for tp, p := range o.All() {
			if p.HasCommit {
				get(tp).committed = p.Committed
			}
		}
		for _, m := range s.Members { // sorted as the snapshot orders them
			orig := o.Members[slices.IndexFunc(o.Members, func(x Member) bool { return x.MemberID == m.MemberID })]
			for _, tp := range orig.Partitions {
				if w := get(tp); !slices.Contains(w.owners, m.MemberID) {
					w.owners = append(w.owners, m.MemberID)
				}
			}
		}
		for _, m := range s.Members {
			for _, tp := range m.TargetPartitions {
				if w := get(tp); w.pending == "" && len(w.owners) == 0 {
					w.pending = m.MemberID
				}
			}
		}
		if len(s.Partitions) != len(wants) {
			t.Fatalf("iter %d (sparse %v): %d rows, want %d", iter, sparse, len(s.Partitions), len(wants))
		}
		for i, p := range s.Partitions {
			if i > 0 && CompareTP(s.Partitions[i-1].TopicPartition, p.TopicPartition) >= 0 {
				t.Fatalf("iter %d (sparse %v): row %d %v after %v: not in order", iter, sparse, i, p.TopicPartition, s.Partitions[i-1].TopicPartition)
			}
			w := wants[p.TopicPartition]
			var owners []string
			for _, ow := range p.Owners {
				owners = append(owners, ow.MemberID)
			}
			pending := p.PendingMemberID
			if w == nil || max(p.Committed, NoOffset) != w.committed || !slices.Equal(owners, w.owners) || pending != w.pending {
				t.Fatalf("iter %d (sparse %v): row %v committed %d owners %v pending %q; want %+v", iter, sparse, p.TopicPartition, p.Committed, owners, pending, w)
			}
			if len(owners) > 0 && p.MemberID != owners[0] {
				t.Fatalf("iter %d: row %v owner %q, first of Owners %q", iter, p.TopicPartition, p.MemberID, owners[0])
			}
		}
	}
}
