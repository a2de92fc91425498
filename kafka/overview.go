package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/describegroups"
	"github.com/segmentio/kafka-go/protocol/listgroups"
	"github.com/segmentio/kafka-go/protocol/listoffsets"
	"github.com/segmentio/kafka-go/protocol/offsetfetch"

	"github.com/kgwatch/kgwatch/model"
)

func init() {
	protocol.RegisterOverride(&listGroupsRequest{}, &listgroups.Response{}, overrideKey)
}

// listGroupsRequest mirrors listgroups.Request, routed to one broker: a
// broker lists exactly the groups it coordinates.
type listGroupsRequest struct {
	_ struct{} `kafka:"min=v0,max=v2"`
	route
}

func (*listGroupsRequest) ApiKey() protocol.ApiKey { return protocol.ListGroups }

// offsetFetchParallel bounds the OffsetFetch requests in flight per
// coordinator.
const offsetFetchParallel = 8

// OverviewWatcher reads a summary of every consumer group of a cluster.
// Like Watcher it only reads. One Overview sends, per poll:
//
//   - ListGroups: one per broker (each lists the groups it coordinates);
//   - DescribeGroups: one per coordinator, for all its groups;
//   - OffsetFetch: one per group (kafka-go v0.4.51 speaks OffsetFetch up to
//     v5; the multi-group form needs v8), sent to the coordinator that
//     listed the group, 8 at a time per coordinator;
//   - Metadata: one, for the committed topics, when the cache is stale;
//   - ListOffsets (latest): one per partition leader, for the union of the
//     committed partitions.
//
// No FindCoordinator is needed: the broker that lists a group coordinates
// it.
type OverviewWatcher struct {
	w *Watcher
}

// NewOverviewWatcher returns an overview watcher; cfg.Group is ignored.
// It connects lazily, on the first Overview.
func NewOverviewWatcher(cfg Config) *OverviewWatcher {
	cfg.Group = ""
	return &OverviewWatcher{w: NewWatcher(cfg)}
}

// Close releases the watcher's connections.
func (o *OverviewWatcher) Close() error { return o.w.Close() }

// listed is one group as its coordinator listed it.
type listed struct {
	id, protocolType string
}

// groupRead is what one coordinator said of one group.
type groupRead struct {
	sum       model.GroupSummary
	committed map[model.TopicPartition]int64
	owned     map[model.TopicPartition]bool
}

// Overview reads every consumer group, sorted by total lag (most first).
// It fails when a broker cannot list its groups, since the overview would
// silently miss them; failures that concern one group (its description,
// its commits, log-end offsets) are recorded in that group's Err.
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
		return nil, err
	}
	return gs, nil
}

func (o *OverviewWatcher) overview(ctx context.Context) ([]model.GroupSummary, error) {
	w := o.w
	brokers, err := w.brokers(ctx)
	if err != nil {
		return nil, err
	}
	ids := sortedKeys(brokers)

	// Each broker, in parallel: list its groups, describe them in one
	// request, fetch each one's commits.
	reads := make([][]groupRead, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reads[i], errs[i] = o.readCoordinator(ctx, brokers[id])
		}()
	}
	wg.Wait()
	if err := oneLineJoin(errs); err != nil {
		return nil, err
	}

	var all []groupRead
	seen := make(map[string]bool)
	for _, rs := range reads {
		for _, r := range rs {
			if seen[r.sum.ID] {
				continue // listed twice while its coordinator moved
			}
			seen[r.sum.ID] = true
			all = append(all, r)
		}
	}
	logEnd, lerr := o.logEnds(ctx, brokers, all)
	out := make([]model.GroupSummary, 0, len(all))
	for _, r := range all {
		s := r.sum
		s.Committed = len(r.committed)
		s.Partitions = len(r.committed)
		for tp := range r.owned {
			if _, ok := r.committed[tp]; !ok {
				s.Partitions++
			}
		}
		var missing int
		s.TotalLag, s.MaxLag, missing = model.GroupLag(r.committed, logEnd)
		if missing > 0 {
			e := fmt.Sprintf("log end of %s unknown", plural(missing, "partition"))
			if lerr != "" {
				e += ": " + lerr
			}
			s.Err = joinText(s.Err, e)
		}
		out = append(out, s)
	}
	model.SortGroups(out)
	return out, nil
}

