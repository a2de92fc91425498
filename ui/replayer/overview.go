package replayer

import (
	"fmt"
	"io"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui/headless"
)

// overviewOnce is `replay FILE --once --at T` of a recording of the
// overview (its header h): the recorded polls up to T, judged by the
// overview's pipeline as the live view judged them, and its last good
// poll printed as the live --once without --group prints it.
func overviewOnce(path string, h record.Header, at time.Time, f headless.Format, stdout io.Writer) error {
	var last []model.GroupSummary
	polled := false
	pipe := model.NewOverviewPipeline(model.OverviewPipelineOptions{History: h.Judging().History()})
	err := playFile(path, "", func(rec *record.Record, _ []model.Event) (bool, error) {
		if rec.At.After(at) {
			return false, nil
		}
		switch rec.Kind {
		case record.KindOverviewPoll:
			last, polled = pipe.Observe(&rec.Overview), true
		case record.KindOverview: // judged when recorded (format 2)
			last, polled = pipe.Observe(&model.OverviewObservation{Judged: rec.Groups}), true
		}
		return true, nil
	})
	switch {
	case err != nil:
		return err
	case !polled:
		return fmt.Errorf("no poll of the overview was recorded by %s", clockOf(at, time.Time{}))
	}
	return f.PrintOverview(stdout, last)
}
