package record

import (
	"errors"

	"github.com/kgwatch/kgwatch/model"
)

// Feed gives rec to pipe as the recorded session gave it to its own, and
// returns the events it gives: a snapshot is observed (and annotated in
// place, in rec.Snapshot), a failure is a failed poll at rec.At, an event
// is added. Other kinds give nothing.
func Feed(pipe *model.Pipeline, rec *Record) []model.Event {
	switch rec.Kind {
	case KindSnapshot:
		return pipe.Observe(&rec.Snapshot)
	case KindFailed:
		var err error
		if rec.Err != "" {
			err = errors.New(rec.Err)
		}
		return pipe.PollFailed(rec.Started, rec.At, err)
	case KindEvent:
		return []model.Event{pipe.Add(rec.Event)}
	}
	return nil
}

// PipelineOptions are the options of the pipeline that watched group in
// the recorded session.
func PipelineOptions(h Header, group string) model.PipelineOptions {
	return h.Judging().Pipeline(group, h.Interval, nil)
}

// Judging is how the recorded watch judged its polls. HideKeys is not
// recorded: a watch with it recorded the keys already hidden.
func (h Header) Judging() model.Judging {
	return model.Judging{StallAfter: h.StallAfter, MaxLagAge: h.MaxLagAge, MaxRebalances: h.MaxRebalances, TimelineSize: h.TimelineSize}
}