// readCoordinator lists the groups broker b coordinates, describes them in
// one request and fetches each group's committed offsets.
func (o *OverviewWatcher) readCoordinator(ctx context.Context, b broker) ([]groupRead, error) {
	w := o.w
	res, err := w.roundTrip(ctx, &listGroupsRequest{route: route{b.id}})
	if err == nil {
		if code := res.(*listgroups.Response).ErrorCode; code != 0 {
			err = kafka.Error(code)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("list groups on broker %s: %w", b.addr, err)
	}
	lg := res.(*listgroups.Response).Groups
	if len(lg) == 0 {
		return nil, nil
	}
	groups := make([]listed, len(lg))
	names := make([]string, len(lg))
	for i, g := range lg {
		groups[i] = listed{id: g.GroupID, protocolType: g.ProtocolType}
		names[i] = g.GroupID
	}

	reads := make([]groupRead, len(groups))
	for i, g := range groups {
		reads[i].sum = model.GroupSummary{ID: g.id, ProtocolType: g.protocolType}
	}
	res, err = w.roundTrip(ctx, &describeGroupsRequest{Groups: names, route: route{b.id}})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("describe groups on coordinator %s: %w", b.addr, err)
		}
		for i := range reads {
			reads[i].sum.Err = "describe: " + err.Error()
		}
	} else {
		described := make(map[string]describegroups.ResponseGroup, len(names))
		for _, g := range res.(*describegroups.Response).Groups {
			described[g.GroupID] = g
		}
		for i := range reads {
			describeInto(&reads[i], described)
		}
	}

	sem := make(chan struct{}, offsetFetchParallel)
	var wg sync.WaitGroup
	for i := range reads {
		r := &reads[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res, err := w.roundTrip(ctx, &offsetFetchRequest{GroupID: r.sum.ID, route: route{b.id}})
			if err == nil {
				if code := res.(*offsetfetch.Response).ErrorCode; code != 0 && kafka.Error(code) != kafka.GroupIdNotFound {
					err = kafka.Error(code)
				}
			}
			if err != nil {
				r.sum.Err = joinText(r.sum.Err, "commits: "+err.Error())
				return
			}
			var cerrs map[model.TopicPartition]string
			r.committed, cerrs = committed(res.(*offsetfetch.Response))
			if len(cerrs) > 0 {
				r.sum.Err = joinText(r.sum.Err, fmt.Sprintf("commits of %s unreadable", plural(len(cerrs), "partition")))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read groups on coordinator %s: %w", b.addr, err)
	}
	for i := range reads {
		r := &reads[i]
		// Dead to DescribeGroups yet holding commits: a group of another
		// protocol (KIP-848), as Watcher.Poll reports it.
		if r.sum.State == model.StateDead && len(r.committed) > 0 {
			r.sum.State = model.StateUnknown
		}
	}
	return reads, nil
}

// describeInto fills r from its DescribeGroups answer.
func describeInto(r *groupRead, described map[string]describegroups.ResponseGroup) {
	g, ok := described[r.sum.ID]
	switch {
	case !ok:
		r.sum.Err = "describe: group missing from the coordinator's answer"
		return
	case kafka.Error(g.ErrorCode) == kafka.GroupIdNotFound || (g.ErrorCode == 0 && g.GroupState == ""):
		r.sum.State = model.StateDead
		return
	case g.ErrorCode != 0:
		r.sum.Err = "describe: " + errText(g.ErrorCode)
		return
	}
	r.sum.State = g.GroupState
	if g.ProtocolType != "" {
		r.sum.ProtocolType = g.ProtocolType
	}
	ms := members(g)
	r.sum.Members = len(ms)
	for _, m := range ms {
		for _, tp := range m.Partitions {
			if r.owned == nil {
				r.owned = make(map[model.TopicPartition]bool)
			}
			r.owned[tp] = true
		}
	}
}

// logEnds reads the latest offset of every committed partition of groups:
// one ListOffsets per leader. Partitions it could not read are absent; the
// reason is returned as text.
func (o *OverviewWatcher) logEnds(ctx context.Context, brokers map[int32]broker, groups []groupRead) (map[model.TopicPartition]int64, string) {
	w := o.w
	union := make(map[model.TopicPartition]int64)
	for _, g := range groups {
		for tp, c := range g.committed {
			union[tp] = c
		}
	}
	if len(union) == 0 {
		return nil, ""
	}
	obs := model.Observation{Committed: union}
	topics := groupTopics(obs)
	if w.meta.needsRefresh(topics, &obs, time.Now()) {
		via := brokers[sortedKeys(brokers)[0]]
		res, err := w.roundTrip(ctx, &metadataRequest{TopicNames: topics, route: route{via.id}})
		if err != nil {
			w.meta.stale = true
			return nil, fmt.Sprintf("describe committed topics on broker %s: %v", via.addr, err)
		}
		w.meta = metadataCache{topics: topicMetas(res.(*metadataResponse)), fetched: time.Now()}
	}

	byLeader := make(map[int32][]listoffsets.RequestTopic)
	tps := make([]model.TopicPartition, 0, len(union))
	for tp := range union {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool { return tps[i].Less(tps[j]) })
	var problems []string
	for _, tp := range tps {
		leader, ok := w.meta.leader(tp)
		if !ok {
			continue
		}
		rts := byLeader[leader]
		if n := len(rts); n == 0 || rts[n-1].Topic != tp.Topic {
			rts = append(rts, listoffsets.RequestTopic{Topic: tp.Topic})
		}
		last := &rts[len(rts)-1]
		last.Partitions = append(last.Partitions, listoffsets.RequestPartition{Partition: tp.Partition, CurrentLeaderEpoch: -1})
		byLeader[leader] = rts
	}

	type result struct {
		res *listoffsets.Response
		err error
	}
	leaders := sortedKeys(byLeader)
	results := make([]result, len(leaders))
	var wg sync.WaitGroup
	for i, leader := range leaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].res, results[i].err = w.listOffsetsAt(ctx, leader, byLeader[leader], latest)
		}()
	}
	wg.Wait()
	out := make(map[model.TopicPartition]int64, len(union))
	for i, r := range results {
		if r.err != nil {
			w.meta.stale = true
			addr := brokers[leaders[i]].addr
			problems = append(problems, fmt.Sprintf("leader %s: %v", addr, r.err))
			continue
		}
		for tp, p := range offsetIndex(r.res) {
			if p.ErrorCode != 0 {
				if leaderMoved(p.ErrorCode) {
					w.meta.stale = true
				}
				continue
			}
			out[tp] = p.Offset
		}
	}
	return out, strings.Join(problems, "; ")
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
