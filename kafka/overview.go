package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// offsetFetchParallel bounds the OffsetFetch requests in flight per
// coordinator when it is too old (before v8) to take many groups in one.
const offsetFetchParallel = 8

// offsetFetchBatch is the most groups asked in one OffsetFetch (v8+).
const offsetFetchBatch = 500

// OverviewWatcher reads a summary of every group of a cluster, of every
// type. Like Watcher it only reads. One Overview sends, per poll and per
// coordinator (each broker lists the groups it coordinates):
//
//   - ListGroups: one (v5+ names each group's type, v4+ its state);
//   - DescribeGroups, ConsumerGroupDescribe, ShareGroupDescribe: one each
//     for that coordinator's groups of the type, none when it has none;
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
	// hist judges each group's status poll after poll.
	hist *model.OverviewHistory
}

// overviewFetchRounds bounds the lag-age Fetch requests per leader and
// poll: records left unread are read on a later poll (their age is
// unknown until then).
const overviewFetchRounds = 3

// NewOverviewWatcher returns an overview watcher; cfg.Group is ignored.
// It connects lazily, on the first Overview.
func NewOverviewWatcher(cfg Config) *OverviewWatcher {
	cfg.Group = ""
	return &OverviewWatcher{w: NewWatcher(cfg), hist: model.NewOverviewHistory(model.HistoryOptions{})}
}

// SetHistoryOptions sets how groups are judged (StallAfter is
// `--stall-after`) and forgets the polls judged so far.
func (o *OverviewWatcher) SetHistoryOptions(opts model.HistoryOptions) {
	o.w.mu.Lock()
	defer o.w.mu.Unlock()
	o.hist = model.NewOverviewHistory(opts)
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
	sum       model.GroupSummary
	committed map[model.TopicPartition]int64
	shareLag  map[model.TopicPartition]int64
	// owned holds the partitions in a member's assignment: true when a
	// member owns it now, false when only in a consumer group member's
	// target (model.OverviewGroup.Assigned).
	owned map[model.TopicPartition]bool
	// owner names the member owning each owned partition (the first in
	// the answer, for a share group's shared ones).
	owner map[model.TopicPartition]string
	// assigned and targeted hold a consumer or share group's current
	// and (consumer groups) target assignments, read into owned once
	// their topic ids are named; assignedBy the member of each assigned.
	assigned, targeted [][]kmsg.AssignmentTopicPartition
	assignedBy         []string
}

// own records that member owns tp.
func (r *groupRead) own(tp model.TopicPartition, member string) {
	if r.owned == nil {
		r.owned = make(map[model.TopicPartition]bool)
		r.owner = make(map[model.TopicPartition]string)
	}
	r.owned[tp] = true
	if _, ok := r.owner[tp]; !ok {
		r.owner[tp] = member
	}
}

// Overview reads every group, the group in trouble first
// (model.GroupsByStatus): its lag as the group view counts it, its oldest
// lag's age, and its status as judged over the polls so far (the first
// can tell only OK, UNOWNED and STOPPED). It fails when a broker cannot
// list its groups, since the overview would silently miss them; failures
// that concern one group (its description, its commits, log-end offsets)
// are recorded in that group's Err.
func (o *OverviewWatcher) Overview(ctx context.Context) ([]model.GroupSummary, error) {
	w := o.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("overview: watcher is closed")
	}
	if w.addr == nil {
		return nil, errors.New("overview: no broker address configured")
	}
	gs, err := o.overview(ctx)
	if err != nil {
		w.resetTransport()
		return nil, namedCodes(err)
	}
	return gs, nil
}

