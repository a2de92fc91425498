package demo

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/model"
)

// groupWatch is kgwatch's own watcher (package kafka) polling one demo
// group every interval, with a model.Pipeline turning its snapshots into
// timeline events — what the audience sees.
type groupWatch struct {
	mu     sync.Mutex
	events []model.Event
	snap   model.Snapshot
	polls  int
}

func watchGroup(t *testing.T, d *Demo, group string, interval time.Duration) *groupWatch {
	t.Helper()
	return watchGroupWith(t, d, group, interval, model.HistoryOptions{})
}

// watchGroupWith is watchGroup with the pipeline's statuses tuned by h
// (`--stall-after`).
func watchGroupWith(t *testing.T, d *Demo, group string, interval time.Duration, h model.HistoryOptions) *groupWatch {
	t.Helper()
	w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: group, Timeout: 5 * time.Second})
	pl := model.NewPipeline(model.PipelineOptions{Group: group, Interval: interval, History: h})
	gw := &groupWatch{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
			snap, err := w.Poll(pctx)
			pcancel()
			var evs []model.Event
			if err != nil {
				evs = pl.Failed(time.Now(), err)
			} else {
				evs = pl.Observe(&snap)
			}
			gw.mu.Lock()
			gw.events = append(gw.events, evs...)
			if err == nil {
				gw.snap = snap
				gw.polls++
			}
			gw.mu.Unlock()
			select {
			case <-ctx.Done():
			case <-time.After(interval):
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		w.Close()
	})
	return gw
}

// mark returns how many events the watch holds, to look at later ones.
func (gw *groupWatch) mark() int {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	return len(gw.events)
}

// since returns the events from mark on, of the given types (all if none).
func (gw *groupWatch) since(mark int, types ...model.EventType) []model.Event {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	var out []model.Event
	for _, e := range gw.events[mark:] {
		if len(types) == 0 || slices.Contains(types, e.Type) {
			out = append(out, e)
		}
	}
	return out
}

// waitPolls waits until the watch has polled n more times.
func (gw *groupWatch) waitPolls(t *testing.T, n int) {
	t.Helper()
	gw.mu.Lock()
	target := gw.polls + n
	gw.mu.Unlock()
	waitFor(t, 10*time.Second, "watcher polls", func() bool {
		gw.mu.Lock()
		defer gw.mu.Unlock()
		return gw.polls >= target
	})
}

// status returns tp's status at the watch's last snapshot.
func (gw *groupWatch) status(tp model.TopicPartition) model.Status {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	for _, p := range gw.snap.Partitions {
		if p.TopicPartition == tp {
			return p.Status
		}
	}
	return ""
}

// stable reports whether the watch's last snapshot is a Stable group.
func (gw *groupWatch) stable() bool {
	gw.mu.Lock()
	defer gw.mu.Unlock()
	return gw.snap.Group.State == model.StateStable
}

// leaveCounter counts, from now on, every request by which a member of a
// demo group leaves: LeaveGroup (by member id and by instance id), and
// ConsumerGroupHeartbeat with member epoch -1 (leave) or -2 (temporary
// leave of a static member).
type leaveCounter struct {
	mu        sync.Mutex
	leaves    map[string]int // member or instance id → LeaveGroup / epoch -1
	temporary map[string]int // member id → epoch -2
}

func countLeavesOnWire(d *Demo) *leaveCounter {
	lc := &leaveCounter{leaves: map[string]int{}, temporary: map[string]int{}}
	d.cluster.ControlKey(int16(kmsg.LeaveGroup), func(r kmsg.Request) (kmsg.Response, error, bool) {
		d.cluster.KeepControl()
		req := r.(*kmsg.LeaveGroupRequest)
		lc.mu.Lock()
		if req.MemberID != "" {
			lc.leaves[req.MemberID]++
		}
		for _, m := range req.Members {
			if m.MemberID != "" {
				lc.leaves[m.MemberID]++
			}
			if m.InstanceID != nil {
				lc.leaves[*m.InstanceID]++
			}
		}
		lc.mu.Unlock()
		return nil, nil, false
	})
	d.cluster.ControlKey(int16(kmsg.ConsumerGroupHeartbeat), func(r kmsg.Request) (kmsg.Response, error, bool) {
		d.cluster.KeepControl()
		req := r.(*kmsg.ConsumerGroupHeartbeatRequest)
		lc.mu.Lock()
		switch req.MemberEpoch {
		case -1:
			lc.leaves[req.MemberID]++
		case -2:
			lc.temporary[req.MemberID]++
		}
		lc.mu.Unlock()
		return nil, nil, false
	})
	return lc
}

// left returns how many leaves named id (a member or instance id).
func (lc *leaveCounter) left(id string) int {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.leaves[id]
}

// leftTemporarily returns how many epoch -2 heartbeats named member id.
func (lc *leaveCounter) leftTemporarily(id string) int {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.temporary[id]
}

// total returns every leave counted so far, temporary ones included.
func (lc *leaveCounter) total() int {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	n := 0
	for _, v := range lc.leaves {
		n += v
	}
	for _, v := range lc.temporary {
		n += v
	}
	return n
}

// groupOwners returns client id → partitions as the coordinator has them
// for any group (classic or consumer protocol) once it is Stable.
func groupOwners(d *Demo, group string) map[string][]int32 {
	gi := d.cluster.GroupInfo(group)
	out := map[string][]int32{}
	if gi == nil || gi.State != "Stable" {
		return out
	}
	for _, m := range gi.Members {
		ps := append([]int32(nil), m.Assignment[d.cfg.Topic]...)
		slices.Sort(ps)
		out[m.ClientID] = ps
	}
	return out
}

// groupOwnsAll is ownsAll for any group.
func groupOwnsAll(d *Demo, group string, clients ...string) bool {
	o := groupOwners(d, group)
	if len(o) != len(clients) {
		return false
	}
	n := 0
	for _, c := range clients {
		ps, ok := o[c]
		if !ok || len(ps) == 0 {
			return false
		}
		n += len(ps)
	}
	return n == d.partCount
}

// groupInfo returns the demo's description of consumer id in group.
func groupInfo(d *Demo, group, id string) ConsumerInfo {
	for _, c := range d.GroupConsumers(group) {
		if c.ClientID == id {
			return c
		}
	}
	return ConsumerInfo{}
}
