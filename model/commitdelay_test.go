package model

import (
	"encoding/json"
	"testing"
	"time"
)

// Commit delay is told per partition and per member: how long ago the
// committed offset last moved (unknown before a move is seen: null in
// JSON), and how often it moves under its owner (unknown until two moves).
func TestCommitDelayAndCadence(t *testing.T) {
	for _, interval := range []time.Duration{250 * time.Millisecond, time.Second, 2 * time.Second} {
		h := NewHistory(HistoryOptions{})
		p := produced{rate: 100}
		var s Snapshot
		for at := time.Duration(0); at <= time.Minute; at += interval {
			// Commits every 5s, at 0.5s past each multiple.
			commitAt := (at - 500*time.Millisecond).Truncate(5 * time.Second)
			if at < 500*time.Millisecond {
				commitAt = 0
			}
			commitAt += 500 * time.Millisecond
			s = agedSnap(at, p, p.end(min(commitAt, at)))
			h.Annotate(&s)
			q, m := s.Partitions[0], s.Members[0]
			if at == 0 {
				if q.CommitMoveSeen || m.CommitSeen || q.CommitEvery != 0 {
					t.Fatalf("every %s, first poll: commit seen %v/%v, every %s", interval, q.CommitMoveSeen, m.CommitSeen, q.CommitEvery)
				}
				j := s.ToJSON()
				if j.Partitions[0].CommitDelayMs != nil || j.Members[0].CommitDelayMs != nil || j.Partitions[0].CommitEveryMs != nil {
					t.Fatalf("first poll's JSON: %+v %+v, want nulls", j.Partitions[0], j.Members[0])
				}
			}
			if at >= 20*time.Second {
				// The delay is since the last commit the polls saw.
				want := at - commitAt
				if want < 0 {
					want += 5 * time.Second
				}
				if !q.CommitMoveSeen || q.CommitDelay > want+interval || q.CommitDelay < want-interval || m.CommitDelay != q.CommitDelay {
					t.Fatalf("every %s, at %s: delay %s (member %s), want about %s", interval, at, q.CommitDelay, m.CommitDelay, want)
				}
				if c := q.CommitEvery; c < 5*time.Second-interval || c > 5*time.Second+interval || m.CommitEvery != c {
					t.Fatalf("every %s, at %s: cadence %s (member %s), want about 5s", interval, at, c, m.CommitEvery)
				}
			}
		}
		b, err := MarshalJSONSnapshot(s)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Members    []map[string]any `json:"members"`
			Partitions []map[string]any `json:"partitions"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		for _, o := range []map[string]any{got.Members[0], got.Partitions[0]} {
			if d, ok := o["commit_delay_ms"].(float64); !ok || d < 0 || d > 5000+float64(interval.Milliseconds()) {
				t.Errorf("every %s: commit_delay_ms %v in %v", interval, o["commit_delay_ms"], o)
			}
			if e, ok := o["commit_every_ms"].(float64); !ok || e < 4000 || e > 7000 {
				t.Errorf("every %s: commit_every_ms %v in %v", interval, o["commit_every_ms"], o)
			}
		}
	}
}
