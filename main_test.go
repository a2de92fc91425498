package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/cli"
)

func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-group", "g", "--bogus"}, "unknown flag: --bogus"},
		{"bad duration", []string{"-group", "g", "--interval", "soon"}, `invalid argument "soon"`},
		{"bad timeout", []string{"-group", "g", "--timeout", "-1s"}, "--timeout must be from 100ms to 10m, got -1s"},
		{"interval below the floor", []string{"-group", "g", "--events", "-i", "1ns"}, "--interval must be from 100ms to 1h, got 1ns"},
		{"interval of a day", []string{"-group", "g", "-i", "24h"}, "--interval must be from 100ms to 1h, got 24h0m0s"},
		{"stall-after too short", []string{"-group", "g", "--stall-after", "10ms"}, "--stall-after must be from 1s to 168h, got 10ms"},
		{"unknown output", []string{"-group", "g", "--once", "-o", "yaml"}, `unknown output format "yaml"`},
		{"max-lag-age too short", []string{"-group", "g", "--max-lag-age", "10ms"}, "--max-lag-age must be 0 (no limit) or from 1s to 168h, got 10ms"},
		{"max-lag-age negative", []string{"-group", "g", "--max-lag-age", "-1m"}, "--max-lag-age must be 0 (no limit) or from 1s to 168h, got -1m0s"},
		{"max-rebalances negative", []string{"-group", "g", "--max-rebalances", "-1"}, "--max-rebalances must be 0 (no limit) or from 1 to 100000, got -1"},
		{"fail-on without once", []string{"-group", "g", "--fail-on", "lagging"}, "--fail-on goes with --once or --events"},
		{"fail-on unknown status", []string{"-group", "g", "--once", "--fail-on", "slow"}, `--fail-on "slow": use lagging, unowned, stalled, rewound, stopped or storm`},
		{"fail-on storm with once", []string{"-group", "g", "--once", "--fail-on", "storm"}, "--fail-on storm goes with --events"},
		{"fail-on storm without a limit", []string{"-group", "g", "--events", "--fail-on", "storm"}, "--fail-on storm needs --max-rebalances N"},
		{"fail-on stalled", []string{"-group", "g", "--once", "--fail-on", "stalled"}, "--fail-on stalled: one --once poll cannot tell STALLED (it needs the polls before it); use lagging, unowned or stopped"},
		{"fail-on rewound", []string{"--once", "--fail-on", "Rewound"}, "--fail-on Rewound: one --once poll cannot tell REWOUND"},
		{"fail-on ok", []string{"--once", "--fail-on", "ok"}, `--fail-on "ok": use lagging`},
		{"no group, events", []string{"--events"}, "--events needs --group"},
		{"once and events", []string{"-g", "g", "--once", "--events"}, "do not go together"},
		{"stray argument", []string{"-g", "g", "extra"}, `unexpected argument "extra"`},
		{"demo bad partitions", []string{"demo", "--partitions", "0"}, "--partitions must be from 1 to 1000, got 0"},
		{"demo unknown flag", []string{"demo", "--nope"}, "unknown flag: --nope"},
		{"group value forgotten", []string{"-g", "-b", "host:9092"}, `--group needs a value, got the flag "-b"`},
		{"brokers value forgotten", []string{"-b", "--once", "-g", "x"}, `--brokers needs a value, got the flag "--once"`},
		{"sasl without user", []string{"-g", "g", "--sasl-mechanism", "PLAIN"}, "SASL PLAIN needs --sasl-user"},
		{"unknown sasl", []string{"-g", "g", "--sasl-mechanism", "GSSAPI", "--sasl-user", "u"}, `unknown SASL mechanism "GSSAPI"`},
		{"sasl user without mechanism", []string{"-g", "g", "--sasl-user", "u"}, "need --sasl-mechanism"},
		{"tls cert without key", []string{"-g", "g", "--tls-cert", "/nonexistent.pem"}, "--tls-cert and --tls-key go together"},
		{"tls ca unreadable", []string{"-g", "g", "--tls-ca", "/nonexistent.pem"}, "read --tls-ca"},
		{"tls ca named with controls", []string{"-g", "g", "--tls-ca", "/no\tsuch\nfile\r"}, "read --tls-ca: open /no␉such␊file␍: no such file or directory (see kgwatch --help)"},
		{"replay unknown flag", []string{"replay", "--bogus"}, "unknown flag: --bogus"},
		{"tls ca /dev/zero", []string{"-g", "g", "--once", "--tls-ca", "/dev/zero"}, "read --tls-ca /dev/zero: not a regular file or a pipe"},
		{"tls cert /dev/urandom", []string{"-g", "g", "--once", "--tls-cert", "/dev/urandom", "--tls-key", "/dev/zero"}, "read --tls-cert /dev/urandom: not a regular file or a pipe"},
		{"sasl password /dev/zero", []string{"-g", "g", "--once", "--sasl-mechanism", "PLAIN", "--sasl-user", "u", "--sasl-password-file", "/dev/zero"},
			"read --sasl-password-file /dev/zero: not a regular file or a pipe"},
		{"demo --partitions 0", []string{"demo", "--partitions", "0"}, "--partitions must be from 1 to 1000, got 0"},
		{"demo --partitions 2000000000", []string{"demo", "--partitions", "2000000000"}, "--partitions must be from 1 to 1000, got 2000000000"},
		{"demo --consumers -1", []string{"demo", "--consumers", "-1"}, "--consumers must be from 0 to 64, got -1"},
		{"demo --consumers 100000", []string{"demo", "--consumers", "100000"}, "--consumers must be from 0 to 64, got 100000"},
		{"demo --rate -2", []string{"demo", "--rate", "-2"}, "--rate must be 0 or from 0.01 to 10000 orders/s, got -2"},
		{"demo --rate 1e-300", []string{"demo", "--rate", "1e-300"}, "--rate must be 0 or from 0.01 to 10000 orders/s, got 1e-300"},
		{"demo --rate 1e308", []string{"demo", "--rate", "1e308"}, "--rate must be 0 or from 0.01 to 10000 orders/s, got 1e+308"},
		{"demo --rate NaN", []string{"demo", "--rate", "NaN"}, "--rate must be 0 or from 0.01 to 10000 orders/s, got NaN"},
		{"demo --rate +Inf", []string{"demo", "--rate", "+Inf"}, "--rate must be 0 or from 0.01 to 10000 orders/s, got +Inf"},
		{"demo --process-time 0s", []string{"demo", "--process-time", "0s"}, "--process-time must be from 1ms to 1h, got 0s"},
		{"demo --process-time 1000h", []string{"demo", "--process-time", "1000h"}, "--process-time must be from 1ms to 1h, got 1000h0m0s"},
		{"demo --slow-time -1s", []string{"demo", "--slow-time", "-1s"}, "--slow-time must be from 1ms to 1h, got -1s"},
		{"demo --session-timeout 0s", []string{"demo", "--session-timeout", "0s"}, "--session-timeout must be from 100ms to 30m, got 0s"},
		{"demo --session-timeout 2562047h", []string{"demo", "--session-timeout", "2562047h"}, "--session-timeout must be from 100ms to 30m, got 2562047h0m0s"},
		{"demo --commit sometimes", []string{"demo", "--commit", "sometimes"}, `unknown --commit "sometimes": use after or before`},
		{"demo --commit-delay -1s", []string{"demo", "--commit-delay", "-1s"}, "--commit-delay must be from 0s to 1h, got -1s"},
		{"demo --max-poll-interval 0s", []string{"demo", "--max-poll-interval", "0s"}, "--max-poll-interval must be from 10ms to 24h, got 0s"},
		{"demo --max-poll-interval 100000h", []string{"demo", "--max-poll-interval", "100000h"}, "--max-poll-interval must be from 10ms to 24h, got 100000h0m0s"},
		{"demo --balancer bogus", []string{"demo", "--balancer", "bogus"}, `unknown --balancer "bogus": use range, roundrobin, sticky or cooperative-sticky`},
		{"demo --assignor uniform", []string{"demo", "--assignor", "uniform"}, "--assignor uniform is a server assignor: it needs --group-protocol consumer"},
		{"demo --group-protocol consumer --assignor cooperative-sticky", []string{"demo", "--group-protocol", "consumer", "--assignor", "cooperative-sticky"},
			"--assignor cooperative-sticky: cooperative-sticky is not a server assignor: with --group-protocol consumer use uniform or range"},
		{"demo --group-protocol consumer --assignor roundrobin", []string{"demo", "--group-protocol", "consumer", "--assignor", "roundrobin"},
			"roundrobin is not a server assignor: with --group-protocol consumer use uniform or range"},
		{"demo --group-protocol consumer --assignor fair", []string{"demo", "--group-protocol", "consumer", "--assignor", "fair"}, `unknown --assignor "fair": with --group-protocol consumer use uniform or range`},
		{"demo --group-protocol eager", []string{"demo", "--group-protocol", "eager"}, `unknown --group-protocol "eager": use classic or consumer`},
		{"demo --balancer range --assignor sticky", []string{"demo", "--balancer", "range", "--assignor", "sticky"}, "--balancer is another name for --assignor, give one"},
		{"demo --compare range", []string{"demo", "--compare", "range"}, `--compare "range": 1 groups in "range": compare 2 or 3`},
		{"demo --compare four", []string{"demo", "--compare=range,sticky,roundrobin,consumer"}, "compare 2 or 3"},
		{"demo --compare range,fair", []string{"demo", "--compare", "range,fair"}, `unknown group "fair"`},
		{"demo --compare range,range", []string{"demo", "--compare", "range,range"}, `--compare "range,range": range given twice`},
		{"demo --compare --assignor", []string{"demo", "--compare", "--assignor", "sticky"}, "--compare picks each group's protocol and assignor: drop --assignor"},
		{"demo --interval 1ns", []string{"demo", "--interval", "1ns"}, "--interval must be from 100ms to 1h, got 1ns"},
		{"demo --listen 19092,29092", []string{"demo", "--listen", "19092,29092"}, "--listen wants 3 ports"},
		{"demo --listen 19092,29092,x", []string{"demo", "--listen", "19092,29092,x"}, `--listen port "x"`},
		{"demo --listen 19092,19092,39092", []string{"demo", "--listen", "19092,19092,39092"}, "--listen port 19092 given twice"},
		{"demo --listen 1,2,70000", []string{"demo", "--listen", "1,2,70000"}, `--listen port "70000"`},
		{"demo --listen 19092,29092,39092 --brokers kafka:9092", []string{"demo", "--listen", "19092,29092,39092", "--brokers", "kafka:9092"}, "--listen and --brokers do not go together"},
		{"demo --brokers   ", []string{"demo", "--brokers", " , "}, "--brokers is empty"},
		{"demo --topic ", []string{"demo", "--topic", ""}, "--topic must not be empty"},
		{"demo --interval 0s", []string{"demo", "--interval", "0s"}, "--interval must be from 100ms to 1h, got 0s"},
		{"demo --session-timeout soon", []string{"demo", "--session-timeout", "soon"}, `invalid argument "soon"`},
		{"--members --state", []string{"-g", "g", "--once", "--members", "--state"}, "--members and --state: choose one view"},
		{"--members without --once", []string{"-g", "g", "--members"}, "--offsets, --members, --state and --verbose choose what --once prints"},
		{"--verbose without a group", []string{"--once", "--verbose"}, "describe one group: give --group"},
		{"--state -o json", []string{"-g", "g", "--once", "--state", "-o", "json"}, "--members, --state and --verbose choose the table's columns; -o json holds them all"},
		{"empty group", []string{"-g", "", "--once"}, "--group is empty"},
		{"group name past Kafka's STRING", []string{"-g", strings.Repeat("g", 32768), "--once"},
			"--group: group name is 32768 bytes: Kafka carries a group name of at most 32767 bytes (a protocol STRING), so no broker can hold this group (see kgwatch --help)"},
		{"group name of a MiB, events", []string{"-g", strings.Repeat("g", 1<<20), "--events"}, "--group: group name is 1048576 bytes"},
		{"replay -g past Kafka's STRING", []string{"replay", empty, "-g", strings.Repeat("g", 32768)},
			"--group: group name is 32768 bytes: Kafka carries a group name of at most 32767 bytes (a protocol STRING), so no broker can hold this group (see kgwatch replay --help)"},
		{"empty group, long flag", []string{"--group=", "--once"}, "--group is empty"},
		{"empty group, single dash", []string{"-group", ""}, "--group is empty"},
		{"empty password file", []string{"-g", "g", "--sasl-mechanism", "PLAIN", "--sasl-user", "u", "--sasl-password-file", empty}, "--sasl-password-file " + empty + " is empty"},
		{"broker ambiguous IPv6", []string{"-g", "g", "-b", "h:9092,fe80::1:9092"}, `--brokers: broker address "fe80::1:9092" is ambiguous`},
		{"broker bad port", []string{"-g", "g", "-b", "kafka:http"}, `--brokers: broker address "kafka:http": port "http" is not a number from 1 to 65535`},
		{"broker brackets twice", []string{"-g", "g", "-b", "[[::1]]"}, `--brokers: broker address "[[::1]]"`},
		{"broker no host", []string{"-g", "g", "-b", ":9092"}, `--brokers: broker address ":9092": no host`},
		{"broker control character", []string{"-g", "g", "-b", "kafka\x1b[2J"}, `--brokers: broker address "kafka\x1b[2J": want host:port`},
		{"demo broker bad port", []string{"demo", "--brokers", "kafka:0"}, `--brokers: broker address "kafka:0": port "0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runArgs(tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not say %q", stderr, tt.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("error is %d lines, want one: %q", n+1, stderr)
			}
			// Each command's usage errors point to its own help.
			help := "(see kgwatch --help)\n"
			if c := tt.args[0]; c == "demo" || c == "replay" {
				help = "(see kgwatch " + c + " --help)\n"
			}
			if !strings.HasSuffix(stderr, help) {
				t.Errorf("stderr %q does not end %q", stderr, help)
			}
		})
	}
}

// TestHelpOnStdout: help asked for is the output, on stdout with exit 0
// (`kgwatch --help | less` pages it), nothing on stderr; each command's
// own usage, flags included.
func TestHelpOnStdout(t *testing.T) {
	for _, c := range []struct {
		args        []string
		usage, flag string
	}{
		{[]string{"--help"}, "Usage:\n  kgwatch [flags]", "--record"},
		{[]string{"-h"}, "Usage:\n  kgwatch [flags]", "--record"},
		{[]string{"-help"}, "Usage:\n  kgwatch [flags]", "--record"},
		{[]string{"demo", "--help"}, "Usage:\n  kgwatch demo [flags]", "--listen"},
		{[]string{"demo", "-h"}, "Usage:\n  kgwatch demo [flags]", "--listen"},
		{[]string{"replay", "--help"}, "Usage:\n  kgwatch replay FILE [flags]", "--speed"},
		{[]string{"replay", "-h"}, "Usage:\n  kgwatch replay FILE [flags]", "--speed"},
	} {
		code, stdout, stderr := runArgs(c.args...)
		if code != exitOK || stderr != "" || !strings.HasPrefix(stdout, c.usage) || !strings.Contains(stdout, c.flag) {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 0, no stderr, stdout starting %q and naming %s", c.args, code, stderr, stdout, c.usage, c.flag)
		}
	}
}

func TestVersionFallsBackToBuildInfo(t *testing.T) {
	code, out, _ := runArgs("--version")
	if code != 0 || !strings.HasPrefix(out, "kgwatch ") {
		t.Errorf("exit %d, %q", code, out)
	}
}

// TestRunLeavesTheCollectorAsItFoundIt: a run that ends before the heap
// budget's first reading (--version, a usage error) leaves GOGC as it
// was, not at the budget's start.
func TestRunLeavesTheCollectorAsItFoundIt(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	for _, args := range [][]string{{"--version"}, {"--no-such-flag"}} {
		runArgs(args...)
		if got := debug.SetGCPercent(100); got != 100 {
			t.Fatalf("after %v: GOGC %d, want 100", args, got)
		}
	}
}

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// testBinary builds kgwatch once for the tests that run it as a process,
// with -ldflags setting its version to v9.9.9 (commit abc123, built
// 2026-11-29).
func testBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "kgwatch-test"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "kgwatch")
		build := exec.Command("go", "build", "-o", built.bin, "-ldflags", "-X main.version=v9.9.9 -X main.commit=abc123 -X main.date=2026-11-29", ".")
		if out, err := build.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func TestVersionFromLdflags(t *testing.T) {
	bin := testBinary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "kgwatch v9.9.9 (commit abc123, built 2026-11-29)" {
		t.Errorf("--version = %q", got)
	}
}

func TestOnceNoBroker(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now

	start := time.Now()
	code, _, stderr := runArgs("-group", "g", "-brokers", addr, "--once", "--timeout", "2s")
	if code != exitRuntime {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, addr) {
		t.Errorf("error does not name %s: %q", addr, stderr)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("took %s with --timeout 2s", d)
	}
}

// startDemo runs the embedded demo cluster with its consumers and waits
// until the group has both of them.
func startDemo(t *testing.T) *demo.Demo {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := demo.Start(ctx, demo.Config{Consumers: 2, Rate: 20, ProcessTime: time.Millisecond}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(); cancel() })
	return d
}

func TestOnceAgainstDemoCluster(t *testing.T) {
	d := startDemo(t)
	brokers := strings.Join(d.Brokers(), ",")

	var snap struct {
		Group   string `json:"group"`
		State   string `json:"state"`
		TakenAt string `json:"taken_at"`
		Members []struct {
			ClientID string `json:"client_id"`
		} `json:"members"`
		Partitions []struct {
			Topic     string  `json:"topic"`
			ClientID  *string `json:"client_id"`
			Committed *int64  `json:"committed"`
			LogEnd    int64   `json:"log_end"`
		} `json:"partitions"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, out, stderr := runArgs("-group", "order-workers", "-brokers", brokers, "--once", "-o", "json")
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &snap); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if snap.State == "Stable" && len(snap.Members) == 2 && len(snap.Partitions) == 3 {
				break
			}
		} else if !strings.Contains(stderr, "does not exist") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("group never had 2 members on 3 partitions; last: %+v", snap)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := time.Parse(time.RFC3339, snap.TakenAt); err != nil {
		t.Errorf("taken_at %q: %v", snap.TakenAt, err)
	}
	for _, p := range snap.Partitions {
		if p.Topic != "order-rebalancing" || p.ClientID == nil || !strings.HasPrefix(*p.ClientID, "consumer-") {
			t.Errorf("partition %+v", p)
		}
	}

	code, out, stderr := runArgs("-group", "order-workers", "-brokers", brokers, "--once")
	if code != 0 || !strings.Contains(out, "CURRENT-OFFSET") || !strings.Contains(out, "order-rebalancing") {
		t.Errorf("table: exit %d\n%s%s", code, out, stderr)
	}

	code, out, stderr = runArgs("-group", "order-workers", "-brokers", brokers, "--once", "--members", "--verbose")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); code != 0 || len(lines) != 3 ||
		!strings.HasPrefix(strings.Join(strings.Fields(lines[0]), " "), "GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT") {
		t.Errorf("--members --verbose: exit %d\n%s%s", code, out, stderr)
	}

	code, _, stderr = runArgs("-group", "no-such-group", "-brokers", brokers, "--once")
	if code != exitRuntime || strings.TrimSpace(stderr) != "kgwatch: Consumer group 'no-such-group' does not exist." {
		t.Errorf("missing group: exit %d, %q", code, stderr)
	}
	// A name's tabs, line breaks and runs of spaces are shown, on one
	// line: 'a b c d e' would name another group.
	code, _, stderr = runArgs("-group", "a\tb\nc  d\re\x1b[2J", "-brokers", brokers, "--once")
	if want := "kgwatch: Consumer group 'a␉b␊c  d␍e␛[2J' does not exist.\n"; code != exitRuntime || stderr != want {
		t.Errorf("missing group with controls: exit %d, %q; want %q", code, stderr, want)
	}
}

