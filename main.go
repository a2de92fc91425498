// Command kgwatch watches Kafka consumer groups live in the terminal.
//
//	kgwatch -group order-workers            live TUI
//	kgwatch -group order-workers --once     one snapshot, kafka-consumer-groups layout
//	kgwatch demo                            embedded cluster, producer and demo consumers
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/headless"
)

// Set by the release build with -ldflags -X.
var (
	version = ""
	commit  = ""
	date    = ""
)

// Exit codes.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
	// exitFailOn: --fail-on's status (or storm) was reached.
	exitFailOn = 3
)

func main() {
	var stdout io.Writer = os.Stdout
	if stdoutClosed() {
		stdout = failedWriter{errStdoutClosed}
	}
	os.Exit(run(os.Args[1:], stdout, os.Stderr))
}

// errStdoutClosed is every write to a stdout that was closed at start.
var errStdoutClosed = errors.New("stdout is closed")

// failedWriter fails every write with err.
type failedWriter struct{ err error }

func (w failedWriter) Write([]byte) (int, error) { return 0, w.err }

// failOnStorm is --fail-on's word for a rebalance storm (--events, with
// --max-rebalances).
const failOnStorm = "storm"

// checkFailOn reads --fail-on: a status (lagging, unowned, stopped; with
// --events stalled and rewound too), or storm with --events and
// --max-rebalances.
func (f *watchFlags) checkFailOn() error {
	if strings.EqualFold(f.failOn, failOnStorm) {
		switch {
		case !f.events:
			return usageError{"--fail-on storm goes with --events (one --once poll counts no rebalances)"}
		case f.maxRebalances == 0:
			return usageError{"--fail-on storm needs --max-rebalances N: the storm is more than N rebalances in 10 minutes"}
		}
		f.failOn = failOnStorm
		return nil
	}
	s, ok := model.ParseStatus(f.failOn)
	switch {
	case !f.once && !f.events:
		return usageError{"--fail-on goes with --once or --events: it sets the exit status"}
	case !ok || s == model.StatusOK:
		return usageError{fmt.Sprintf("--fail-on %q: use lagging, unowned, stalled, rewound, stopped or storm", f.failOn)}
	case f.once && (s == model.StatusStalled || s == model.StatusRewound):
		// At or past STALLED would trip on STOPPED alone: a script
		// asking for STALLED would never hear of one.
		return usageError{fmt.Sprintf("--fail-on %s: one --once poll cannot tell %s (it needs the polls before it); use lagging, unowned or stopped, or watch with --events", f.failOn, s)}
	}
	f.failOnStatus = s
	return nil
}

// failOnEvent is --fail-on for --events: the event that ends the watch
// with exit 3 (a status_changed at or past the status, or a
// rebalance_storm), as a failOnError; nil for any other.
func (f *watchFlags) failOnEvent(e model.Event) error {
	switch {
	case f.failOn == failOnStorm && e.Type == model.EventRebalanceStorm,
		f.failOnStatus != "" && e.Type == model.EventStatusChanged && model.Status(e.State).AtLeast(f.failOnStatus):
		return failOnError{fmt.Sprintf("%s (--fail-on %s)", e.Detail, strings.ToLower(f.failOn))}
	}
	return nil
}

// failOnError is --fail-on's threshold reached: exit code 3, the output
// printed in full.
type failOnError struct{ msg string }

func (e failOnError) Error() string { return e.msg }

// checkMaxRebalances checks --max-rebalances (the watch's and the demo's).
func checkMaxRebalances(n int) error {
	if n < 0 || n > model.MaxMaxRebalances {
		return usageError{fmt.Sprintf("--max-rebalances must be 0 (no limit) or from 1 to %d, got %d", model.MaxMaxRebalances, n)}
	}
	return nil
}

// usageError is a command-line mistake: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// watchFlags are the flags of the watch command.
type watchFlags struct {
	brokers  string
	group    string
	interval time.Duration
	timeout  time.Duration
	// stallAfter: a partition with lag whose commit has not moved for this
	// long is STALLED.
	stallAfter time.Duration
	// maxLagAge: records waiting this long make a partition LAGGING
	// whatever its commit cadence (0: no limit).
	maxLagAge time.Duration
	// maxRebalances: more rebalances than this in 10 minutes are a
	// storm (0: no limit).
	maxRebalances int
	// failOn is --fail-on's word; failOnStatus the status it names.
	failOn       string
	failOnStatus model.Status
	once         bool
	output       string
	events       bool
	version      bool
	security     securityFlags
	// record is --record FILE (record.go).
	record string
	// hideKeys: the records partitions are stuck on show their keys'
	// and header values' sizes only (model.PipelineOptions.HideKeys).
	hideKeys bool
}

