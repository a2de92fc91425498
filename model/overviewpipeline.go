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
	// ids are the last poll's groups, sorted; order (indexes into the
	// poll's groups, as the history gave them) and moves are scratch for
	// the order and the moves along it, at (a group's index by its ID)
	// for finding the last order in this poll.
	ids          []string
	order, moves []int32
	at           map[string]int32
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
		p.ids = p.ids[:0]
		return slices.Clone(o.Judged) // sorted when judged
	}
	out := p.hist.Observe(o)
	p.sort(out)
	return out
}

// sort sorts gs as SortGroupsBy(gs, GroupsByStatus) does. A poll mostly
// lists the groups the one before did (in any order), their sort keys as
// they were: the last poll's order (by ID) is kept when it still sorts gs
// strictly (no two summaries equal: the sorted order is then the only
// one, SortGroupsBy's), a look-up a group and n−1 comparisons in place
// of a sort's n·log n. Else gs is sorted afresh, by SortGroupsBy's own
// steps.
func (p *OverviewPipeline) sort(gs []GroupSummary) {
	kept := len(p.ids) == len(gs)
	if kept {
		if p.at == nil {
			p.at = make(map[string]int32, len(gs))
		}
		clear(p.at)
		for i := range gs {
			p.at[gs[i].ID] = int32(i)
		}
		kept = len(p.at) == len(gs) // else some ID twice: not strictly sorted either
		p.order = slices.Grow(p.order[:0], len(gs))[:len(gs)]
		for i := 0; kept && i < len(p.ids); i++ {
			var ok bool
			p.order[i], ok = p.at[p.ids[i]]
			kept = ok
		}
	}
	// found: order is the last order of gs, every ID once: no two of gs
	// compare equal, so any sort gives SortGroupsBy's order, and a sort of
	// the last order (nearly sorted: a few groups moved) costs less.
	found := kept
	for i := 1; kept && i < len(p.order); i++ {
		kept = compareGroups(&gs[p.order[i-1]], &gs[p.order[i]], GroupsByStatus) < 0
	}
	if !kept && found {
		slices.SortFunc(p.order, func(a, b int32) int { return compareGroups(&gs[a], &gs[b], GroupsByStatus) })
	} else if !kept {
		p.order = slices.Grow(p.order[:0], len(gs))[:len(gs)]
		for i := range p.order {
			p.order[i] = int32(i)
		}
		slices.SortFunc(p.order, func(a, b int32) int { return compareGroups(&gs[a], &gs[b], GroupsByStatus) })
	}
	// Each summary is moved once, along its cycle, as SortGroupsBy does.
	p.moves = append(p.moves[:0], p.order...)
	permuteGroups(gs, p.moves)
	p.ids = p.ids[:0]
	for i := range gs {
		p.ids = append(p.ids, gs[i].ID)
	}
}