func TestMain(m *testing.M) {
	os.Unsetenv("KAFKA_BROKERS")
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
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
	events := demo.NewEventPipe(256)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := demo.Start(ctx, demo.Config{Rate: 20, ProcessTime: 5 * time.Millisecond, SessionTimeout: session}, events.Emit)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: d.Group(), Timeout: 5 * time.Second})
	defer w.Close()
	set := d.Config()
	app := ui.New(ui.Watch{
		Group: d.Group(), Source: w, Events: events.Events(), Demo: d,
		DemoSettings: ui.DemoSettings{SessionTimeout: set.SessionTimeout, MaxPollInterval: set.MaxPollInterval,
			Commit: set.Commit, ProcessTime: set.ProcessTime, SlowProcessTime: set.SlowProcessTime},
	}, ui.Options{Brokers: d.Brokers(), Interval: 200 * time.Millisecond, Timeout: 5 * time.Second})
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
	if !strings.Contains(s, "evicted by the coordinator") || !strings.Contains(s, "after the kill: no heartbeat for its") {
		t.Errorf("timeline lacks the demo_evicted event:\n%s", s)
	}
	t.Logf("after the eviction (%.1fs):\n%s", took, s)
}

// eventLine is the part of an --events line the test reads.
type eventLine struct {
	Time     string `json:"time"`
	Type     string `json:"type"`
	Group    string `json:"group"`
	ClientID string `json:"client_id"`
	MemberID string `json:"member_id"`
	Detail   string `json:"detail"`
	State    string `json:"state"`
	Inferred *bool  `json:"inferred"`
}

func TestEventsAgainstDemoCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster")
	}
	d := startDemo(t)
	brokers := strings.Join(d.Brokers(), ",")

	pr, pw := io.Pipe()
	var stderr lockedWriter
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- runContext(ctx, []string{"-group", d.Group(), "-brokers", brokers, "--events", "-i", "200ms"}, pw, &stderr)
		pw.Close()
	}()
	lines := make(chan eventLine, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var e eventLine
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Errorf("not a JSON line: %q: %v", sc.Text(), err)
				continue
			}
			if e.Time == "" || e.Group != d.Group() || e.Inferred == nil {
				t.Errorf("line lacks time, group or inferred: %q", sc.Text())
			}
			if _, err := time.Parse(time.RFC3339Nano, e.Time); err != nil {
				t.Errorf("time %q is not RFC 3339: %v", e.Time, err)
			}
			lines <- e
		}
	}()
	var seen []string
	next := func(what string, match func(eventLine) bool) eventLine {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case e, ok := <-lines:
				if !ok {
					t.Fatalf("output ended waiting for %s; saw %v; stderr %q", what, seen, stderr.String())
				}
				seen = append(seen, e.Type+":"+e.ClientID)
				if match(e) {
					return e
				}
			case <-deadline:
				t.Fatalf("no %s within 30s; saw %v; stderr %q", what, seen, stderr.String())
			}
		}
	}

	first := next("watch_started", func(eventLine) bool { return true })
	if first.Type != "watch_started" {
		t.Fatalf("first event %q, want watch_started", first.Type)
	}
	id, err := d.Spawn()
	if err != nil {
		t.Fatal(err)
	}
	joined := next("member_joined "+id, func(e eventLine) bool { return e.Type == "member_joined" && e.ClientID == id })
	if joined.MemberID == "" {
		t.Errorf("member_joined without member_id")
	}
	next("rebalance_completed after the join", func(e eventLine) bool { return e.Type == "rebalance_completed" })

	if err := d.Stop(id); err != nil {
		t.Fatal(err)
	}
	next("member_left "+id, func(e eventLine) bool { return e.Type == "member_left" && e.ClientID == id })

	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Errorf("exit %d after interrupt, want 0; stderr %q", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--events did not stop after the context ended")
	}
	for range lines { // drain: every remaining line is checked too
	}
}