// securityFlags are the TLS and SASL flags, shared by watch and demo.
type securityFlags struct {
	tls          kafka.TLSOptions
	saslMech     string
	saslUser     string
	saslPassFile string
}

func (s *securityFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&s.tls.Enabled, "tls", false, "connect with TLS")
	fs.StringVar(&s.tls.CAFile, "tls-ca", "", "PEM file of CA certificates to trust (implies --tls)")
	fs.StringVar(&s.tls.CertFile, "tls-cert", "", "PEM client certificate (implies --tls)")
	fs.StringVar(&s.tls.KeyFile, "tls-key", "", "PEM client key (implies --tls)")
	fs.BoolVar(&s.tls.InsecureSkipVerify, "tls-insecure-skip-verify", false, "do not verify the brokers' certificates")
	fs.StringVar(&s.saslMech, "sasl-mechanism", "", "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	fs.StringVar(&s.saslUser, "sasl-user", "", "SASL user; the password comes from $KGWATCH_SASL_PASSWORD or --sasl-password-file")
	fs.StringVar(&s.saslPassFile, "sasl-password-file", "", "file holding the SASL password")
}

// apply fills cfg's TLS and SASL settings. Bad settings are usage errors;
// the password is never echoed.
func (s *securityFlags) apply(cfg *kafka.Config) error {
	t, err := kafka.TLSConfig(s.tls)
	if err != nil {
		return usageError{err.Error()}
	}
	cfg.TLS = t
	if s.saslMech == "" {
		if s.saslUser != "" || s.saslPassFile != "" {
			return usageError{"--sasl-user and --sasl-password-file need --sasl-mechanism"}
		}
		return nil
	}
	pass := os.Getenv("KGWATCH_SASL_PASSWORD")
	if s.saslPassFile != "" {
		b, err := kafka.ReadSmallFile("--sasl-password-file", s.saslPassFile, kafka.MaxPasswordFile)
		if err != nil {
			return usageError{err.Error()}
		}
		pass = strings.TrimRight(string(b), "\r\n")
		if pass == "" {
			return usageError{fmt.Sprintf("--sasl-password-file %s is empty", s.saslPassFile)}
		}
	}
	m, err := kafka.SASLMechanism(s.saslMech, s.saslUser, pass)
	if err != nil {
		return usageError{err.Error()}
	}
	cfg.SASL = m
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	// SIGHUP (the terminal closed, tmux kill-pane) ends the watch like q
	// does, so the terminal is left as it was found.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return runContext(ctx, args, stdout, stderr)
}

// runContext is run with the context that ends the watch (SIGINT/SIGTERM
// in main; tests cancel it).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var err error
	// help is the help a usage error points to: the command's own.
	help := "kgwatch --help"
	if len(args) > 0 && args[0] == "demo" {
		help = "kgwatch demo --help"
		err = runDemo(ctx, args[1:], stdout, stderr)
	} else if len(args) > 0 && args[0] == "replay" {
		help = "kgwatch replay --help"
		err = runReplay(ctx, args[1:], stdout, stderr)
	} else {
		err = runWatch(ctx, args, stdout, stderr)
	}
	var ue usageError
	var fe failOnError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "kgwatch: %s\n", oneLine(fe.msg))
		return exitFailOn
	case errors.Is(err, pflag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "kgwatch: %s (see %s)\n", oneLine(ue.msg), help)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "Error: %s\n", oneLine(err.Error()))
		return exitRuntime
	}
}

// newFlagSet returns a flag set whose own output (pflag's deprecation
// notes) goes to stderr; each command's Usage writes its help to stdout.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	return fs
}

