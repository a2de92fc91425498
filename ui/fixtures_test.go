package ui

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// t0 is the fixed time every test snapshot is taken at.
var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

var testBrokers = []string{"127.0.0.1:19092", "127.0.0.1:29092", "127.0.0.1:39092"}

// fakeSource is a Source that replays scripted results and counts polls.
type fakeSource struct {
	mu      sync.Mutex
	results []pollResult // consumed in order; the last one repeats
	calls   int
}

type pollResult struct {
	snap model.Snapshot
	err  error
}

func (f *fakeSource) Poll(ctx context.Context) (model.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if len(f.results) == 0 {
		return model.Snapshot{}, fmt.Errorf("fake source: no result scripted")
	}
	r := f.results[0]
	if len(f.results) > 1 {
		f.results = f.results[1:]
	}
	return r.snap, r.err
}

func (f *fakeSource) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// clock is the tests' settable clock.
type clock = testutil.Clock

func tp(topic string, p int32) model.TopicPartition {
	return model.TopicPartition{Topic: topic, Partition: p}
}

// stableSnapshot is the demo's group: two consumers on order-rebalancing,
// plus a second topic with an unowned committed partition, a partition
// owned but never committed, and one whose offsets could not be read.
func stableSnapshot() model.Snapshot {
	const topic = "order-rebalancing"
	obs := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group: model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer",
			Assignor: "range", Coordinator: "127.0.0.1:29092"},
		Members: []model.Member{
			{MemberID: "consumer-a-4f1c2d9e-77aa-4b1e-9c2d-0a1b2c3d4e5f", ClientID: "consumer-a", Host: "/127.0.0.1",
				Partitions: []model.TopicPartition{tp(topic, 0), tp(topic, 1), tp("payments", 0)}},
			{MemberID: "consumer-b-9e8d7c6b-1234-4321-abcd-ffeeddccbbaa", ClientID: "consumer-b", Host: "/127.0.0.1",
				Partitions: []model.TopicPartition{tp(topic, 2), tp("payments", 1), tp("payments", 2)}},
		},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{
			tp(topic, 0): 1180, tp(topic, 1): 1201, tp(topic, 2): 987,
			tp("payments", 0): 40, tp("payments", 2): 500, tp("payments", 3): 77,
		},
		Offsets: map[model.TopicPartition]model.PartitionOffsets{
			tp(topic, 0):      {LogStart: 0, LogEnd: 1212},
			tp(topic, 1):      {LogStart: 0, LogEnd: 1201},
			tp(topic, 2):      {LogStart: 0, LogEnd: 1342},
			tp("payments", 0): {LogStart: 0, LogEnd: 52},
			tp("payments", 1): {LogStart: 10, LogEnd: 95},
			tp("payments", 2): {LogStart: NoOffsetForTest, LogEnd: NoOffsetForTest, Err: "NOT_LEADER_OR_FOLLOWER"},
			tp("payments", 3): {LogStart: 0, LogEnd: 120},
		},
		OldestTimestamp: map[model.TopicPartition]time.Time{
			tp(topic, 0):      t0.Add(-3 * time.Second),
			tp(topic, 2):      t0.Add(-124 * time.Second),
			tp("payments", 0): t0.Add(-8 * time.Second),
			tp("payments", 1): t0.Add(-40 * time.Second),
			tp("payments", 3): t0.Add(-15 * time.Minute),
		},
	})
	return model.NewSnapshot(obs)
}

const NoOffsetForTest = model.NoOffset

