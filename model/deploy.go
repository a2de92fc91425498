package model

import (
	"strconv"
	"strings"
	"time"
)

// A deploy, told as one. A rolling restart replaces the group's members
// one by one; the diff sees a leave and a join (a static member: a join
// with a new member id) and a rebalance or two each time. A member is
// replaced when one with the same client id (or, static, the same
// group.instance.id) but another member id takes its place, the leave and
// the join within DeploySpan of each other, in either order (a killed
// process's successor joins before the old member is evicted). Replacements
// each within DeploySpan of the previous are one run: deploy_started at
// the first, deploy_completed when none has come for DeploySpan — or at
// once, when two or more members have each been replaced once, every
// member of the group is one of them and the group is Stable again. The
// completion counts what the run cost: the rebalances completed from the
// first replacement's leave to the group's first Stable poll after the
// last replacement, and their durations added up.
//
// A run that replaces one member more than once is a restart loop (a
// crash-looping member), not a deploy: a deploy replaces each member once.
// It is still one run, one pair of events, not a pair per crash, and its
// completion says so (kind restart_loop).

// DeploySpan is how close replacements must come to be one deploy, and how
// long a deploy waits for another before it is complete: the time a
// Kubernetes rolling update of consumers commonly takes per pod, readiness
// included, with room to spare.
const DeploySpan = 2 * time.Minute

// joinBeforeLeave is the longest a successor's join may come before its
// predecessor's leave: the eviction of a killed member, a session timeout
// (Java's and librdkafka's default 45s) and some.
const joinBeforeLeave = time.Minute

// Kinds of deploy (Deploy.Kind).
const (
	DeployRestart     = "restart"        // one member replaced, once
	DeployRolling     = "rolling_deploy" // several members, each once
	DeployRestartLoop = "restart_loop"   // some member replaced more than once
)

// Deploy is what deploy_started and deploy_completed say of a run of
// replacements, so far or in all.
type Deploy struct {
	Kind string
	// Members are the client ids (instance ids of static members)
	// replaced, in the order of their first replacement, each once: one
	// id stands for every member that shares it (Java's default
	// consumer-<group>-1, librdkafka's rdkafka), Slots says how many did.
	Members []string
	Slots   int
	// Replacements counts the replacements (more than Slots in a restart
	// loop).
	Replacements int
	// Rebalances counts the rebalances completed during the run as the
	// rebalance rate does (a cooperative rebalance's rounds, when polls
	// see them apart, each); Untimed of them had no known duration.
	// Stopped is the partition-time they stopped (the rebalance rate's
	// stopped time: each timed one's duration times the partitions it
	// stopped).
	Rebalances int
	Untimed    int
	Stopped    time.Duration
}

// sighting is a member's leave or join not yet matched.
type sighting struct {
	key, member string
	at          time.Time
	left        bool // a leave, not a join
}

// deployRun is a run of replacements in progress.
type deployRun struct {
	start, last time.Time
	// settled is the first Stable poll after the last replacement (zero
	// until then): the run's rebalances end there.
	settled time.Time
	times   map[string]int
	members []string
	n       int
	// slots holds how many live members shared each key at most during
	// the run: replacements of a shared client id are not a loop until
	// they outnumber its members.
	slots map[string]int
}

// slotsOf is how many members key stood for (at least one).
func (r *deployRun) slotsOf(key string) int { return max(r.slots[key], 1) }

// replacedSlots counts the members replaced at least once (each key's
// replacements, up to its slots).
func (r *deployRun) replacedSlots() int {
	n := 0
	for _, k := range r.members {
		n += min(r.times[k], r.slotsOf(k))
	}
	return n
}

// looped reports whether some key was replaced more often than it had
// members: a member replaced twice.
func (r *deployRun) looped() bool {
	for _, k := range r.members {
		if r.times[k] > r.slotsOf(k) {
			return true
		}
	}
	return false
}

// deployWatch finds deploys in a group's events (Pipeline.Observe feeds
// it each poll's). It is not safe for concurrent use.
type deployWatch struct {
	group      string
	instances  map[string]bool // static members' instance ids at the last poll
	leaves     []sighting
	joins      []sighting
	rebalances []rebalanceMark
	run        *deployRun
}

func newDeployWatch(group string) *deployWatch {
	return &deployWatch{group: group, instances: map[string]bool{}}
}