func (o *OverviewWatcher) overview(ctx context.Context) ([]model.GroupSummary, error) {
	w := o.w
	takenAt := time.Now()
	brokers, err := w.brokers(ctx)
	if err != nil {
		return nil, err
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
		go func() {
			defer wg.Done()
			reads[i], perGroup[i], errs[i] = o.readCoordinator(ctx, brokers[id])
		}()
	}
	wg.Wait()
	if err := oneLineJoin(errs); err != nil {
		return nil, err
	}

	n := 0
	for _, rs := range reads {
		n += len(rs)
	}
	all := make([]groupRead, 0, n)
	seen := make(map[string]bool, n)
	for _, rs := range reads {
		for _, r := range rs {
			if seen[r.sum.ID] {
				continue // listed twice while its coordinator moved
			}
			seen[r.sum.ID] = true
			all = append(all, r)
		}
	}
	o.ownedPartitions(ctx, brokers, all)
	obs := model.OverviewObservation{TakenAt: takenAt, Groups: make([]model.OverviewGroup, len(all))}
	for i, r := range all {
		obs.Groups[i] = model.OverviewGroup{Summary: r.sum, Committed: r.committed, ShareLag: r.shareLag, Assigned: r.owned, Owner: r.owner}
	}
	obs.Offsets, obs.LogErr = o.logOffsets(ctx, brokers, obs.Groups)
	obs.Records = o.lagRecords(ctx, &obs)
	out := o.hist.Observe(&obs)
	model.SortGroupsBy(out, model.GroupsByStatus)
	o.batched = !slices.Contains(perGroup, true)
	return out, nil
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
		out[model.RecordAt{TopicPartition: k.tp, Offset: k.offset}] = model.RecordStamp{Time: s.ts, Gone: s.gone, MarkersOnly: s.markers}
	}
	return out
}

// ownedPartitions fills each group's owned partitions from its consumer or
// share assignments (and targets: partitions being handed over), naming
// the topic ids the describes gave alone.
func (o *OverviewWatcher) ownedPartitions(ctx context.Context, brokers map[int32]broker, all []groupRead) {
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
	for i := range all {
		r := &all[i]
		for j, a := range r.assigned {
			for _, tp := range assigned(a, w.topicName) {
				r.own(tp, r.assignedBy[j])
			}
		}
		for _, a := range r.targeted {
			for _, tp := range assigned(a, w.topicName) {
				if r.owned == nil {
					r.owned = make(map[model.TopicPartition]bool)
				}
				if _, ok := r.owned[tp]; !ok {
					r.owned[tp] = false // being handed over: a row, unowned
				}
			}
		}
		r.assigned, r.targeted, r.assignedBy = nil, nil, nil
	}
}

// readCoordinator lists the groups broker b coordinates, describes them
// (one request per group type) and fetches their commits. perGroup says
// the broker needed one OffsetFetch per group.
func (o *OverviewWatcher) readCoordinator(ctx context.Context, b broker) (reads []groupRead, perGroup bool, err error) {
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
	reads = make([]groupRead, len(lg))
	byType := map[model.GroupType][]int{}
	for i, g := range lg {
		// v4+ gives the state, v5+ the type: a streams group keeps the
		// listed state, as no describe kgwatch speaks knows it.
		reads[i].sum = model.GroupSummary{ID: g.Group, Type: model.GroupType(g.GroupType), ProtocolType: listedProtocolType(g), State: g.GroupState}
		switch t := model.GroupType(g.GroupType); t {
		case model.TypeConsumer, model.TypeShare, model.TypeStreams:
			byType[t] = append(byType[t], i)
		default: // classic, or a broker too old to say (before v5)
			byType[model.TypeClassic] = append(byType[model.TypeClassic], i)
		}
	}
	o.describeClassic(ctx, b, reads, byType[model.TypeClassic])
	o.describeConsumer(ctx, b, reads, byType[model.TypeConsumer])
	o.describeShare(ctx, b, reads, byType[model.TypeShare])
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("describe groups on coordinator %s: %w", b.addr, err)
	}

	var fetch []int // groups with offsets: all but share groups
	for i := range reads {
		if reads[i].sum.Type != model.TypeShare {
			fetch = append(fetch, i)
		}
	}
	perGroup = o.fetchCommits(ctx, b, reads, fetch)
	o.fetchShareStarts(ctx, b, reads, byType[model.TypeShare])
	if err := ctx.Err(); err != nil {
		return nil, false, fmt.Errorf("read groups on coordinator %s: %w", b.addr, err)
	}
	for i := range reads {
		r := &reads[i]
		// Dead to DescribeGroups yet holding commits: a group of a type
		// the broker did not name (a ListGroups before v5), as
		// Watcher.Poll reports it.
		if r.sum.State == model.StateDead && len(r.committed) > 0 {
			r.sum.State = model.StateUnknown
		}
	}
	return reads, perGroup, nil
}

