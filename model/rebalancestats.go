package model

import "strconv"

// countRebalances feeds one poll's events to the tracker's RebalanceRate,
// gives each rebalance_completed the counts up to it, and appends a
// rebalance_storm or rebalance_storm_ended when the last 10 minutes
// crossed --max-rebalances either way.
func (t *Tracker) countRebalances(s Snapshot, events []Event) []Event {
	open := t.d.rb != nil || t.d.phase != nil
	was := t.stats.Storm
	st := t.rate.Observe(s.ObservedAt(), s.Group, events, open)
	t.stats = st
	for i := range events {
		if events[i].Type == EventRebalanceCompleted {
			events[i].Rebalances = st
		}
	}
	if st.Storm != was {
		b := stamp{group: t.d.group, at: st.At, state: normState(s.Group.State)}
		events = append(events, stormEvent(b, st))
	}
	return events
}

// Rebalances returns the counts at the last poll observed.
func (t *Tracker) Rebalances() RebalanceStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// stormEvent is the rebalance_storm (or, the storm over,
// rebalance_storm_ended) of counts.
func stormEvent(b stamp, counts RebalanceStats) Event {
	w := counts.Window(StormWindow)
	limit := "--max-rebalances " + strconv.Itoa(counts.Max)
	var e Event
	if counts.Storm {
		e = b.event(EventRebalanceStorm, "rebalance storm: "+RebalanceCount(w, "")+" in the last "+Setting(StormWindow)+
			", more than "+limit+StoppedText(w, "; "))
	} else {
		e = b.event(EventRebalanceStormEnded, "rebalance storm over: "+RebalanceCount(w, "")+" in the last "+Setting(StormWindow)+
			", no more than "+limit)
	}
	e.Rebalances = counts
	return e
}

// RebalanceCount says how many rebalances a window counted, per (after
// the noun: "/10m", or ""), and how many of them polls only inferred:
// "7 rebalances (2 inferred)", "7 rebalances/10m (2 inferred)".
func RebalanceCount(w RebalanceWindow, per string) string {
	s := Count(w.Count, "rebalance") + per
	if w.Inferred > 0 {
		s += " (" + strconv.Itoa(w.Inferred) + " inferred)"
	}
	return s
}

// StoppedText says the partition-time a window's rebalances stopped,
// after lead: "; partitions stopped 41s"; "" when none was timed.
func StoppedText(w RebalanceWindow, lead string) string {
	if w.Stopped <= 0 {
		return ""
	}
	return lead + "partitions stopped " + Age(w.Stopped)
}

// JSONRebalances is a group's rebalance counts in JSON: the rebalances
// object of `--once -o json`, and fields of the events that carry them
// (FieldRebalances). Counts are null until measured: one poll knows the
// generation only.
type JSONRebalances struct {
	// Generation is Group.RebalanceGeneration; null when unknown.
	Generation *int32 `json:"generation"`
	// WatchedMS is how long the counts cover (from the first poll): a
	// window longer than it counts only that long.
	WatchedMS     *int64 `json:"watched_ms"`
	Rebalances1m  *int   `json:"rebalances_1m"`
	Rebalances10m *int   `json:"rebalances_10m"`
	Rebalances1h  *int   `json:"rebalances_1h"`
	// Inferred10m counts those of the 10 minutes no poll saw in progress,
	// Untimed10m those of unknown duration.
	Inferred10m *int `json:"inferred_10m"`
	Untimed10m  *int `json:"untimed_10m"`
	// RebalancingMS10m sums the timed ones' durations; StoppedMS10m the
	// partition-milliseconds they stopped.
	RebalancingMS10m *int64 `json:"rebalancing_ms_10m"`
	StoppedMS10m     *int64 `json:"stopped_ms_10m"`
	// MaxRebalances is --max-rebalances (omitted without it); Storm is
	// RebalanceStorm, null without --max-rebalances or until measured.
	MaxRebalances int   `json:"max_rebalances,omitempty"`
	Storm         *bool `json:"storm"`
}

// JSON returns s in its JSON shape.
func (s RebalanceStats) JSON() *JSONRebalances {
	j := &JSONRebalances{MaxRebalances: s.Max}
	if s.Generation > 0 {
		j.Generation = ptr(s.Generation)
	}
	if !s.Measured() {
		return j
	}
	short, ten, hour := s.Minute, s.TenMinutes, s.Hour
	j.WatchedMS = ptr(s.Watched.Milliseconds())
	j.Rebalances1m, j.Rebalances10m, j.Rebalances1h = ptr(short.Count), ptr(ten.Count), ptr(hour.Count)
	j.Inferred10m, j.Untimed10m = ptr(ten.Inferred), ptr(ten.Untimed)
	j.RebalancingMS10m, j.StoppedMS10m = ptr(ten.Rebalancing.Milliseconds()), ptr(ten.Stopped.Milliseconds())
	if s.Max > 0 {
		j.Storm = ptr(s.Storm)
	}
	return j
}
