package record

import (
	"sort"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// overviewPollBody is a raw poll of the overview (model.OverviewObservation)
// as recorded (KindOverviewPoll): its maps, keyed by partition, as slices
// sorted by partition. The codec records maps keyed by strings and
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
}

// overviewPartBody is one partition of a group (model.OverviewGroup's
// maps at it): Committed when HasCommit, ShareLag when HasShareLag,
// Assigned (Owned: a member owns it now), and its Owner ("": none known).
type overviewPartBody struct {
	Part        model.TopicPartition
	Committed   int64
	HasCommit   bool
	ShareLag    int64
	HasShareLag bool
	Assigned    bool
	Owned       bool
	Owner       string
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
	parts := make(map[model.TopicPartition]*overviewPartBody, len(g.Committed)+len(g.Assigned))
	part := func(tp model.TopicPartition) *overviewPartBody {
		p := parts[tp]
		if p == nil {
			p = &overviewPartBody{Part: tp, Committed: model.NoOffset, ShareLag: -1, Owner: g.Owner[tp]}
			parts[tp] = p
		}
		return p
	}
	for tp, c := range g.Committed {
		p := part(tp)
		p.Committed, p.HasCommit = c, true
	}
	for tp, l := range g.ShareLag {
		p := part(tp)
		p.ShareLag, p.HasShareLag = l, true
	}
	for tp, owned := range g.Assigned {
		p := part(tp)
		p.Assigned, p.Owned = true, owned
	}
	b := overviewGroupBody{Summary: g.Summary, Parts: make([]overviewPartBody, 0, len(parts))}
	for _, p := range parts {
		b.Parts = append(b.Parts, *p)
	}
	sort.Slice(b.Parts, func(i, j int) bool { return b.Parts[i].Part.Less(b.Parts[j].Part) })
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
	g := model.OverviewGroup{Summary: b.Summary}
	for _, p := range b.Parts {
		if p.HasCommit {
			if g.Committed == nil {
				g.Committed = make(map[model.TopicPartition]int64)
			}
			g.Committed[p.Part] = p.Committed
		}
		if p.HasShareLag {
			if g.ShareLag == nil {
				g.ShareLag = make(map[model.TopicPartition]int64)
			}
			g.ShareLag[p.Part] = p.ShareLag
		}
		if p.Assigned {
			if g.Assigned == nil {
				g.Assigned = make(map[model.TopicPartition]bool)
			}
			g.Assigned[p.Part] = p.Owned
		}
		if p.Owner != "" {
			if g.Owner == nil {
				g.Owner = make(map[model.TopicPartition]string)
			}
			g.Owner[p.Part] = p.Owner
		}
	}
	return g
}