// parse parses args with single-dash long flags (`-group x`) accepted as
// people type them, and turns pflag's errors into usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(longFlags(fs, args)); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		// `kgwatch -g -b host:9092` leaves host:9092 over: say what was
		// forgotten, not what was left.
		var forgot error
		fs.Visit(func(f *pflag.Flag) {
			if v := f.Value.String(); forgot == nil && f.Value.Type() == "string" && strings.HasPrefix(v, "-") {
				forgot = usageError{fmt.Sprintf("--%s needs a value, got the flag %q", f.Name, v)}
			}
		})
		if forgot != nil {
			return forgot
		}
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// longFlags rewrites `-name` and `-name=v` to `--name` when name is a long
// flag of fs, so that `kgwatch -group x` means what its user meant rather
// than `-g roup`.
func longFlags(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && fs.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

// durationRange is a usage error naming the flag and the accepted range
// when d is outside [least, most].
func durationRange(name string, d, least, most time.Duration) error {
	if d < least || d > most {
		return usageError{fmt.Sprintf("--%s must be from %s to %s, got %s", name, model.Setting(least), model.Setting(most), d)}
	}
	return nil
}

// oneLine is an error message for stderr: one line, and printable. It may
// hold names that users and brokers chose: their tabs, line breaks and
// other controls are shown as control pictures (␉ ␊ ␍), never collapsed
// into spaces, so two names that differ never read the same.
func oneLine(s string) string {
	return model.Printable(s)
}

func defaultBrokers() string {
	if b := os.Getenv("KAFKA_BROKERS"); b != "" {
		return b
	}
	return "localhost:9092"
}

// parseBrokers reads a broker list (--brokers, or $KAFKA_BROKERS as
// name): comma separated, each address made host:port by
// kafka.ParseBroker, duplicates dropped.
func parseBrokers(s, name string) ([]string, error) {
	var out []string
	seen := make(map[string]bool)
	for _, p := range splitList(s) {
		a, err := kafka.ParseBroker(p)
		if err != nil {
			return nil, usageError{fmt.Sprintf("%s: %v", name, err)}
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, usageError{name + " is empty"}
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	var f watchFlags
	fs := newFlagSet("kgwatch", stderr)
	// Help asked for (-h, --help) is the output: stdout, exit 0, so
	// `kgwatch --help | less` pages it. helpErr is its write's failure
	// (a closed stdout: exit 1, as --version).
	var helpErr error
	fs.Usage = func() {
		_, helpErr = fmt.Fprintf(stdout, "Usage:\n  kgwatch [flags]           watch a consumer group live (no --group: every group)\n  kgwatch demo [flags]      embedded cluster and demo consumers (kgwatch demo --help)\n  kgwatch replay FILE       play a recording made with --record (kgwatch replay --help)\n\nFlags:\n%s", fs.FlagUsages())
	}
	fs.StringVarP(&f.brokers, "brokers", "b", defaultBrokers(), "bootstrap brokers, comma separated ($KAFKA_BROKERS)")
	fs.StringVarP(&f.group, "group", "g", "", "consumer group to watch (none: every group, enter opens one)")
	fs.DurationVarP(&f.interval, "interval", "i", time.Second, "poll interval")
	fs.BoolVar(&f.once, "once", false, "print one snapshot and exit")
	fs.StringVarP(&f.output, "output", "o", "table", "output of --once: table or json")
	fs.BoolVar(&f.events, "events", false, "print timeline events as JSON lines until interrupted")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Second, "per-request timeout")
	fs.DurationVar(&f.stallAfter, "stall-after", 30*time.Second, "a partition with lag is STALLED when its commit has not moved for this long")
	fs.DurationVar(&f.maxLagAge, "max-lag-age", 0, "a partition whose oldest unprocessed record has waited this long is LAGGING, whatever its commit cadence allows (your SLO; 0: no limit)")
	fs.IntVar(&f.maxRebalances, "max-rebalances", 0, "more rebalances than this in the last 10 minutes are a rebalance storm: marked in the header, a rebalance_storm event, storm in JSON (0: no limit)")
	fs.StringVar(&f.failOn, "fail-on", "", "exit 3 when a partition (a group, without --group) is at or past this status: lagging, unowned or stopped with --once; with --events also stalled, rewound, or storm (with --max-rebalances), ending the watch at the first such event")
	fs.StringVar(&f.record, "record", "", "record what is watched to FILE, for kgwatch replay (with the TUI or --events)")
	fs.BoolVar(&f.hideKeys, "hide-keys", false, "show the keys and header values of the records partitions are stuck on as their sizes (\"key 12 B hidden\"), everywhere: screen, --once, --events, --record")
	fs.BoolVar(&f.version, "version", false, "print version and exit")
	f.security.register(fs)
	if err := parse(fs, args); err != nil {
		return cmp.Or(helpErr, err)
	}
	if f.version {
		_, err := fmt.Fprintln(stdout, versionString())
		return err
	}
	switch {
	case f.output != "table" && f.output != "json":
		return usageError{fmt.Sprintf("unknown output format %q: use table or json", f.output)}
	}
	for _, d := range []struct {
		name           string
		v, least, most time.Duration
	}{
		// A poll is a few requests per broker: faster than 100ms would
		// load a production cluster for nothing a person can read.
		{"interval", f.interval, model.MinInterval, model.MaxInterval},
		{"timeout", f.timeout, model.MinTimeout, model.MaxTimeout},
		{"stall-after", f.stallAfter, model.MinStallAfter, model.MaxStallAfter},
	} {
		if err := durationRange(d.name, d.v, d.least, d.most); err != nil {
			return err
		}
	}
	if f.maxLagAge != 0 && (f.maxLagAge < model.MinMaxLagAge || f.maxLagAge > model.MaxMaxLagAge) {
		return usageError{fmt.Sprintf("--max-lag-age must be 0 (no limit) or from %s to %s, got %s",
			model.Setting(model.MinMaxLagAge), model.Setting(model.MaxMaxLagAge), f.maxLagAge)}
	}
	if err := checkMaxRebalances(f.maxRebalances); err != nil {
		return err
	}
	if fs.Changed("fail-on") {
		if err := f.checkFailOn(); err != nil {
			return err
		}
	}
	switch {
	case f.group == "" && fs.Changed("group"):
		return usageError{"--group is empty"}
	case f.group == "" && f.events:
		return usageError{"--events needs --group: the timeline is one group's"}
	case strings.HasPrefix(f.group, "-"):
		return usageError{fmt.Sprintf("--group needs a value, got the flag %q", f.group)}
	case strings.HasPrefix(f.brokers, "-"):
		return usageError{fmt.Sprintf("--brokers needs a value, got the flag %q", f.brokers)}
	case f.once && f.events:
		return usageError{"--once and --events do not go together"}
	case f.once && f.record != "":
		return usageError{"--once and --record do not go together: record a watch (the TUI or --events)"}
	}
	brokersFrom := "--brokers"
	if !fs.Changed("brokers") && os.Getenv("KAFKA_BROKERS") != "" {
		brokersFrom = "$KAFKA_BROKERS"
	}
	brokers, err := parseBrokers(f.brokers, brokersFrom)
	if err != nil {
		return err
	}

	cfg := kafka.Config{Brokers: brokers, Group: f.group, Timeout: f.timeout}
	if err := f.security.apply(&cfg); err != nil {
		return err
	}
	opts := ui.Options{Brokers: brokers, Interval: f.interval, Timeout: f.timeout, StallAfter: f.stallAfter, MaxLagAge: f.maxLagAge, HideKeys: f.hideKeys, MaxRebalances: f.maxRebalances}
	rec, err := f.openRecorder(brokers)
	if err != nil {
		return err
	}
	defer rec.closeInto(&err)
	opts.Recording = rec.statusOf()
	if f.group == "" {
		o := kafka.NewOverviewWatcher(cfg)
		defer o.Close()
		if f.once {
			return printOverview(ctx, o, f, stdout)
		}
		return runApp(ctx, opts, func(opts ui.Options) *ui.App { return recordedOverviewApp(o, cfg, opts, rec) })
	}
	w := kafka.NewWatcher(cfg)
	defer w.Close()
	if f.once {
		return printOnce(ctx, w, f, stdout)
	}
	if f.events {
		if rec != nil {
			// Said when it happens: the events go on, the file does not.
			rec.onStop(func(err error) { fmt.Fprintf(stderr, "kgwatch: %v; the events go on\n", err) })
		}
		return headless.RunEvents(ctx, w, headless.Options{Group: f.group, Interval: f.interval, Timeout: f.timeout, StallAfter: f.stallAfter, MaxLagAge: f.maxLagAge, HideKeys: f.hideKeys, MaxRebalances: f.maxRebalances, Tap: rec.tapOf(f.group), Stop: f.failOnEvent}, stdout, stderr)
	}
	return runApp(ctx, opts, func(opts ui.Options) *ui.App {
		return ui.New(ui.Watch{Group: f.group, Source: w, Tap: rec.tapOf(f.group)}, opts)
	})
}

func printOnce(ctx context.Context, w *kafka.Watcher, f watchFlags, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	snap, err := w.Poll(ctx)
	if timedOut(err) {
		return fmt.Errorf("%w (no answer within --timeout %s)", err, f.timeout)
	}
	if err != nil {
		return err
	}
	if !snap.Group.Exists() {
		return fmt.Errorf("Consumer group '%s' does not exist.", f.group)
	}
	// The poll goes through the pipeline the TUI and --events feed, so
	// all three judge a snapshot alike. One poll has no history: rates,
	// ETA and falling_behind stay null, and every status but STALLED and
	// REWOUND (which need polls before) can be given: records that have
	// waited past the first allowance are LAGGING. Its events
	// (watch_started) are not printed.
	pipe := model.NewPipeline(model.PipelineOptions{Group: f.group, History: model.HistoryOptions{StallAfter: f.stallAfter, MaxLagAge: f.maxLagAge}, HideKeys: f.hideKeys, MaxRebalances: f.maxRebalances})
	pipe.Observe(&snap)
	if err := printSnapshot(snap, f.output, stdout); err != nil {
		return err
	}
	n := 0
	for _, p := range snap.Partitions {
		if p.Status.AtLeast(f.failOnStatus) {
			n++
		}
	}
	return failOn(n, "partition", f.failOnStatus)
}

// failOn is --fail-on's verdict on n things (partitions, groups) at or
// past threshold: a failOnError naming them, nil for none.
func failOn(n int, what string, threshold model.Status) error {
	if n == 0 {
		return nil
	}
	return failOnError{fmt.Sprintf("%s at or past %s (--fail-on %s)", model.Count(n, what), threshold, strings.ToLower(string(threshold)))}
}

// printSnapshot writes an annotated snapshot as --once does: JSON or the
// kafka-consumer-groups table.
func printSnapshot(snap model.Snapshot, output string, stdout io.Writer) error {
	if output == "json" {
		b, err := model.MarshalJSONSnapshot(snap)
		if err != nil {
			return fmt.Errorf("encode snapshot: %w", err)
		}
		_, err = stdout.Write(b)
		return err
	}
	_, err := io.WriteString(stdout, model.FormatTable(snap))
	return err
}

// timedOut reports whether err is --timeout running out: the poll's
// context, or the connection's deadline (set from the same timeout, it can
// fire first).
func timedOut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)
}

