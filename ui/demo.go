package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Demo is what the demo panel needs from a running demo (kafka/demo's
// *Demo satisfies it). Its methods must be quick and safe for concurrent
// use; the panel still calls them from commands, never from Update.
type Demo interface {
	// Status reads the demo's state; the ledger, which costs more, only
	// when withLedger.
	Status(withLedger bool) model.DemoStatus
	// Act does what a demo key asks.
	Act(a model.DemoAction) (model.DemoOutcome, error)
}

// DemoSettings are the demo's fixed settings, for the screen to explain
// what it shows (countdowns, commit mode).
type DemoSettings struct {
	SessionTimeout  time.Duration
	MaxPollInterval time.Duration
	// Commit is "after" (at-least-once) or "before" (at-most-once).
	Commit          string
	CommitDelay     time.Duration
	ProcessTime     time.Duration
	SlowProcessTime time.Duration
	// Static: each consumer's group.instance.id is its client id, so a
	// restart (r) causes no rebalance.
	Static bool
	// BrokerHeartbeat is, for a consumer-protocol group (KIP-848), the
	// heartbeat interval its broker sets; SessionTimeout is then the
	// broker's too (group.consumer.heartbeat.interval.ms,
	// group.consumer.session.timeout.ms). 0: a classic group, whose
	// consumers bring their own.
	BrokerHeartbeat time.Duration
}

// demoKey is one key of demo mode: its binding, whether it acts on a
// member (the owner of the selected partition, or the selected member),
// and what it does. A demo key is one entry of demoKeys.
type demoKey struct {
	binding key.Binding
	// verb completes "kgwatch only … the consumers it started" for a
	// member key; "" for a key of the whole demo.
	verb string
	// act builds the action (rate: the current rate, for the ladder).
	act func(target string, rate float64) model.DemoAction
	// say is the line shown after it: what happened, in the audience's
	// words.
	say func(out model.DemoOutcome, a model.DemoAction, c sayCtx) string
	// short: listed in the one-line help; rides: listed in neither help,
	// as it rides on another entry's ("]" on "[ ] rate").
	short, rides bool
}

// demoKeys are demo mode's keys, in the order help lists them.
func demoKeys() []demoKey {
	member := func(k model.DemoActionKind) func(string, float64) model.DemoAction {
		return func(id string, _ float64) model.DemoAction { return model.DemoAction{Kind: k, ClientID: id} }
	}
	whole := func(k model.DemoActionKind) func(string, float64) model.DemoAction {
		return func(string, float64) model.DemoAction { return model.DemoAction{Kind: k} }
	}
	rate := func(up bool) func(string, float64) model.DemoAction {
		return func(_ string, r float64) model.DemoAction {
			return model.DemoAction{Kind: model.DemoRate, Rate: stepRate(r, up)}
		}
	}
	bind := func(k, help string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, help)) }
	return []demoKey{
		{binding: bind("n", "add consumer"), act: whole(model.DemoSpawn), short: true,
			say: func(o model.DemoOutcome, _ model.DemoAction, c sayCtx) string {
				if c.set.BrokerHeartbeat > 0 {
					return o.ClientID + " joined by heartbeat: the broker assigns, members reconcile"
				}
				return o.ClientID + " started: it joins " + c.group + ", a rebalance follows"
			}},
		{binding: bind("x", "stop"), verb: "stops", act: member(model.DemoStop), short: true,
			say: func(_ model.DemoOutcome, a model.DemoAction, _ sayCtx) string {
				return a.ClientID + " stopping gracefully: it leaves the group (LeaveGroup), the group rebalances at once"
			}},
		{binding: bind("X", "kill -9"), verb: "kills", act: member(model.DemoKill), short: true,
			say: func(_ model.DemoOutcome, a model.DemoAction, c sayCtx) string {
				if c.set.BrokerHeartbeat > 0 {
					return a.ClientID + " killed: its heartbeats stop, the broker evicts it after " + model.Setting(c.set.SessionTimeout) +
						" (group.consumer.session.timeout.ms)"
				}
				return a.ClientID + " killed: no LeaveGroup, the group waits " + model.Setting(c.set.SessionTimeout) + " (session timeout)"
			}},
		{binding: bind("r", "restart"), verb: "restarts", act: member(model.DemoRestart), short: true,
			say: func(_ model.DemoOutcome, a model.DemoAction, c sayCtx) string {
				if c.was == model.DemoEvicted || c.was == model.DemoStopped {
					// Out of the group already: it only joins.
					return a.ClientID + " starting again: it joins the group, one rebalance"
				}
				if c.set.Static {
					return a.ClientID + " restarting with the same group.instance.id: no LeaveGroup, and no rebalance if it is back within " +
						model.Setting(c.set.SessionTimeout)
				}
				return a.ClientID + " restarting: it leaves and joins again, two rebalances (--static keeps it)"
			}},
		{binding: bind("s", "slow"), verb: "slows down", act: member(model.DemoSlow), short: true,
			say: func(o model.DemoOutcome, a model.DemoAction, c sayCtx) string {
				set := c.set
				switch {
				case !o.On:
					return a.ClientID + " back to normal: " + model.Setting(set.ProcessTime) + " per order"
				case set.MaxPollInterval > 0 && set.SlowProcessTime > set.MaxPollInterval:
					return a.ClientID + " slow: " + model.Setting(set.SlowProcessTime) + " per order, past max.poll.interval " +
						model.Setting(set.MaxPollInterval) + ": it will be pushed out of the group"
				}
				return a.ClientID + " slow: " + model.Setting(set.SlowProcessTime) + " per order: its partitions' lag climbs"
			}},
		{binding: bind("p", "pause"), act: whole(model.DemoPause), short: true,
			say: func(o model.DemoOutcome, _ model.DemoAction, c sayCtx) string {
				if o.On {
					return "producer paused"
				}
				return "producer resumed at " + producerRate(c.status.Rate)
			}},
		{binding: key.NewBinding(key.WithKeys("["), key.WithHelp("[ ]", "rate")), act: rate(false), short: true, say: sayRate},
		{binding: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "rate +")), act: rate(true), rides: true, say: sayRate},
		{binding: bind("h", "hot key"), act: whole(model.DemoHotKey), short: true,
			say: func(o model.DemoOutcome, _ model.DemoAction, _ sayCtx) string {
				if o.On {
					return "hot key on: most orders carry one key and land on one partition"
				}
				return "hot key off: orders spread over every partition"
			}},
		{binding: bind("R", "restart all"), act: whole(model.DemoRolling), say: sayRolling},
		{binding: bind("P", "poison"), act: whole(model.DemoPoison), say: sayPoison},
	}
}

