package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Demo is what the UI needs from a running demo (kafka/demo's *Demo
// satisfies it). Its methods must be quick and safe for concurrent use; the
// UI still calls them from commands, never from Update.
type Demo interface {
	// Spawn starts one more consumer and returns its client id.
	Spawn() (string, error)
	// Stop stops a consumer gracefully (LeaveGroup); Kill cuts it off with
	// no goodbye, so the group waits for the session timeout.
	Stop(clientID string) error
	Kill(clientID string) error
	// ToggleSlow switches a consumer's processing time and reports whether
	// it is now slow.
	ToggleSlow(clientID string) (bool, error)
	TogglePause() bool
	Paused() bool
	SetRate(perSecond float64)
	Rate() float64
	ToggleHotKey() bool
	HotKey() bool
	Consumers() []model.DemoConsumer
	Ledger() model.Ledger
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
}

// DemoKeys are the demo-mode bindings. They are disabled unless the UI
// runs a demo, so help never offers them against a group kgwatch did not
// create.
type DemoKeys struct {
	Spawn    key.Binding
	Stop     key.Binding
	Kill     key.Binding
	Slow     key.Binding
	Pause    key.Binding
	RateDown key.Binding
	RateUp   key.Binding
	HotKey   key.Binding
}

// DefaultDemoKeys returns the demo bindings, disabled.
func DefaultDemoKeys() DemoKeys {
	k := DemoKeys{
		Spawn:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "add consumer")),
		Stop:     key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "stop")),
		Kill:     key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "kill -9")),
		Slow:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "slow")),
		Pause:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pause")),
		RateDown: key.NewBinding(key.WithKeys("["), key.WithHelp("[ ]", "rate")),
		RateUp:   key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "rate +")),
		HotKey:   key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "hot key")),
	}
	k.SetEnabled(false)
	return k
}

// SetEnabled turns every demo binding on or off.
func (k *DemoKeys) SetEnabled(on bool) {
	for _, b := range []*key.Binding{&k.Spawn, &k.Stop, &k.Kill, &k.Slow, &k.Pause, &k.RateDown, &k.RateUp, &k.HotKey} {
		b.SetEnabled(on)
	}
}

// short lists the demo bindings for the one-line help (`]` rides on
// `[`'s "[ ]" entry).
func (k DemoKeys) short() []key.Binding {
	return []key.Binding{k.Spawn, k.Stop, k.Kill, k.Slow, k.Pause, k.RateDown, k.HotKey}
}

// full lists them for `?`, in two columns.
func (k DemoKeys) full() [][]key.Binding {
	return [][]key.Binding{{k.Spawn, k.Stop, k.Kill, k.Slow}, {k.Pause, k.RateDown, k.HotKey}}
}

// Demo refresh cadence: consumers and ledger are read once a second, and
// ten times a second while a killed member's countdown runs.
const (
	demoRefresh     = time.Second
	demoFastRefresh = 100 * time.Millisecond
	// demoFastPollFor is how long the group is polled fast after a demo
	// key (demoFastPoll).
	demoFastPollFor = 5 * time.Second
	// flashFor is how long an action's message stays on screen.
	flashFor = 6 * time.Second
	// ghostFor is how long a stopped or evicted demo consumer stays listed
	// after it left the group.
	ghostFor = time.Minute
)

// rateSteps are the producer rates `[` and `]` step through.
var rateSteps = []float64{0, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}

// demoStatus is one read of the demo's state.
type demoStatus struct {
	Consumers []model.DemoConsumer
	Ledger    model.Ledger
	HasLedger bool
	Rate      float64
	Paused    bool
	HotKey    bool
}

// demoState is the root model's demo-mode state.
type demoState struct {
	seq      uint64 // refresh loop step; other Seqs are stale
	status   demoStatus
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
	text      string // the ledger pane, rendered by relayout
}

// demoStatusMsg carries a refresh of loop Seq.
type demoStatusMsg struct {
	Seq    uint64
	Status demoStatus
}

// demoActionMsg carries the result of a demo key: the message to flash and
// the demo's state right after the action.
type demoActionMsg struct {
	Flash  string
	Err    bool
	Status demoStatus
}

func readDemo(d Demo, withLedger bool) demoStatus {
	s := demoStatus{Consumers: d.Consumers(), Rate: d.Rate(), Paused: d.Paused(), HotKey: d.HotKey()}
	if withLedger {
		s.Ledger, s.HasLedger = d.Ledger(), true
	}
	return s
}