// observe takes one good poll and the events it gave, and returns the
// deploy events it adds.
func (w *deployWatch) observe(s *Snapshot, events []Event) []Event {
	now := s.ObservedAt()
	if w.group == "" {
		w.group = s.Group.ID
	}
	w.prune(now)
	var out []Event
	for _, e := range events {
		r, ok := w.replacement(e)
		if !ok {
			continue
		}
		if w.run == nil {
			w.run = &deployRun{start: r.at, times: map[string]int{}, slots: map[string]int{}}
			w.countSlots(s)
			w.replaced(r.key, now)
			out = append(out, w.started(now, r, e))
			continue
		}
		w.replaced(r.key, now)
	}
	w.note(s, now)
	if w.run != nil && w.done(s, now) {
		out = append(out, w.completed(now, normState(s.Group.State)))
		w.run = nil
	}
	return out
}

// replacement reports whether e completes a replacement, and returns the
// key replaced and when its first sign (a leave, or the successor's join)
// came. A rebalance_completed is kept for the run's cost.
func (w *deployWatch) replacement(e Event) (sighting, bool) {
	switch e.Type {
	case EventRebalanceCompleted:
		w.rebalances = append(w.rebalances, completedMark(e))
	case EventMemberJoined:
		key := replaceKey(e)
		if e.InstanceID != "" && w.instances[e.InstanceID] {
			// A static member back with a new member id, no leave seen.
			return sighting{key: key, at: e.Time}, true
		}
		return w.match(&w.leaves, &w.joins, key, e)
	case EventMemberLeft:
		return w.match(&w.joins, &w.leaves, replaceKey(e), e)
	}
	return sighting{}, false
}

// match pairs e, a leave or a join of key, with the other kind's sighting
// of the same key and another member id, taking it out of others; with
// none it files e in mine.
func (w *deployWatch) match(others, mine *[]sighting, key string, e Event) (sighting, bool) {
	if key == "" {
		return sighting{}, false
	}
	for i, o := range *others {
		// A successor joins before its predecessor's eviction (a kill),
		// by a session timeout at most: a leave later than that is not
		// its predecessor's (two members sharing a client id).
		if o.key == key && o.member != e.MemberID && !(e.Type == EventMemberLeft && e.Time.Sub(o.at) > joinBeforeLeave) {
			*others = append((*others)[:i], (*others)[i+1:]...)
			return o, true
		}
	}
	*mine = append(*mine, sighting{key: key, member: e.MemberID, at: e.Time, left: e.Type == EventMemberLeft})
	return sighting{}, false
}

// replaceKey is what a member is known by across a replacement: its
// instance id when static, else its client id ("" when it has none).
func replaceKey(e Event) string {
	if e.InstanceID != "" {
		return e.InstanceID
	}
	return e.ClientID
}

// replaced counts a replacement of key, completed now, in the run.
func (w *deployWatch) replaced(key string, now time.Time) {
	r := w.run
	if r.times[key] == 0 {
		r.members = append(r.members, key)
	}
	r.times[key]++
	r.n++
	r.last, r.settled = now, time.Time{}
}

// prune forgets sightings and rebalances too old to matter.
func (w *deployWatch) prune(now time.Time) {
	old := func(at time.Time) bool { return now.Sub(at) > DeploySpan }
	w.leaves = dropOld(w.leaves, func(s sighting) bool { return old(s.at) })
	w.joins = dropOld(w.joins, func(s sighting) bool { return old(s.at) })
	w.rebalances = dropOld(w.rebalances, func(m rebalanceMark) bool {
		if w.run != nil {
			return m.at.Before(w.run.start)
		}
		return old(m.at)
	})
}

func dropOld[T any](xs []T, old func(T) bool) []T {
	i := 0
	for i < len(xs) && old(xs[i]) {
		i++
	}
	return xs[i:]
}

// note records the poll's static members, and the run's settling.
func (w *deployWatch) note(s *Snapshot, now time.Time) {
	clear(w.instances)
	for _, m := range s.Members {
		if m.InstanceID != "" {
			w.instances[m.InstanceID] = true
		}
	}
	if r := w.run; r != nil {
		w.countSlots(s)
		if r.settled.IsZero() && settledGroup(s) {
			r.settled = now
		}
	}
}

// countSlots notes how many of s's members share each key.
func (w *deployWatch) countSlots(s *Snapshot) {
	n := map[string]int{}
	for _, m := range s.Members {
		if k := replaceKey(Event{ClientID: m.ClientID, InstanceID: m.InstanceID}); k != "" {
			n[k]++
		}
	}
	for k, c := range n {
		w.run.slots[k] = max(w.run.slots[k], c)
	}
}

