package model

import (
	"strings"
	"testing"
)

// worker is a streams member: client id wordcount-N, its tasks of
// subtopology 0 given by partition (active, standby, warm-up), at epoch
// (0: the group's).
func worker(n string, epoch int32, active, standby, warmup []int32) Member {
	m := memID("wordcount-"+n+"-uuid", "wordcount-"+n)
	m.MemberEpoch = epoch
	ids := func(ps []int32) []TaskID {
		var out []TaskID
		for _, p := range ps {
			out = append(out, TaskID{Subtopology: "0", Partition: p})
		}
		return out
	}
	m.Tasks = Tasks{Active: ids(active), Standby: ids(standby), Warmup: ids(warmup)}
	for _, p := range active {
		m.Partitions = append(m.Partitions, TopicPartition{Topic: "orders", Partition: p})
	}
	return m
}

func taskSummaries(events []Event) []string {
	var out []string
	for _, e := range ofType(events, EventTaskMoved) {
		out = append(out, e.Detail)
	}
	return out
}

// A streams group moving a standby and placing a warm-up, which the
// coordinator later makes active once the old owner gave the task up:
// each is a task_moved, the active one across the polls of its
// reconciliation, saying the warm-up became active.
func TestTaskMoves(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	tr.Observe(typedSnap(0, TypeStreams, stable, 3,
		worker("1", 0, ps(0, 1), ps(2), nil), worker("2", 0, ps(2), ps(0), nil), worker("3", 0, nil, nil, nil)))

	got := tr.Observe(typedSnap(1, TypeStreams, StateReconciling, 4,
		worker("1", 3, ps(0, 1), nil, nil), worker("2", 0, ps(2), ps(0), nil), worker("3", 0, nil, ps(2), ps(1))))
	want := []string{
		"task 0_1 (warm-up): (unassigned) → wordcount-3",
		"task 0_2 (standby): wordcount-1 → wordcount-3",
	}
	if s := taskSummaries(got); strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Fatalf("moves\n%s\nwant\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
	if e := ofType(got, EventTaskMoved)[1]; e.From != "wordcount-1" || e.To != "wordcount-3" || e.TaskKind != TaskStandby {
		t.Errorf("standby move %+v", e)
	}

	// wordcount-1 gives 0_1 up: nobody runs it for a poll.
	got = tr.Observe(typedSnap(2, TypeStreams, StateReconciling, 4,
		worker("1", 3, ps(0), nil, nil), worker("2", 0, ps(2), ps(0), nil), worker("3", 3, nil, ps(2), ps(1))))
	if s := taskSummaries(got); len(s) != 0 {
		t.Fatalf("a revoked task moved nowhere yet: %v", s)
	}

	got = tr.Observe(typedSnap(3, TypeStreams, stable, 4,
		worker("1", 0, ps(0), nil, nil), worker("2", 0, ps(2), ps(0), nil), worker("3", 0, ps(1), ps(2), nil)))
	moves := ofType(got, EventTaskMoved)
	if len(moves) != 1 || moves[0].Detail != "task 0_1 (active): wordcount-1 → wordcount-3; its warm-up on wordcount-3 became active" ||
		moves[0].TaskWas != TaskWarmup {
		t.Fatalf("moves %v, want 0_1 active wordcount-1 → wordcount-3, its warm-up promoted", taskSummaries(got))
	}
	m := eventJSON(t, moves[0])
	task, _ := m["task"].(map[string]any)
	if task["subtopology"] != "0" || task["partition"] != 1.0 || m["task_kind"] != "active" || m["task_was"] != "warmup" ||
		m["from"] != "wordcount-1" || m["to"] != "wordcount-3" {
		t.Errorf("task_moved JSON %v", m)
	}

	// Settled: the dropped warm-up is forgotten; a later standby placed
	// on wordcount-1 comes from nowhere, not from wordcount-3's warm-up.
	got = tr.Observe(typedSnap(4, TypeStreams, stable, 5,
		worker("1", 0, ps(0), ps(1), nil), worker("2", 0, ps(2), ps(0), nil), worker("3", 0, ps(1), ps(2), nil)))
	if s := taskSummaries(got); len(s) != 1 || s[0] != "task 0_1 (standby): (unassigned) → wordcount-1" {
		t.Errorf("moves %v, want a new standby of 0_1 on wordcount-1", s)
	}
}

// A member that dies: its active task goes to the member holding its
// standby, which takes over.
func TestTaskStandbyTakesOver(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	tr.Observe(typedSnap(0, TypeStreams, stable, 3, worker("1", 0, ps(0), nil, nil), worker("2", 0, nil, ps(0), nil)))
	got := tr.Observe(typedSnap(1, TypeStreams, stable, 4, worker("2", 0, ps(0), nil, nil)))
	if s := taskSummaries(got); len(s) != 1 || s[0] != "task 0_0 (active): wordcount-1 → wordcount-2; its standby on wordcount-2 became active" {
		t.Errorf("moves %v", s)
	}
}
