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
// overview: its last good poll by T, as the live --once without --group
// prints it.
func overviewOnce(path string, at time.Time, f headless.Format, stdout io.Writer) error {
	var last []model.GroupSummary
	polled := false
	err := playFile(path, "", func(rec *record.Record, _ []model.Event) (bool, error) {
		if rec.At.After(at) {
			return false, nil
		}
		if rec.Kind == record.KindOverview {
			last, polled = rec.Groups, true
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