// demoInit starts the demo refresh loop; nil outside demo mode.
func (g *GroupPage) demoInit() tea.Cmd {
	d := g.watch.Demo
	if d == nil {
		return nil
	}
	g.demo.seq++
	seq := g.demo.seq
	return func() tea.Msg { return demoStatusMsg{Seq: seq, Status: readDemo(d, true)} }
}

// handleDemoStatus takes a refresh of the current loop and schedules the
// next: fast while a countdown runs, so it ticks smoothly on a projector.
func (g *GroupPage) handleDemoStatus(msg demoStatusMsg) tea.Cmd {
	if msg.Seq != g.demo.seq || g.watch.Demo == nil {
		return nil
	}
	g.setDemoStatus(msg.Status)
	return g.nextDemoRefresh()
}

func (g *GroupPage) nextDemoRefresh() tea.Cmd {
	if g.ctx.Err() != nil {
		return nil
	}
	delay := demoRefresh
	if g.countingDown() {
		delay = demoFastRefresh
	}
	// Judged at the moment the read will happen, not now: a ledger read
	// just now is a second old when the next refresh comes.
	withLedger := g.st.Now.Add(delay).Sub(g.demo.ledgerAt) >= demoRefresh-demoFastRefresh
	g.demo.seq++
	seq, d := g.demo.seq, g.watch.Demo
	return tea.Tick(delay, func(time.Time) tea.Msg {
		return demoStatusMsg{Seq: seq, Status: readDemo(d, withLedger)}
	})
}

func (g *GroupPage) setDemoStatus(s demoStatus) {
	if !s.HasLedger && g.demo.has {
		s.Ledger, s.HasLedger = g.demo.status.Ledger, g.demo.status.HasLedger
	} else if s.HasLedger {
		g.demo.ledgerAt = g.st.Now
	}
	g.demo.status, g.demo.has = s, true
	g.members.SetMembers(g.demoMembers(g.st.Snap.Members))
}

// countingDown reports whether a killed member waits for its eviction.
func (g *GroupPage) countingDown() bool {
	for _, c := range g.demo.status.Consumers {
		if c.State == model.DemoKilled {
			return true
		}
	}
	return false
}

// handleDemoAction shows an action's result, refreshes the demo state at
// once (restarting the refresh loop) and polls the group at once.
func (g *GroupPage) handleDemoAction(msg demoActionMsg) tea.Cmd {
	if g.watch.Demo == nil {
		return nil
	}
	g.flash(msg.Flash, msg.Err)
	g.setDemoStatus(msg.Status)
	if !msg.Err {
		g.demo.fastUntil = g.st.Now.Add(demoFastPollFor)
	}
	return tea.Batch(g.pollNow(), g.nextDemoRefresh())
}

// demoFastPoll reports whether the group should be polled every
// FastInterval: for a while after a demo key (a join or a LeaveGroup
// rebalances the group within a second or so, often quicker than the
// poll interval, which then only infers it, duration unknown) and while a
// killed member waits for its eviction, so the takeover is timed too.
func (g *GroupPage) demoFastPoll() bool {
	if g.watch.Demo == nil {
		return false
	}
	if g.st.Now.Before(g.demo.fastUntil) {
		return true
	}
	// A killed member: until a little past its session timeout (a
	// coordinator that never evicts it must not keep the poll fast).
	for _, c := range g.demo.status.Consumers {
		if c.State == model.DemoKilled && g.st.Now.Before(c.KilledAt.Add(g.watch.DemoSettings.SessionTimeout+demoFastPollFor)) {
			return true
		}
	}
	return false
}

func (g *GroupPage) flash(s string, isErr bool) {
	g.demo.flash, g.demo.flashErr, g.demo.flashAt = s, isErr, g.st.Now
}