// settledGroup reports whether the group is Stable with no member behind
// its target assignment.
func settledGroup(s *Snapshot) bool {
	if normState(s.Group.State) != StateStable {
		return false
	}
	for _, m := range s.Members {
		if m.Reconciling {
			return false
		}
	}
	return true
}

// done reports whether the run is complete at this poll.
func (w *deployWatch) done(s *Snapshot, now time.Time) bool {
	r := w.run
	if now.Sub(r.last) >= DeploySpan {
		return true
	}
	if slots := r.replacedSlots(); r.settled.IsZero() || slots < 2 || r.n != slots || len(w.leaves) > 0 || len(s.Members) == 0 {
		return false
	}
	live := map[string]int{}
	for _, m := range s.Members {
		live[replaceKey(Event{ClientID: m.ClientID, InstanceID: m.InstanceID})]++
	}
	for k, n := range live {
		if r.times[k] < n {
			return false // one of its members not replaced yet
		}
	}
	return true
}

// summary is the run's Deploy, its rebalances counted up to its settling
// (or now).
func (w *deployWatch) summary(now time.Time) Deploy {
	r := w.run
	end := now
	if !r.settled.IsZero() {
		end = r.settled
	}
	d := Deploy{Kind: DeployRestart, Members: append([]string(nil), r.members...), Slots: r.replacedSlots(), Replacements: r.n}
	switch {
	case r.looped():
		d.Kind = DeployRestartLoop
	case d.Slots > 1:
		d.Kind = DeployRolling
	}
	for _, m := range w.rebalances {
		if m.at.Before(r.start) || m.at.After(end) {
			continue
		}
		d.Rebalances += m.n
		d.Untimed += m.untimed
		d.Stopped += m.stopped
	}
	return d
}

// started is the run's deploy_started, at its first replacement r, told by
// the event e that completed it.
func (w *deployWatch) started(now time.Time, r sighting, e Event) Event {
	what := r.key + " back as a new member"
	switch {
	case e.InstanceID != "":
		what = r.key + " back as static member with a new member id"
	case now.After(r.at) && r.left:
		what += " " + Elapsed(now.Sub(r.at)) + " after it left"
	case now.After(r.at):
		what = r.key + " replaced: the old member left " + Elapsed(now.Sub(r.at)) + " after its successor joined"
	}
	return Event{Time: now, Type: EventDeployStarted, Group: w.group, State: e.State, Deploy: w.summary(now),
		Detail: "restart or rolling deploy began: " + what}
}

// completed is the run's deploy_completed: "rolling deploy: 3 members
// replaced in 41s, 4 rebalances, 12.3s of partitions stopped".
func (w *deployWatch) completed(now time.Time, state string) Event {
	r := w.run
	d := w.summary(now)
	took := nonNegative(r.last.Sub(r.start))
	var b strings.Builder
	switch d.Kind {
	case DeployRestart:
		b.WriteString("restart: " + r.members[0] + " replaced")
	case DeployRolling:
		b.WriteString("rolling deploy: " + Count(d.Slots, "member") + " replaced")
	default:
		b.WriteString("restart loop: " + loopNames(r) + " replaced " + Count(r.n, "time"))
	}
	if took > 0 {
		b.WriteString(" in " + Elapsed(took))
	}
	b.WriteString(", " + deployCost(d))
	if d.Kind == DeployRestartLoop {
		b.WriteString(" (not a deploy: a deploy replaces each member once)")
	}
	return Event{Time: now, Type: EventDeployCompleted, Group: w.group, State: state, Deploy: d,
		Duration: took, HasDuration: true, Detail: b.String()}
}

// loopNames names a restart loop's members, with how often those replaced
// more than once were: "consumer-a ×4, consumer-b".
func loopNames(r *deployRun) string {
	names := make([]string, len(r.members))
	for i, m := range r.members {
		names[i] = m
		if n := r.times[m]; n > 1 {
			names[i] += " ×" + strconv.Itoa(n)
		}
	}
	return listNames(names)
}

// deployCost says what the run cost: "4 rebalances, 12.3s of partitions
// stopped", "no rebalance".
func deployCost(d Deploy) string {
	if d.Rebalances == 0 {
		return "no rebalance"
	}
	s := Count(d.Rebalances, "rebalance")
	switch {
	case d.Untimed == d.Rebalances:
		return s + ", their durations unknown"
	case d.Untimed > 0:
		return s + " (" + strconv.Itoa(d.Untimed) + " untimed), at least " + Elapsed(d.Stopped) + " of partitions stopped"
	}
	return s + ", " + Elapsed(d.Stopped) + " of partitions stopped"
}
