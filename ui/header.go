package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// WatchState is what the header reports: the last good snapshot and the state
// of the poll loop. The root fills it in; the header only renders it.
type WatchState struct {
	Brokers  []string
	Group    string
	Interval time.Duration
	// StallAfter is --stall-after: a LAGGING worst partition whose
	// record is older shows the record it is stuck on too.
	StallAfter time.Duration

	Snap     model.Snapshot
	HasSnap  bool      // Snap holds a good poll
	LastGood time.Time // when Snap arrived
	Now      time.Time

	// PollStarted is when the poll in flight began; zero when none is.
	PollStarted time.Time
	// Notice is the last cluster_changed or log_end_backwards event
	// (zero Type: none); the header shows it for noticeFor.
	Notice model.Event

	Err      error     // last poll failed with Err
	Failures int       // consecutive failed polls
	RetryAt  time.Time // when the next poll starts after a failure

	// Recording is how --record goes (no Path: not recording), read
	// from Options.Recording at each layout.
	Recording RecordingStatus

	// snapSeq counts the snapshots shown (0: not counted), so the header
	// sums a snapshot's partitions once, not at every layout.
	snapSeq uint64
}

// Unanswered reports whether the poll in flight has left the data older
// than model.UnansweredAfter the interval: the header then says so rather
// than "updated … ago".
func (s WatchState) Unanswered() bool {
	return unanswered(s.Now, s.LastGood, s.PollStarted, s.Interval)
}

// unanswered reports whether a poll begun at started (zero: none in
// flight) has left data got at lastGood older, by now, than
// model.UnansweredAfter the interval.
func unanswered(now, lastGood, started time.Time, interval time.Duration) bool {
	return !started.IsZero() && !lastGood.IsZero() && now.Sub(lastGood) >= model.UnansweredAfter(interval)
}

// dataAge is the headers' age of the data: "updated 1.0s ago"; "⚠ stale
// 12s" once a poll failed; "⋯ data 4.2s old" while a poll in flight
// leaves it older than a few intervals (unanswered), so old data never
// reads as fresh. Pages re-render every second while a poll is in flight
// (pollClockMsg), so the age counts up as it grows.
func dataAge(st Styles, now, lastGood time.Time, failed, waiting bool) string {
	age := model.Since(now.Sub(lastGood))
	switch {
	case failed:
		return st.Banner.Render(glyphStale + " stale " + age)
	case waiting:
		return st.Banner.Render(glyphUnanswered + " data " + age + " old")
	}
	return st.Label.Render("updated ") + st.Value.Render(age+" ago")
}

// waitingBanner is the headers' line while a poll in flight, begun at
// started, leaves the data old (unanswered): a line of its own, as a
// failed poll's banner, so it shows at any width, where the age item may
// not fit.
func waitingBanner(st Styles, now, started time.Time, w int) string {
	msg := glyphUnanswered + " no answer for " + model.Age(now.Sub(started)) + ": waiting for the cluster (a poll in flight)"
	return st.Banner.Render(cell(msg, w, false))
}

// Waiting reports whether the group does not exist (yet).
func (s WatchState) Waiting() bool { return s.HasSnap && !s.Snap.Group.Exists() }

// Header shows the group, its state and totals, the brokers, and a
// one-line banner while polls fail.
type Header struct {
	styles   Styles
	width    int
	maxLines int
	st       WatchState
	facts    snapFacts
}

// snapFacts are what the header reads from every partition of a snapshot,
// found once a snapshot (WatchState.snapSeq): at 100,000 partitions a pass
// over the rows costs more than the rest of the header.
type snapFacts struct {
	seq uint64
	// fromStart: a partition with lag counts it from the log start.
	fromStart bool
	// unreadable counts the partitions whose offsets could not be read.
	unreadable int
	// worst is the index of the worst partition's row, -1 for none.
	worst int
}

