package headless

import (
	"context"
	"io"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// OverviewSource is what OnceOverview needs of the overview's poller
// (kafka.OverviewWatcher satisfies it).
type OverviewSource interface {
	Overview(ctx context.Context) (model.OverviewObservation, error)
}

// OnceOverview is `--once` without a group: every group, polled once
// within timeout, judged as the TUI's overview judges them (by a
// model.OverviewPipeline of hist's options) and printed to out in format
// f. It returns the groups printed.
func OnceOverview(ctx context.Context, src OverviewSource, hist model.HistoryOptions, timeout time.Duration, f Format, out io.Writer) ([]model.GroupSummary, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	obs, err := src.Overview(ctx)
	if err != nil {
		return nil, timeoutSaid(err, timeout)
	}
	gs := model.NewOverviewPipeline(model.OverviewPipelineOptions{History: hist}).Observe(&obs)
	return gs, f.PrintOverview(out, gs)
}
