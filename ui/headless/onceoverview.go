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
	Overview(ctx context.Context) ([]model.GroupSummary, error)
}

// OnceOverview is `--once` without a group: every group, polled once
// within timeout and printed to out in format f. The groups are judged as
// the TUI's overview judges them, by their source. It returns the groups
// printed.
func OnceOverview(ctx context.Context, src OverviewSource, timeout time.Duration, f Format, out io.Writer) ([]model.GroupSummary, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	gs, err := src.Overview(ctx)
	if err != nil {
		return gs, timeoutSaid(err, timeout)
	}
	return gs, f.PrintOverview(out, gs)
}
