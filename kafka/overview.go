package kafka

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// OverviewWatcher reads a summary of every group of a cluster, of every
// type. Like Watcher it only reads. One Overview sends, per poll and per
// coordinator (each broker lists the groups it coordinates):
//
//   - ListGroups: one (v5+ names each group's type, v4+ its state);
//   - DescribeGroups, ConsumerGroupDescribe, ShareGroupDescribe: one each
//     for that coordinator's groups of the type, none when it has none
//     (a classic group listed Empty is not described: it has no members);
//   - OffsetFetch: one for all its classic and consumer groups (v8+; up to
//     offsetFetchBatch groups a request), or one per group on a broker
//     older than Kafka 3.0 (OffsetFetch before v8 takes one group);
//   - DescribeShareGroupOffsets: one for all its share groups;
//
// then Metadata, once, when the cached topics are stale (and to name topic
// ids a describe gave alone); ListOffsets (latest), one per partition
// leader for the union of the partitions the groups committed, own or are
// assigned, and ListOffsets (earliest), one per leader of the partitions
// some group owns without a commit (their lag counts from the log start,
// as in the group view); and Fetch, for the lag ages: one per leader of
// the records not read before (a record is read again only when a group's
// committed offset moved to it), in up to overviewFetchRounds rounds when
// groups wait at several offsets of one partition. No FindCoordinator is
// needed: the broker that lists a group coordinates it. 1,000 groups on 3
// brokers: 3 ListGroups, up to 9 describes, 3 OffsetFetch, up to 3
// DescribeShareGroupOffsets, up to 6 ListOffsets and up to 9 Fetch.
type OverviewWatcher struct {
	w *Watcher
	// batched: the last successful Overview read every coordinator's
	// commits in batched requests (see Batched).
	batched bool
	// reads holds, per coordinator, the groupRead array of the last poll,
	// made again (each element cleared) by the next: a poll keeps nothing
	// of it past its observation, which holds copies of the summaries and
	// the parts' own arrays. At 5,000 groups it was an eighth of the
	// overview's allocation.
	reads map[int32][]groupRead
}

// overviewFetchRounds bounds the lag-age Fetch requests per leader and
// poll: records left unread are read on a later poll (their age is
// unknown until then).
const overviewFetchRounds = 3

// NewOverviewWatcher returns an overview watcher; cfg.Group is ignored.
// It connects lazily, on the first Overview.
func NewOverviewWatcher(cfg Config) *OverviewWatcher {
	cfg.Group = ""
	return &OverviewWatcher{w: NewWatcher(cfg)}
}

// Close releases the watcher's connections.
func (o *OverviewWatcher) Close() error { return o.w.Close() }

// Batched reports whether the last successful Overview read every
// coordinator's commits in batched requests (OffsetFetch v8+): its request
// count then grows with the brokers, not the groups, and it can poll every
// interval. It is false before the first successful Overview and when
// some coordinator needed one OffsetFetch per group.
func (o *OverviewWatcher) Batched() bool {
	o.w.mu.Lock()
	defer o.w.mu.Unlock()
	return o.batched
}

// groupRead is what one coordinator said of one group.
type groupRead struct {
	sum model.GroupSummary
	// commits holds the group's commits (a share group's start offsets
	// and lags), as its answer listed them; owned the partitions in a
	// member's assignment, owned now or only in a consumer group
	// member's target, each with its member (the first in the answer
	// owns a share group's shared ones). Parts in the answers' order:
	// model.OverviewParts sorts and merges them, once a poll.
	commits, owned []model.OverviewPart
	// assigned and targeted hold a consumer or share group's current
	// and (consumer groups) target assignments, read into owned once
	// their topic ids are named; assignedBy the member of each assigned.
	assigned, targeted [][]kmsg.AssignmentTopicPartition
	assignedBy         []string
	// commitsUnread: the group's OffsetFetch failed (fetchCommits sets
	// it before asking, takeCommits clears it on an answer).
	commitsUnread bool
}

// own records that member owns tp.
func (r *groupRead) own(tp model.TopicPartition, member string) {
	r.owned = append(r.owned, model.OverviewPart{TopicPartition: tp, Owner: member, Assigned: true, Owned: true})
}

// target records that tp is in a member's target assignment: a row,
// unowned unless a member owns it now.
func (r *groupRead) target(tp model.TopicPartition) {
	r.owned = append(r.owned, model.OverviewPart{TopicPartition: tp, Assigned: true})
}