// demoKey handles a demo key; it reports false for any other key. The
// bindings are disabled outside demo mode, so they never match there.
func (g *GroupPage) demoKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	d, k := g.watch.Demo, g.keys.Demo
	if d == nil {
		return nil, false
	}
	switch {
	case key.Matches(msg, k.Spawn):
		return demoAction(d, func() (string, error) {
			id, err := d.Spawn()
			if err != nil {
				return "", err
			}
			return id + " started: it joins " + g.watch.Group + " and the group rebalances", nil
		}), true
	case key.Matches(msg, k.Stop):
		return g.memberAction("stops", func(id string) (string, error) {
			if err := d.Stop(id); err != nil {
				return "", err
			}
			return id + " stopping gracefully: it leaves the group (LeaveGroup), the group rebalances at once", nil
		}), true
	case key.Matches(msg, k.Kill):
		return g.memberAction("kills", func(id string) (string, error) {
			if err := d.Kill(id); err != nil {
				return "", err
			}
			return id + " killed: no LeaveGroup, the group waits " + model.Setting(g.watch.DemoSettings.SessionTimeout) + " (session timeout)", nil
		}), true
	case key.Matches(msg, k.Slow):
		set := g.watch.DemoSettings
		return g.memberAction("slows down", func(id string) (string, error) {
			slow, err := d.ToggleSlow(id)
			switch {
			case err != nil:
				return "", err
			case !slow:
				return id + " back to normal: " + model.Setting(set.ProcessTime) + " per order", nil
			case set.MaxPollInterval > 0 && set.SlowProcessTime > set.MaxPollInterval:
				return id + " slow: " + model.Setting(set.SlowProcessTime) + " per order, past max.poll.interval " +
					model.Setting(set.MaxPollInterval) + ": it will be pushed out of the group", nil
			default:
				return id + " slow: " + model.Setting(set.SlowProcessTime) + " per order: its partitions' lag climbs", nil
			}
		}), true
	case key.Matches(msg, k.Pause):
		return demoAction(d, func() (string, error) {
			if d.TogglePause() {
				return "producer paused", nil
			}
			return "producer resumed at " + producerRate(d.Rate()), nil
		}), true
	case key.Matches(msg, k.RateDown), key.Matches(msg, k.RateUp):
		up := key.Matches(msg, k.RateUp)
		return demoAction(d, func() (string, error) {
			r := stepRate(d.Rate(), up)
			d.SetRate(r)
			s := "producer rate " + producerRate(r)
			if d.Paused() {
				s += " (paused: p resumes)"
			}
			return s, nil
		}), true
	case key.Matches(msg, k.HotKey):
		return demoAction(d, func() (string, error) {
			if d.ToggleHotKey() {
				return "hot key on: most orders carry one key and land on one partition", nil
			}
			return "hot key off: orders spread over every partition", nil
		}), true
	}
	return nil, false
}

// demoAction runs act off the update loop and reports its result with the
// demo's state right after it.
func demoAction(d Demo, act func() (string, error)) tea.Cmd {
	return func() tea.Msg {
		s, err := act()
		if err != nil {
			return demoActionMsg{Flash: err.Error(), Err: true, Status: readDemo(d, false)}
		}
		return demoActionMsg{Flash: s, Status: readDemo(d, false)}
	}
}

// memberAction runs act on the selected member of the members pane when it
// is one of the demo's consumers; anything else is refused with a message
// saying why. verb completes "kgwatch only … the consumers it started".
func (g *GroupPage) memberAction(verb string, act func(clientID string) (string, error)) tea.Cmd {
	if g.showLanes {
		// Tab does not reach the members from the lanes: say how.
		g.flash("the lanes hide the members: v back to them, tab to the Members pane, then ↑/↓ (j/k)", true)
		return nil
	}
	if g.focus != paneMembers {
		g.flash("select a member first: tab to the Members pane, then ↑/↓ (j/k)", true)
		return nil
	}
	mb, ok := g.members.Selected()
	if !ok {
		g.flash("no member selected: the group has no members", true)
		return nil
	}
	c, ours := g.demoConsumer(mb)
	if !ours {
		g.flash(memberName(&mb)+" is not a demo consumer: kgwatch only "+verb+" the consumers it started", true)
		return nil
	}
	return demoAction(g.watch.Demo, func() (string, error) { return act(c.ClientID) })
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

// demoFrame prepares the demo's part of a frame: the members pane's notes
// (whose countdowns move with the clock) and the ledger pane, at most maxH
// lines of width w. It returns the ledger's height.
func (g *GroupPage) demoFrame(w, maxH int) int {
	g.demo.text = ""
	if g.watch.Demo == nil {
		return 0
	}
	g.members.SetNotes(g.demoNotes())
	if g.demo.flash != "" && g.st.Now.Sub(g.demo.flashAt) >= flashFor {
		g.demo.flash = ""
	}
	p := &g.demo.pane
	p.SetSize(w, ledgerLines(maxH))
	p.SetState(g.demo.status, g.demo.has, g.watch.DemoSettings, g.demo.flash, g.demo.flashErr)
	g.demo.text = p.View()
	if g.demo.text == "" {
		return 0
	}
	return p.Height()
}

// ledgerLines is how many lines the ledger gets out of h free lines.
func ledgerLines(h int) int {
	switch {
	case h >= 30:
		return 3
	case h >= 16:
		return 2
	case h >= 6:
		return 1
	}
	return 0
}

// notice shows a message of the root's (the quit confirmation) where the
// demo's actions answer.
func (g *GroupPage) notice(s string) { g.flash(s, false) }
