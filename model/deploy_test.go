package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// fleet simulates a three-partition group on a clock of its own: which
// processes are members when, and how long each membership change keeps
// the group rebalancing.
type fleet struct {
	procs []proc
	// rebalance: how long a membership change keeps the group in
	// PreparingRebalance.
	rebalance time.Duration
}

// proc is one process of a member: in the group from from to to (to zero:
// to the end).
type proc struct {
	client, instance string
	gen              int
	from, to         time.Duration
}

func (f *fleet) add(client string, from time.Duration) *proc {
	gen := 0
	for _, p := range f.procs {
		if p.client == client {
			gen++
		}
	}
	f.procs = append(f.procs, proc{client: client, gen: gen, from: from})
	return &f.procs[len(f.procs)-1]
}

// end ends client's current process at t.
func (f *fleet) end(client string, t time.Duration) {
	for i := len(f.procs) - 1; i >= 0; i-- {
		if f.procs[i].client == client && f.procs[i].to == 0 {
			f.procs[i].to = t
			return
		}
	}
}

// replace ends client's process at t and starts its successor gap later
// (a negative gap: the successor joined first, as after a kill).
func (f *fleet) replace(client string, t, gap time.Duration) {
	if gap < 0 {
		f.add(client, t+gap)
		for i := range f.procs {
			if f.procs[i].client == client && f.procs[i].to == 0 {
				f.procs[i].to = t
				break
			}
		}
		return
	}
	f.end(client, t)
	f.add(client, t+gap)
}

func (p proc) in(t time.Duration) bool { return t >= p.from && (p.to == 0 || t < p.to) }

// snapshot is the group at t: rebalancing for f.rebalance after any join
// or leave of a dynamic member, else Stable with the partitions dealt out.
func (f *fleet) snapshot(t time.Duration) Snapshot {
	var ms []Member
	rebalancing := false
	for _, p := range f.procs {
		if p.in(t) {
			m := memID(fmt.Sprintf("%s-%d", p.client, p.gen), p.client)
			m.InstanceID = p.instance
			ms = append(ms, m)
		}
		if p.instance != "" {
			continue // a static member comes and goes with no rebalance
		}
		for _, c := range []time.Duration{p.from, p.to} {
			if c > 0 && t >= c && t < c+f.rebalance {
				rebalancing = true
			}
		}
	}
	slices.SortFunc(ms, func(a, b Member) int { return strings.Compare(a.ClientID, b.ClientID) })
	state := StateStable
	if rebalancing {
		state = StatePreparingRebalance
	} else {
		for p := range int32(3) {
			if len(ms) > 0 {
				i := int(p) % len(ms)
				ms[i].Partitions = append(ms[i].Partitions, TopicPartition{Topic: "orders", Partition: p})
			}
		}
	}
	if len(ms) == 0 && !rebalancing {
		state = StateEmpty
	}
	return snapN(t.Seconds(), state, 3, "range", ms...)
}

// watch polls f every interval until end through a pipeline and returns
// every event it gave.
func (f *fleet) watch(interval, end time.Duration) []Event {
	p := NewPipeline(PipelineOptions{Group: "order-workers", Interval: interval})
	var out []Event
	for t := time.Duration(0); t <= end; t += interval {
		s := f.snapshot(t)
		out = append(out, p.Observe(&s)...)
	}
	return out
}

