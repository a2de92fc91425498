package model

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func numbered(i int) Event {
	return Event{Time: at(float64(i)), Type: EventDemoSpawned, Detail: fmt.Sprint(i)}
}

func details(events []Event) string {
	var parts []string
	for _, e := range events {
		parts = append(parts, e.Detail)
	}
	return strings.Join(parts, " ")
}

func TestTimelineRing(t *testing.T) {
	tl := NewTimeline(4)
	if tl.Len() != 0 || len(tl.Events()) != 0 {
		t.Fatalf("new timeline holds %d events", tl.Len())
	}
	tl.Add(numbered(0), numbered(1), numbered(2))
	if got := details(tl.Events()); got != "0 1 2" {
		t.Errorf("before wrap: %q", got)
	}
	for i := 3; i < 11; i++ {
		tl.Add(numbered(i))
		if tl.Len() > 4 {
			t.Fatalf("ring holds %d events, bound 4", tl.Len())
		}
	}
	if got := details(tl.Events()); got != "7 8 9 10" {
		t.Errorf("after wrap: %q, want the newest four oldest first", got)
	}
	for i, want := range []string{"7", "8", "9", "10"} {
		if got := tl.At(i).Detail; got != want {
			t.Errorf("At(%d) = %s, want %s", i, got, want)
		}
	}
	evs := tl.Events()
	evs[0].Detail = "changed"
	if tl.At(0).Detail != "7" {
		t.Error("Events returned the ring's storage, not a copy")
	}
	defer func() {
		if recover() == nil {
			t.Error("At(Len()) did not panic")
		}
	}()
	tl.At(4)
}

func TestTimelineDefaultCapacity(t *testing.T) {
	if c := NewTimeline(0).Cap(); c != DefaultTimelineCapacity {
		t.Errorf("NewTimeline(0).Cap() = %d, want %d", c, DefaultTimelineCapacity)
	}
}

// A late event (a demo consumer's report racing a poll) goes among the
// events of its time, after those of the same time.
func TestTimelineLateEvent(t *testing.T) {
	tl := NewTimeline(4)
	tl.Add(numbered(1), numbered(3), numbered(5))
	late := numbered(3)
	late.Detail = "3b"
	tl.Add(late)
	if got := details(tl.Events()); got != "1 3 3b 5" {
		t.Errorf("got %q", got)
	}
	tl.Add(numbered(4)) // full: 1 goes
	if got := details(tl.Events()); got != "3 3b 4 5" {
		t.Errorf("got %q", got)
	}
	tl.Add(numbered(2)) // older than all held by a full ring: dropped
	if got := details(tl.Events()); got != "3 3b 4 5" {
		t.Errorf("got %q after adding an event older than all", got)
	}
}

func TestTimelineConcurrent(t *testing.T) {
	tr := NewTracker("g", 50)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 200 {
			tr.Observe(snap(float64(i), stable, mem("consumer-a", int32(i%3))))
		}
	}()
	go func() {
		defer wg.Done()
		for i := range 200 {
			tr.Add(Event{Time: at(float64(i)), Type: EventDemoAssigned})
			_ = tr.Timeline().Events()
		}
	}()
	wg.Wait()
	if n := tr.Timeline().Len(); n != 50 {
		t.Errorf("Len = %d, want 50", n)
	}
	for _, e := range tr.Timeline().Events() {
		if e.Group != "g" {
			t.Errorf("%s has group %q, want the tracker's", e.Type, e.Group)
		}
	}
}

// Memory stays flat: 100,000 events through a 1,000-event ring leave the
// heap where 1,000 events put it.
func TestTimelineMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	tl := NewTimeline(1000)
	push := func(from, to int) {
		for i := from; i < to; i++ {
			tl.Add(Event{Time: at(float64(i)), Type: EventPartitionMoved, Group: "g",
				Partitions: []TopicPartition{{Topic: "orders", Partition: int32(i % 64)}},
				From:       "consumer-a", To: "consumer-b", Detail: fmt.Sprintf("p%d: consumer-a → consumer-b", i%64)})
		}
	}
	push(0, 1000)
	before := heap()
	push(1000, 100_000)
	after := heap()
	if tl.Len() != 1000 {
		t.Fatalf("Len = %d", tl.Len())
	}
	if after > before+256<<10 {
		t.Errorf("heap grew from %d to %d bytes over 99,000 more events", before, after)
	}
	t.Logf("heap with a full 1,000-event ring: %d bytes before, %d after 100,000 events", before, after)
}