func sayRate(_ model.DemoOutcome, a model.DemoAction, c sayCtx) string {
	s := "producer rate " + producerRate(a.Rate)
	if c.status.Paused {
		s += " (paused: p resumes)"
	}
	return s
}

// sayCtx is what a key's words need: the demo's settings and group, and
// its state right after the action. It is copied before the action runs
// off the update loop, so the words never read the panel meanwhile.
type sayCtx struct {
	set    DemoSettings
	group  string
	status model.DemoStatus
	// was is the state the consumer acted on was in before the key
	// (model.DemoRunning, DemoKilled, ...); "" for a key on no consumer.
	was string
}

// Demo refresh cadence: consumers and ledger are read once a second, and
// ten times a second while a killed member's countdown runs.
const (
	demoRefresh     = time.Second
	demoFastRefresh = 100 * time.Millisecond
	// demoFastPollFor is how long the group is polled fast after a demo
	// key (fastPoll).
	demoFastPollFor = 5 * time.Second
	// flashFor is how long an action's message stays on screen.
	flashFor = 6 * time.Second
	// ghostFor is how long a stopped or evicted demo consumer stays listed
	// after it left the group.
	ghostFor = time.Minute
)

// rateSteps are the producer rates `[` and `]` step through.
var rateSteps = []float64{0, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}

// demoPanel is demo mode, a child of the group page: its keys, the demo's
// state read in the background, the ledger pane, the notes on members and
// the line answering each key.
type demoPanel struct {
	d     Demo
	set   DemoSettings
	group string
	keys  []demoKey

	seq      uint64 // refresh loop step; other Seqs are stale
	status   model.DemoStatus
	has      bool      // a status arrived
	ledgerAt time.Time // when the ledger was last read
	// seen holds the demo consumers seen in the group at least once, so
	// one out of it again reads "rejoining" rather than "joining".
	seen map[string]bool
	// fastUntil: the group is polled every FastInterval until then after
	// a demo key, so the rebalance the key sets off is seen start to end.
	fastUntil time.Time
	flash     string
	flashErr  bool
	flashAt   time.Time
	pane      LedgerPane
	// replay: a recording plays (ui/replay.go); the keys do nothing.
	replay bool
}

func newDemoPanel(w Watch, st Styles) *demoPanel {
	if w.Demo == nil {
		return nil
	}
	return &demoPanel{d: w.Demo, set: w.DemoSettings, group: w.Group, keys: demoKeys(), pane: NewLedgerPane(st), seen: map[string]bool{}}
}

// bindings are the demo keys, for help: short lists those of the one-line
// help (`]` rides on `[`'s "[ ]" entry).
func (p *demoPanel) bindings(short bool) []key.Binding {
	if p == nil {
		return nil
	}
	var out []key.Binding
	for _, k := range p.keys {
		if !k.rides && (k.short || !short) {
			out = append(out, k.binding)
		}
	}
	return out
}

