package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// rawOverview is a raw overview poll at t0+sec: "busy" owns orders/0,
// where 5 records arrive a second and its commit moves only from second
// 7 on (STALLED once the commit has not moved for --stall-after, OK
// again once it moves); "idle" is Empty with lag on orders/1 (STOPPED);
// "calm" is caught up on orders/2.
func rawOverview(sec int) *model.OverviewObservation {
	tp := func(p int32) model.TopicPartition { return model.TopicPartition{Topic: "orders", Partition: p} }
	at := t0.Add(time.Duration(sec) * time.Second)
	end := int64(10 + 5*sec)
	busy := int64(10)
	if sec >= 7 {
		busy = end - 1
	}
	group := func(id, state string, members int, p int32, c int64) model.OverviewGroup {
		part := model.OverviewPart{TopicPartition: tp(p), Committed: c, HasCommit: true}
		if members > 0 {
			part.Assigned, part.Owned, part.Owner = true, true, id+"-1"
		}
		return model.OverviewGroup{
			Summary: model.GroupSummary{ID: id, State: state, Type: model.TypeClassic, Members: members},
			Parts:   []model.OverviewPart{part},
		}
	}
	return &model.OverviewObservation{
		TakenAt: at,
		Groups: []model.OverviewGroup{
			group("busy", model.StateStable, 1, 0, busy),
			group("idle", model.StateEmpty, 0, 1, 3),
			group("calm", model.StateStable, 1, 2, 40),
		},
		Offsets: map[model.TopicPartition]model.PartitionOffsets{
			tp(0): {LogStart: model.NoOffset, LogEnd: end},
			tp(1): {LogStart: model.NoOffset, LogEnd: 8},
			tp(2): {LogStart: model.NoOffset, LogEnd: 40},
		},
		Records: map[model.RecordAt]model.RecordStamp{
			{TopicPartition: tp(0), Offset: busy}: {Time: at.Add(-time.Second)},
			{TopicPartition: tp(1), Offset: 3}:    {Time: t0.Add(-time.Hour)},
		},
	}
}

func statusesOf(gs []model.GroupSummary) string {
	var out []string
	for _, g := range gs {
		out = append(out, fmt.Sprintf("%s:%s/%d", g.ID, g.Status, g.TotalLag))
	}
	return strings.Join(out, " ")
}

// A recorded overview replays to what the live overview showed, poll
// after poll: the recording holds the raw polls, and the replayed page
// judges them with the same pipeline, over the same polls before.
func TestRecordedOverviewReplaysItsStatuses(t *testing.T) {
	opts := Options{Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Judging: model.Judging{StallAfter: 3 * time.Second}}
	var script []overviewResult
	for sec := 1; sec <= 10; sec++ {
		if sec == 5 {
			script = append(script, overviewResult{err: errors.New("dial tcp: connection refused")})
			continue
		}
		script = append(script, overviewResult{obs: rawOverview(sec)})
	}

	// Live: each poll answered at its second, recorded as --record's tap
	// records it (the raw read; the failure's text).
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.Header{Started: t0, Mode: "tui", Overview: true, Brokers: testBrokers, Interval: time.Second, StallAfter: opts.StallAfter})
	if err != nil {
		t.Fatal(err)
	}
	clk := testutil.NewClock(t0)
	liveOpts := opts
	liveOpts.Now = clk.Now
	a := NewOverview(&fakeOverview{batched: true, results: script}, nil, liveOpts)
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	live := map[int]string{}
	cmd := a.Init()
	for sec := 1; sec <= 10; sec++ {
		clk.Set(t0.Add(time.Duration(sec) * time.Second))
		if sec > 1 {
			o := a.overview
			_, cmd = a.Update(pollTickMsg[model.OverviewObservation]{p: o.poll, seq: o.poll.seq})
		}
		feedOverview(t, a, cmd)
		if r := script[sec-1]; r.err != nil {
			w.OverviewFailed(clk.Now(), r.err.Error())
			continue
		}
		w.OverviewPoll(clk.Now(), script[sec-1].obs)
		live[sec] = statusesOf(a.overview.groups)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// STALLED needs the polls before: the replay must judge over them.
	for _, want := range []string{"busy:OK", "busy:STALLED", "idle:STOPPED", "calm:OK"} {
		found := false
		for _, s := range live {
			found = found || strings.Contains(s, want+"/")
		}
		if !found {
			t.Fatalf("the live overview never showed %s: %v", want, live)
		}
	}

	// Replayed: the page at each second shows what the live one did.
	data := buf.Bytes()
	r := NewReplay(Replay{
		Overview: true, Start: t0, End: t0.Add(10 * time.Second), Paused: true, Wall: (testutil.NewClock(time.Unix(1_000_000, 0))).Now,
		Open: func() (ReplayReader, error) {
			rd, err := record.NewReader(bytes.NewReader(data))
			return memReader{rd}, err
		},
	}, opts)
	r.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	r.Init()
	for sec := 1; sec <= 10; sec++ {
		r.replay.seek(context.Background(), t0.Add(time.Duration(sec)*time.Second))
		if sec == 5 {
			wantOnScreen(t, r, "the failed poll", "poll failed", "connection refused")
			continue
		}
		if got := statusesOf(r.overview.groups); got != live[sec] {
			t.Errorf("at %ds the replay shows %s, the live overview showed %s", sec, got, live[sec])
		}
	}
	// Going back plays the polls again from the start: the same again.
	r.replay.seek(context.Background(), t0.Add(4*time.Second))
	if got := statusesOf(r.overview.groups); got != live[4] {
		t.Errorf("back at 4s the replay shows %s, the live overview showed %s", got, live[4])
	}
	if !reflect.DeepEqual(r.overview.groups, judgedAt(t, opts, 4)) {
		t.Errorf("back at 4s: %+v", r.overview.groups)
	}
}

// judgedAt is the overview polls up to second last (but the failed one)
// through a pipeline of opts': what the page shows after them.
func judgedAt(t *testing.T, opts Options, last int) []model.GroupSummary {
	t.Helper()
	p := model.NewOverviewPipeline(model.OverviewPipelineOptions{History: model.HistoryOptions{StallAfter: opts.StallAfter}})
	var gs []model.GroupSummary
	for sec := 1; sec <= last; sec++ {
		if sec != 5 {
			gs = p.Observe(rawOverview(sec))
		}
	}
	return gs
}
