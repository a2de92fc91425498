package model

import (
	"math"
	"testing"
	"time"
)

// FuzzHistory drives History with arbitrary poll sequences (offsets that
// jump, fall, vanish; owners and group states that change; uneven time
// steps) and checks the invariants the UI and scripts rely on.
func FuzzHistory(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add([]byte{0, 0, 0, 0, 255, 255, 255, 255, 7, 7, 7, 7, 0, 9, 200, 3})
	f.Add([]byte{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		h := NewHistory(HistoryOptions{SparkPoints: 4, SparkEvery: 3 * time.Second})
		const n = 3
		committed := [n]int64{10, 20, 30}
		logEnd := [n]int64{40, 50, 60}
		prev := map[TopicPartition]Status{}
		at, lastAt := time.Duration(0), time.Duration(0)
		states := []string{StateStable, StateStable, StateEmpty, StatePreparingRebalance}
		for len(data) >= 4 {
			op, a, b, c := data[0], int64(data[1]), int64(data[2]), data[3]
			data = data[4:]
			i := int(op) % n
			switch op / n % 6 {
			case 0: // progress
				committed[i] += a
				logEnd[i] += b
			case 1: // rewind
				committed[i] -= a
			case 2: // truncate
				logEnd[i] = b
			case 3: // lose the commit
				committed[i] = NoOffset
			case 4: // unreadable offsets
				logEnd[i] = NoOffset
			case 5: // back to sane
				committed[i], logEnd[i] = a, a+b
			}
			committed[i] = max(committed[i], NoOffset)
			logEnd[i] = max(logEnd[i], NoOffset)
			at += time.Duration(c%16) * 700 * time.Millisecond
			if c >= 250 {
				at -= 5 * time.Second // the clock goes back now and then
			}
			parts := make([]hp, n)
			for k := range parts {
				owner := ""
				if (int(c)>>k)&1 == 1 {
					owner = "a"
				}
				parts[k] = hp{committed[k], logEnd[k], owner}
			}
			if at < lastAt {
				clear(prev) // History restarts: every partition is new
			}
			lastAt = at
			s := hsnap(at, states[int(c)%len(states)], parts)
			evs := h.Annotate(&s)

			changed := map[TopicPartition]Status{}
			for _, e := range evs {
				if e.Type != EventStatusChanged || len(e.Partitions) == 0 || Status(e.State).Severity() == 0 || e.Detail == "" {
					t.Fatalf("bad event %+v", e)
				}
				for _, tp := range e.Partitions {
					if _, dup := changed[tp]; dup {
						t.Fatalf("%v in two events", tp)
					}
					changed[tp] = Status(e.State)
				}
			}
			worst := StatusOK
			for _, p := range s.Partitions {
				if p.Status.Severity() == 0 {
					t.Fatalf("no status: %+v", p)
				}
				if p.Status.Worse(worst) {
					worst = p.Status
				}
				was, ok := prev[p.TopicPartition]
				if !ok {
					was = StatusOK
				}
				if got, ev := changed[p.TopicPartition]; ev != (was != p.Status) || (ev && got != p.Status) {
					t.Fatalf("%v was %s, now %s; event: %v %s", p.TopicPartition, was, p.Status, ev, got)
				}
				for _, r := range []Rate{p.ConsumeRate, p.ProduceRate} {
					checkRate(t, r)
				}
			}
			for _, r := range []Rate{s.ConsumeRate, s.ProduceRate} {
				checkRate(t, r)
			}
			if s.Status != worst {
				t.Fatalf("group status %s, worst partition status %s", s.Status, worst)
			}
			if s.ETAKnown && (s.ETA <= 0 || s.ConsumeRate.PerSec <= s.ProduceRate.PerSec || s.TotalLag == 0) {
				t.Fatalf("ETA %v with consume %v produce %v lag %d", s.ETA, s.ConsumeRate, s.ProduceRate, s.TotalLag)
			}
			if s.ETAKnown && s.FallingBehind {
				t.Fatal("ETA and falling behind at once")
			}
			if len(s.TotalLagHistory) == 0 || len(s.TotalLagHistory) > 4 || s.TotalLagHistory[len(s.TotalLagHistory)-1] != s.TotalLag {
				t.Fatalf("TotalLagHistory %v, total %d", s.TotalLagHistory, s.TotalLag)
			}
			clear(prev)
			for _, p := range s.Partitions {
				prev[p.TopicPartition] = p.Status
			}
		}
	})
}

func checkRate(t *testing.T, r Rate) {
	t.Helper()
	if math.IsNaN(r.PerSec) || math.IsInf(r.PerSec, 0) || r.PerSec < 0 || (!r.Known && r.PerSec != 0) {
		t.Fatalf("bad rate %+v", r)
	}
}