// factsOf reads the facts of s, the seq-th snapshot shown.
func factsOf(s *model.Snapshot, seq uint64) snapFacts {
	f := snapFacts{seq: seq, worst: -1}
	for i := range s.Partitions {
		p := &s.Partitions[i]
		f.fromStart = f.fromStart || p.CountsFromStart() && p.Lag > 0
		if p.Err != "" {
			f.unreadable++
		}
		if f.worst < 0 && s.HasWorst && p.TopicPartition == s.WorstPartition {
			f.worst = i
		}
	}
	return f
}

// NewHeader returns a header.
func NewHeader(st Styles) Header { return Header{styles: st, maxLines: 2} }

// SetSize sets the width and the most lines the summary may take (the
// banner comes on top of those).
func (h *Header) SetSize(w, maxLines int) {
	h.width, h.maxLines = max(w, 0), max(maxLines, 0)
}

// SetState replaces what the header shows.
func (h *Header) SetState(s WatchState) {
	h.st = s
	if s.snapSeq == 0 || s.snapSeq != h.facts.seq {
		h.facts = factsOf(&h.st.Snap, s.snapSeq)
	}
}

// worst returns the snapshot's worst partition row.
func (h *Header) worst() (*model.PartitionLag, bool) {
	if h.facts.worst < 0 || h.facts.worst >= len(h.st.Snap.Partitions) {
		return nil, false
	}
	return &h.st.Snap.Partitions[h.facts.worst], true
}

// stateSegment is the group state with a glyph and words, so colour is
// never the only signal. tier picks, for a rebalancing group, among
// rebalanceWords: 0 the longest.
func (h Header) stateSegment(tier int) string {
	st, s := h.styles, h.st
	if !s.HasSnap {
		if s.Err != nil {
			return st.StateBad.Render(glyphError + " not connected")
		}
		return st.Muted.Render(glyphWaiting + " connecting")
	}
	g := s.Snap.Group
	text := model.Printable(g.StateText())
	switch {
	case !g.Exists():
		return st.StateBad.Render(glyphWaiting + " waiting: group " + text)
	case g.State == model.StateStable:
		return st.StateOK.Render(glyphStable + " " + text)
	case g.State == model.StateEmpty:
		return st.StateWarn.Render(glyphEmpty + " " + text)
	case g.Rebalancing():
		words := rebalanceWords(&s.Snap)
		return st.StateWarn.Render(glyphRebalance + " " + words[min(tier, len(words)-1)])
	default:
		return st.StateWarn.Render("? " + text)
	}
}

// rebalanceTiers is how many wordings rebalanceWords gives.
const rebalanceTiers = 3

// rebalanceWords says what a rebalancing group is doing, in its
// protocol's terms, longest first: the header takes the longest its first
// line holds whole. A consumer-protocol group (KIP-848) is Assigning while
// the coordinator computes the target assignment of a new group epoch,
// then Reconciling while members behind it (Member.Reconciling) revoke
// and take up partitions; a classic group is PreparingRebalance while the
// coordinator waits for every member's JoinGroup, then
// CompletingRebalance until the leader's SyncGroup brings the assignment.
func rebalanceWords(s *model.Snapshot) [rebalanceTiers]string {
	switch s.Group.State {
	case model.StateReconciling:
		n := 0
		for i := range s.Members {
			if s.Members[i].Reconciling {
				n++
			}
		}
		if n == 0 { // no member's epoch is behind (yet): the coordinator's word
			return [...]string{"reconciling: members taking up their new assignment", "reconciling", "reconciling"}
		}
		their := "their"
		if n == 1 {
			their = "its"
		}
		who := model.Count(n, "member")
		return [...]string{"reconciling: " + who + " taking up " + their + " new assignment", who + " reconciling", "reconciling"}
	case model.StateAssigning:
		return [...]string{"assigning: the coordinator is computing the new assignment", "assigning", "assigning"}
	case model.StatePreparingRebalance:
		return [...]string{"preparing rebalance: waiting for members to rejoin", "preparing rebalance", "rebalancing"}
	case model.StateCompletingRebalance:
		return [...]string{"completing rebalance: waiting for the leader's assignment", "completing rebalance", "rebalancing"}
	}
	return [...]string{"rebalancing", "rebalancing", "rebalancing"}
}

