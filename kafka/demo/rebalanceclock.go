package demo

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// clockEvery is how often the rebalance clock reads the coordinator's
// groups; it bounds how late a demo_rebalance_clocked can come, not its
// dates, which are the requests'.
const clockEvery = 10 * time.Millisecond

// rebalanceClock dates the rebalances of the demo's groups on the embedded
// coordinator, for every member, the demo's or an outside client joining
// through --listen: from when the group left Stable or a member asked to
// join, to when every member had its assignment (classic: its SyncGroup
// answered; consumer protocol: its heartbeat reached the target epoch).
// The polls of a watch see a rebalance only to within an interval; these
// dates are the same for the same action whatever the interval.
//
// Controls observe the group requests on the cluster's loop and only
// note the time; a goroutine reads the groups (GroupInfo) off the loop
// and decides when a rebalance began and ended.
type rebalanceClock struct {
	c    *kfake.Cluster
	emit func(model.Event)
	// wake asks the reader to look now: a request that may end a
	// rebalance came, and its clock should reach the screen before the
	// watch's next poll does.
	wake chan struct{}

	mu     sync.Mutex
	groups map[string]*groupClock
	// partitions is the demo topic's partition count: a consumer-protocol
	// rebalance has ended once its members own them all.
	partitions int
}

// setPartitions tells the clock how many partitions the demo topic has.
func (rc *rebalanceClock) setPartitions(n int) {
	rc.mu.Lock()
	rc.partitions = n
	rc.mu.Unlock()
}

// trigger is a request, or a timeout, that may have set a rebalance off.
type trigger struct {
	at  time.Time
	why string
	// soft: a known member rejoining, which rebalances only if its
	// subscription changed (a static member's restart does not).
	soft bool
}

// groupClock is what the clock knows of one group. Guarded by
// rebalanceClock.mu.
type groupClock struct {
	name           string
	consumer       bool          // KIP-848: heartbeats, no JoinGroup
	sessionTimeout time.Duration // the broker's, for a member that named none

	triggers  []trigger
	fromEmpty bool // the group was empty when the first trigger came
	empty     bool // at the last check
	lastGen   int32

	seen     map[string]time.Time     // member → its last request
	timeouts map[string]time.Duration // member → the session timeout it joined with
	left     map[string]bool          // members that sent a leave
	known    map[string]string        // member → client id, at the last check
	// classic: generation → member → when its SyncGroup came.
	syncs map[int32]map[string]time.Time
	// consumer protocol: member → its last epoch and owned partitions,
	// and when a heartbeat last moved either.
	reported map[string]string
	changed  map[string]time.Time
	owned    map[string]int // member → how many partitions it reported owning
}

func newGroupClock(name string, consumer bool, sessionTimeout time.Duration) *groupClock {
	return &groupClock{
		name: name, consumer: consumer, sessionTimeout: sessionTimeout,
		empty: true, seen: map[string]time.Time{}, timeouts: map[string]time.Duration{}, left: map[string]bool{},
		syncs: map[int32]map[string]time.Time{}, reported: map[string]string{}, changed: map[string]time.Time{}, owned: map[string]int{},
	}
}

// startRebalanceClock installs the clock's controls on c for groups and
// starts its reader, which stops with ctx.
func startRebalanceClock(ctx context.Context, wg *sync.WaitGroup, c *kfake.Cluster, groups []*group, emit func(model.Event)) *rebalanceClock {
	rc := &rebalanceClock{c: c, emit: emit, groups: map[string]*groupClock{}, wake: make(chan struct{}, 1)}
	for _, g := range groups {
		rc.groups[g.spec.Name] = newGroupClock(g.spec.Name, g.spec.Protocol == ProtocolConsumer, g.sessionTimeout)
	}
	for _, key := range []kmsg.Key{kmsg.JoinGroup, kmsg.SyncGroup, kmsg.LeaveGroup, kmsg.Heartbeat, kmsg.ConsumerGroupHeartbeat} {
		c.ControlKey(int16(key), func(r kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			if rc.note(r, time.Now()) {
				select {
				case rc.wake <- struct{}{}:
				default:
				}
			}
			return nil, nil, false
		})
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(clockEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-rc.wake:
			}
			for name := range rc.groups {
				rc.check(name)
			}
		}
	}()
	return rc
}