// lockedWriter collects stderr safely while run writes to it.
type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func TestOnceSilentBroker(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close() // accepts connections (the kernel's backlog) and never answers
	addr := l.Addr().String()

	start := time.Now()
	code, _, stderr := runArgs("-group", "g", "-brokers", addr, "--once", "--timeout", "1s")
	if code != exitRuntime {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, addr) || !strings.Contains(stderr, "no answer within --timeout 1s") {
		t.Errorf("error does not name %s and the timeout: %q", addr, stderr)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s with --timeout 1s", d)
	}
}

// A server that answers a byte at a time is said to answer too slowly,
// not to give no answer.
func TestOnceSlowBroker(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// A whole ApiVersions v0 answer (correlation id 1, no
				// error, no API), one byte every 300ms.
				io.ReadFull(c, make([]byte, 4))
				for _, b := range []byte{0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0} {
					if _, err := c.Write([]byte{b}); err != nil {
						return
					}
					time.Sleep(300 * time.Millisecond)
				}
			}()
		}
	}()
	code, _, stderr := runArgs("-g", "g", "-b", l.Addr().String(), "--once", "--timeout", "1s")
	if code != exitRuntime || !strings.Contains(stderr, "the broker answered too slowly: no complete response within 1s") || strings.Contains(stderr, "no answer") {
		t.Errorf("exit %d, stderr %q; want 1, the broker answered too slowly", code, stderr)
	}
}