// printOverview prints every group once (--once without --group). The
// groups are judged as the TUI's overview judges them, by a
// model.OverviewPipeline; model.Pipeline is one group's.
func printOverview(ctx context.Context, o *kafka.OverviewWatcher, f watchFlags, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	obs, err := o.Overview(ctx)
	if timedOut(err) {
		return fmt.Errorf("%w (no answer within --timeout %s)", err, f.timeout)
	}
	if err != nil {
		return err
	}
	gs := model.NewOverviewPipeline(model.OverviewPipelineOptions{History: model.HistoryOptions{StallAfter: f.stallAfter, MaxLagAge: f.maxLagAge}}).Observe(&obs)
	if f.output == "json" {
		b, jerr := model.MarshalJSONOverview(gs)
		if jerr != nil {
			return jerr
		}
		_, err = stdout.Write(b)
	} else {
		_, err = io.WriteString(stdout, model.FormatOverview(gs))
	}
	if err != nil {
		return err
	}
	n := 0
	for _, g := range gs {
		if g.Status.AtLeast(f.failOnStatus) {
			n++
		}
	}
	return failOn(n, "group", f.failOnStatus)
}

// newOverviewApp is the overview of o's cluster; enter watches a group
// with a Watcher of cfg's cluster, closed when the view goes back.
func newOverviewApp(o *kafka.OverviewWatcher, cfg kafka.Config, opts ui.Options) *ui.App {
	return recordedOverviewApp(o, cfg, opts, nil)
}