// note records request r, seen at now on the cluster's loop, and reports
// whether it may end a rebalance. It calls no cluster method.
func (rc *rebalanceClock) note(r kmsg.Request, now time.Time) (ends bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch req := r.(type) {
	case *kmsg.JoinGroupRequest:
		if g := rc.groups[req.Group]; g != nil {
			if req.MemberID != "" {
				g.seen[req.MemberID] = now
				g.timeouts[req.MemberID] = time.Duration(req.SessionTimeoutMillis) * time.Millisecond
			}
			if req.MemberID == "" && req.InstanceID == nil {
				g.trigger(now, "a member asked to join", false)
			} else {
				g.trigger(now, "a member rejoined", true)
			}
		}
	case *kmsg.SyncGroupRequest:
		if g := rc.groups[req.Group]; g != nil {
			g.seen[req.MemberID] = now
			if g.syncs[req.Generation] == nil {
				g.syncs[req.Generation] = map[string]time.Time{}
			}
			g.syncs[req.Generation][req.MemberID] = now
			return true
		}
	case *kmsg.HeartbeatRequest:
		if g := rc.groups[req.Group]; g != nil {
			g.seen[req.MemberID] = now
		}
	case *kmsg.LeaveGroupRequest:
		if g := rc.groups[req.Group]; g != nil {
			ids := []string{req.MemberID}
			for _, m := range req.Members {
				ids = append(ids, m.MemberID)
			}
			for _, id := range ids {
				if id != "" {
					g.left[id] = true
				}
			}
			g.trigger(now, "a member left", false)
		}
	case *kmsg.ConsumerGroupHeartbeatRequest:
		if g := rc.groups[req.Group]; g != nil {
			g.heartbeat(req, now)
			return true
		}
	}
	return false
}

// heartbeat records a consumer-protocol heartbeat: a join (epoch 0), a
// leave (-1), or a member's epoch and owned partitions.
func (g *groupClock) heartbeat(req *kmsg.ConsumerGroupHeartbeatRequest, now time.Time) {
	id := req.MemberID
	switch req.MemberEpoch {
	case 0:
		g.trigger(now, "a member asked to join", false)
		return
	case -1:
		g.left[id] = true
		g.trigger(now, "a member left", false)
		return
	case -2: // a static member's temporary leave: no rebalance
		return
	}
	g.seen[id] = now
	prevEpoch, prevOwned, _ := strings.Cut(g.reported[id], "/")
	owned := prevOwned
	if req.Topics != nil { // nil: unchanged since the last heartbeat
		var b strings.Builder
		n := 0
		for _, t := range req.Topics {
			fmt.Fprintf(&b, "%x:%v;", t.TopicID, t.Partitions)
			n += len(t.Partitions)
		}
		owned, g.owned[id] = b.String(), n
	}
	epoch := strconv.Itoa(int(req.MemberEpoch))
	if epoch != prevEpoch || owned != prevOwned {
		g.changed[id] = now
	}
	g.reported[id] = epoch + "/" + owned
}

// trigger notes something that may have set a rebalance off at at.
func (g *groupClock) trigger(at time.Time, why string, soft bool) {
	if len(g.triggers) == 0 {
		g.fromEmpty = g.empty
	}
	if len(g.triggers) < 256 {
		g.triggers = append(g.triggers, trigger{at: at, why: why, soft: soft})
	}
}

// check reads the group off the cluster's loop and emits a
// demo_rebalance_clocked when a rebalance has ended.
func (rc *rebalanceClock) check(name string) {
	checked := time.Now() // every request noted by now is in gi
	gi := rc.c.GroupInfo(name)
	rc.mu.Lock()
	e, ok := rc.groups[name].check(gi, checked, rc.partitions)
	rc.mu.Unlock()
	if ok && rc.emit != nil {
		rc.emit(e)
	}
}

