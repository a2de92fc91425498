package model

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

// randSummaries is n summaries whose sort keys (status, lag, lag age, ID)
// take few values, so some tie but for their IDs and, with dup, some are
// equal.
func randSummaries(rng *rand.Rand, n int, dup bool) []GroupSummary {
	statuses := []Status{StatusOK, StatusLagging, StatusStalled, StatusStopped}
	gs := make([]GroupSummary, n)
	for i := range gs {
		gs[i] = GroupSummary{ID: fmt.Sprintf("g%03d", i), State: StateStable, Status: statuses[rng.IntN(len(statuses))],
			TotalLag: int64(rng.IntN(3)), MaxLagAge: time.Duration(rng.IntN(3)) * time.Second, MaxLagAgeKnown: rng.IntN(2) == 0,
			Members: rng.IntN(1000)} // Members: not a key; tells equal-keyed summaries apart
		if dup { // few IDs, few keys: many summaries equal
			gs[i].ID, gs[i].Status, gs[i].MaxLagAgeKnown = fmt.Sprintf("g%03d", rng.IntN(3)), StatusOK, false
		}
	}
	return gs
}

// The pipeline's sort, which keeps the last poll's order while it still
// sorts the poll strictly, gives what SortGroupsBy gives, poll after
// poll: the same summaries again (the order kept), a few changed, listed
// in another order, groups added or gone, and ties (equal summaries but for a field no key reads).
func TestOverviewPipelineSortIsSortGroupsBy(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 5000))
	for _, dup := range []bool{false, true} {
		var p OverviewPipeline
		gs := randSummaries(rng, 40, dup)
		kept := 0
		for poll := 0; poll < 300; poll++ {
			switch rng.IntN(5) {
			case 0: // all anew, maybe another count
				gs = randSummaries(rng, rng.IntN(50), dup)
			case 1: // one changed
				if len(gs) > 0 {
					i := rng.IntN(len(gs))
					gs[i].TotalLag = int64(rng.IntN(3))
					gs[i].Status = []Status{StatusOK, StatusLagging}[rng.IntN(2)]
				}
			case 2: // listed in another order
				rng.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
			}
			// The poll's own order: as the cluster listed it.
			in := slices.Clone(gs)
			want := slices.Clone(in)
			SortGroupsBy(want, GroupsByStatus)
			before := slices.Clone(p.ids)
			got := slices.Clone(in)
			p.sort(got)
			if slices.Equal(before, p.ids) && len(before) > 0 {
				kept++
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("dup %v poll %d: got\n%v\nwant\n%v", dup, poll, got, want)
			}
		}
		if !dup && kept < 50 {
			t.Fatalf("the last order was kept %d times of 300: the check is not exercised", kept)
		}
	}
}

// The pipeline's summaries are the history's, sorted by SortGroupsBy,
// over polls of groups lagging, catching up and stopping.
func TestOverviewPipelineIsHistorySorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	p := NewOverviewPipeline(OverviewPipelineOptions{})
	h := NewOverviewHistory(HistoryOptions{})
	for poll := 0; poll < 60; poll++ {
		at := time.Duration(poll) * time.Second
		o := &OverviewObservation{TakenAt: ht0.Add(at), Offsets: map[TopicPartition]PartitionOffsets{}, Records: map[RecordAt]RecordStamp{}}
		for gi := 0; gi < 12; gi++ {
			state := StateStable
			if gi%4 == 0 {
				state = StateEmpty
			}
			g := mapGroup{Summary: GroupSummary{ID: fmt.Sprintf("group-%02d", gi), State: state, Type: TypeClassic, Members: 1},
				Committed: map[TopicPartition]int64{}, Assigned: map[TopicPartition]bool{}}
			for pi := int32(0); pi < 3; pi++ {
				tp := TopicPartition{Topic: fmt.Sprintf("t%d", gi%3), Partition: pi}
				end := int64(100 + poll*10)
				o.Offsets[tp] = PartitionOffsets{LogStart: NoOffset, LogEnd: end}
				c := end - int64(rng.IntN(3)*(gi%5))
				g.Committed[tp], g.Assigned[tp] = c, state != StateEmpty
				if c < end {
					o.Records[RecordAt{tp, c}] = RecordStamp{Time: ht0.Add(at - time.Duration(gi)*time.Second)}
				}
			}
			o.Groups = append(o.Groups, g.group())
		}
		rng.Shuffle(len(o.Groups), func(i, j int) { o.Groups[i], o.Groups[j] = o.Groups[j], o.Groups[i] })
		if poll%7 == 3 {
			o.Groups = o.Groups[:len(o.Groups)-2] // two groups gone this poll
		}
		got := p.Observe(o)
		want := h.Observe(o)
		SortGroupsBy(want, GroupsByStatus)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("poll %d: got\n%v\nwant\n%v", poll, got, want)
		}
	}
}