// askGroups sends req, which names the groups at idx, to b (at a version
// from minV to maxV, as sendKmsg) and hands each group its part of the
// answer: groups lists the answer's groups, id names one. A group gets
// why on its Err (after what: "describe", "commits") when the request
// failed or the answer leaves it out.
func askGroups[R kmsg.Response, G any](ctx context.Context, w *Watcher, b broker, req kmsg.Request, minV, maxV int16, reads []groupRead, idx []int, what string,
	groups func(R) []G, id func(*G) string, take func(*groupRead, *G)) {
	res, err := w.sendKmsg(ctx, b.id, req, minV, maxV)
	if err != nil {
		for _, i := range idx {
			reads[i].sum.Err = joinText(reads[i].sum.Err, what+": "+err.Error())
		}
		return
	}
	gs := groups(res.(R))
	byID := make(map[string]*G, len(gs))
	for k := range gs {
		byID[id(&gs[k])] = &gs[k]
	}
	for _, i := range idx {
		r := &reads[i]
		g, ok := byID[r.sum.ID]
		if !ok {
			r.sum.Err = joinText(r.sum.Err, what+": group missing from the coordinator's answer")
			continue
		}
		take(r, g)
	}
}

// groupIDs returns the ids of the groups at idx.
func groupIDs(reads []groupRead, idx []int) []string {
	ids := make([]string, len(idx))
	for k, i := range idx {
		ids[k] = reads[i].sum.ID
	}
	return ids
}

// describeClassic describes the classic groups at idx in one
// DescribeGroups.
func (o *OverviewWatcher) describeClassic(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = groupIDs(reads, idx)
	askGroups(ctx, o.w, b, req, 0, -1, reads, idx, "describe",
		func(res *kmsg.DescribeGroupsResponse) []kmsg.DescribeGroupsResponseGroup { return res.Groups },
		func(g *kmsg.DescribeGroupsResponseGroup) string { return g.Group },
		func(r *groupRead, g *kmsg.DescribeGroupsResponseGroup) {
			switch {
			case kafka.Error(g.ErrorCode) == kafka.GroupIdNotFound || (g.ErrorCode == 0 && (g.State == "" || g.State == model.StateDead)):
				r.sum.State = model.StateDead
				return
			case g.ErrorCode != 0:
				r.sum.Err = joinText(r.sum.Err, "describe: "+errText(g.ErrorCode))
				return
			}
			r.sum.State = g.State
			if r.sum.Type == "" {
				r.sum.Type = model.TypeClassic
			}
			if g.ProtocolType != "" {
				r.sum.ProtocolType = g.ProtocolType
			}
			// Members and what they own, read as classicMembers does;
			// of their subscriptions only the generation they tell.
			r.sum.Members = len(g.Members)
			r.sum.Generation = classicGeneration(*g)
			if g.ProtocolType != "consumer" && g.ProtocolType != "" {
				return
			}
			for _, m := range g.Members {
				parts, err := decodeAssignment(m.MemberAssignment)
				if err != nil {
					continue // undecodable: no partitions, as in the group view
				}
				for _, tp := range parts {
					r.own(tp, m.MemberID)
				}
			}
		})
}

// describeConsumer describes the consumer groups at idx in one
// ConsumerGroupDescribe.
func (o *OverviewWatcher) describeConsumer(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = groupIDs(reads, idx)
	askGroups(ctx, o.w, b, req, 0, -1, reads, idx, "describe",
		func(res *kmsg.ConsumerGroupDescribeResponse) []kmsg.ConsumerGroupDescribeResponseGroup {
			return res.Groups
		},
		func(g *kmsg.ConsumerGroupDescribeResponseGroup) string { return g.Group },
		func(r *groupRead, g *kmsg.ConsumerGroupDescribeResponseGroup) {
			if !describedOK(r, g.ErrorCode) {
				return
			}
			r.sum.State, r.sum.Members, r.sum.Generation = g.State, len(g.Members), g.AssignmentEpoch
			for _, m := range g.Members {
				r.assigned = append(r.assigned, m.Assignment.TopicPartitions)
				r.assignedBy = append(r.assignedBy, m.MemberID)
				r.targeted = append(r.targeted, m.TargetAssignment.TopicPartitions)
			}
		})
}

