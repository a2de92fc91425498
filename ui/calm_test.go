package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// demoLikeSnapshot is a demo's group at poll i: 3 partitions, 5 orders a
// second, each processed in ~100ms, so one partition or another has one
// order in flight, just written; slow, from poll slowFrom on, makes p1's
// consumer fall behind (1 order a second against 20 written).
func demoLikeSnapshot(i, slowFrom int) model.Snapshot {
	at := t0.Add(time.Duration(i) * time.Second)
	const topic = "order-rebalancing"
	obs := model.Observation{
		TakenAt: at,
		Brokers: testBrokers,
		Group:   model.Group{ID: "order-workers", State: model.StateStable, Type: model.TypeClassic, Assignor: "range"},
		Members: []model.Member{
			{MemberID: "consumer-a-1", ClientID: "consumer-a", Host: "/127.0.0.1", Partitions: []model.TopicPartition{tp(topic, 0), tp(topic, 1)}},
			{MemberID: "consumer-b-2", ClientID: "consumer-b", Host: "/127.0.0.1", Partitions: []model.TopicPartition{tp(topic, 2)}},
		},
	}.With(model.Readings{
		Committed:       map[model.TopicPartition]int64{},
		Offsets:         map[model.TopicPartition]model.PartitionOffsets{},
		OldestTimestamp: map[model.TopicPartition]time.Time{},
	})
	for p := int32(0); p < 3; p++ {
		end := int64(i*5/3 + int(p))
		committed := end
		if int(p) == i%3 { // one order in flight here, written 300ms ago
			committed = end - 1
			obs.SetOldestTimestamp(tp(topic, p), at.Add(-300*time.Millisecond))
		}
		if p == 1 && slowFrom >= 0 && i >= slowFrom {
			behind := int64(i - slowFrom)
			end += 19 * behind
			committed = int64(slowFrom*5/3+1) + behind
			obs.SetOldestTimestamp(tp(topic, p), at.Add(-time.Duration(behind)*time.Second*19/20))
		}
		obs.SetCommitted(tp(topic, p), committed)
		obs.SetOffsets(tp(topic, p), model.PartitionOffsets{LogStart: 0, LogEnd: end})
	}
	return model.NewSnapshot(obs)
}

func demoLikeApp(t *testing.T, polls, slowFrom, w, h int) (*App, []string) {
	t.Helper()
	var results []pollResult
	for i := range polls {
		results = append(results, pollResult{snap: demoLikeSnapshot(i, slowFrom)})
	}
	clk := testutil.NewClock(t0)
	a := testApp(t, &fakeSource{results: results}, clk, w, h)
	frames := []string{plain(a)}
	for i := 1; i < polls; i++ {
		clk.Set(t0.Add(time.Duration(i) * time.Second))
		pollNow(t, a)
		frames = append(frames, plain(a))
	}
	clk.Set(clk.Now().Add(500 * time.Millisecond))
	a.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return a, frames
}

// tableLines returns the partition table's header and rows of a frame,
// and the field of a row that holds its partition number (the topic
// column gives way first when the title names the one topic).
func tableLines(frame string) (header string, rows []string) {
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) > 2 && (f[0] == "TOPIC" || f[0] == "P" || f[0] == "PARTITION") && strings.Contains(l, "STATUS") {
			header = l
			for _, r := range lines[i+1:] {
				if strings.TrimSpace(r) == "" || strings.HasPrefix(r, glyphFocused) || strings.HasPrefix(r, glyphUnfocused) {
					break
				}
				rows = append(rows, r)
			}
			break
		}
	}
	return header, rows
}

// partField is the field of a table row that holds its partition: after
// the topic when the header has a TOPIC column.
func partField(header string) int {
	if strings.HasPrefix(strings.TrimSpace(header), "TOPIC") {
		return 1
	}
	return 0
}

// A healthy group, an order or two in flight from poll to poll, reads
// calm and holds still: every partition OK, every bar one cell at most,
// the rows in the same order and the columns at the same widths every
// poll, and the header naming no worst partition.
func TestHealthyGroupHoldsStill(t *testing.T) {
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			a, frames := demoLikeApp(t, 30, -1, sz[0], sz[1])
			var header0 string
			var order0 []string
			for i, f := range frames[5:] { // past the first polls' warm-up
				header, rows := tableLines(f)
				pf := partField(header)
				if len(rows) != 3 {
					t.Fatalf("poll %d: %d rows:\n%s", i, len(rows), f)
				}
				var order []string
				for _, r := range rows {
					order = append(order, strings.Fields(strings.TrimLeft(r, glyphCursor))[pf])
					if strings.Count(r, glyphBarFull) > 1 {
						t.Errorf("poll %d: a bar longer than one cell for lag in flight: %q", i, r)
					}
					if !strings.Contains(r, "✓ OK") && !strings.Contains(r, " ✓ ") {
						t.Errorf("poll %d: not OK: %q", i, r)
					}
				}
				if header0 == "" {
					header0, order0 = header, order
				}
				if header != header0 {
					t.Errorf("poll %d: the columns moved:\n%q\n%q", i, header0, header)
				}
				if strings.Join(order, ",") != strings.Join(order0, ",") {
					t.Errorf("poll %d: the rows reordered: %v, was %v", i, order, order0)
				}
				if !strings.Contains(f, "worst: none") && sz[1] >= 16 {
					t.Errorf("poll %d: a worst partition named on a healthy group:\n%s", i, f)
				}
			}
			golden.RequireEqual(t, plain(a))
		})
	}
}

// A partition whose consumer falls behind (1/s consumed, 20/s written)
// stands out within seconds: non-OK 6s in; a minute in, the longest bar,
// named worst.
func TestFallingBehindStandsOut(t *testing.T) {
	p1 := func(frame string) string {
		header, rows := tableLines(frame)
		for _, r := range rows {
			if strings.Fields(strings.TrimLeft(r, glyphCursor))[partField(header)] == "1" {
				return r
			}
		}
		return ""
	}
	for _, sz := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			a, frames := demoLikeApp(t, 80, 20, sz[0], sz[1])
			if r := p1(frames[26]); !strings.Contains(r, "▴ LAGGING") && !strings.Contains(r, " ▴ ") {
				t.Errorf("6s after falling behind p1 is not LAGGING: %q", r)
			}
			r := p1(frames[len(frames)-1])
			full, bar := strings.Count(r, glyphBarFull), strings.Count(r, glyphBarFull)+strings.Count(r, glyphBarTrack)
			if full*10 < bar*3 || !strings.Contains(r, glyphWorst) { // past the 30s mark: over a third of the bar
				t.Errorf("a minute behind, p1's bar is short or not marked worst: %q", r)
			}
			if out := plain(a); !strings.Contains(out, "worst: order-rebalancing/1 consumer-a") {
				t.Errorf("the header does not name p1:\n%s", out)
			}
			golden.RequireEqual(t, plain(a))
		})
	}
}