// check updates g from gi, read after checked, and returns the clocked
// event of the rebalance that gi shows ended, if one did.
func (g *groupClock) check(gi *kfake.GroupInfo, checked time.Time, partitions int) (model.Event, bool) {
	if gi == nil || gi.State == "Empty" || gi.State == "Dead" {
		// The last member left: nothing to date.
		g.empty, g.known = true, nil
		g.drop(checked, false)
		return model.Event{}, false
	}
	g.empty = false
	members := make(map[string]string, len(gi.Members))
	for _, m := range gi.Members {
		members[m.MemberID] = m.ClientID
	}
	for id, client := range g.known {
		if _, stays := members[id]; stays || g.left[id] {
			continue
		}
		// Gone without a leave: the coordinator expired its session.
		timeout, ok := g.timeouts[id]
		if !ok || timeout <= 0 {
			timeout = g.sessionTimeout
		}
		if seen, ok := g.seen[id]; ok && !seen.Add(timeout).After(checked) {
			g.trigger(seen.Add(timeout), client+"'s session timed out", false)
		}
	}
	g.known = members
	if gi.State != "Stable" {
		return model.Event{}, false
	}
	if gi.Epoch == g.lastGen {
		g.drop(checked, true) // rejoins that changed nothing
		return model.Event{}, false
	}
	end, joined, ok := g.assigned(gi, partitions)
	if !ok {
		return model.Event{}, false
	}
	start := -1
	for i, t := range g.triggers {
		if !t.at.After(end) && (start < 0 || t.at.Before(g.triggers[start].at)) {
			start = i
		}
	}
	g.lastGen = gi.Epoch
	for gen := range g.syncs {
		if gen <= gi.Epoch {
			delete(g.syncs, gen)
		}
	}
	for id := range g.left {
		if _, in := members[id]; !in {
			delete(g.left, id)
		}
	}
	if start < 0 {
		return model.Event{}, false
	}
	t := g.triggers[start]
	fromEmpty := g.fromEmpty
	g.drop(joined, false)
	g.fromEmpty = false // what is left began with the group in use
	took := end.Sub(t.at)
	e := model.Event{
		Time: end, Type: model.EventDemoRebalanceClocked, Group: g.name,
		Duration: took, HasDuration: true,
	}
	e.Detail = fmt.Sprintf("coordinator: %s, all assigned %s later (%s)",
		t.why, model.Elapsed(took), g.epochWord(gi.Epoch))
	if fromEmpty {
		e.State = model.StateEmpty
	}
	return e, true
}

// epochWord names the epoch a rebalance ended in.
func (g *groupClock) epochWord(n int32) string {
	if g.consumer {
		return "group epoch " + strconv.Itoa(int(n))
	}
	return "generation " + strconv.Itoa(int(n))
}

// assigned returns when every member of gi had its assignment, if every
// one has: the last SyncGroup of the generation (the coordinator answers
// each once the leader's has come), or, consumer protocol, the last
// heartbeat that moved a member's epoch or owned partitions, once each
// member says it owns what the coordinator sent it and they own all
// partitions (a KIP-848 member reaches the target epoch before the
// partitions others still hold reach it). joined is
// when the generation stopped taking members (its first SyncGroup): a
// request after it sets the next rebalance off.
func (g *groupClock) assigned(gi *kfake.GroupInfo, partitions int) (end, joined time.Time, ok bool) {
	if g.consumer {
		owned := 0
		for i := range gi.Members {
			m := &gi.Members[i]
			if g.owned[m.MemberID] != m.NumAssigned() {
				return time.Time{}, time.Time{}, false
			}
			owned += m.NumAssigned()
		}
		if owned < partitions {
			return time.Time{}, time.Time{}, false
		}
	}
	for _, m := range gi.Members {
		var at time.Time
		if g.consumer {
			at = g.changed[m.MemberID]
		} else {
			at = g.syncs[gi.Epoch][m.MemberID]
		}
		if at.IsZero() {
			return time.Time{}, time.Time{}, false
		}
		if at.After(end) {
			end = at
		}
		if joined.IsZero() || at.Before(joined) {
			joined = at
		}
	}
	if g.consumer {
		joined = end
	}
	return end, joined, len(gi.Members) > 0
}

// drop forgets the triggers noted by at (only the soft ones, if soft).
func (g *groupClock) drop(at time.Time, soft bool) {
	g.triggers = slices.DeleteFunc(g.triggers, func(t trigger) bool {
		return !t.at.After(at) && (t.soft || !soft)
	})
}
