package record

import (
	"slices"
	"sort"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// overviewPollBody is a raw poll of the overview (model.OverviewObservation)
// as recorded (KindOverviewPoll): its maps, keyed by partition, as slices
// sorted by partition, and each group's parts (model.OverviewPart, written
// as they were when the group kept them in maps: the files of every
// format read the same). The codec records maps keyed by strings and
// integers only; sorted, a slice differs from the poll before only where
// the cluster moved.
type overviewPollBody struct {
	TakenAt time.Time
	Groups  []overviewGroupBody
	Offsets []overviewOffsetsBody
	LogErr  string
	Records []overviewRecordBody
}

// overviewGroupBody is one group of a poll: what its coordinator said,
// and each partition it committed or is assigned.
type overviewGroupBody struct {
	Summary model.GroupSummary
	Parts   []overviewPartBody
	// CommitsUnread: its commits could not be read (model.OverviewGroup);
	// files before it have none, read as false.
	CommitsUnread bool
}

// overviewPartBody is one partition of a group (a model.OverviewPart):
// Committed when HasCommit (NoOffset otherwise), ShareLag when
// HasShareLag (-1 otherwise), Assigned (Owned: a member owns it now), and
// its Owner ("": none known).
type overviewPartBody struct {
	Part        model.TopicPartition
	Committed   int64
	HasCommit   bool
	ShareLag    int64
	HasShareLag bool
	Assigned    bool
	Owned       bool
	Owner       string
	// CommitUnread: its commit could not be read (model.OverviewPart).
	CommitUnread bool
}

type overviewOffsetsBody struct {
	Part    model.TopicPartition
	Offsets model.PartitionOffsets
}

type overviewRecordBody struct {
	At    model.RecordAt
	Stamp model.RecordStamp
}

// overviewPollOf is o as recorded.
func overviewPollOf(o *model.OverviewObservation) overviewPollBody {
	b := overviewPollBody{TakenAt: o.TakenAt, LogErr: o.LogErr, Groups: make([]overviewGroupBody, len(o.Groups))}
	for i := range o.Groups {
		b.Groups[i] = overviewGroupOf(&o.Groups[i])
	}
	b.Offsets = make([]overviewOffsetsBody, 0, len(o.Offsets))
	for tp, off := range o.Offsets {
		b.Offsets = append(b.Offsets, overviewOffsetsBody{Part: tp, Offsets: off})
	}
	sort.Slice(b.Offsets, func(i, j int) bool { return b.Offsets[i].Part.Less(b.Offsets[j].Part) })
	b.Records = make([]overviewRecordBody, 0, len(o.Records))
	for at, st := range o.Records {
		b.Records = append(b.Records, overviewRecordBody{At: at, Stamp: st})
	}
	sort.Slice(b.Records, func(i, j int) bool {
		x, y := b.Records[i].At, b.Records[j].At
		if x.TopicPartition != y.TopicPartition {
			return x.TopicPartition.Less(y.TopicPartition)
		}
		return x.Offset < y.Offset
	})
	return b
}

func overviewGroupOf(g *model.OverviewGroup) overviewGroupBody {
	parts := g.Parts
	if !slices.IsSortedFunc(parts, func(a, b model.OverviewPart) int { return model.CompareTP(a.TopicPartition, b.TopicPartition) }) {
		parts = model.OverviewParts(slices.Clone(parts))
	}
	b := overviewGroupBody{Summary: g.Summary, Parts: make([]overviewPartBody, len(parts)), CommitsUnread: g.CommitsUnread}
	for i := range parts {
		p := &parts[i]
		x := overviewPartBody{Part: p.TopicPartition, Committed: model.NoOffset, ShareLag: -1, Owner: p.Owner, Assigned: p.Assigned, Owned: p.Owned, CommitUnread: p.CommitUnread}
		if p.HasCommit {
			x.Committed, x.HasCommit = p.Committed, true
		}
		if p.HasShareLag {
			x.ShareLag, x.HasShareLag = p.ShareLag, true
		}
		b.Parts[i] = x
	}
	return b
}

// observation is the poll b records. Its maps are its own: the caller
// may keep and change it.
func (b *overviewPollBody) observation() model.OverviewObservation {
	o := model.OverviewObservation{TakenAt: b.TakenAt, LogErr: b.LogErr}
	if len(b.Groups) > 0 {
		o.Groups = make([]model.OverviewGroup, len(b.Groups))
		for i := range b.Groups {
			o.Groups[i] = b.Groups[i].group()
		}
	}
	if len(b.Offsets) > 0 {
		o.Offsets = make(map[model.TopicPartition]model.PartitionOffsets, len(b.Offsets))
		for _, x := range b.Offsets {
			o.Offsets[x.Part] = x.Offsets
		}
	}
	if len(b.Records) > 0 {
		o.Records = make(map[model.RecordAt]model.RecordStamp, len(b.Records))
		for _, x := range b.Records {
			o.Records[x.At] = x.Stamp
		}
	}
	return o
}

func (b *overviewGroupBody) group() model.OverviewGroup {
	g := model.OverviewGroup{Summary: b.Summary, CommitsUnread: b.CommitsUnread}
	if len(b.Parts) > 0 {
		g.Parts = make([]model.OverviewPart, len(b.Parts))
	}
	for i, x := range b.Parts {
		p := model.OverviewPart{TopicPartition: x.Part, Owner: x.Owner, Assigned: x.Assigned, Owned: x.Owned && x.Assigned, CommitUnread: x.CommitUnread}
		if x.HasCommit {
			p.Committed, p.HasCommit = x.Committed, true
		}
		if x.HasShareLag {
			p.ShareLag, p.HasShareLag = x.ShareLag, true
		}
		g.Parts[i] = p
	}
	return g
}
