package demo

import (
	"slices"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// inGroup returns the recorded events of a type in one group, from mark on.
func (r *recorder) inGroup(group string, typ model.EventType, mark int) []model.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []model.Event
	for _, e := range r.events[mark:] {
		if e.Group == group && e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// quietAll pauses the producer and waits until every group has processed
// or lost every order, then checks each group's ledger against the log.
func quietAll(t *testing.T, d *Demo, within time.Duration) map[string]model.Ledger {
	t.Helper()
	if !d.TogglePause() {
		t.Fatal("TogglePause did not pause the producer")
	}
	time.Sleep(100 * time.Millisecond) // let an in-flight produce land
	out := map[string]model.Ledger{}
	for _, g := range d.Groups() {
		var l model.Ledger
		waitFor(t, within, g.Name+" quiet (nothing in flight)", func() bool {
			l, _ = d.GroupLedger(g.Name)
			return l.InFlight == 0
		})
		if l.Processed+l.Outside+l.Lost+l.InFlight != l.Produced {
			t.Fatalf("%s ledger %+v: processed + lost + in-flight != produced", g.Name, l)
		}
		if logged := sum(logEnds(t, d)); logged != l.Produced {
			t.Fatalf("%s ledger says %d produced, the log holds %d records", g.Name, l.Produced, logged)
		}
		out[g.Name] = l
	}
	return out
}

// One n, side by side: the eager group's members give back every
// partition and take them again; the cooperative group's give back only
// the one partition that moves, and none comes back to the member that gave
// it up.
func TestCooperativeMovesOnlyWhatMovesEagerRevokesAll(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Compare = DefaultCompare()
	d, rec := startDemo(t, cfg)
	gs := d.Groups()
	eager, coop := gs[0].Name, gs[1].Name
	if eager != "order-workers-range" || coop != "order-workers-coop" || gs[1].Assignor != AssignorCooperativeSticky {
		t.Fatalf("compare groups %+v, want order-workers-range and order-workers-coop", gs)
	}
	for _, g := range []string{eager, coop} {
		waitFor(t, 10*time.Second, g+": consumer-a and consumer-b own every partition", func() bool {
			return groupOwnsAll(d, g, "consumer-a", "consumer-b") &&
				groupInfo(d, g, "consumer-a").MemberID != "" && groupInfo(d, g, "consumer-b").MemberID != ""
		})
	}
	time.Sleep(300 * time.Millisecond) // let the last callbacks report
	before := map[string]map[string][]int32{eager: groupOwners(d, eager), coop: groupOwners(d, coop)}
	mark := rec.mark()
	id, err := d.Spawn()
	if err != nil || id != "consumer-c" {
		t.Fatalf("Spawn() = %q, %v; want consumer-c", id, err)
	}
	after := map[string]map[string][]int32{}
	for _, g := range []string{eager, coop} {
		waitFor(t, 10*time.Second, g+": three members own a partition each", func() bool {
			return groupOwnsAll(d, g, "consumer-a", "consumer-b", "consumer-c")
		})
		after[g] = groupOwners(d, g)
	}
	time.Sleep(300 * time.Millisecond)

	revokedBy := func(g string) map[string][]int32 {
		out := map[string][]int32{}
		for _, e := range rec.inGroup(g, model.EventDemoRevoked, mark) {
			for _, tp := range e.Partitions {
				out[e.ClientID] = append(out[e.ClientID], tp.Partition)
			}
		}
		for _, ps := range out {
			slices.Sort(ps)
		}
		return out
	}
	// Eager: each old member gave back everything it had.
	er := revokedBy(eager)
	for _, c := range []string{"consumer-a", "consumer-b"} {
		if !slices.Equal(er[c], before[eager][c]) {
			t.Fatalf("eager %s revoked %v, want all it owned %v (before %s, after %s)",
				c, er[c], before[eager][c], ownersString(before[eager]), ownersString(after[eager]))
		}
	}
	// Cooperative: only the partition that moves to consumer-c, and it
	// does not come back to whoever gave it up.
	cr := revokedBy(coop)
	n := 0
	for c, ps := range cr {
		for _, p := range ps {
			n++
			if slices.Contains(after[coop][c], p) {
				t.Fatalf("cooperative %s revoked p%d and got it back (before %s, after %s)", c, p, ownersString(before[coop]), ownersString(after[coop]))
			}
		}
		for _, p := range before[coop][c] {
			if slices.Contains(after[coop][c], p) && slices.Contains(ps, p) {
				t.Fatalf("cooperative %s revoked p%d, which it keeps", c, p)
			}
		}
	}
	if n != len(after[coop]["consumer-c"]) {
		t.Fatalf("cooperative group revoked %v, want only what moved to consumer-c %v", cr, after[coop]["consumer-c"])
	}
	t.Logf("eager: %s → %s, revoked %v", ownersString(before[eager]), ownersString(after[eager]), er)
	t.Logf("cooperative: %s → %s, revoked %v", ownersString(before[coop]), ownersString(after[coop]), cr)
}

// One key acts in every group, and each group's ledger is exact: the
// classic eager, classic cooperative and KIP-848 groups each consume every
// order.
func TestCompareOneKeyActsInEveryGroup(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	var err error
	if cfg.Compare, err = ParseCompare("range,cooperative-sticky,consumer"); err != nil {
		t.Fatal(err)
	}
	d, rec := startDemo(t, cfg)
	var names []string
	for _, g := range d.Groups() {
		names = append(names, g.Name)
	}
	if !slices.Equal(names, []string{"order-workers-range", "order-workers-coop", "order-workers-848"}) || !d.Comparing() {
		t.Fatalf("groups %v, want order-workers-range, -coop and -848", names)
	}
	if cs := d.Consumers(); len(cs) != 6 {
		t.Fatalf("%d consumers, want consumer-a and consumer-b in each of 3 groups", len(cs))
	}
	for _, g := range names {
		waitFor(t, 10*time.Second, g+": two members own every partition", func() bool {
			return groupOwnsAll(d, g, "consumer-a", "consumer-b") && groupInfo(d, g, "consumer-b").MemberID != ""
		})
	}
	if _, err := d.Spawn(); err != nil {
		t.Fatal(err)
	}
	for _, g := range names {
		waitFor(t, 10*time.Second, g+": consumer-c owns a partition", func() bool {
			return groupOwnsAll(d, g, "consumer-a", "consumer-b", "consumer-c")
		})
	}
	if slow, err := d.ToggleSlow("consumer-a"); err != nil || !slow {
		t.Fatalf("ToggleSlow = %v, %v", slow, err)
	}
	for _, g := range names {
		if !groupInfo(d, g, "consumer-a").Slow {
			t.Fatalf("%s: consumer-a not slow after one ToggleSlow", g)
		}
	}
	if slow, _ := d.ToggleSlow("consumer-a"); slow {
		t.Fatal("second ToggleSlow did not clear slow")
	}
	if err := d.Kill("consumer-b"); err != nil {
		t.Fatal(err)
	}
	for _, g := range names {
		if st := groupInfo(d, g, "consumer-b").State; st != StateKilled {
			t.Fatalf("%s: consumer-b %s after one Kill", g, st)
		}
	}
	waitFor(t, d.Config().SessionTimeout+5*time.Second, "consumer-b evicted from every group", func() bool {
		for _, g := range names {
			if len(rec.inGroup(g, model.EventDemoEvicted, 0)) != 1 {
				return false
			}
		}
		return true
	})
	if err := d.Stop("consumer-c"); err != nil {
		t.Fatal(err)
	}
	for _, g := range names {
		waitFor(t, 10*time.Second, g+": consumer-a alone owns every partition", func() bool {
			return groupOwnsAll(d, g, "consumer-a")
		})
	}
	ls := quietAll(t, d, 20*time.Second)
	for g, l := range ls {
		t.Logf("%s: %+v", g, l)
		if l.Lost != 0 || l.Processed != l.Produced || l.Produced < 10 {
			t.Fatalf("%s ledger %+v: want every order processed once at least, none lost", g, l)
		}
	}
	if _, ok := d.GroupLedger("order-workers"); ok {
		t.Fatal("GroupLedger of a group that is not the demo's")
	}
}