// describeShare describes the share groups at idx in one
// ShareGroupDescribe.
func (o *OverviewWatcher) describeShare(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	req := kmsg.NewPtrShareGroupDescribeRequest()
	req.GroupIDs = groupIDs(reads, idx)
	askGroups(ctx, o.w, b, req, 0, -1, reads, idx, "describe",
		func(res *kmsg.ShareGroupDescribeResponse) []kmsg.ShareGroupDescribeResponseGroup { return res.Groups },
		func(g *kmsg.ShareGroupDescribeResponseGroup) string { return g.GroupID },
		func(r *groupRead, g *kmsg.ShareGroupDescribeResponseGroup) {
			if !describedOK(r, g.ErrorCode) {
				return
			}
			r.sum.State, r.sum.Members, r.sum.Generation = g.GroupState, len(g.Members), g.AssignmentEpoch
			for _, m := range g.Members {
				r.assigned = append(r.assigned, shareAssignment(m.Assignment.TopicPartitions))
				r.assignedBy = append(r.assignedBy, m.MemberID)
			}
		})
}

// describedOK records on r what a type-specific describe's error code
// said, and reports whether the answer is a description.
func describedOK(r *groupRead, code int16) bool {
	switch {
	case kafka.Error(code) == kafka.GroupIdNotFound:
		r.sum.State = model.StateDead // gone since it was listed
	case code != 0:
		r.sum.Err = joinText(r.sum.Err, "describe: "+errText(code))
	default:
		return true
	}
	return false
}

// fetchCommits reads the committed offsets of the groups at idx: one
// OffsetFetch per offsetFetchBatch groups when the broker speaks v8, else
// one per group (perGroup), offsetFetchParallel at a time.
func (o *OverviewWatcher) fetchCommits(ctx context.Context, b broker, reads []groupRead, idx []int) (perGroup bool) {
	w := o.w
	if len(idx) == 0 {
		return false
	}
	if w.vers.supports(b.id, 9, 8) {
		for from := 0; from < len(idx); from += offsetFetchBatch {
			batch := idx[from:min(from+offsetFetchBatch, len(idx))]
			askGroups(ctx, w, b, offsetFetch(groupIDs(reads, batch)...), 8, maxOffsetFetch, reads, batch, "commits",
				func(res *kmsg.OffsetFetchResponse) []kmsg.OffsetFetchResponseGroup { return res.Groups },
				func(g *kmsg.OffsetFetchResponseGroup) string { return g.Group },
				func(r *groupRead, g *kmsg.OffsetFetchResponseGroup) { takeCommits(r, *g) })
		}
		return false
	}
	sem := make(chan struct{}, offsetFetchParallel)
	var wg sync.WaitGroup
	for _, i := range idx {
		r := &reads[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res, err := w.sendKmsg(ctx, b.id, offsetFetch(r.sum.ID), 0, maxOffsetFetch)
			if err != nil {
				r.sum.Err = joinText(r.sum.Err, "commits: "+err.Error())
				return
			}
			if gs := offsetGroups(res.(*kmsg.OffsetFetchResponse), r.sum.ID); len(gs) == 1 {
				takeCommits(r, gs[0])
			}
		}()
	}
	wg.Wait()
	return true
}

// takeCommits records one group's OffsetFetch answer on r.
func takeCommits(r *groupRead, g kmsg.OffsetFetchResponseGroup) {
	if code := g.ErrorCode; code != 0 && kafka.Error(code) != kafka.GroupIdNotFound {
		r.sum.Err = joinText(r.sum.Err, "commits: "+errText(code))
		return
	}
	var cerrs map[model.TopicPartition]string
	r.committed, cerrs = committed(g)
	if len(cerrs) > 0 {
		r.sum.Err = joinText(r.sum.Err, fmt.Sprintf("commits of %s unreadable", plural(len(cerrs), "partition")))
	}
}