// fromStartMark is what follows the header's total lag when some of it is
// counted from the log start (a partition with nothing committed): the
// table's mark, which its note explains — but nothing while that part is
// 0, as in the demo's first seconds: an empty log has nothing to read
// however it is counted, and "lag 0*" would ask the audience to read a
// footnote about nothing.
func (h *Header) fromStartMark() string {
	if h.facts.fromStart {
		return model.FromStartMark
	}
	return ""
}

// segments lists the summary items of each line, in priority order: the
// first line says which group and how it is (state, status, lag), the
// second how fast it goes and where (rates, verdict, age of the data,
// members, brokers). Each item keeps its line, so the header holds still
// as numbers widen; items that do not fit are dropped from the end.
//
// verdict is where on the second line the verdict ("falling behind", "zero
// lag in …") would go when there is none now, -1 otherwise.
func (h Header) segments(tier int) (first, second []string, verdict int) {
	st, s := h.styles, h.st
	if h.width >= 60 {
		first = append(first, st.Title.Render("kgwatch"))
	}
	// A long group name gives way: the state, status and staleness after
	// it are what the header is for.
	group := model.Name(s.Group)
	if limit := max(12, h.width/3); textWidth(group) > limit {
		group = ansi.TruncateWc(group, limit, ellipsis)
	}
	first = append(first, st.Group.Render(group), h.stateSegment(tier))
	exists := s.HasSnap && s.Snap.Group.Exists()
	verdict = -1
	var rebalances []string
	if exists {
		lag, rates := h.lagSegments()
		first = append(first, lag...)
		second = append(second, rates...)
		if !s.Snap.FallingBehind && !s.Snap.ETAKnown {
			verdict = len(second)
		}
		rebalances = rebalanceSegments(st, s.Snap.Rebalances)
		if r := s.Snap.Rebalances; model.RebalanceStorm(r, r.Max) {
			// A storm is an alarm: on the first line, with the status,
			// not last on a second line that is full once rates show.
			first, rebalances = append(first, rebalances...), nil
		}
	}
	// A recording ends the first line: what it leaves over comes first on
	// the second, so it is never the item that gives way.
	if rec := recordingSegment(st, s.Recording); rec != "" {
		first = append(first, rec)
	}
	if s.HasSnap {
		second = append(second, dataAge(st, s.Now, s.LastGood, s.Err != nil, s.Unanswered()))
	}
	if exists {
		if n := len(s.Snap.Members); n > 0 || s.Snap.Group.State != model.StateEmpty {
			second = append(second, st.Value.Render(model.Count(n, "member")))
		}
		second = append(second, rebalances...)
		second = append(second, h.protocolSegments()...)
	}
	if s.Waiting() {
		second = append(second, st.Label.Render("polling every ")+st.Value.Render(s.Interval.String()))
	}
	second = append(second, st.Label.Render("brokers ")+st.Value.Render(brokerList(s.Brokers, h.width-len("brokers "))))
	if c := s.Snap.Group.Coordinator; c != "" {
		second = append(second, st.Label.Render("coordinator ")+st.Value.Render(model.Printable(c)))
	}
	return first, second, verdict
}

