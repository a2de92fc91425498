package recorder

import (
	"slices"
	"time"
	"unsafe"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
)

// The sizes a queued record is counted at (MaxQueued): its rows'.
const (
	recordSize    = int(unsafe.Sizeof(model.Event{}))
	partitionSize = int(unsafe.Sizeof(model.PartitionLag{}))
	memberSize    = int(unsafe.Sizeof(model.Member{}))
	groupSize     = int(unsafe.Sizeof(model.GroupSummary{}))
	offsetsSize   = int(unsafe.Sizeof(model.PartitionOffsets{})) + int(unsafe.Sizeof(model.TopicPartition{}))
	partSize      = int(unsafe.Sizeof(model.OverviewPart{}))
	stampSize     = int(unsafe.Sizeof(model.RecordStamp{})) + int(unsafe.Sizeof(model.RecordAt{}))
	consumerSize  = int(unsafe.Sizeof(model.DemoConsumer{}))
)

// Tap records what the pipeline of group is fed; nil without a
// recording.
func (r *Recorder) Tap(group string) model.Tap {
	if r == nil {
		return nil
	}
	return groupTap{r: r, group: group}
}

type groupTap struct {
	r     *Recorder
	group string
}

func (t groupTap) Observed(s model.Snapshot) {
	// The pipeline annotates the rows in place once this returns.
	s.Partitions = slices.Clone(s.Partitions)
	s.Members = slices.Clone(s.Members)
	size := recordSize + len(s.Partitions)*partitionSize + len(s.Members)*memberSize
	t.r.add(time.Time{}, size, func(w *record.Writer, at time.Time) error { return w.Snapshot(at, t.group, s) })
}

func (t groupTap) Failed(started, at time.Time, err error) {
	text := ""
	if err != nil {
		text = err.Error()
	}
	t.r.add(at, recordSize+len(text), func(w *record.Writer, at time.Time) error { return w.PollFailed(started, at, t.group, text) })
}

func (t groupTap) Added(e model.Event) {
	t.r.add(time.Time{}, recordSize, func(w *record.Writer, at time.Time) error { return w.Event(at, t.group, e) })
}

// Demo records what the demo panel reads of d and the actions it asks;
// d itself without a recording.
func (r *Recorder) Demo(d ui.Demo) ui.Demo {
	if r == nil {
		return d
	}
	return demoTap{d: d, r: r}
}

type demoTap struct {
	d ui.Demo
	r *Recorder
}

func (d demoTap) Status(withLedger bool) model.DemoStatus {
	s := d.d.Status(withLedger)
	cp := s
	cp.Consumers = slices.Clone(s.Consumers)
	size := recordSize + len(cp.Consumers)*consumerSize
	d.r.add(time.Time{}, size, func(w *record.Writer, at time.Time) error { return w.DemoStatus(at, cp) })
	return s
}

func (d demoTap) Act(a model.DemoAction) (model.DemoOutcome, error) {
	out, err := d.d.Act(a)
	text := ""
	if err != nil {
		text = err.Error()
	}
	d.r.add(time.Time{}, recordSize+len(text), func(w *record.Writer, at time.Time) error { return w.DemoAction(at, a, out, text) })
	return out, err
}
