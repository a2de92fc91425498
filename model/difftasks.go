package model

import (
	"slices"
	"strconv"
)

// The differ's streams task moves: a task (active, standby or warm-up)
// leaving one member for another, each its own event, besides the
// partition moves an active task's source partitions make.

// Task kinds (Event.TaskKind, Event.TaskWas).
const (
	TaskActive  = "active"
	TaskStandby = "standby"
	TaskWarmup  = "warmup"
)

// String names the task as Kafka Streams does: "0_2" (subtopology 0,
// partition 2).
func (t TaskID) String() string { return t.Subtopology + "_" + strconv.Itoa(int(t.Partition)) }

// taskSlot is one task as one kind: a task has one active owner, and may
// have several standbys and warm-ups.
type taskSlot struct {
	kind string
	task TaskID
}

// taskHolder is a member holding a task: its memberKey (a static member
// restarted with a new member id still holds it) and its label.
type taskHolder struct {
	key   memberRef
	label string
}

// taskLedger is who last held each task, by kind. A task revoked from
// one member and not yet given to the next (a consumer-protocol style
// reconciliation gives up first) keeps its last holder until a new one
// appears, so the move is seen whole across the polls; once no member is
// reconciling, the ledger is what the members hold.
type taskLedger map[taskSlot][]taskHolder

// taskKinds lists a member's tasks by kind, in the order moves are told.
func taskKinds(t Tasks) [3][]TaskID { return [3][]TaskID{t.Active, t.Standby, t.Warmup} }

var taskKindNames = [3]string{TaskActive, TaskStandby, TaskWarmup}

// heldTasks is what v's members hold now.
func heldTasks(v *snapView) taskLedger {
	l := taskLedger{}
	for _, m := range v.members {
		if len(m.Tasks.Active)+len(m.Tasks.Standby)+len(m.Tasks.Warmup) == 0 {
			continue
		}
		h := taskHolder{key: memberKey(m), label: memberLabel(m)}
		for k, ids := range taskKinds(m.Tasks) {
			for _, id := range ids {
				s := taskSlot{taskKindNames[k], id}
				l[s] = append(l[s], h)
			}
		}
	}
	return l
}

// holds reports whether holder key holds task in l as a kind other than
// kind, and which.
func (l taskLedger) holds(key memberRef, task TaskID, kind string) (string, bool) {
	for _, k := range taskKindNames {
		if k == kind {
			continue
		}
		if slices.ContainsFunc(l[taskSlot{k, task}], func(h taskHolder) bool { return h.key == key }) {
			return k, true
		}
	}
	return "", false
}

// taskEvents are the task moves from the ledger (or prev, at the first
// poll after the watch began) to cur.
func (d *differ) taskEvents(b stamp, prev, cur *snapView) []Event {
	now := heldTasks(cur)
	if d.tasks == nil {
		d.tasks = heldTasks(prev)
	}
	if len(now) == 0 && len(d.tasks) == 0 {
		return nil
	}
	before := heldTasks(prev)
	slots := make([]taskSlot, 0, len(now)+len(d.tasks))
	for s := range now {
		slots = append(slots, s)
	}
	for s := range d.tasks {
		if _, ok := now[s]; !ok {
			slots = append(slots, s)
		}
	}
	kindOrder := func(k string) int { return slices.Index(taskKindNames[:], k) }
	slices.SortFunc(slots, func(a, b taskSlot) int {
		if c := CompareTask(a.task, b.task); c != 0 {
			return c
		}
		return kindOrder(a.kind) - kindOrder(b.kind)
	})
	settled := !cur.reconciling()
	var out []Event
	next := make(taskLedger, len(now))
	for _, s := range slots {
		old, held := d.tasks[s], now[s]
		in := func(hs []taskHolder) func(taskHolder) bool {
			return func(h taskHolder) bool {
				return slices.ContainsFunc(hs, func(o taskHolder) bool { return o.key == h.key })
			}
		}
		var gone []taskHolder
		for _, h := range old {
			if !in(held)(h) {
				gone = append(gone, h)
			}
		}
		for _, h := range held {
			if in(old)(h) {
				continue
			}
			var from taskHolder
			if len(gone) > 0 {
				from, gone = gone[0], gone[1:]
			}
			was, _ := before.holds(h.key, s.task, s.kind)
			out = append(out, taskMoved(b, s, from.label, h.label, was))
		}
		next[s] = held
		if settled {
			continue
		}
		for _, h := range gone {
			// A holder that now holds the task as another kind (a
			// warm-up made active) has not vacated it for another.
			if _, ok := now.holds(h.key, s.task, s.kind); !ok {
				next[s] = append(next[s], h)
			}
		}
	}
	for s, hs := range next {
		if len(hs) == 0 {
			delete(next, s)
		}
	}
	d.tasks = next
	return out
}

// taskMoved says "task 0_2 (active): wordcount-1 → wordcount-2; its
// warm-up on wordcount-2 became active".
func taskMoved(b stamp, s taskSlot, from, to, was string) Event {
	e := b.event(EventTaskMoved, "")
	e.Task, e.TaskKind, e.TaskWas, e.From, e.To = s.task, s.kind, was, from, to
	if from == "" {
		from = "(unassigned)"
	}
	e.Detail = "task " + s.task.String() + " (" + taskKindWord(s.kind) + "): " + from + " → " + to
	switch {
	case was == "":
	case s.kind == TaskActive:
		e.Detail += "; its " + taskKindWord(was) + " on " + to + " became active"
	default:
		e.Detail += "; " + to + " held it as " + taskKindWord(was)
	}
	return e
}

// taskKindWord is how a sentence names a task kind: "warm-up" for
// TaskWarmup.
func taskKindWord(kind string) string {
	if kind == TaskWarmup {
		return "warm-up"
	}
	return kind
}