// protocolSegments say what kind of group it is and how it assigns, as
// its kind declares: its title (a consumer group's protocol, a share
// group), its epochs (and the target assignment's, when it lags; a
// streams group's topology epoch), whether it is being migrated from the
// classic protocol (members of both), its
// assignor (a classic group's with "cooperative" when its members keep
// their partitions through a rebalance).
func (h Header) protocolSegments() []string {
	st, g := h.styles, h.st.Snap.Group
	k := g.Kind()
	var segs []string
	if k.Title != "" {
		segs = append(segs, st.Value.Render(k.Title))
	}
	if k.CoordinatorAssigned {
		epoch := "epoch " + strconv.Itoa(int(g.Epoch))
		if k.TargetAssignment && g.AssignmentEpoch != g.Epoch {
			epoch += ", target " + strconv.Itoa(int(g.AssignmentEpoch))
		}
		if g.Topology != nil {
			epoch += ", topology " + strconv.Itoa(int(g.TopologyEpoch))
		}
		segs = append(segs, st.Label.Render(epoch))
	}
	if n := model.ClassicMembers(h.st.Snap.Members); n > 0 && g.Type != model.TypeClassic && g.Type != "" {
		segs = append(segs, st.Value.Render("migrating: "+strconv.Itoa(n)+" of "+
			model.Count(len(h.st.Snap.Members), "member")+" still classic"))
	}
	if k.AssignorLabel != "" && g.Assignor != "" {
		a := st.Label.Render(k.AssignorLabel) + st.Value.Render(model.Printable(g.Assignor))
		// "cooperative-sticky (cooperative)" says it twice, and the
		// 14 cells cost the segment its place once rates show.
		if k.Rebalance == model.RebalanceGeneration && g.Cooperative && !strings.Contains(strings.ToLower(g.Assignor), "cooperative") {
			a += st.Label.Render(" (cooperative)")
		}
		segs = append(segs, a)
	}
	return segs
}

// View renders the summary lines and, after a failed poll, the banner.
func (h Header) View() string {
	if h.width <= 0 {
		return ""
	}
	var lines []string
	summary := h.maxLines
	worst := ""
	if h.maxLines >= 3 && h.st.HasSnap && h.st.Snap.Group.Exists() {
		// The worst partition takes a line of its own. The line stays
		// when nothing lags, so the panes below do not jump a line up and
		// down as a partition's lag goes 0, 1, 0 between polls.
		if worst = h.worstSegment(true); worst == "" {
			worst = h.styles.Muted.Render(noWorstText(&h.st.Snap, h.facts.unreadable))
		}
		summary--
	}
	sep := h.styles.Separator.Render(" · ")
	first, second, at := h.segments(0)
	if h.st.HasSnap && h.st.Snap.Group.Rebalancing() {
		// The longest words for the rebalance the first line holds whole
		// (but for the recording's mark, which may go to the second).
		rec := 0
		if recordingSegment(h.styles, h.st.Recording) != "" {
			rec = 1
		}
		for tier := 1; tier < rebalanceTiers; tier++ {
			if _, n := fitting(first, sep, h.width); n >= len(first)-rec {
				break
			}
			first, second, at = h.segments(tier)
		}
	}
	switch {
	case summary >= 2:
		// What the first line cannot hold comes first on the second (a
		// narrow terminal), before the second line's own items. The
		// second keeps room for the verdict ("falling behind", "zero lag
		// in 2m04s") while there is none, so its other items do not come
		// and go with it.
		l1, n := fitting(first, sep, h.width)
		line2 := append(first[n:len(first):len(first)], second...)
		gap := -1
		if at >= 0 {
			// No verdict now: its place is kept, as wide as the widest,
			// so what follows it does not come and go with it.
			gap = at + len(first) - n
		}
		l2, _ := fitSegments(line2, sep, h.width, gap, textWidth(sep)+textWidth(verdictRoom))
		lines = append(lines, l1, l2)
	case summary == 1:
		lines = append(lines, joinFitting(append(first, second...), sep, h.width))
	}
	if worst != "" {
		lines = append(lines, worst)
		if h.maxLines >= 4 {
			if l := h.stuckLine(); l != "" {
				lines = append(lines, l)
			}
		}
	}
	if b := h.banner(); b != "" {
		lines = append(lines, b)
	} else if h.st.Unanswered() {
		lines = append(lines, waitingBanner(h.styles, h.st.Now, h.st.PollStarted, h.width))
	}
	if b := h.noticeBanner(); b != "" {
		lines = append(lines, b)
	}
	if b := recordingBanner(h.styles, h.st.Recording, h.width); b != "" {
		lines = append(lines, b)
	}
	for i, l := range lines {
		lines[i] = ansi.TruncateWc(l, h.width, ellipsis)
	}
	return strings.Join(lines, "\n")
}