func TestOnceOverviewAgainstDemoCluster(t *testing.T) {
	d := startDemo(t)
	brokers := strings.Join(d.Brokers(), ",")
	var groups []struct {
		Group    string `json:"group"`
		State    string `json:"state"`
		Members  int    `json:"members"`
		TotalLag int64  `json:"total_lag"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, out, stderr := runArgs("-brokers", brokers, "--once", "-o", "json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if err := json.Unmarshal([]byte(out), &groups); err != nil {
			t.Fatalf("not a JSON array: %v\n%s", err, out)
		}
		if len(groups) == 1 && groups[0].Group == "order-workers" && groups[0].State == "Stable" && groups[0].Members == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("overview never listed order-workers Stable with 2 members; last: %+v", groups)
		}
		time.Sleep(200 * time.Millisecond)
	}
	code, out, stderr := runArgs("-brokers", brokers, "--once")
	if code != 0 || !regexp.MustCompile(`(?m)^GROUP +STATE +STATUS +MEMBERS +TOTAL-LAG +MAX-LAG-AGE\norder-workers +Stable +. [A-Z]+ +2 +\d+\*? +\S+$`).MatchString(out) {
		t.Errorf("table: exit %d\n%s%s", code, out, stderr)
	}
}

// The overview lists the demo's group; enter watches it, esc comes back.
func TestOverviewEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster")
	}
	d := startDemo(t)
	cfg := kafka.Config{Brokers: d.Brokers(), Timeout: 5 * time.Second}
	o := kafka.NewOverviewWatcher(cfg)
	defer o.Close()
	app := newOverviewApp(o, cfg, ui.Options{Brokers: d.Brokers(), Interval: 200 * time.Millisecond, Timeout: 5 * time.Second})
	drv := newAppDriver(t, app)
	row := regexp.MustCompile(`(?m)^▸order-workers +● Stable +. [A-Z]+ +2 +\d`)
	drv.waitScreen(15*time.Second, "order-workers listed Stable with 2 members", row.MatchString)
	drv.send(tea.KeyPressMsg{Code: tea.KeyEnter})
	drv.waitScreen(10*time.Second, "the group's partitions and members", func(s string) bool {
		return strings.Contains(s, "Partitions 3") && strings.Contains(s, "Members 2") && strings.Contains(s, "esc/⌫ all groups")
	})
	drv.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	drv.waitScreen(10*time.Second, "the overview again", func(s string) bool {
		return strings.Contains(s, "all groups") && row.MatchString(s)
	})
}

// A password file that never ends (a pipe a program writes into without
// stopping) is read up to kafka.MaxPasswordFile, then refused: a usage
// error naming the flag and the limit, not memory growing until the
// runtime dies.
func TestEndlessPasswordFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pass")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		b := bytes.Repeat([]byte("p"), 4096)
		for {
			if _, err := f.Write(b); err != nil {
				return // the reader gave up
			}
		}
	}()
	code, _, stderr := runArgs("-g", "g", "-b", "127.0.0.1:1", "--once", "--sasl-mechanism", "PLAIN", "--sasl-user", "u", "--sasl-password-file", fifo)
	want := "kgwatch: read --sasl-password-file " + fifo + ": larger than 64 KiB, the most kgwatch reads (see kgwatch --help)\n"
	if code != exitUsage || stderr != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, stderr, exitUsage, want)
	}
}

// A --sasl-password-file that is a FIFO nobody writes blocks its open:
// the signal that ends the watch ends the wait too, with its reason.
func TestPasswordFIFOWithoutWriterIsInterruptible(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pass")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The FIFO's other end, opened once the test is done, frees the
	// goroutine still blocked in open(2).
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- runContext(ctx, []string{"-g", "g", "-b", "127.0.0.1:1", "--once", "--sasl-mechanism", "PLAIN", "--sasl-user", "u", "--sasl-password-file", fifo}, &out, &errb)
	}()
	cancel(errors.New("terminated"))
	code := <-done // before: blocked in open(2) whatever the context
	want := "kgwatch: read --sasl-password-file " + fifo + ": terminated\n"
	if code != exitRuntime || errb.String() != want {
		t.Errorf("exit %d, stderr %q; want %d, %q", code, errb.String(), exitRuntime, want)
	}
}

// SASL with a user and no password is a usage error naming where the
// password comes from, not an attempt with an empty one.
func TestSASLWithoutPassword(t *testing.T) {
	t.Setenv("KGWATCH_SASL_PASSWORD", "")
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-512"} {
		code, _, stderr := runArgs("-g", "g", "-b", "127.0.0.1:1", "--once", "--sasl-mechanism", mech, "--sasl-user", "u")
		want := "kgwatch: SASL " + mech + " needs a password: set $KGWATCH_SASL_PASSWORD or --sasl-password-file (see kgwatch --help)\n"
		if code != exitUsage || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", mech, code, stderr, exitUsage, want)
		}
	}
}

// A bad $KAFKA_BROKERS is named as such, not as --brokers.
func TestBadKafkaBrokersEnv(t *testing.T) {
	t.Setenv("KAFKA_BROKERS", "kafka:99999")
	code, _, stderr := runArgs("-g", "g", "--once")
	if code != exitUsage || !strings.HasPrefix(stderr, `kgwatch: $KAFKA_BROKERS: broker address "kafka:99999": port`) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// -b '[::1]' is printed as [::1]:9092 wherever the address is shown (here
// the error of a --once that cannot connect), never [[::1]]:9092.
func TestIPv6BrokerPrintedOnce(t *testing.T) {
	for _, b := range []string{"[::1]", "::1"} {
		code, _, stderr := runArgs("-g", "g", "-b", b, "--once", "--timeout", "1s")
		if code != exitRuntime || !strings.Contains(stderr, "connect to broker [::1]:9092: ") || strings.Contains(stderr, "[[") {
			t.Errorf("-b %s: exit %d, stderr %q; want an error naming [::1]:9092", b, code, stderr)
		}
	}
}

// --once with a first bootstrap broker that accepts and never answers:
// every run connects, in about the time of the good broker, far within
// --timeout (kafka-go alone bet on one address: half the runs timed out).
func TestOnceHungFirstBroker(t *testing.T) {
	d := startDemo(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close() // accepts connections (the kernel's backlog) and never answers
	brokers := l.Addr().String() + "," + d.Brokers()[0]
	const timeout = 10 * time.Second
	var longest time.Duration
	for i := 0; i < 10; i++ {
		args := []string{"-b", brokers, "--once", "--timeout", timeout.String()}
		if i%2 == 1 {
			args = append(args, "-g", "order-workers")
		}
		start := time.Now()
		code, _, stderr := runArgs(args...)
		took := time.Since(start)
		longest = max(longest, took)
		if code != exitOK && !strings.Contains(stderr, "does not exist") {
			t.Fatalf("run %d %q: exit %d after %s: %s", i, args, code, took, stderr)
		}
	}
	t.Logf("longest of 10 runs: %s", longest)
	if longest > timeout/4 {
		t.Errorf("longest run %s: want well within --timeout %s", longest, timeout)
	}
}

// SIGHUP (the terminal went away, tmux kill-pane) and SIGTERM end a watch
// as q does: exit 0, promptly, so the TUI restores the terminal on the way
// out. Shown with --events, which runs until a signal.
func TestSignalsEndTheWatch(t *testing.T) {
	// SIGQUIT too: by Go's default it dumps the goroutines and exits 2,
	// skipping the TUI's restore (the terminal left raw), and here it
	// would kill the test binary.
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			done := make(chan int, 1)
			var out, errb bytes.Buffer
			go func() {
				done <- run([]string{"-b", "127.0.0.1:1", "-g", "g", "--events", "--timeout", "200ms"}, &out, &errb)
			}()
			time.Sleep(300 * time.Millisecond) // run has installed its handlers
			if err := syscall.Kill(os.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-done:
				if code != exitOK {
					t.Errorf("exit %d after %s, want 0; stderr %q", code, sig, errb.String())
				}
			case <-time.After(3 * time.Second):
				t.Fatalf("still running 3s after %s", sig)
			}
		})
	}
}

// kgwatch run with its stdout closed (`>&-`) fails on its first write to
// stdout, exit 1 with one line on stderr: with --once (group and
// overview, table and JSON), --version, each command's --help and
// --events. (Its stdout's
// descriptor, free, went to its first broker connection, and the table
// into the Kafka protocol: exit 0.)
func TestStdoutClosed(t *testing.T) {
	bin := testBinary(t)
	d := startDemo(t)
	brokers := strings.Join(d.Brokers(), ",")
	waitGroup(t, brokers, d.Group())
	for _, args := range [][]string{
		{"--version"},
		{"--help"},
		{"demo", "--help"},
		{"replay", "--help"},
		{"-b", brokers, "-g", d.Group(), "--once"},
		{"-b", brokers, "-g", d.Group(), "--once", "-o", "json"},
		{"-b", brokers, "--once"},
		{"-b", brokers, "--once", "-o", "json"},
		{"-b", brokers, "-g", d.Group(), "--events"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `exec "$0" "$@" >&-`, bin}, args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if ctx.Err() != nil {
				t.Fatalf("still running after 10s (%v); stderr %q", err, stderr.String())
			}
			if e := stderr.String(); code != exitRuntime || !strings.HasPrefix(e, "kgwatch: ") || !strings.HasSuffix(e, "stdout is closed\n") || strings.Count(e, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 1 and one line saying stdout is closed", code, stderr.String())
			}
		})
	}
	// Output sent to /dev/null is not a closed stdout.
	cmd := exec.Command("sh", "-c", `exec "$0" "$@" >/dev/null`, bin, "-b", brokers, "-g", d.Group(), "--once")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("--once >/dev/null: %v, %q", err, out)
	}
}

// waitGroup waits until --once finds group on brokers.
func waitGroup(t *testing.T, brokers, group string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _, stderr := runArgs("-b", brokers, "-g", group, "--once")
		if code == exitOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s not found after 30s: %s", group, stderr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestREADMEListsEveryEventType: every type in model's event registry is
// named in the README, which documents the --events contract.
func TestREADMEListsEveryEventType(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range model.EventTypes() {
		if !bytes.Contains(b, []byte("`"+string(s.Type)+"`")) {
			t.Errorf("README.md does not name the event type `%s` (%s)", s.Type, s.Means)
		}
	}
}

// Every error reaches stderr as one line that starts "kgwatch: ",
// whichever command and path gave it: a usage error (exit 2) and a
// runtime error (exit 1) alike.
func TestOneErrorPrefix(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.kgw")
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--interval", "1ms"}, exitUsage},
		{[]string{"demo", "--partitions", "0"}, exitUsage},
		{[]string{"replay"}, exitUsage},
		{[]string{"-g", "g", "-b", "127.0.0.1:1", "--once", "--timeout", "1s"}, exitRuntime},
		{[]string{"replay", missing}, exitRuntime},
		{[]string{"replay", missing, "--events"}, exitRuntime},
	} {
		code, _, stderr := runArgs(c.args...)
		if code != c.code || !strings.HasPrefix(stderr, "kgwatch: ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and one line starting \"kgwatch: \"", c.args, code, stderr, c.code)
		}
	}
}

// TestProfileHookFromTheEnvironment: KGWATCH_PPROF on loopback runs the
// command with the profiles served; off loopback it is refused before
// anything runs (exit 2).
func TestProfileHookFromTheEnvironment(t *testing.T) {
	var out, errs bytes.Buffer
	t.Setenv(cli.ProfileEnv, "127.0.0.1:0")
	if code := run([]string{"--version"}, &out, &errs); code != exitOK || !strings.Contains(out.String(), "kgwatch") {
		t.Errorf("loopback: exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
	out.Reset()
	errs.Reset()
	t.Setenv(cli.ProfileEnv, "0.0.0.0:6060")
	if code := run([]string{"--version"}, &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "kgwatch: KGWATCH_PPROF=") || out.Len() != 0 {
		t.Errorf("off loopback: exit %d, stdout %q, stderr %q, want refused", code, out.String(), errs.String())
	}
}
