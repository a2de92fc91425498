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
		return slices.Clone(o.Judged) // sorted when judged
	}
	out := p.hist.Observe(o)
	SortGroupsBy(out, GroupsByStatus)
	return out
}
