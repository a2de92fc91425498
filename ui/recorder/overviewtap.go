package recorder

import (
	"context"
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

func (o overviewTap) Overview(ctx context.Context) (model.OverviewObservation, error) {
	obs, err := o.src.Overview(ctx)
	if ctx.Err() != nil {
		return obs, err // the page stopped waiting: it will not show this
	}
	if err != nil {
		text := err.Error()
		o.r.add(time.Time{}, recordSize+len(text), func(w *record.Writer, at time.Time) error { return w.OverviewFailed(at, text) })
		return obs, err
	}
	// The raw read, as the page's pipeline is fed it (nothing changes an
	// observation once read).
	o.r.add(time.Time{}, overviewSize(&obs), func(w *record.Writer, at time.Time) error { return w.OverviewPoll(at, &obs) })
	return obs, nil
}

// overviewSize is what an overview poll waiting to be written holds, about:
// its groups and, per partition, its offsets and a group's commit on it.
func overviewSize(obs *model.OverviewObservation) int {
	n := recordSize + len(obs.Groups)*groupSize + len(obs.Offsets)*offsetsSize + len(obs.Records)*stampSize
	for i := range obs.Groups {
		n += len(obs.Groups[i].Parts) * partSize
	}
	return n
}
