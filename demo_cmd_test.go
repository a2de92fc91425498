package main

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui"
)

func TestDemoUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--partitions", "0"}, "--partitions must be at least 1"},
		{[]string{"--consumers", "-1"}, "--consumers must not be negative"},
		{[]string{"--rate", "-2"}, "--rate must not be negative"},
		{[]string{"--process-time", "0s"}, "--process-time must be positive"},
		{[]string{"--slow-time", "-1s"}, "--slow-time must be positive"},
		{[]string{"--session-timeout", "0s"}, "--session-timeout must be positive"},
		{[]string{"--commit", "sometimes"}, `unknown --commit "sometimes": use after or before`},
		{[]string{"--commit-delay", "-1s"}, "--commit-delay must not be negative"},
		{[]string{"--max-poll-interval", "0s"}, "--max-poll-interval must be positive"},
		{[]string{"--balancer", "sticky"}, `unknown --balancer "sticky": use range or roundrobin`},
		{[]string{"--listen", "19092,29092"}, "--listen wants 3 ports"},
		{[]string{"--listen", "19092,29092,x"}, `--listen port "x"`},
		{[]string{"--listen", "19092,19092,39092"}, "--listen port 19092 given twice"},
		{[]string{"--listen", "1,2,70000"}, `--listen port "70000"`},
		{[]string{"--listen", "19092,29092,39092", "--brokers", "kafka:9092"}, "--listen and --brokers do not go together"},
		{[]string{"--brokers", " , "}, "--brokers is empty"},
		{[]string{"--topic", ""}, "--topic must not be empty"},
		{[]string{"--interval", "0s"}, "--interval must be positive"},
		{[]string{"--session-timeout", "soon"}, `invalid argument "soon"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runArgs(append([]string{"demo"}, tt.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not say %q", stderr, tt.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("error is %d lines, want one: %q", n+1, stderr)
			}
		})
	}
}

func TestDemoFlagsConfig(t *testing.T) {
	parseDemo := func(args ...string) demo.Config {
		t.Helper()
		var f demoFlags
		fs := newFlagSet("kgwatch demo", nil)
		f.register(fs)
		if err := parse(fs, args); err != nil {
			t.Fatalf("parse %q: %v", args, err)
		}
		c, err := f.config(fs)
		if err != nil {
			t.Fatalf("config %q: %v", args, err)
		}
		return c
	}
	c := parseDemo()
	if c.Consumers != 2 || c.Rate != 5 || c.SessionTimeout != 10*time.Second || c.MaxPollInterval != 30*time.Second ||
		c.Commit != "after" || c.Balancer != "range" || c.Topic != "order-rebalancing" || c.Group != "order-workers" {
		t.Errorf("defaults: %+v", c)
	}
	// kafka/demo reads 0 as "default"; the flags' 0 means none.
	if c := parseDemo("--consumers", "0", "--rate", "0"); c.Consumers >= 0 || c.Rate >= 0 {
		t.Errorf("--consumers 0 --rate 0 gave consumers %d rate %g, want negative (none)", c.Consumers, c.Rate)
	}
	if c := parseDemo("--max-poll-interval", "5s"); c.SlowProcessTime <= 5*time.Second {
		t.Errorf("--max-poll-interval 5s: slow time %s, want past it so s pushes the member out", c.SlowProcessTime)
	}
	if c := parseDemo("--max-poll-interval", "5s", "--slow-time", "1s"); c.SlowProcessTime != time.Second {
		t.Errorf("--slow-time 1s ignored: %s", c.SlowProcessTime)
	}
	c = parseDemo("-listen", "19092,29092,39092", "--commit", "before", "--commit-delay", "2s", "--balancer", "roundrobin")
	if len(c.Listen) != 3 || c.Listen[0] != 19092 || c.Listen[2] != 39092 || c.Commit != "before" || c.CommitDelay != 2*time.Second || c.Balancer != "roundrobin" {
		t.Errorf("flags not carried: %+v", c)
	}
}

func TestEventPipeNeverBlocks(t *testing.T) {
	p := newEventPipe(4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 10 {
			p.emit(model.Event{Detail: strconv.Itoa(i)})
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("emit blocked on a full pipe")
	}
	if got := p.dropped.Load(); got != 6 {
		t.Errorf("dropped %d events, want 6", got)
	}
	// The oldest went; the newest four remain, in order.
	for i := 6; i < 10; i++ {
		if e := <-p.ch; e.Detail != strconv.Itoa(i) {
			t.Fatalf("event %q, want %d", e.Detail, i)
		}
	}
}

// appDriver runs an App the way a tea.Program does, minus the terminal:
// commands run on goroutines, their messages are handed to Update one at
// a time.
type appDriver struct {
	t    *testing.T
	app  *ui.App
	msgs chan tea.Msg
	done chan struct{}
}

func newAppDriver(t *testing.T, app *ui.App) *appDriver {
	d := &appDriver{t: t, app: app, msgs: make(chan tea.Msg, 64), done: make(chan struct{})}
	t.Cleanup(func() {
		app.Close()
		close(d.done)
	})
	app.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	d.run(app.Init())
	return d
}

func (d *appDriver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if msg == nil {
			return
		}
		select {
		case d.msgs <- msg:
		case <-d.done:
		}
	}()
}

func (d *appDriver) send(msg tea.Msg) {
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			d.run(c)
		}
		return
	}
	_, cmd := d.app.Update(msg)
	d.run(cmd)
}

func (d *appDriver) screen() string { return ansi.Strip(d.app.View().Content) }

// waitScreen processes messages until the screen matches, or fails after
// timeout showing the last screen.
func (d *appDriver) waitScreen(timeout time.Duration, what string, ok func(string) bool) string {
	d.t.Helper()
	deadline := time.After(timeout)
	for {
		if s := d.screen(); ok(s) {
			return s
		}
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("after %s, no %s on screen:\n%s", timeout, what, d.screen())
		}
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	if k == "tab" {
		return tea.KeyPressMsg{Code: tea.KeyTab}
	}
	return tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
}

var evictedAfter = regexp.MustCompile(`consumer-b .*✗ evicted after (\d+\.\d)s`)

// TestDemoEndToEnd drives the real UI against the real demo: n adds a
// member the screen shows; X on consumer-b starts a countdown that ends in
// the coordinator's eviction after the session timeout.
func TestDemoEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster")
	}
	const session = 2 * time.Second
	events := newEventPipe(256)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := demo.Start(ctx, demo.Config{Rate: 20, ProcessTime: 5 * time.Millisecond, SessionTimeout: session}, events.emit)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: d.Group(), Timeout: 5 * time.Second})
	defer w.Close()
	set := d.Config()
	app := ui.New(w, ui.Options{
		Brokers: d.Brokers(), Group: d.Group(), Interval: 200 * time.Millisecond, Timeout: 5 * time.Second,
		Context: ctx, Events: events.ch, Demo: d,
		DemoSettings: ui.DemoSettings{SessionTimeout: set.SessionTimeout, MaxPollInterval: set.MaxPollInterval,
			Commit: set.Commit, ProcessTime: set.ProcessTime, SlowProcessTime: set.SlowProcessTime},
	})
	drv := newAppDriver(t, app)
	memberRow := func(name string) *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ ▸]` + name + ` +127\.0\.0\.1:\d+ +[0-9a-f]{8} +[1-9]\d* `)
	}
	drv.waitScreen(15*time.Second, "two members with a partition each", func(s string) bool {
		return memberRow("consumer-a").MatchString(s) && memberRow("consumer-b").MatchString(s)
	})

	drv.send(keyMsg("n"))
	drv.waitScreen(3*time.Second, "the spawn message", func(s string) bool {
		return strings.Contains(s, "consumer-c started")
	})
	drv.waitScreen(15*time.Second, "consumer-c owning a partition", func(s string) bool {
		return memberRow("consumer-c").MatchString(s) && memberRow("consumer-a").MatchString(s) && memberRow("consumer-b").MatchString(s)
	})

	drv.send(keyMsg("tab"))
	for i := 0; !regexp.MustCompile(`(?m)^▸consumer-b `).MatchString(drv.screen()); i++ {
		if i > 5 {
			t.Fatalf("could not select consumer-b:\n%s", drv.screen())
		}
		drv.send(keyMsg("j"))
	}
	killed := time.Now()
	drv.send(keyMsg("X"))
	s := drv.waitScreen(3*time.Second, "the countdown", func(s string) bool {
		return strings.Contains(s, "consumer-b killed: no LeaveGroup") && strings.Contains(s, "✗ killed · evicted in ")
	})
	if time.Since(killed) > session/2 {
		t.Fatalf("countdown took %s to show", time.Since(killed))
	}
	t.Logf("after X:\n%s", s)
	s = drv.waitScreen(session+5*time.Second, "the eviction", func(s string) bool {
		return evictedAfter.MatchString(s)
	})
	took, _ := strconv.ParseFloat(evictedAfter.FindStringSubmatch(s)[1], 64)
	if low := (session - set.HeartbeatInterval - 200*time.Millisecond).Seconds(); took < low {
		t.Errorf("evicted after %.1fs, before the session timeout (%s)", took, session)
	}
	if !strings.Contains(s, "coordinator evicted consumer-b") {
		t.Errorf("timeline lacks the demo_evicted event:\n%s", s)
	}
	t.Logf("after the eviction (%.1fs):\n%s", took, s)
}
