package model

import "time"

// Pipeline is the one path from the polls of a group to what every view of
// it shows: each good poll is annotated (statuses, rates, ETA: History),
// diffed into timeline events (Tracker), and recorded in the ownership
// lanes (Lanes); a failed poll is an outage. The TUI, `--events` and replay
// all feed their snapshots through one, so they tell the same story. Like
// the rest of the package it does no I/O and reads no clock: callers pass
// the times in. It is not safe for concurrent use, except for its
// Timeline.
type Pipeline struct {
	history *History
	tracker *Tracker
	lanes   *Lanes
	deploys *deployWatch
	tap     Tap
	// hideKeys: PipelineOptions.HideKeys.
	hideKeys bool
	// interval is the poll interval, for UnansweredAfter.
	interval time.Duration
	// cluster is the last cluster id known; historyOpts make a new
	// history when it changes (cluster.go).
	cluster     string
	historyOpts HistoryOptions
}

// Tap is told what a Pipeline is fed, in order, as it is fed (a recording,
// `--record`): fed to a new Pipeline, the same inputs give the same
// events. Its methods run on the pipeline's goroutine and must not keep
// what they are given: Observe annotates the snapshot in place once
// Observed returns.
type Tap interface {
	// Observed is a good poll, before annotation.
	Observed(s Snapshot)
	// Failed is a failed poll begun at started, seen at at.
	Failed(started, at time.Time, err error)
	// Added is an event from outside the polls, as given to Add.
	Added(e Event)
}

// PipelineOptions configure a Pipeline. Zero fields take their defaults.
type PipelineOptions struct {
	// Group names the group in the events.
	Group string
	// TimelineSize is the number of events the timeline keeps
	// (DefaultTimelineCapacity).
	TimelineSize int
	// History tunes statuses and rates (`--stall-after`).
	History HistoryOptions
	// LaneHorizon is how much ownership history the lanes keep
	// (DefaultLaneHorizon).
	LaneHorizon time.Duration
	// Tap, when set, is told every input (Tap).
	Tap Tap
	// Interval is the poll interval (`--interval`; zero: 1s): a poll
	// unanswered for UnansweredAfter it is an event (Waiting).
	Interval time.Duration
	// HideKeys (`--hide-keys`) drops the key and header values of the
	// records partitions wait on as each poll comes in, before the tap
	// and every view: only their sizes are shown, recorded or written.
	HideKeys bool
	// MaxRebalances is `--max-rebalances`: more rebalances than this in
	// the last 10 minutes are a storm (RebalanceStorm); 0: no limit.
	MaxRebalances int
	// OnePoll is a pipeline fed one poll and dropped (`--once`): it keeps
	// no ownership lanes (Lanes returns nil), which nothing of one poll
	// shows and which cost about 500 bytes a partition. The snapshot and
	// events are the same as any pipeline's first.
	OnePoll bool
}

// NewPipeline returns a pipeline that has seen nothing yet.
func NewPipeline(o PipelineOptions) *Pipeline {
	tracker := NewTracker(o.Group, o.TimelineSize)
	tracker.rate.max = o.MaxRebalances
	var lanes *Lanes
	if !o.OnePoll {
		lanes = NewLanes(o.LaneHorizon)
	}
	return &Pipeline{
		history: NewHistory(o.History),
		tracker: tracker,
		lanes:   lanes,
		deploys: newDeployWatch(o.Group),
		tap:     o.Tap,

		hideKeys: o.HideKeys,

		interval:    o.Interval,
		historyOpts: o.History,
	}
}

// Observe takes a good poll: it fills s's derived fields (History.Annotate
// writes into s.Partitions, so s must not be shared yet) and returns the
// events it gives, in the order they are filed: the diff's (joins, leaves,
// rebalances, a restored connection first), a deploy's start or end
// (deploy.go), then the status changes. The
// pipeline keeps s's members, whose lists are never written, and nothing
// of its rows once Observe returns: they may be built again in place for
// the next poll (SnapshotBuilder).
func (p *Pipeline) Observe(s *Snapshot) []Event {
	if p.hideKeys {
		s.HideKeys()
	}
	if p.tap != nil {
		p.tap.Observed(*s)
	}
	if clusterChanged(p.cluster, s.ClusterID) {
		// Another cluster: no rate or status is measured across it,
		// and no member of it replaces one of the old.
		p.history = NewHistory(p.historyOpts)
		p.deploys = newDeployWatch(p.deploys.group)
	}
	if s.ClusterID != "" {
		p.cluster = s.ClusterID
	}
	status := p.history.Annotate(s)
	if p.lanes != nil {
		p.lanes.Observe(*s)
	}
	events := p.tracker.Observe(*s)
	s.Rebalances = p.tracker.Rebalances()
	deploys := p.deploys.observe(s, events)
	for _, e := range deploys {
		p.tracker.Add(e)
	}
	for _, e := range status {
		p.tracker.Add(e)
	}
	return append(append(events, deploys...), status...)
}

// Failed records a poll that failed at at, when the failure was seen. The
// first failure of an outage gives a connection_lost event; the next good
// poll gives connection_restored, with the outage's length.
func (p *Pipeline) Failed(at time.Time, err error) []Event {
	return p.PollFailed(at, at, err)
}

// PollFailed is Failed for a poll that began at started: the outage's
// connection_restored then says the polls failed from the first failed
// poll's start (Tracker.PollFailed). The tap is told both times.
func (p *Pipeline) PollFailed(started, at time.Time, err error) []Event {
	if p.tap != nil {
		p.tap.Failed(started, at, err)
	}
	events := p.tracker.PollFailed(started, at, err)
	if len(events) > 0 && p.lanes != nil {
		p.lanes.Lost(at)
	}
	return events
}

// Add files an event from outside the polls (a demo consumer's report) and
// returns it as filed: its group filled in, and a zero time made that of
// the newest event.
func (p *Pipeline) Add(e Event) Event {
	if p.tap != nil {
		p.tap.Added(e)
	}
	return p.tracker.Add(e)
}

// Rebalances returns the rebalance counts at the last good poll.
func (p *Pipeline) Rebalances() RebalanceStats { return p.tracker.Rebalances() }

// Timeline returns the events filed so far.
func (p *Pipeline) Timeline() *Timeline { return p.tracker.Timeline() }

// Lanes returns the ownership history; nil with OnePoll.
func (p *Pipeline) Lanes() *Lanes { return p.lanes }
