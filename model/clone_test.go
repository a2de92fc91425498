package model

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// cloneSnapshot is poll s of a group of 40 partitions over 4 topics,
// offsets moving, one member leaving and coming back (a rebalance) and
// a stall, so the pipeline keeps history, lanes and events.
func cloneSnapshot(s int) Snapshot {
	at := time.Unix(1_700_000_000, 0).Add(time.Duration(s) * time.Second)
	var tps []TopicPartition
	for i := range 40 {
		tps = append(tps, TopicPartition{Topic: fmt.Sprintf("t-%d", i%4), Partition: int32(i / 4)})
	}
	members := []Member{{MemberID: "m-1", ClientID: "c-1", Host: "/10.0.0.1", Partitions: tps[:20]}, {MemberID: "m-2", ClientID: "c-2", Host: "/10.0.0.2", Partitions: tps[20:]}}
	state := StateStable
	switch {
	case s%30 == 10:
		members, state = members[:1], StatePreparingRebalance
	case s%30 == 11:
		members = []Member{{MemberID: "m-1", ClientID: "c-1", Host: "/10.0.0.1", Partitions: tps}}
	}
	obs := Observation{TakenAt: at, Brokers: []string{"b:9092"},
		Group:   Group{ID: "g", State: state, ProtocolType: "consumer", Assignor: "range", Coordinator: "b:9092"},
		Members: members}
	for i, p := range tps {
		end := int64(s*(10+i%7)) + int64(i)
		obs.SetOffsets(p, PartitionOffsets{LogEnd: end})
		if i == 3 && s > 20 {
			obs.SetCommitted(p, 100) // stalled
		} else {
			obs.SetCommitted(p, end-int64(s%5))
		}
	}
	snap := NewSnapshot(obs)
	snap.CompletedAt = at
	return snap
}

// feedFrom feeds polls from..to-1 to p, a failure at every 17th, and
// returns all it gave: the events and the annotated snapshots.
func feedFrom(p *Pipeline, from, to int) []any {
	var out []any
	for s := from; s < to; s++ {
		if s%17 == 0 {
			at := time.Unix(1_700_000_000, 0).Add(time.Duration(s) * time.Second)
			out = append(out, p.PollFailed(at.Add(-time.Second), at, errors.New("broker down")))
			continue
		}
		snap := cloneSnapshot(s)
		out = append(out, p.Observe(&snap), snap)
	}
	out = append(out, p.Timeline().Events(), p.Rebalances())
	return out
}

// A pipeline's clone, fed the same polls, gives what the pipeline gives;
// feeding the clone leaves the pipeline as it was.
func TestClonePipelineFeedsAlike(t *testing.T) {
	p := NewPipeline(PipelineOptions{Group: "g"})
	feedFrom(p, 1, 45)
	c, n, err := Clone(p)
	if err != nil {
		t.Fatal(err)
	}
	if n <= 0 {
		t.Fatalf("the clone says it holds %d bytes", n)
	}
	got := feedFrom(c, 45, 100) // the clone first: p must not see it
	want := feedFrom(p, 45, 100)
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the clone fed polls 45-99 gave other events or snapshots than the pipeline it was cloned from")
	}
	if evs := want[len(want)-2].([]Event); len(evs) < 3 {
		t.Fatalf("the polls gave %d events: the test feeds too little", len(evs))
	}
	// And a fresh pipeline fed all gives the same: the clone is not a
	// pipeline that ignores what it is fed.
	q := NewPipeline(PipelineOptions{Group: "g"})
	feedFrom(q, 1, 45)
	if again := feedFrom(q, 45, 100); !reflect.DeepEqual(again, want) {
		t.Fatal("the pipeline is not deterministic: the test shows nothing")
	}
}

type cloneNode struct {
	name  string
	next  *cloneNode
	same  *cloneNode
	m     map[string][]int
	m2    map[string][]int
	any   any
	f     func() int
	at    time.Time
	arr   [2]*int
	inner struct{ xs []string }
}

// Clone copies unexported fields, keeps aliasing and cycles, shares
// funcs, and says why it cannot copy a channel.
func TestCloneGraph(t *testing.T) {
	one := 1
	a := &cloneNode{name: "a", m: map[string][]int{"k": {1, 2}}, any: &one, f: func() int { return 7 }, at: time.Now(), arr: [2]*int{&one, &one}}
	a.next, a.same, a.m2 = a, a, a.m
	a.inner.xs = []string{"x"}
	c, _, err := Clone(a)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case c == a || c.next != c || c.same != c:
		t.Fatal("the cycle was not copied as a cycle")
	case c.m["k"][1] != 2 || c.f() != 7 || !c.at.Equal(a.at) || c.inner.xs[0] != "x":
		t.Fatal("a field was lost")
	case c.arr[0] != c.arr[1] || c.arr[0] == &one || *c.arr[0] != 1:
		t.Fatal("two pointers to one int are not two pointers to one copy")
	}
	c.m["k"][0], c.inner.xs[0] = 9, "y"
	*c.any.(*int) = 5
	if a.m["k"][0] != 1 || a.inner.xs[0] != "x" || one != 1 {
		t.Fatal("the copy shares what it should have copied")
	}
	c.m["new"] = nil
	if _, ok := c.m2["new"]; !ok {
		t.Fatal("one map reached twice became two")
	}
	type withChan struct{ c chan int }
	if _, _, err := Clone(&withChan{c: make(chan int)}); err == nil || !strings.Contains(err.Error(), "chan") {
		t.Fatalf("a channel was copied: %v", err)
	}
}