// noticeFor is how long the header shows that the cluster is not what it
// was (the timeline keeps the event).
const noticeFor = time.Minute

// noticeBanner is the line saying, for noticeFor, that another cluster
// answers or log ends went backwards: "⚑ 12s ago: another cluster answers
// on the same addresses: cluster id a → b …".
func (h Header) noticeBanner() string {
	e := h.st.Notice
	if e.Type == "" || h.st.Now.Sub(e.Time) >= noticeFor {
		return ""
	}
	spec, _ := e.Type.Spec()
	msg := spec.Glyph + " " + model.Since(h.st.Now.Sub(e.Time)) + " ago: " + flatText(e.Detail)
	return h.styles.Banner.Render(cell(msg, h.width, false))
}

// verdictRoom is as wide as the widest verdict the second line may gain.
const verdictRoom = "zero lag in 59m59s"

// noWorstText is the worst partition's line when no partition lags, or
// lags only by messages being processed (model.PartitionLag.InFlight).
// The unreadable partitions, whose offsets could not be read (or made no
// sense), are counted after it: their lag is unknown, not zero.
func noWorstText(s *model.Snapshot, unreadable int) string {
	if len(s.Partitions) == 0 {
		return "worst: - (no partition owned or committed yet)"
	}
	text := "worst: none, no partition lags"
	switch {
	case s.TotalLag > 0 && s.FallingBehind:
		text = "worst: none yet, lag only in flight (but the group falls behind)"
	case s.TotalLag > 0:
		text = "worst: none, lag only in flight"
	}
	if unreadable > 0 {
		text += " · " + glyphError + " " + model.Count(unreadable, "partition") + " unreadable: lag unknown"
	}
	return text
}

// banner is one line naming the poll error, what is on screen and when the
// next try comes.
func (h Header) banner() string {
	s := h.st
	if s.Err == nil {
		return ""
	}
	msg := glyphStale + " poll failed"
	if wait := s.RetryAt.Sub(s.Now); wait > 0 {
		msg += ", retry in " + model.Age(wait)
	} else {
		msg += ", retrying"
	}
	if s.Failures > 1 {
		msg += " (attempt " + strconv.Itoa(s.Failures+1) + ")"
	}
	msg += ": " + flatText(s.Err.Error())
	return h.styles.Banner.Render(cell(msg, h.width, false))
}

// brokerList joins as many brokers as fit in w cells and counts the rest:
// "a:9092,b:9092 +3 more".
func brokerList(brokers []string, w int) string {
	brokers = printableAll(brokers)
	all := strings.Join(brokers, ",")
	if textWidth(all) <= w || len(brokers) < 2 {
		return all
	}
	out := brokers[0]
	for i := 1; i < len(brokers); i++ {
		more := " +" + strconv.Itoa(len(brokers)-i-1) + " more"
		if textWidth(out+","+brokers[i]+more) > w {
			return out + " +" + strconv.Itoa(len(brokers)-i) + " more"
		}
		out += "," + brokers[i]
	}
	return out
}

// flatText is a message (an error, a broker's text) on one line, its runs
// of white space (newlines included) made one space, then printable.
func flatText(s string) string {
	return model.Printable(strings.Join(strings.Fields(s), " "))
}

// printableAll returns ss with every string made printable; ss itself when
// nothing needed it.
func printableAll(ss []string) []string {
	for _, s := range ss {
		if !model.IsPrintable(s) {
			out := make([]string, len(ss))
			for j := range ss {
				out[j] = model.Printable(ss[j])
			}
			return out
		}
	}
	return ss
}