// recordedOverviewApp is newOverviewApp recording, with rec, the overview
// and the groups opened from it.
func recordedOverviewApp(o *kafka.OverviewWatcher, cfg kafka.Config, opts ui.Options, rec *recorder) *ui.App {
	open := func(group string) (ui.Watch, func()) {
		gc := cfg
		gc.Group = group
		w := kafka.NewWatcher(gc)
		return ui.Watch{Group: group, Source: w, Tap: rec.tapOf(group)}, func() { w.Close() }
	}
	return ui.NewOverview(rec.overviewOf(o), open, opts)
}

// runApp runs the app newApp builds until it quits or ctx ends.
func runApp(ctx context.Context, opts ui.Options, newApp func(ui.Options) *ui.App) error {
	opts.NoColor = os.Getenv("NO_COLOR") != ""
	app := newApp(opts)
	defer app.Close()
	p := tea.NewProgram(app, append(ui.ProgramOptions(opts), tea.WithContext(ctx))...)
	_, err := p.Run()
	switch {
	case err == nil, errors.Is(err, tea.ErrInterrupted):
		return nil
	case errors.Is(err, tea.ErrProgramPanic):
		return fmt.Errorf("terminal UI: %w", err)
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil // interrupted by a signal
	default:
		return fmt.Errorf("terminal UI: %w", err)
	}
}