// demoStatusMsg carries a refresh of loop Seq.
type demoStatusMsg struct {
	p      *demoPanel
	Seq    uint64
	Status model.DemoStatus
}

// demoActionMsg carries the result of a demo key: the message to show and
// the demo's state right after the action.
type demoActionMsg struct {
	p      *demoPanel
	Flash  string
	Err    bool
	Status model.DemoStatus
}

// init starts the refresh loop.
func (p *demoPanel) init() tea.Cmd {
	if p == nil {
		return nil
	}
	p.seq++
	seq, d := p.seq, p.d
	return func() tea.Msg { return demoStatusMsg{p: p, Seq: seq, Status: d.Status(true)} }
}

// refreshed takes a refresh of the current loop and schedules the next:
// fast while a countdown runs, so it ticks smoothly on a projector.
func (p *demoPanel) refreshed(msg demoStatusMsg, now time.Time, alive bool) tea.Cmd {
	if msg.p != p || msg.Seq != p.seq {
		return nil
	}
	p.setStatus(msg.Status, now)
	if !alive {
		return nil
	}
	return p.nextRefresh(now)
}

func (p *demoPanel) nextRefresh(now time.Time) tea.Cmd {
	delay := demoRefresh
	if p.countingDown() {
		delay = demoFastRefresh
	}
	// Judged at the moment the read will happen, not now: a ledger read
	// just now is a second old when the next refresh comes.
	withLedger := now.Add(delay).Sub(p.ledgerAt) >= demoRefresh-demoFastRefresh
	p.seq++
	seq, d := p.seq, p.d
	return tea.Tick(delay, func(time.Time) tea.Msg {
		return demoStatusMsg{p: p, Seq: seq, Status: d.Status(withLedger)}
	})
}

func (p *demoPanel) setStatus(s model.DemoStatus, now time.Time) {
	if !s.HasLedger && p.has {
		s.Ledger, s.HasLedger, s.Ledgers = p.status.Ledger, p.status.HasLedger, p.status.Ledgers
	} else if s.HasLedger {
		p.ledgerAt = now
	}
	p.status, p.has = s, true
}

// countingDown reports whether a countdown runs: a killed member waiting
// for its eviction, or a commit window (--commit-delay) open.
func (p *demoPanel) countingDown() bool {
	for _, c := range p.status.Consumers {
		if c.State == model.DemoKilled || c.PendingPhase == model.DemoPhaseProcessed || c.PendingPhase == model.DemoPhaseCommitted {
			return true
		}
	}
	return false
}

// acted shows an action's result and restarts the refresh loop; it reports
// whether the action went through (then the group is polled at once).
func (p *demoPanel) acted(msg demoActionMsg, now time.Time) (tea.Cmd, bool) {
	if msg.p != p {
		return nil, false
	}
	p.show(msg.Flash, msg.Err, now)
	p.setStatus(msg.Status, now)
	if !msg.Err {
		p.fastUntil = now.Add(demoFastPollFor)
	}
	return p.nextRefresh(now), !msg.Err
}

// fastPoll reports whether the group should be polled every FastInterval:
// for a while after a demo key (a join or a LeaveGroup rebalances the
// group within a second or so, often quicker than the poll interval, which
// then only infers it, duration unknown), through a rolling restart, and
// while a killed member waits for its eviction, so the takeover is timed
// too.
func (p *demoPanel) fastPoll(now time.Time) bool {
	if p == nil {
		return false
	}
	if now.Before(p.fastUntil) || p.status.Rolling.Of > 0 {
		return true
	}
	// A killed member: until a little past its session timeout (a
	// coordinator that never evicts it must not keep the poll fast).
	for _, c := range p.status.Consumers {
		if c.State == model.DemoKilled && now.Before(c.KilledAt.Add(p.set.SessionTimeout+demoFastPollFor)) {
			return true
		}
	}
	return false
}

func (p *demoPanel) show(s string, isErr bool, now time.Time) {
	p.flash, p.flashErr, p.flashAt = s, isErr, now
}

// target is the member a member key acts on, as the group page sees it:
// the owner of the selected partition row, or the selected member.
type target struct {
	member model.Member
	ok     bool
	// why, when !ok, says how to pick one.
	why string
	// owns names what it owns, for the hint: "owns p2".
	owns string
}