// emptySnapshot is the group after its consumers left: commits, no members.
func emptySnapshot() model.Snapshot {
	s := stableSnapshot()
	obs := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group:   model.Group{ID: "order-workers", State: model.StateEmpty, ProtocolType: "consumer", Coordinator: "127.0.0.1:29092"},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{},
		Offsets:   map[model.TopicPartition]model.PartitionOffsets{},
	})
	for _, p := range s.Partitions {
		if p.Committed >= 0 {
			obs.SetCommitted(p.TopicPartition, p.Committed)
		}
		obs.SetOffsets(p.TopicPartition, model.PartitionOffsets{LogStart: p.LogStart, LogEnd: p.LogEnd, Err: ""})
	}
	obs = obs.With(model.Readings{OldestTimestamp: oldestOf(s)})
	return model.NewSnapshot(obs)
}

// reconcilingSnapshot is the group run with the consumer protocol
// (KIP-848) as a third consumer joined: the coordinator has computed epoch
// 8's target assignment; consumer-a has it, consumer-b is revoking
// order-rebalancing/2, which consumer-c is to take up.
func reconcilingSnapshot() model.Snapshot { return model.NewSnapshot(reconcilingObservation()) }

// reconcilingObservation is what reconcilingSnapshot is made of.
func reconcilingObservation() model.Observation {
	const topic = "order-rebalancing"
	s := stableSnapshot()
	obs := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group: model.Group{ID: "order-workers", State: model.StateReconciling, Type: model.TypeConsumer, ProtocolType: "consumer",
			Epoch: 8, AssignmentEpoch: 8, Assignor: "uniform", Coordinator: "127.0.0.1:29092"},
		Members: []model.Member{
			{MemberID: "4f1c2d9e77aa4b1e9c2d0a1b", ClientID: "consumer-a", Host: "/127.0.0.1", MemberEpoch: 8,
				Partitions:       []model.TopicPartition{tp(topic, 0), tp(topic, 1), tp("payments", 0)},
				TargetPartitions: []model.TopicPartition{tp(topic, 0), tp(topic, 1), tp("payments", 0)}},
			{MemberID: "9e8d7c6b12344321abcdffee", ClientID: "consumer-b", Host: "/127.0.0.1", MemberEpoch: 7,
				Partitions:       []model.TopicPartition{tp(topic, 2), tp("payments", 1), tp("payments", 2)},
				TargetPartitions: []model.TopicPartition{tp("payments", 1), tp("payments", 2)}},
			{MemberID: "0badf00d5555444433332222", ClientID: "consumer-c", Host: "/10.0.0.7", MemberEpoch: 7,
				TargetPartitions: []model.TopicPartition{tp(topic, 2)}},
		},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{},
		Offsets:   map[model.TopicPartition]model.PartitionOffsets{},
	})
	for _, p := range s.Partitions {
		if p.Committed >= 0 {
			obs.SetCommitted(p.TopicPartition, p.Committed)
		}
		obs.SetOffsets(p.TopicPartition, model.PartitionOffsets{LogStart: p.LogStart, LogEnd: p.LogEnd, Err: p.Err})
	}
	obs = obs.With(model.Readings{OldestTimestamp: oldestOf(s)})
	return obs
}

// rebalancingSnapshot is the group mid-rebalance: a third consumer joined,
// members known, assignments not yet handed out.
func rebalancingSnapshot() model.Snapshot {
	s := emptySnapshot()
	obs := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group: model.Group{ID: "order-workers", State: model.StatePreparingRebalance, ProtocolType: "consumer",
			Assignor: "range", Coordinator: "127.0.0.1:29092"},
		Members: []model.Member{
			{MemberID: "consumer-a-4f1c2d9e-77aa-4b1e-9c2d-0a1b2c3d4e5f", ClientID: "consumer-a", Host: "/127.0.0.1"},
			{MemberID: "consumer-b-9e8d7c6b-1234-4321-abcd-ffeeddccbbaa", ClientID: "consumer-b", Host: "/127.0.0.1"},
			{MemberID: "consumer-c-0badf00d-5555-4444-3333-222211110000", ClientID: "consumer-c", Host: "/10.0.0.7"},
		},
	}.With(model.Readings{
		Committed: map[model.TopicPartition]int64{},
		Offsets:   map[model.TopicPartition]model.PartitionOffsets{},
	})
	for _, p := range s.Partitions {
		obs.SetCommitted(p.TopicPartition, p.Committed)
		obs.SetOffsets(p.TopicPartition, model.PartitionOffsets{LogStart: p.LogStart, LogEnd: p.LogEnd})
	}
	obs = obs.With(model.Readings{OldestTimestamp: oldestOf(s)})
	return model.NewSnapshot(obs)
}