// versionString reports the version set at build time, or what the Go
// toolchain recorded when built without -ldflags.
func versionString() string {
	v, c, d := version, commit, date
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return fmt.Sprintf("kgwatch %s (commit %s, built %s)", v, orUnknown(c), orUnknown(d))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// demoFlags are the flags of `kgwatch demo`.
type demoFlags struct {
	cfg        demo.Config
	interval   time.Duration
	stallAfter time.Duration
	listen     string
	brokers    string
	compare    string
	record     string
	// maxRebalances is --max-rebalances, as the watch's.
	maxRebalances int
}

// defaultCompare is what a bare --compare runs: eager range against
// cooperative-sticky.
const defaultCompare = "range,cooperative-sticky"

func (f *demoFlags) register(fs *pflag.FlagSet) {
	c := &f.cfg
	fs.StringVar(&c.Topic, "topic", demo.DefaultTopic, "demo topic")
	fs.IntVar(&c.Partitions, "partitions", demo.DefaultPartitions, fmt.Sprintf("partitions of the demo topic (1..%d)", demo.MaxPartitions))
	fs.StringVarP(&c.Group, "group", "g", demo.DefaultGroup, "demo consumer group (with --compare: the stem of the groups' names)")
	fs.IntVar(&c.Consumers, "consumers", demo.DefaultConsumers, fmt.Sprintf("consumers at start, in each group (0..%d; 0: none, n adds them)", demo.MaxConsumers))
	fs.Float64Var(&c.Rate, "rate", demo.DefaultRate, fmt.Sprintf("orders produced per second (0, or %g..%g; 0: none until ] raises it)", demo.MinRate, float64(demo.MaxRate)))
	fs.DurationVar(&c.ProcessTime, "process-time", demo.DefaultProcessTime, "time a consumer spends on one order")
	fs.DurationVar(&c.SlowProcessTime, "slow-time", demo.DefaultSlowProcessTime,
		"time per order of a consumer slowed with s (with --max-poll-interval and no --slow-time: 1.5× that interval, so s pushes the member out)")
	fs.DurationVar(&c.SessionTimeout, "session-timeout", demo.DefaultSessionTimeout, "session timeout: how long the group waits for a killed member (consumer protocol: the broker's group setting)")
	fs.StringVar(&c.Commit, "commit", demo.CommitAfter, "after (process, then commit: at-least-once) or before (commit, then process: at-most-once)")
	fs.DurationVar(&c.CommitDelay, "commit-delay", 0, "pause between processing and committing (or committing and processing): a kill inside it shows a duplicate (or a loss)")
	fs.DurationVar(&c.MaxPollInterval, "max-poll-interval", demo.DefaultMaxPollInterval, "longest time on one order before the member leaves the group on its own, as Java and librdkafka clients do")
	fs.StringVar(&c.GroupProtocol, "group-protocol", demo.ProtocolClassic, "classic, or consumer (KIP-848: the broker assigns, members reconcile incrementally)")
	fs.StringVar(&c.Assignor, "assignor", "", "range (default), roundrobin, sticky or cooperative-sticky; with --group-protocol consumer the server assignor: uniform (default) or range")
	fs.StringVar(&c.Balancer, "balancer", "", "same as --assignor")
	fs.BoolVar(&c.Static, "static", false, "static members: each consumer's group.instance.id is its client id (consumer-a, …), so r restarts it with no rebalance")
	fs.StringVar(&f.compare, "compare", "", "run 2 or 3 groups side by side on the same topic, each key acting in all (range, roundrobin, sticky, cooperative-sticky, consumer, consumer-range; static: in front for static members); alone: "+defaultCompare)
	fs.Lookup("compare").NoOptDefVal = defaultCompare
	fs.StringVar(&f.listen, "listen", "", "put the embedded brokers on these 3 loopback ports, comma separated (e.g. 19192,19193,19194), so outside clients can join")
	fs.StringVarP(&f.brokers, "brokers", "b", "", "use this cluster instead of an embedded one (only the demo topic and groups are touched)")
	fs.DurationVarP(&f.interval, "interval", "i", time.Second, "poll interval")
	fs.DurationVar(&f.stallAfter, "stall-after", 30*time.Second, "a partition with lag is STALLED when its commit has not moved for this long (P's poison order shows it)")
	fs.StringVar(&f.record, "record", "", "record the demo to FILE (the group, its events, the ledger), for kgwatch replay")
	fs.IntVar(&f.maxRebalances, "max-rebalances", 0, "more rebalances than this in the last 10 minutes are a rebalance storm (0: no limit)")
}

// config checks the flags and returns the demo's configuration. Every
// mistake is a one-line usage error that names the flag and what it takes.
func (f *demoFlags) config(fs *pflag.FlagSet) (demo.Config, error) {
	c := f.cfg
	bad := func(format string, a ...any) (demo.Config, error) {
		return c, usageError{fmt.Sprintf(format, a...)}
	}
	switch {
	case c.Topic == "":
		return bad("--topic must not be empty")
	case c.Group == "":
		return bad("--group must not be empty")
	case c.Partitions < 1 || c.Partitions > demo.MaxPartitions:
		return bad("--partitions must be from 1 to %d, got %d", demo.MaxPartitions, c.Partitions)
	case c.Consumers < 0 || c.Consumers > demo.MaxConsumers:
		return bad("--consumers must be from 0 to %d, got %d", demo.MaxConsumers, c.Consumers)
	case !demo.ValidRate(c.Rate):
		return bad("--rate must be 0 or from %g to %g orders/s, got %g", demo.MinRate, float64(demo.MaxRate), c.Rate)
	case c.Commit != demo.CommitAfter && c.Commit != demo.CommitBefore:
		return bad("unknown --commit %q: use after or before", c.Commit)
	case f.listen != "" && fs.Changed("brokers"):
		return bad("--listen and --brokers do not go together: --listen places the embedded cluster")
	}
	for _, b := range []struct {
		name           string
		v, least, most time.Duration
	}{
		{"process-time", c.ProcessTime, demo.MinWork, demo.MaxWork},
		{"slow-time", c.SlowProcessTime, demo.MinWork, demo.MaxWork},
		{"session-timeout", c.SessionTimeout, demo.MinSessionTimeout, demo.MaxSessionTimeout},
		{"commit-delay", c.CommitDelay, 0, demo.MaxCommitDelay},
		{"max-poll-interval", c.MaxPollInterval, demo.MinMaxPollInterval, demo.MaxMaxPollInterval},
		{"interval", f.interval, model.MinInterval, time.Hour},
		{"stall-after", f.stallAfter, model.MinStallAfter, model.MaxStallAfter},
	} {
		if err := durationRange(b.name, b.v, b.least, b.most); err != nil {
			return c, err
		}
	}
	if err := f.groupSpecs(fs, &c); err != nil {
		return c, err
	}
	if fs.Changed("max-poll-interval") && !fs.Changed("slow-time") {
		c.SlowProcessTime = min(c.MaxPollInterval*3/2, demo.MaxWork)
	}
	// kafka/demo reads zero as "the default"; zero here means none.
	if c.Consumers == 0 {
		c.Consumers = -1
	}
	if c.Rate == 0 {
		c.Rate = -1
	}
	if f.listen != "" {
		ports, err := parsePorts(f.listen)
		if err != nil {
			return c, err
		}
		c.Listen = ports
	}
	if fs.Changed("brokers") {
		brokers, err := parseBrokers(f.brokers, "--brokers")
		if err != nil {
			return c, err
		}
		c.Brokers = brokers
	}
	return c, nil
}

// groupSpecs checks --group-protocol, --assignor (and its old name
// --balancer) and --compare, and fills c's group settings.
func (f *demoFlags) groupSpecs(fs *pflag.FlagSet, c *demo.Config) error {
	if fs.Changed("compare") {
		for _, other := range []string{"group-protocol", "assignor", "balancer"} {
			if fs.Changed(other) {
				return usageError{fmt.Sprintf("--compare picks each group's protocol and assignor: drop --%s", other)}
			}
		}
		specs, err := demo.ParseCompare(f.compare)
		if err != nil {
			return usageError{fmt.Sprintf("--compare %q: %v", f.compare, err)}
		}
		c.Compare = specs
		c.Assignor, c.Balancer = "", ""
		return nil
	}
	if c.Balancer != "" {
		if c.Assignor != "" && c.Assignor != c.Balancer {
			return usageError{fmt.Sprintf("--balancer %s and --assignor %s: --balancer is another name for --assignor, give one", c.Balancer, c.Assignor)}
		}
		c.Assignor = c.Balancer
		c.Balancer = ""
	}
	flag := "--assignor"
	if fs.Changed("balancer") {
		flag = "--balancer"
	}
	switch c.GroupProtocol {
	case demo.ProtocolClassic:
		switch c.Assignor {
		case "", demo.AssignorRange, demo.AssignorRoundRobin, demo.AssignorSticky, demo.AssignorCooperativeSticky:
		case demo.AssignorUniform:
			return usageError{fmt.Sprintf("%s uniform is a server assignor: it needs --group-protocol consumer (classic assignors: range, roundrobin, sticky, cooperative-sticky)", flag)}
		default:
			return usageError{fmt.Sprintf("unknown %s %q: use range, roundrobin, sticky or cooperative-sticky (with --group-protocol consumer: uniform or range)", flag, c.Assignor)}
		}
	case demo.ProtocolConsumer:
		switch c.Assignor {
		case "", demo.AssignorUniform, demo.AssignorRange:
		case demo.AssignorRoundRobin, demo.AssignorSticky, demo.AssignorCooperativeSticky:
			return usageError{fmt.Sprintf("%s %s: %s is not a server assignor: with --group-protocol consumer use uniform or range", flag, c.Assignor, c.Assignor)}
		default:
			return usageError{fmt.Sprintf("unknown %s %q: with --group-protocol consumer use uniform or range", flag, c.Assignor)}
		}
	default:
		return usageError{fmt.Sprintf("unknown --group-protocol %q: use classic or consumer", c.GroupProtocol)}
	}
	return nil
}

// parsePorts reads --listen: three distinct ports.
func parsePorts(s string) ([]int, error) {
	parts := splitList(s)
	if len(parts) != 3 {
		return nil, usageError{fmt.Sprintf("--listen wants 3 ports, one per broker (e.g. 19192,19193,19194), got %q", s)}
	}
	ports := make([]int, 0, 3)
	seen := map[int]bool{}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, usageError{fmt.Sprintf("--listen port %q: want a number from 1 to 65535", p)}
		}
		if seen[n] {
			return nil, usageError{fmt.Sprintf("--listen port %d given twice", n)}
		}
		seen[n] = true
		ports = append(ports, n)
	}
	return ports, nil
}