// fetchShareStarts reads the share groups at idx's start offsets and lag
// in one DescribeShareGroupOffsets.
func (o *OverviewWatcher) fetchShareStarts(ctx context.Context, b broker, reads []groupRead, idx []int) {
	if len(idx) == 0 {
		return
	}
	w := o.w
	req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	for _, id := range groupIDs(reads, idx) {
		rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
		rg.GroupID = id
		req.Groups = append(req.Groups, rg)
	}
	askGroups(ctx, w, b, req, 0, -1, reads, idx, "start offsets",
		func(res *kmsg.DescribeShareGroupOffsetsResponse) []kmsg.DescribeShareGroupOffsetsResponseGroup {
			return res.Groups
		},
		func(g *kmsg.DescribeShareGroupOffsetsResponseGroup) string { return g.GroupID },
		func(r *groupRead, g *kmsg.DescribeShareGroupOffsetsResponseGroup) {
			if g.ErrorCode != 0 && kafka.Error(g.ErrorCode) != kafka.GroupIdNotFound {
				r.sum.Err = joinText(r.sum.Err, "start offsets: "+errText(g.ErrorCode))
				return
			}
			var errs map[model.TopicPartition]string
			r.committed, r.shareLag, errs = shareOffsets(*g, w.topicName) // no id is learned meanwhile
			if len(errs) > 0 {
				r.sum.Err = joinText(r.sum.Err, fmt.Sprintf("start offsets of %s unreadable", plural(len(errs), "partition")))
			}
		})
}

// logOffsets reads the log offsets the groups' lag needs
// (logOffsetsFor): the log end of every partition a group committed or is
// assigned, and the log start of those some group is assigned without a
// commit (the others keep model.NoOffset). Partitions it could not read
// have an Err; the reasons are returned as text, each naming a partition
// it concerns.
func (o *OverviewWatcher) logOffsets(ctx context.Context, brokers map[int32]broker, groups []model.OverviewGroup) (map[model.TopicPartition]model.PartitionOffsets, string) {
	w := o.w
	union := make(map[model.TopicPartition]int64)
	starts := make(map[model.TopicPartition]bool)
	for _, g := range groups {
		for tp, c := range g.Committed {
			union[tp] = c
		}
		for tp := range g.Assigned {
			if _, ok := g.Committed[tp]; !ok {
				union[tp] = model.NoOffset
				starts[tp] = true
			}
		}
	}
	if len(union) == 0 {
		return nil, ""
	}
	obs := model.Observation{Committed: union}
	topics := groupTopics(obs)
	if w.meta.needsRefresh(topics, &obs, time.Now()) {
		if err := w.refreshMetadata(ctx, brokers[sortedKeys(brokers)[0]], topics); err != nil {
			return nil, err.Error()
		}
	}

	tps := make([]model.TopicPartition, 0, len(union))
	for tp := range union {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool { return tps[i].Less(tps[j]) })
	r := w.logOffsetsFor(ctx, brokers, slices.Values(tps), len(tps), func(tp model.TopicPartition) bool { return starts[tp] })
	return r.offsets, logProblems(tps, r.offsets)
}

// logProblems names the reasons some of tps's offsets could not be read,
// once each, with the first partition it concerns: "orders/1: partition
// has no leader", "orders/0 and 2 more partitions: log offsets from
// leader …".
func logProblems(tps []model.TopicPartition, offsets map[model.TopicPartition]model.PartitionOffsets) string {
	type problem struct {
		first model.TopicPartition
		n     int
	}
	var order []string
	var problems map[string]*problem
	for _, tp := range tps {
		e := offsets[tp].Err
		if e == "" {
			continue
		}
		if p, ok := problems[e]; ok {
			p.n++
			continue
		}
		if problems == nil {
			problems = make(map[string]*problem)
		}
		problems[e] = &problem{first: tp, n: 1}
		order = append(order, e)
	}
	texts := make([]string, len(order))
	for i, e := range order {
		p := problems[e]
		at := fmt.Sprintf("%s/%d", p.first.Topic, p.first.Partition)
		if p.n > 1 {
			at += " and " + plural(p.n-1, "more partition")
		}
		texts[i] = at + ": " + e
	}
	return strings.Join(texts, "; ")
}

func sortedKeys[V any](m map[int32]V) []int32 {
	ids := make([]int32, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
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
