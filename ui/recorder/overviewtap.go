package recorder

import (
	"context"
	"slices"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
)

// Overview records the overview's polls of src; src itself without a
// recording.
func (r *Recorder) Overview(src ui.OverviewSource) ui.OverviewSource {
	if r == nil {
		return src
	}
	return overviewTap{src: src, r: r}
}

type overviewTap struct {
	src ui.OverviewSource
	r   *Recorder
}

func (o overviewTap) Batched() bool { return o.src.Batched() }

func (o overviewTap) Overview(ctx context.Context) ([]model.GroupSummary, error) {
	gs, err := o.src.Overview(ctx)
	if ctx.Err() != nil {
		return gs, err // the page stopped waiting: it will not show this
	}
	if err != nil {
		text := err.Error()
		o.r.add(time.Time{}, recordSize+len(text), func(w *record.Writer, at time.Time) error { return w.OverviewFailed(at, text) })
		return gs, err
	}
	cp := slices.Clone(gs)
	o.r.add(time.Time{}, recordSize+len(cp)*groupSize, func(w *record.Writer, at time.Time) error { return w.Overview(at, cp) })
	return gs, nil
}