// compareValue lets `--compare range,consumer` (a space, not =) give
// --compare its value: with a default for the bare flag, pflag only takes
// `--compare=range,consumer`.
func compareValue(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "--compare" || a == "-compare") && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			out = append(out, "--compare="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	var f demoFlags
	fs := newFlagSet("kgwatch demo", stderr)
	var helpErr error // as runWatch's
	fs.Usage = func() {
		_, helpErr = fmt.Fprintf(stdout, "Usage:\n  kgwatch demo [flags]\n\nStarts an in-process Kafka cluster (3 brokers), a producer of orders and demo\nconsumers in one group (--compare: two or three groups side by side), and\nwatches it.\n\nKeys: n add consumer · x stop · X kill -9 · r restart · s slow · p pause producer · [ ] rate · h hot key ·\nR rolling restart of every consumer · P poison order (P again skips it)\n\nFlags:\n%s", fs.FlagUsages())
	}
	f.register(fs)
	if err := parse(fs, compareValue(args)); err != nil {
		return cmp.Or(helpErr, err)
	}
	cfg, err := f.config(fs)
	if err != nil {
		return err
	}
	if err := checkMaxRebalances(f.maxRebalances); err != nil {
		return err
	}
	if f.record != "" && len(cfg.Compare) > 0 {
		return usageError{"--record does not record --compare yet: record one group (no --compare)"}
	}
	var recFile *os.File
	if f.record != "" {
		// Created before the demo starts, so a path that cannot be
		// written fails at once; the header follows once the brokers
		// are known.
		if recFile, err = createRecording(f.record); err != nil {
			return err
		}
	}

	events := newEventPipe(1024)
	d, err := demo.Start(ctx, cfg, events.emit)
	if err != nil {
		if recFile != nil {
			recFile.Close()
			os.Remove(f.record)
		}
		return fmt.Errorf("start demo: %w", err)
	}
	defer d.Close()
	set := d.Config()
	settings := ui.DemoSettings{
		SessionTimeout:  d.Groups()[0].SessionTimeout,
		MaxPollInterval: set.MaxPollInterval,
		Commit:          set.Commit,
		CommitDelay:     set.CommitDelay,
		ProcessTime:     set.ProcessTime,
		SlowProcessTime: set.SlowProcessTime,
		Static:          set.Static,
	}
	opts := ui.Options{Brokers: d.Brokers(), Interval: f.interval, Timeout: 5 * time.Second, StallAfter: f.stallAfter, MaxRebalances: f.maxRebalances}
	// One watcher per group: compare mode watches two or three.
	var groups []ui.CompareGroup
	for _, g := range d.Groups() {
		w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: g.Name, Timeout: 5 * time.Second})
		defer w.Close()
		groups = append(groups, ui.CompareGroup{Watch: ui.Watch{Group: g.Name, Source: w}, Label: compareLabel(g.GroupSpec)})
	}
	if d.Comparing() {
		return runApp(ctx, opts, func(opts ui.Options) *ui.App { return ui.NewCompare(groups, d, settings, events.ch, opts) })
	}
	watch := groups[0].Watch
	watch.Events, watch.Demo, watch.DemoSettings = events.ch, d, settings
	if recFile != nil {
		var rec *recorder
		if rec, err = newDemoRecorder(recFile, f.record, watch.Group, settings, opts); err != nil {
			return err
		}
		defer rec.closeInto(&err)
		watch.Demo, watch.Tap = rec.demoOf(d), rec.tapOf(watch.Group)
		opts.Recording = rec.statusOf()
	}
	return runApp(ctx, opts, func(opts ui.Options) *ui.App { return ui.New(watch, opts) })
}

// compareLabel says how a compared group assigns, for its line: "range
// (eager)", "cooperative-sticky", "KIP-848 uniform" (the consumer protocol).
func compareLabel(s demo.GroupSpec) string {
	label := s.Assignor
	switch {
	case s.Protocol == demo.ProtocolConsumer:
		label = "KIP-848 " + s.Assignor
	case !s.Cooperative():
		label += " (eager)"
	}
	if s.Static {
		label += ", static"
	}
	return label
}

// eventPipe carries demo events to the UI. emit never blocks: when the
// buffer is full the oldest event is dropped (and counted), so a stalled
// screen can never stall a demo consumer.
type eventPipe struct {
	ch      chan model.Event
	dropped atomic.Int64
}

func newEventPipe(n int) *eventPipe { return &eventPipe{ch: make(chan model.Event, n)} }

func (p *eventPipe) emit(e model.Event) {
	for {
		select {
		case p.ch <- e:
			return
		default:
		}
		select {
		case <-p.ch:
			p.dropped.Add(1)
		default:
		}
	}
}
