package kafka

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// confluentPython is the first python3 on PATH that imports
// confluent_kafka; "" when none does.
func confluentPython() string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		py := filepath.Join(dir, "python3")
		if _, err := os.Stat(py); err != nil {
			continue
		}
		if exec.Command(py, "-c", "import confluent_kafka").Run() == nil {
			return py
		}
	}
	return ""
}

// librdkafkaMember starts testdata/coop_member.py, a confluent_kafka
// member of group assigning cooperative-sticky that takes a second to
// give partitions up (so polls see the revoke phase); it leaves when the
// test ends (its stdin closes).
func librdkafkaMember(t *testing.T, python, bootstrap, group, topic, clientID string) {
	t.Helper()
	cmd := exec.Command(python, "testdata/coop_member.py", bootstrap, group, topic, clientID, "1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", clientID, err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Logf("%s did not leave in 10s:\n%s", clientID, out.String())
		}
	})
}

// Three librdkafka members join a cooperative-sticky group one by one, on
// kfake: each partition that changes owner is one move, once in a
// rebalance_completed's moves and once a partition_moved, whose from and
// to are its owners as the Stable polls saw them, dated by the first
// Stable poll that saw it leave its owner (the revoke phase, when a poll
// saw it). Skipped without python3 and confluent_kafka.
func TestCooperativeLibrdkafkaThreeMembersCountMovesOnce(t *testing.T) {
	t.Parallel()
	python := confluentPython()
	if python == "" {
		t.Skip("no python3 on PATH has confluent_kafka (librdkafka): pip install confluent-kafka, or apt-get install python3-confluent-kafka, to run this test")
	}
	tc := newTestCluster(t, false)
	const group, topic, n = "rdk-coop", "orders", 8
	tc.createTopic(t, topic, n)
	w := newTestWatcher(t, tc, group)
	tr := model.NewTracker(group, 0)
	var (
		stables []model.Snapshot // the Stable polls, in order
		events  []model.Event
	)
	poll := func() model.Snapshot {
		s, err := w.Poll(context.Background())
		if err != nil {
			t.Fatalf("poll: %v", err)
		}
		events = append(events, tr.Observe(s)...)
		if s.Group.State == model.StateStable && s.Group.AssignmentsKnown() {
			stables = append(stables, s)
		}
		return s
	}
	owned := func(s model.Snapshot, members int) bool {
		if s.Group.State != model.StateStable || len(s.Members) != members {
			return false
		}
		for _, p := range s.Partitions {
			if p.MemberID == "" {
				return false
			}
		}
		return len(s.Partitions) == n
	}
	waitPolls := func(what string, members int) {
		t.Helper()
		deadline := time.Now().Add(45 * time.Second)
		var s model.Snapshot
		for !owned(s, members) {
			if time.Now().After(deadline) {
				t.Fatalf("never %s; last %s %+v", what, s.Group.State, s.Members)
			}
			time.Sleep(100 * time.Millisecond)
			s = poll()
		}
		for range 5 { // a few more polls: nothing else moves
			time.Sleep(100 * time.Millisecond)
			poll()
		}
	}
	bootstrap := tc.addrs[0]
	librdkafkaMember(t, python, bootstrap, group, topic, "rdk-a")
	waitPolls("rdk-a owning every partition", 1)
	start, from := len(stables)-1, len(events) // moves are counted from here
	librdkafkaMember(t, python, bootstrap, group, topic, "rdk-b")
	waitPolls("two members owning every partition", 2)
	librdkafkaMember(t, python, bootstrap, group, topic, "rdk-c")
	waitPolls("three members owning every partition", 3)

	// The moves the Stable polls show: each partition's owner changes,
	// dated by the poll that first saw it leave.
	type move struct {
		p        int32
		from, to string
		at       time.Time
	}
	var want []move
	ownerOf := func(s model.Snapshot, p int32) string {
		for _, r := range s.Partitions {
			if r.Topic == topic && r.Partition == p {
				return r.ClientID
			}
		}
		return "" // no row: unowned, nothing committed
	}
	for p := range int32(n) {
		owner, left := ownerOf(stables[start], p), time.Time{}
		for _, s := range stables[start+1:] {
			switch o := ownerOf(s, p); {
			case o == owner:
				left = time.Time{} // given back: no move
			case o == "":
				if left.IsZero() {
					left = s.ObservedAt()
				}
			default:
				if left.IsZero() {
					left = s.ObservedAt()
				}
				want = append(want, move{p, owner, o, left})
				owner, left = o, time.Time{}
			}
		}
	}
	var got, listed []move
	phases := 0
	for _, e := range events[from:] {
		switch e.Type {
		case model.EventPartitionMoved:
			got = append(got, move{e.Partitions[0].Partition, e.From, e.To, e.Time})
		case model.EventRebalanceCompleted:
			if e.Phase == model.PhaseRevoke {
				phases++
			}
			for _, m := range e.Moves {
				listed = append(listed, move{p: m.Partition, from: m.From, to: m.To})
			}
		}
	}
	order := func(a, b move) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return int(a.p - b.p)
	}
	slices.SortFunc(want, order)
	slices.SortFunc(got, order)
	t.Logf("%d Stable polls, %d revoke phases seen, %d moves", len(stables)-start, phases, len(want))
	if phases == 0 {
		t.Errorf("no revoke phase seen, though each takes a second:\n%s", eventList(events))
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("partition_moved:\n%v\nwant (from the Stable polls):\n%v\nevents:\n%s", got, want, eventList(events))
	}
	for i := range want {
		want[i].at = time.Time{}
	}
	slices.SortFunc(want, order)
	slices.SortFunc(listed, order)
	if !slices.Equal(listed, want) {
		t.Errorf("rebalance_completed moves (%d), want each move once (%d):\n%v\nwant\n%v", len(listed), len(want), listed, want)
	}
}