// key handles a demo key; it reports false for any other key.
func (p *demoPanel) key(msg tea.KeyPressMsg, t target, now time.Time) (tea.Cmd, bool) {
	if p == nil {
		return nil, false
	}
	for _, k := range p.keys {
		if !key.Matches(msg, k.binding) {
			continue
		}
		id, was := "", ""
		if k.verb != "" {
			if !t.ok {
				p.show(t.why, true, now)
				return nil, true
			}
			c, ours := p.consumer(t.member)
			if !ours {
				p.show(memberName(&t.member)+" is not a demo consumer: kgwatch only "+k.verb+" the consumers it started", true, now)
				return nil, true
			}
			id, was = c.ClientID, c.State
		}
		a := k.act(id, p.status.Rate)
		d, say, c := p.d, k.say, sayCtx{set: p.set, group: p.group, was: was}
		return func() tea.Msg {
			out, err := d.Act(a)
			st := d.Status(false)
			if err != nil {
				return demoActionMsg{p: p, Flash: err.Error(), Err: true, Status: st}
			}
			c.status = st // the words see the state after the action
			return demoActionMsg{p: p, Flash: say(out, a, c), Status: st}
		}, true
	}
	return nil, false
}

// hint is the line under the ledger before any key: which member the keys
// act on.
func (p *demoPanel) hint(t target) string {
	if p.replay {
		return "replay: the demo keys are off, this is what was recorded"
	}
	if !t.ok {
		return "pick a partition or a member (tab, ↑/↓): x stops its owner (LeaveGroup) · X kills it (no LeaveGroup) · r restarts it · s slows it"
	}
	name := memberName(&t.member)
	c, ours := p.consumer(t.member)
	if !ours {
		return name + " is not a demo consumer: watch only"
	}
	// Not running, it can only be started again: X and x would refuse (the
	// member note and the timeline say the rest: "✗ killed · evicted in 7.3s").
	switch c.State {
	case model.DemoKilled:
		return name + " is killed · r restarts it"
	case model.DemoEvicted:
		return name + " was evicted · r restarts it"
	case model.DemoStopped:
		return name + " stopped · r restarts it"
	case model.DemoStopping:
		return name + " is stopping · X kills it now"
	case model.DemoRestarting:
		// x, X and r are refused until it runs again.
		return name + " is restarting: it joins again in a moment"
	}
	own := ""
	if t.owns != "" {
		own = " (" + t.owns + ")"
	}
	return "X kills " + name + own + " · x stops it (LeaveGroup) · r restarts it · s slows it"
}

// frame renders the ledger pane in at most maxH lines of width w, the hint
// naming t, and returns it with its height.
func (p *demoPanel) frame(w, maxH int, t target, now time.Time) (string, int) {
	return p.frameLines(w, ledgerLines(maxH), t, now)
}

// frameLines renders the ledger pane in lines lines (at most 3).
func (p *demoPanel) frameLines(w, lines int, t target, now time.Time) (string, int) {
	if p == nil {
		return "", 0
	}
	if p.flash != "" && now.Sub(p.flashAt) >= flashFor {
		p.flash = ""
	}
	l := &p.pane
	l.SetSize(w, lines)
	l.SetState(p.status, p.has, p.set, p.flash, p.flashErr, p.hint(t))
	text := l.View()
	if text == "" {
		return "", 0
	}
	return text, l.Height()
}

// ledgerLines is how many lines the ledger gets out of h free lines.
func ledgerLines(h int) int {
	switch {
	case h >= 20:
		return 3
	case h >= 6:
		return 2 // the counts, and what the keys act on
	case h >= 3:
		return 1
	}
	return 0
}

// producerRate is a producer rate: "5/s", "0.5/s".
func producerRate(r float64) string {
	return strconv.FormatFloat(r, 'f', -1, 64) + "/s"
}

// stepRate is the next rate up or down the ladder from r.
func stepRate(r float64, up bool) float64 {
	if up {
		for _, s := range rateSteps {
			if s > r {
				return s
			}
		}
		return max(r, rateSteps[len(rateSteps)-1])
	}
	for i := len(rateSteps) - 1; i >= 0; i-- {
		if rateSteps[i] < r {
			return rateSteps[i]
		}
	}
	return 0
}

// lastOwnerTarget is the member a member key acts on for a partition a
// rebalance has left unowned for now: the owner the row still shows
// (dimmed), so X right after n kills the consumer the speaker sees on the
// row. ok is false when the row shows none. multi: name the topic too.
func lastOwnerTarget(p model.PartitionLag, ms []model.Member, multi bool) (target, bool) {
	if p.PrevOwner == "" && p.PrevMemberID == "" {
		return target{}, false
	}
	owns := model.PartName(p.TopicPartition, multi) + "'s last owner"
	for _, mb := range ms {
		if p.PrevMemberID != "" && mb.MemberID == p.PrevMemberID {
			return target{member: mb, ok: true, owns: owns}, true
		}
	}
	// Gone from the group's list: the owner as the row names it (its
	// client id, unless that is the short member id).
	mb := model.Member{MemberID: p.PrevMemberID}
	if p.PrevOwner != model.ShortID(p.PrevMemberID) {
		mb.ClientID = p.PrevOwner
	}
	return target{member: mb, ok: true, owns: owns}, true
}
