package model

import (
	"fmt"
)

// Another cluster on the same addresses. A cluster restarted from scratch,
// or another one put behind the same names, answers polls as the old one
// did; diffed against it, its group reads as a rebalance that moved every
// partition. The cluster id (Snapshot.ClusterID) tells them apart: when it
// changes, the timeline says so (cluster_changed) and the watch starts
// afresh, as if it had just begun (watch_started; nothing is diffed
// against the old cluster). When the id does not change (or is unknown)
// but log ends go backwards, a topic was recreated, or the id is not to be
// had: log_end_backwards names the partitions.

// clusterChanged reports whether two cluster ids, both known, differ.
func clusterChanged(was, now string) bool { return was != "" && now != "" && was != now }

// clusterEvents returns what s says about the cluster against the last
// snapshot: a cluster_changed (the differ then starts afresh, keeping only
// an outage in progress), else a log_end_backwards; nil when neither.
func (t *Tracker) clusterEvents(s Snapshot) []Event {
	was := t.cluster
	if s.ClusterID != "" {
		t.cluster = s.ClusterID
	}
	prev := t.d.last
	if prev == nil {
		return nil
	}
	b := stamp{group: t.d.group, at: s.ObservedAt(), state: normState(s.Group.State)}
	back := t.ends.back(s.Partitions)
	if clusterChanged(was, s.ClusterID) {
		detail := fmt.Sprintf("another cluster answers on the same addresses: cluster id %s → %s (%s → %s); the watch starts afresh",
			Printable(was), Printable(s.ClusterID), Count(prev.rowCount(), "partition"), Count(len(s.Partitions), "partition"))
		if len(back) > 0 {
			detail += "; log ends went backwards on " + Count(len(back), "partition")
		}
		d := &t.d
		*d = differ{group: d.group, lost: d.lost, failedFrom: d.failedFrom, failedTo: d.failedTo, goodAt: d.goodAt}
		t.rate, t.stats = NewRebalanceRate(t.rate.max), RebalanceStats{}
		return []Event{b.event(EventClusterChanged, detail)}
	}
	if len(back) == 0 {
		return nil
	}
	e := b.event(EventLogEndBackwards, "")
	e.Partitions = back
	e.Detail = "log end went backwards on " + PartitionList(back, MultiTopic(back)) +
		": the topic was recreated, or another cluster answers"
	return []Event{e}
}

// afterOutage inserts lead into events after the outage's end that opens
// them (connection_restored, poll_answered), if any.
func afterOutage(events, lead []Event) []Event {
	if len(lead) == 0 {
		return events
	}
	n := 0
	for n < len(events) && (events[n].Type == EventConnectionRestored || events[n].Type == EventPollAnswered) {
		n++
	}
	out := make([]Event, 0, len(events)+len(lead))
	out = append(out, events[:n]...)
	out = append(out, lead...)
	return append(out, events[n:]...)
}