// parts is the group's partitions, sorted and merged (OverviewParts).
func (r *groupRead) parts() []model.OverviewPart {
	parts := r.commits
	if len(r.owned) > 0 {
		parts = append(slices.Clip(parts), r.owned...)
	}
	return model.OverviewParts(parts)
}

// Overview reads every group of the cluster: what its coordinator says
// of it, its commits and assignments, the log offsets of its partitions
// and the records its lag ages need (OverviewObservation.OldestRecords).
// It only reads: a model.OverviewPipeline judges the poll. It fails when
// a broker cannot list its groups, since the overview would silently miss
// them; failures that concern one group (its description, its commits)
// are recorded in that group's Summary.Err, and log offsets it could not
// read in the observation's Offsets and LogErr.
func (o *OverviewWatcher) Overview(ctx context.Context) (model.OverviewObservation, error) {
	var obs model.OverviewObservation
	err := o.w.read("overview", func() (err error) {
		obs, err = o.overview(ctx)
		return err
	})
	if err != nil {
		return model.OverviewObservation{}, err
	}
	return obs, nil
}

func (o *OverviewWatcher) overview(ctx context.Context) (model.OverviewObservation, error) {
	w := o.w
	takenAt := time.Now()
	brokers, err := w.brokers(ctx)
	if err != nil {
		return model.OverviewObservation{}, err
	}
	ids := sortedKeys(brokers)

	// Each broker, in parallel: list its groups, describe them, fetch
	// their commits.
	reads := make([][]groupRead, len(ids))
	errs := make([]error, len(ids))
	perGroup := make([]bool, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		buf := o.reads[id]
		go func() {
			defer wg.Done()
			reads[i], perGroup[i], errs[i] = o.readCoordinator(ctx, brokers[id], buf)
		}()
	}
	wg.Wait()
	if o.reads == nil {
		o.reads = make(map[int32][]groupRead, len(ids))
	}
	clear(o.reads) // coordinators gone are dropped
	for i, id := range ids {
		if reads[i] != nil {
			o.reads[id] = reads[i]
		}
	}
	if err := oneLineJoin(errs); err != nil {
		return model.OverviewObservation{}, err
	}

	n := 0
	for _, rs := range reads {
		n += len(rs)
	}
	// The reads are pointed to, not copied: a groupRead is ~300 bytes.
	all := make([]*groupRead, 0, n)
	seen := make(map[string]bool, n)
	for _, rs := range reads {
		for i := range rs {
			if seen[rs[i].sum.ID] {
				continue // listed twice while its coordinator moved
			}
			seen[rs[i].sum.ID] = true
			all = append(all, &rs[i])
		}
	}
	o.ownedPartitions(ctx, brokers, all)
	obs := model.OverviewObservation{TakenAt: takenAt, Groups: make([]model.OverviewGroup, len(all))}
	for i, r := range all {
		obs.Groups[i] = model.OverviewGroup{Summary: r.sum, Parts: r.parts(), CommitsUnread: r.commitsUnread}
	}
	obs.Offsets, obs.LogErr = o.logOffsets(ctx, brokers, obs.Groups)
	obs.Records = o.lagRecords(ctx, &obs)
	o.batched = !slices.Contains(perGroup, true)
	return obs, nil
}

// lagRecords reads what the groups' lag ages need (obs.OldestRecords) with
// the Watcher's lag-age reads: cached records, the others fetched.
func (o *OverviewWatcher) lagRecords(ctx context.Context, obs *model.OverviewObservation) map[model.RecordAt]model.RecordStamp {
	ats := obs.OldestRecords()
	wants := make(map[stampKey]int64, len(ats))
	for _, at := range ats {
		wants[stampKey{at.TopicPartition, at.Offset}] = obs.Offsets[at.TopicPartition].LogEnd
	}
	stamps := o.w.readStamps(ctx, &o.w.stamps, wants, overviewFetchRounds)
	out := make(map[model.RecordAt]model.RecordStamp, len(stamps))
	for k, s := range stamps {
		out[model.RecordAt{TopicPartition: k.tp, Offset: k.offset}] = model.RecordStamp{Time: millis(s.ts), Gone: s.gone, MarkersOnly: s.markers}
	}
	return out
}