// oldestOf is the timestamps of the oldest unprocessed records of s, as
// an observation carries them.
func oldestOf(s model.Snapshot) map[model.TopicPartition]time.Time {
	out := map[model.TopicPartition]time.Time{}
	for _, p := range s.Partitions {
		if p.LagAgeKnown && p.Lag > 0 {
			out[p.TopicPartition] = s.TakenAt.Add(-p.LagAge)
		}
	}
	return out
}

// deadSnapshot is what a poll of a group that does not exist returns.
func deadSnapshot() model.Snapshot {
	return model.NewSnapshot(model.Observation{
		TakenAt: t0, Brokers: testBrokers,
		Group: model.Group{ID: "order-workers", State: model.StateDead},
	})
}

// bigSnapshot has n partitions over 3 topics and 20 members.
func bigSnapshot(n int) model.Snapshot {
	obs := model.Observation{
		TakenAt: t0,
		Brokers: testBrokers,
		Group:   model.Group{ID: "big", State: model.StateStable, ProtocolType: "consumer", Assignor: "range"},
	}
	const members = 20
	for m := range members {
		obs.Members = append(obs.Members, model.Member{
			MemberID: fmt.Sprintf("member-%02d-%08x", m, m*7919), ClientID: fmt.Sprintf("worker-%02d", m), Host: "/10.0.0.1",
		})
	}
	for i := range n {
		t := tp(fmt.Sprintf("events-%d", i%3), int32(i/3))
		obs.Members[i%members].Partitions = append(obs.Members[i%members].Partitions, t)
		obs.SetCommitted(t, int64(i*100))
		obs.SetOffsets(t, model.PartitionOffsets{LogStart: 0, LogEnd: int64(i*100 + (i*37)%1000)})
	}
	return model.NewSnapshot(obs)
}

// testApp builds an App on src with a fixed clock, sized w×h, and runs its
// first poll.
func testApp(t testing.TB, src Source, clk *clock, w, h int) *App {
	t.Helper()
	a := New(Watch{Group: "order-workers", Source: src}, Options{
		Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now,
	})
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	feed(t, a, a.Init())
	return a
}

// feed runs cmd (which must be a poll, not a timer) and hands its message to
// the app, returning the app's next command.
func feed(t testing.TB, a *App, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	if cmd == nil {
		t.Fatal("expected a command, got nil")
	}
	msg := cmd()
	if _, ok := msg.(pollResultMsg[polled]); !ok {
		t.Fatalf("command produced %T, want a poll's answer", msg)
	}
	_, next := a.Update(msg)
	return next
}

func plain(a *App) string { return ansi.Strip(a.View().Content) }

// tickOf is the group page's tick of step seq, remaining still to wait.
func tickOf(a *App, seq uint64, remaining time.Duration) pollTickMsg[polled] {
	return pollTickMsg[polled]{p: a.group.poll, seq: seq, remaining: remaining}
}

// answerOf is an answer to the group page's poll of step seq.
func answerOf(a *App, seq uint64, snap model.Snapshot) pollResultMsg[polled] {
	return pollResultMsg[polled]{p: a.group.poll, seq: seq, val: polled{snap: snap}, started: snap.TakenAt}
}

// staleTick is a tick of no current loop: the page takes it only to move
// its clock.
func staleTick(a *App) pollTickMsg[polled] { return tickOf(a, a.group.poll.seq+100, 0) }