func ofType(events []Event, t EventType) []Event {
	var out []Event
	for _, e := range events {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func threeMembers() *fleet {
	f := &fleet{rebalance: 300 * time.Millisecond}
	for _, c := range []string{"consumer-a", "consumer-b", "consumer-c"} {
		f.add(c, 0)
	}
	return f
}

// A rolling restart of three members, one by one, at every poll interval
// from 100ms to 5s and replacements 2s to 60s apart: one deploy_started,
// one deploy_completed once the third is back and the group Stable, with
// the three members, and the rebalances (and their durations) that the
// timeline shows between the first leave and the completion (when polls
// never see the group settle between two changes, that is one long
// rebalance).
func TestDeployRollingRestartIsOne(t *testing.T) {
	for _, interval := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second} {
		for _, apart := range []time.Duration{2 * time.Second, 20 * time.Second, 60 * time.Second} {
			t.Run(fmt.Sprintf("poll %s, %s apart", interval, apart), func(t *testing.T) {
				f := threeMembers()
				down := apart / 2
				for i, c := range []string{"consumer-a", "consumer-b", "consumer-c"} {
					f.replace(c, 10*time.Second+time.Duration(i)*apart, down)
				}
				events := f.watch(interval, 10*time.Second+3*apart+5*time.Minute)
				started, completed := ofType(events, EventDeployStarted), ofType(events, EventDeployCompleted)
				if len(started) != 1 || len(completed) != 1 {
					t.Fatalf("deploy_started %d, deploy_completed %d, want 1 each:\n%s", len(started), len(completed), summaries(events))
				}
				d := completed[0].Deploy
				if d.Kind != DeployRolling || d.Replacements != 3 || !slices.Equal(d.Members, []string{"consumer-a", "consumer-b", "consumer-c"}) {
					t.Errorf("deploy = %+v, want a rolling deploy of consumer-a, -b, -c", d)
				}
				lastJoin := 10*time.Second + 2*apart + down
				if at := completed[0].Time.Sub(tl0); at < lastJoin || at > lastJoin+f.rebalance+2*interval {
					t.Errorf("completed at %s, want once the group is Stable after the last join at %s", at, lastJoin)
				}
				firstLeave := tl0.Add(10 * time.Second)
				var n, untimed int
				var stopped time.Duration
				for _, e := range ofType(events, EventRebalanceCompleted) {
					if e.Time.Before(firstLeave) || e.Time.After(completed[0].Time) {
						continue
					}
					m := completedMark(e) // as the rebalance rate counts them
					n += m.n
					untimed += m.untimed
					stopped += m.stopped
				}
				if n < 1 || d.Rebalances != n || d.Untimed != untimed || d.Stopped != stopped {
					t.Errorf("deploy counts %d rebalances (%d untimed, %s stopped); the timeline has %d (%d untimed, %s), at least 1",
						d.Rebalances, d.Untimed, d.Stopped, n, untimed, stopped)
				}
				// From the first leave to the last join, as the polls saw them.
				seen := ofType(events, EventMemberJoined)
				took := seen[len(seen)-1].Time.Sub(ofType(events, EventMemberLeft)[0].Time)
				if want := "rolling deploy: 3 members replaced in " + Elapsed(took); !strings.HasPrefix(completed[0].Detail, want) {
					t.Errorf("detail %q, want it to begin %q", completed[0].Detail, want)
				}
			})
		}
	}
}

// The sentence, at one setting worked out by hand: polls every 100ms,
// each member down 1s, the next 5s after; every leave and join a 0.30s
// rebalance (timed: the polls see it in progress).
func TestDeploySentence(t *testing.T) {
	f := threeMembers()
	for i, c := range []string{"consumer-a", "consumer-b", "consumer-c"} {
		f.replace(c, 10*time.Second+time.Duration(i)*5*time.Second, time.Second)
	}
	events := f.watch(100*time.Millisecond, 40*time.Second)
	started, completed := ofType(events, EventDeployStarted), ofType(events, EventDeployCompleted)
	if len(started) != 1 || len(completed) != 1 {
		t.Fatalf("want one deploy_started and one deploy_completed:\n%s", summaries(events))
	}
	if got, want := started[0].Detail, "restart or rolling deploy began: consumer-a back as a new member 1.00s after it left"; got != want {
		t.Errorf("started: %q\nwant      %q", got, want)
	}
	if got, want := completed[0].Detail, "rolling deploy: 3 members replaced in 11.0s, 6 rebalances, 5.40s of partitions stopped"; got != want {
		t.Errorf("completed: %q\nwant        %q", got, want)
	}
	b, err := MarshalEventJSON(completed[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", b)
	if want := `"deploy":{"kind":"rolling_deploy","members":["consumer-a","consumer-b","consumer-c"],"members_replaced":3,"replacements":3,"rebalances":6,"untimed_rebalances":0,"stopped_ms":5400}`; !strings.Contains(string(b), want) {
		t.Errorf("JSON %s\nwant it to hold %s", b, want)
	}
	if !strings.Contains(string(b), `"duration_ms":11000`) {
		t.Errorf("JSON %s: want duration_ms 11000", b)
	}
}

// One member of three restarted: a restart, complete once none has come
// for DeploySpan (the other two were not replaced: more may be to come).
func TestDeploySingleRestart(t *testing.T) {
	for _, interval := range []time.Duration{100 * time.Millisecond, time.Second, 5 * time.Second} {
		f := threeMembers()
		f.replace("consumer-b", 10*time.Second, 2*time.Second)
		events := f.watch(interval, 4*time.Minute)
		completed := ofType(events, EventDeployCompleted)
		if len(ofType(events, EventDeployStarted)) != 1 || len(completed) != 1 {
			t.Fatalf("poll %s: want one pair:\n%s", interval, summaries(events))
		}
		d := completed[0].Deploy
		if d.Kind != DeployRestart || d.Replacements != 1 || d.Members[0] != "consumer-b" || d.Rebalances < 1 {
			t.Errorf("poll %s: deploy %+v, want a restart of consumer-b with its rebalances", interval, d)
		}
		joined := tl0.Add(12 * time.Second)
		if at := completed[0].Time.Sub(joined); at < DeploySpan || at > DeploySpan+interval {
			t.Errorf("poll %s: completed %s after the join, want DeploySpan (%s) after it", interval, at, DeploySpan)
		}
		if !strings.HasPrefix(completed[0].Detail, "restart: consumer-b replaced") {
			t.Errorf("poll %s: detail %q", interval, completed[0].Detail)
		}
	}
}

// A static member restarted within the session timeout: no leave, no
// rebalance, a join with a new member id; a restart that cost nothing.
func TestDeployStaticRestart(t *testing.T) {
	f := &fleet{rebalance: 300 * time.Millisecond}
	for _, c := range []string{"consumer-a", "consumer-b"} {
		f.add(c, 0).instance = c
	}
	f.end("consumer-a", 10*time.Second)
	f.add("consumer-a", 10*time.Second).instance = "consumer-a"
	events := f.watch(time.Second, 3*time.Minute)
	completed := ofType(events, EventDeployCompleted)
	if len(ofType(events, EventDeployStarted)) != 1 || len(completed) != 1 {
		t.Fatalf("want one pair:\n%s", summaries(events))
	}
	if got, want := completed[0].Detail, "restart: consumer-a replaced, no rebalance"; got != want {
		t.Errorf("detail %q, want %q", got, want)
	}
}

// Members joining minutes apart replace nobody, nor does a member that
// comes back after longer than DeploySpan.
func TestDeployUnrelatedJoinsAreNone(t *testing.T) {
	f := threeMembers()
	f.add("consumer-d", 20*time.Second)
	f.add("consumer-e", 5*time.Minute)
	f.replace("consumer-a", 6*time.Minute, DeploySpan+time.Second)
	events := f.watch(time.Second, 12*time.Minute)
	if n := len(ofType(events, EventMemberJoined)); n != 3 {
		t.Fatalf("%d joins, want 3:\n%s", n, summaries(events))
	}
	for _, e := range events {
		if e.Type == EventDeployStarted || e.Type == EventDeployCompleted {
			t.Errorf("unexpected %s", summary(e))
		}
	}
}

// A crash-looping member, killed every 20s: its successor joins at once,
// the old member is evicted 10s later (the run: from the first
// successor's join at 10s to the last eviction at 100s). It is not a deploy — a deploy
// replaces each member once — but one run all the same: one pair of
// events, not a pair per crash, the end calling it a restart loop.
func TestDeployCrashLoopIsOneRestartLoop(t *testing.T) {
	for _, interval := range []time.Duration{200 * time.Millisecond, time.Second, 5 * time.Second} {
		f := threeMembers()
		for i := range 5 {
			f.replace("consumer-b", 20*time.Second+time.Duration(i)*20*time.Second, -10*time.Second)
		}
		events := f.watch(interval, 5*time.Minute)
		completed := ofType(events, EventDeployCompleted)
		if len(ofType(events, EventDeployStarted)) != 1 || len(completed) != 1 {
			t.Fatalf("poll %s: want one pair:\n%s", interval, summaries(events))
		}
		d := completed[0].Deploy
		if d.Kind != DeployRestartLoop || d.Replacements != 5 || len(d.Members) != 1 {
			t.Errorf("poll %s: deploy %+v, want a restart loop of one member, 5 replacements", interval, d)
		}
		if want := "restart loop: consumer-b ×5 replaced 5 times in 1m30s, "; !strings.HasPrefix(completed[0].Detail, want) {
			t.Errorf("poll %s: detail %q, want it to begin %q", interval, completed[0].Detail, want)
		}
		if !strings.HasSuffix(completed[0].Detail, "(not a deploy: a deploy replaces each member once)") {
			t.Errorf("poll %s: detail %q does not say it is not a deploy", interval, completed[0].Detail)
		}
	}
}

// Two deploys more than DeploySpan apart are two.
func TestDeployTwoDeploys(t *testing.T) {
	f := threeMembers()
	for round := range 2 {
		for i, c := range []string{"consumer-a", "consumer-b", "consumer-c"} {
			f.replace(c, 10*time.Second+time.Duration(round)*5*time.Minute+time.Duration(i)*5*time.Second, time.Second)
		}
	}
	events := f.watch(time.Second, 12*time.Minute)
	if s, c := len(ofType(events, EventDeployStarted)), len(ofType(events, EventDeployCompleted)); s != 2 || c != 2 {
		t.Fatalf("%d started, %d completed, want 2 each:\n%s", s, c, summaries(events))
	}
}

func summaries(events []Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "  %s %s\n", e.Time.Sub(tl0), summary(e))
	}
	return b.String()
}

// Members that share a client id (librdkafka's default "rdkafka", Java's
// consumer-<group>-1 in every pod) replaced one by one are a rolling
// deploy of three members, not a restart loop of one id, and it ends once
// all three are back; a join and an unrelated member's crash 90s later
// are not a replacement.
func TestDeploySharedClientIDs(t *testing.T) {
	f := &fleet{rebalance: 300 * time.Millisecond}
	for range 3 {
		f.add("rdkafka", 0)
	}
	for i := range 3 {
		at := 10*time.Second + time.Duration(i)*5*time.Second
		f.procs[i].to = at
		f.procs = append(f.procs, proc{client: "rdkafka", gen: 3 + i, from: at + time.Second})
	}
	events := f.watch(250*time.Millisecond, 40*time.Second)
	completed := ofType(events, EventDeployCompleted)
	if len(completed) != 1 {
		t.Fatalf("deploy_completed %d, want 1:\n%s", len(completed), summaries(events))
	}
	d := completed[0].Deploy
	if d.Kind != DeployRolling || d.Slots != 3 || d.Replacements != 3 || completed[0].Time.Sub(tl0) > 30*time.Second {
		t.Errorf("deploy %+v at %s: want a rolling deploy of 3 members, told once the third is back", d, completed[0].Time.Sub(tl0))
	}
	if want := "rolling deploy: 3 members replaced"; !strings.HasPrefix(completed[0].Detail, want) {
		t.Errorf("detail %q, want it to begin %q", completed[0].Detail, want)
	}

	// A scale-up join at 20s, another member's crash at 110s: unrelated.
	f = &fleet{rebalance: 300 * time.Millisecond}
	for range 2 {
		f.add("rdkafka", 0)
	}
	f.procs = append(f.procs, proc{client: "rdkafka", gen: 2, from: 20 * time.Second})
	f.procs[0].to = 110 * time.Second
	events = f.watch(time.Second, 4*time.Minute)
	if n := len(ofType(events, EventDeployStarted)); n != 0 {
		t.Errorf("a join and a crash 90s apart: %d deploy_started, want none:\n%s", n, summaries(events))
	}
}
