package kafka

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// An overview watcher that reads poll after poll into the arrays of its
// last reads sees what a fresh watcher sees, while groups come, go and
// commit elsewhere between polls and a live group's members come and go,
// and a poll leaves the observations it returned before as they were.
func TestOverviewPollsAsAFreshWatcher(t *testing.T) {
	tc := newTestCluster(t, false)
	tc.createTopic(t, "orders", 4)
	tc.createTopic(t, "audit", 2)
	tc.produceEach(t, "orders", 4, 20, time.Now())
	cl, err := kgo.NewClient(kgo.SeedBrokers(tc.addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	kept := NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second})
	defer kept.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(19, 5))
	live := map[string]bool{}
	type held struct {
		obs, clone model.OverviewObservation
	}
	var earlier []held
	var a, b *groupMember
	for poll := range 8 {
		// A live group's members come and go: its owned partitions move.
		switch poll {
		case 2:
			a = tc.joinGroup(t, "live", "consumer-a", "orders")
			waitAssigned(t, 4, a)
		case 4:
			b = tc.joinGroup(t, "live", "consumer-b", "orders")
			waitAssigned(t, 4, a, b)
		case 6:
			b.leave()
			waitAssigned(t, 4, a)
		}
		// Some groups come (commits on one or both topics), some go.
		for range 1 + rng.IntN(6) {
			g := fmt.Sprintf("g%02d", rng.IntN(30))
			tc.commit(t, g, "orders", map[int]int64{rng.IntN(4): int64(rng.IntN(20)), 3: int64(rng.IntN(20))})
			if rng.IntN(2) == 0 {
				tc.commit(t, g, "audit", map[int]int64{0: 0})
			}
			live[g] = true
		}
		for g := range live {
			if rng.IntN(4) == 0 {
				req := kmsg.NewPtrDeleteGroupsRequest()
				req.Groups = []string{g}
				if _, err := req.RequestWith(ctx, cl); err != nil {
					t.Fatal(err)
				}
				delete(live, g)
			}
		}
		got, err := kept.Overview(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fresh := NewOverviewWatcher(Config{Brokers: tc.addrs, Timeout: 5 * time.Second})
		want, err := fresh.Overview(ctx)
		fresh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if g, w := byGroup(got), byGroup(want); !reflect.DeepEqual(g, w) {
			t.Fatalf("poll %d: kept watcher read\n%s\na fresh one\n%s", poll, g, w)
		}
		for i, h := range earlier {
			if !reflect.DeepEqual(byGroup(h.obs), byGroup(h.clone)) {
				t.Fatalf("poll %d changed the observation of poll %d:\n%s\nwas\n%s", poll, i, byGroup(h.obs), byGroup(h.clone))
			}
		}
		earlier = append(earlier, held{got, cloneObservation(got)})
	}
}

// byGroup is the groups of o, summary and parts, sorted by id, as text.
func byGroup(o model.OverviewObservation) string {
	var lines []string
	for _, g := range o.Groups {
		lines = append(lines, fmt.Sprintf("%+v %+v", g.Summary, g.Parts))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func cloneObservation(o model.OverviewObservation) model.OverviewObservation {
	c := o
	c.Groups = slices.Clone(o.Groups)
	for i := range c.Groups {
		c.Groups[i].Parts = slices.Clone(c.Groups[i].Parts)
	}
	return c
}