func TestMarshalEventJSON(t *testing.T) {
	when := time.Date(2026, 11, 29, 10, 0, 1, 500_000_000, time.FixedZone("KST", 9*3600))
	tests := []struct {
		name string
		e    Event
		want string
	}{
		{
			name: "member left",
			e: Event{Time: when, Type: EventMemberLeft, Group: "order-workers", MemberID: "consumer-b-1234", ClientID: "consumer-b",
				Host: "/127.0.0.1", Partitions: []TopicPartition{{"orders", 2}}, State: "PreparingRebalance", Detail: "consumer-b left"},
			want: `{"time":"2026-11-29T01:00:01.500000Z","type":"member_left","group":"order-workers","member_id":"consumer-b-1234","client_id":"consumer-b","host":"/127.0.0.1","partitions":[{"topic":"orders","partition":2}],"state":"PreparingRebalance","inferred":false,"detail":"consumer-b left"}`,
		},
		{
			name: "member joined, partitions unknown",
			e:    Event{Time: when, Type: EventMemberJoined, Group: "g", MemberID: "m", ClientID: "", Host: "", Detail: "m joined"},
			want: `{"time":"2026-11-29T01:00:01.500000Z","type":"member_joined","group":"g","member_id":"m","client_id":"","host":"","inferred":false,"detail":"m joined"}`,
		},
		{
			name: "rebalance completed",
			e: Event{Time: when, Type: EventRebalanceCompleted, Group: "g", Moves: []Move{{TopicPartition{"orders", 2}, "consumer-b", "consumer-a"}},
				Partitions: []TopicPartition{{"orders", 0}}, Duration: 412600 * time.Microsecond, HasDuration: true, State: "Stable", Detail: "rebalance took 0.41s",
				Rebalances: RebalanceStats{At: when, Watched: 5 * time.Minute, Generation: 12, Max: 5, Storm: true,
					Minute:     RebalanceWindow{Span: ShortWindow, Count: 2},
					TenMinutes: RebalanceWindow{Span: StormWindow, Count: 7, Inferred: 2, Untimed: 3, Rebalancing: 8200 * time.Millisecond, Stopped: 41 * time.Second},
					Hour:       RebalanceWindow{Span: LongWindow, Count: 9}}},
			want: `{"time":"2026-11-29T01:00:01.500000Z","type":"rebalance_completed","group":"g","partitions":[{"topic":"orders","partition":0}],"moves":[{"topic":"orders","partition":2,"from":"consumer-b","to":"consumer-a"}],"duration_ms":413,"state":"Stable","inferred":false,"detail":"rebalance took 0.41s",` +
				`"generation":12,"watched_ms":300000,"rebalances_1m":2,"rebalances_10m":7,"rebalances_1h":9,"inferred_10m":2,"untimed_10m":3,"rebalancing_ms_10m":8200,"stopped_ms_10m":41000,"max_rebalances":5,"storm":true}`,
		},
		{
			name: "inferred rebalance completed: lists present, no duration",
			e:    Event{Time: when, Type: EventRebalanceCompleted, Group: "g", Inferred: true, State: "Stable", Detail: "d"},
			want: `{"time":"2026-11-29T01:00:01.500000Z","type":"rebalance_completed","group":"g","partitions":[],"moves":[],"state":"Stable","inferred":true,"detail":"d",` +
				`"generation":null,"watched_ms":null,"rebalances_1m":null,"rebalances_10m":null,"rebalances_1h":null,` +
				`"inferred_10m":null,"untimed_10m":null,"rebalancing_ms_10m":null,"stopped_ms_10m":null,"storm":null}`,
		},
		{
			name: "partition moved from nobody",
			e:    Event{Time: when, Type: EventPartitionMoved, Group: "g", Partitions: []TopicPartition{{"orders", 1}}, To: "consumer-a", State: "Stable", Detail: "p1"},
			want: `{"time":"2026-11-29T01:00:01.500000Z","type":"partition_moved","group":"g","partitions":[{"topic":"orders","partition":1}],"from":"","to":"consumer-a","state":"Stable","inferred":false,"detail":"p1"}`,
		},
		{
			name: "connection lost at a whole second keeps its fraction",
			e:    Event{Time: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC), Type: EventConnectionLost, Group: "g", Detail: "connection lost"},
			want: `{"time":"2026-11-29T10:00:00.000000Z","type":"connection_lost","group":"g","inferred":false,"detail":"connection lost"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := MarshalEventJSON(tt.e)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b, tt.want)
			}
		})
	}
}

// Every event a tracker produces marshals to one JSON object with the
// contract's fields, and time parses back.
func TestEventJSONFromTracker(t *testing.T) {
	tr := NewTracker("order-workers", 0)
	for _, s := range []Snapshot{
		snap(0, stable, mem("consumer-a", 0, 1), mem("consumer-b", 2)),
		snap(1, preparing, mem("consumer-a")),
		snap(1.4, stable, mem("consumer-a", 0, 1, 2)),
	} {
		tr.Observe(s)
	}
	allowed := map[string]bool{"time": true, "type": true, "group": true, "member_id": true, "client_id": true, "host": true,
		"partitions": true, "from": true, "to": true, "moves": true, "duration_ms": true, "state": true, "inferred": true, "detail": true,
		"protocol": true, // a member's, on the events naming one
		// rebalance_completed's counts (JSONRebalances)
		"generation": true, "watched_ms": true, "rebalances_1m": true, "rebalances_10m": true, "rebalances_1h": true,
		"inferred_10m": true, "untimed_10m": true, "rebalancing_ms_10m": true, "stopped_ms_10m": true, "storm": true}
	sawDuration := false
	for _, e := range tr.Timeline().Events() {
		b, err := MarshalEventJSON(e)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsRune(string(b), '\n') {
			t.Errorf("%s: JSON has a newline", e.Type)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		for k := range m {
			if !allowed[k] {
				t.Errorf("%s: unexpected field %q", e.Type, k)
			}
		}
		for _, k := range []string{"time", "type", "group", "inferred"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no %q in %s", e.Type, k, b)
			}
		}
		if ts, err := time.Parse(time.RFC3339Nano, m["time"].(string)); err != nil || !ts.Equal(e.Time) {
			t.Errorf("%s: time %v does not parse back to %v (%v)", e.Type, m["time"], e.Time, err)
		}
		if d, ok := m["duration_ms"]; ok {
			sawDuration = true
			if e.Type != EventRebalanceCompleted || d.(float64) != 400 {
				t.Errorf("%s: duration_ms %v", e.Type, d)
			}
		}
		if _, ok := m["moves"]; ok != (e.Type == EventRebalanceCompleted) {
			t.Errorf("%s: moves present = %v", e.Type, ok)
		}
	}
	if !sawDuration {
		t.Error("no event carried duration_ms")
	}
}

func TestTrackerAddZeroTime(t *testing.T) {
	tr := NewTracker("g", 0)
	tr.Add(Event{Type: EventDemoSpawned}) // nothing held: stays zero, goes first
	tr.Observe(snap(5, stable, mem("consumer-a", 0)))
	tr.Add(Event{Type: EventDemoSpawned, Detail: "late"})
	evs := tr.Timeline().Events()
	if last := evs[len(evs)-1]; last.Detail != "late" || !last.Time.Equal(at(5)) {
		t.Errorf("zero-time event filed as %s at %v, want last at %v", last.Detail, last.Time, at(5))
	}
}

func TestEventTouched(t *testing.T) {
	e := Event{
		Partitions: []TopicPartition{{"orders", 0}, {"orders", 2}},
		Moves:      []Move{{TopicPartition{"orders", 2}, "a", "b"}, {TopicPartition{"orders", 1}, "a", "b"}},
	}
	got := fmt.Sprint(e.Touched())
	if got != "[{orders 0} {orders 1} {orders 2}]" {
		t.Errorf("Touched = %s", got)
	}
	if got := (Event{Partitions: e.Partitions}).Touched(); len(got) != 2 {
		t.Errorf("Touched without moves = %v", got)
	}
}

// TestTimelineAppendEvents: AppendEvents gives the events At gives, after
// what dst held, as the ring fills and wraps, and copies into dst's room
// without allocating.
func TestTimelineAppendEvents(t *testing.T) {
	tl := NewTimeline(5)
	mark := Event{Type: EventDemoSpawned, Detail: "already in dst"}
	dst := make([]Event, 0, 8)
	for i := range 13 {
		tl.Add(numbered(i))
		got := tl.AppendEvents(append(dst[:0], mark))
		want := []Event{mark}
		for j := range tl.Len() {
			want = append(want, tl.At(j))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after %d events: appended\n%v\nwant\n%v", i+1, got, want)
		}
		if n := testing.AllocsPerRun(10, func() { dst = tl.AppendEvents(dst[:0]) }); n != 0 {
			t.Fatalf("after %d events: %v allocations into a slice with room", i+1, n)
		}
	}
}
