package model

import "slices"

// OverviewPipeline is the overview's one path from its polls to what it
// shows, as Pipeline is one group's: each good poll, read raw from the
// cluster (OverviewObservation), is summarized and judged by the group
// view's rules (OverviewHistory, through History's per-partition
// verdict), over the polls before. The TUI, `--once` and replay feed
// their polls through one, so the overview judges alike whether live or
// replayed. It does no I/O and reads no clock: a poll carries its time
// (TakenAt). It is not safe for concurrent use.
type OverviewPipeline struct {
	hist *OverviewHistory
	// order is the last poll's sorted order (indexes into its groups, as
	// Observe gave them); moves is scratch for the moves along it.
	order, moves []int32
}

// OverviewPipelineOptions configure an OverviewPipeline. Zero fields take
// their defaults.
type OverviewPipelineOptions struct {
	// History tunes statuses (`--stall-after`, `--max-lag-age`).
	History HistoryOptions
}

// NewOverviewPipeline returns a pipeline that has seen nothing yet.
func NewOverviewPipeline(o OverviewPipelineOptions) *OverviewPipeline {
	return &OverviewPipeline{hist: NewOverviewHistory(o.History)}
}

// Observe takes a good poll and returns every group's summary, its status
// judged from this poll and the ones before, the group in trouble first
// (GroupsByStatus). The first poll can tell only OK, UNOWNED and STOPPED
// (and LAGGING from a lag age past the allowance). A poll that holds
// groups judged before (Judged) gives them as they are, in their order,
// and the polls after are judged afresh.
func (p *OverviewPipeline) Observe(o *OverviewObservation) []GroupSummary {
	if o.Judged != nil {
		p.hist = NewOverviewHistory(p.hist.rules.opts)
		p.order = p.order[:0]
		return slices.Clone(o.Judged) // sorted when judged
	}
	out := p.hist.Observe(o)
	p.sort(out)
	return out
}

// sort sorts gs as SortGroupsBy(gs, GroupsByStatus) does. A poll mostly
// lists the groups in the order the one before did, their sort keys as
// they were: the last poll's order is kept when it still sorts gs
// strictly (no two summaries equal: the sorted order is then the only
// one, SortGroupsBy's), a check of n−1 comparisons in place of a sort's
// n·log n. Else gs is sorted afresh, by SortGroupsBy's own steps.
func (p *OverviewPipeline) sort(gs []GroupSummary) {
	kept := len(p.order) == len(gs)
	for i := 1; kept && i < len(p.order); i++ {
		kept = compareGroups(&gs[p.order[i-1]], &gs[p.order[i]], GroupsByStatus) < 0
	}
	if !kept {
		p.order = slices.Grow(p.order[:0], len(gs))[:len(gs)]
		for i := range p.order {
			p.order[i] = int32(i)
		}
		slices.SortFunc(p.order, func(a, b int32) int { return compareGroups(&gs[a], &gs[b], GroupsByStatus) })
	}
	// Each summary is moved once, along its cycle, as SortGroupsBy does.
	idx := append(p.moves[:0], p.order...)
	p.moves = idx
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		tmp, j := gs[i], i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				gs[j] = tmp
				break
			}
			gs[j], j = gs[k], k
		}
	}
}