// ownedPartitions fills each group's owned partitions from its consumer or
// share assignments (and targets: partitions being handed over), naming
// the topic ids the describes gave alone.
func (o *OverviewWatcher) ownedPartitions(ctx context.Context, brokers map[int32]broker, all []*groupRead) {
	w := o.w
	ids := map[[16]byte]bool{}
	for _, r := range all {
		for _, a := range r.assigned {
			unnamed(ids, a)
		}
		for _, a := range r.targeted {
			unnamed(ids, a)
		}
	}
	if len(ids) > 0 {
		_ = w.resolveTopicIDs(ctx, brokers[sortedKeys(brokers)[0]], ids) // unnamed ones count by id
	}
	for _, r := range all {
		for j, a := range r.assigned {
			for _, tp := range assigned(a, w.topicName) {
				r.own(tp, r.assignedBy[j])
			}
		}
		for _, a := range r.targeted {
			for _, tp := range assigned(a, w.topicName) {
				r.target(tp) // being handed over: a row, unowned
			}
		}
		r.assigned, r.targeted, r.assignedBy = nil, nil, nil
	}
}

// readCoordinator lists the groups broker b coordinates, describes them
// (one request per group type) and fetches their commits, into buf's
// array when it has room (cleared first). perGroup says the broker needed
// one OffsetFetch per group.
func (o *OverviewWatcher) readCoordinator(ctx context.Context, b broker, buf []groupRead) (reads []groupRead, perGroup bool, err error) {
	w := o.w
	res, err := w.sendKmsg(ctx, b.id, kmsg.NewPtrListGroupsRequest(), 0, -1)
	if err == nil {
		if code := res.(*kmsg.ListGroupsResponse).ErrorCode; code != 0 {
			err = errCode(code)
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("list groups on broker %s: %w", b.addr, err)
	}
	lg := res.(*kmsg.ListGroupsResponse).Groups
	if len(lg) == 0 {
		return nil, false, nil
	}
	if cap(buf) >= len(lg) {
		reads = buf[:len(lg)]
		clear(reads)
	} else {
		reads = make([]groupRead, len(lg))
	}
	byType := map[model.GroupType][]int{}
	for i, g := range lg {
		// v4+ gives the state, v5+ the type: a group no describe knows
		// keeps the listed state.
		reads[i].sum = model.GroupSummary{ID: g.Group, Type: model.GroupType(g.GroupType), ProtocolType: listedProtocolType(g), State: g.GroupState}
		t := listedKind(model.GroupType(g.GroupType)).typ
		if model.GroupType(g.GroupType) == model.TypeClassic && g.GroupState == model.StateEmpty {
			// A group listed classic and Empty (ListGroups v5+ names
			// the type, v4+ the state) has no member to describe:
			// DescribeGroups would say Empty, no members, no
			// generation, as the listing does. Most groups of a
			// cluster are such (4,970 of 5,000 in the overview's
			// bench), and describing them was most of the describes'
			// bytes. One that changed since it was listed is seen at
			// the next poll. A group listed without a type may be a
			// consumer group that DescribeGroups does not know: it
			// is described.
			continue
		}
		byType[t] = append(byType[t], i)
	}
	// A kind is asked only about groups it has here: none, no request.
	for _, k := range groupKinds {
		if len(byType[k.typ]) > 0 {
			k.describeMany(ctx, w, b, reads, byType[k.typ])
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("describe groups on coordinator %s: %w", b.addr, err)
	}

	var fetch []int // groups whose offsets are OffsetFetch's
	for i := range reads {
		if listedKind(reads[i].sum.Type).fetchManyCommitted == nil {
			fetch = append(fetch, i)
		}
	}
	perGroup = o.fetchCommits(ctx, b, reads, fetch)
	for _, k := range groupKinds {
		if k.fetchManyCommitted != nil && len(byType[k.typ]) > 0 {
			k.fetchManyCommitted(ctx, w, b, reads, byType[k.typ])
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("read groups on coordinator %s: %w", b.addr, err)
	}
	for i := range reads {
		r := &reads[i]
		// Dead to DescribeGroups yet holding commits: a group of a type
		// the broker did not name (a ListGroups before v5), as
		// Watcher.Poll reports it.
		if r.sum.State == model.StateDead && len(r.commits) > 0 {
			r.sum.State = model.StateUnknown
		}
	}
	return reads, perGroup, nil
}

func sortedKeys[V any](m map[int32]V) []int32 {
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// oneLineJoin joins the non-nil errors on one line ("a; b"); the first
// stays unwrappable.
func oneLineJoin(errs []error) error {
	var first error
	var more []string
	for _, err := range errs {
		switch {
		case err == nil:
		case first == nil:
			first = err
		default:
			more = append(more, err.Error())
		}
	}
	if first == nil || len(more) == 0 {
		return first
	}
	return fmt.Errorf("%w; %s", first, strings.Join(more, "; "))
}
