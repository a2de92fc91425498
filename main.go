// Command kgwatch watches Kafka consumer groups live in the terminal.
//
//	kgwatch -group order-workers            live TUI
//	kgwatch -group order-workers --once     one snapshot, kafka-consumer-groups layout
//	kgwatch demo                            embedded cluster, producer and demo consumers
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/cli"
	"github.com/kgwatch/kgwatch/ui/headless"
	"github.com/kgwatch/kgwatch/ui/recorder"
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

func run(args []string, stdout, stderr io.Writer) int {
	// SIGHUP (the terminal closed, tmux kill-pane) and SIGQUIT (kill
	// -QUIT; in the TUI ctrl+\\ is a key) end the watch like q does, so
	// the terminal is left as it was found: Go's default for SIGQUIT is
	// a goroutine dump and exit 2 that skips the TUI's restore, leaving
	// the terminal raw, on the alternate screen, its cursor hidden.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	_, stopProfile, err := cli.Profile(os.Getenv(cli.ProfileEnv))
	if err != nil {
		fmt.Fprintf(stderr, "kgwatch: %s\n", model.Printable(err.Error()))
		return exitUsage
	}
	defer stopProfile()
	defer cli.HeapBudget()()
	return runContext(ctx, args, stdout, stderr)
}

// runContext is run with the context that ends the watch (SIGINT/SIGTERM
// in main; tests cancel it). Every error reaches stderr as one line that
// starts "kgwatch: ".
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
	var ue model.UsageError
	var fe headless.FailOnError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &fe):
		fmt.Fprintf(stderr, "kgwatch: %s\n", model.Printable(fe.Msg))
		return exitFailOn
	case errors.Is(err, pflag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "kgwatch: %s (see %s)\n", model.Printable(ue.Msg), help)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "kgwatch: %s\n", model.Printable(err.Error()))
		return exitRuntime
	}
}

// watchFlags are the flags of the watch command.
type watchFlags struct {
	brokers  string
	group    string
	interval time.Duration
	timeout  time.Duration
	// judging is --stall-after, --max-lag-age, --max-rebalances and
	// --hide-keys: how every way of watching judges the polls.
	judging model.Judging
	// failOnWord is --fail-on; failOn what it asks.
	failOnWord string
	failOn     headless.FailOn
	once       bool
	output     string
	format     headless.Format
	events     bool
	version    bool
	security   kafka.SecurityFlags
	// record is --record FILE.
	record string
	// view is --offsets, --members, --state and --verbose: the --once
	// table's view, as kafka-consumer-groups --describe takes them.
	view    model.TableView
	offsets bool
}

func (f *watchFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.brokers, "brokers", "b", kafka.DefaultBrokers(), "bootstrap brokers, comma separated ($KAFKA_BROKERS)")
	fs.StringVarP(&f.group, "group", "g", "", "consumer group to watch (none: every group, enter opens one)")
	fs.DurationVarP(&f.interval, "interval", "i", model.DefaultInterval, "poll interval")
	fs.BoolVar(&f.once, "once", false, "print one snapshot and exit")
	fs.StringVarP(&f.output, "output", "o", "table", "output of --once: "+headless.FormatNames())
	fs.BoolVar(&f.offsets, "offsets", false, "with --once: the partitions' offsets and lag (the default view, as kafka-consumer-groups --describe --offsets)")
	fs.BoolVar(&f.view.Members, "members", false, "with --once: the members, as kafka-consumer-groups --describe --members")
	fs.BoolVar(&f.view.State, "state", false, "with --once: the group's state, as kafka-consumer-groups --describe --state")
	fs.BoolVar(&f.view.Verbose, "verbose", false, "with --once: the columns kafka-consumer-groups --verbose adds (epochs, assignments, leader epochs)")
	fs.BoolVar(&f.events, "events", false, "print timeline events as JSON lines until interrupted")
	fs.DurationVar(&f.timeout, "timeout", model.DefaultTimeout, "per-request timeout")
	fs.DurationVar(&f.judging.StallAfter, "stall-after", 30*time.Second, "a partition with lag is STALLED when its commit has not moved for this long")
	fs.DurationVar(&f.judging.MaxLagAge, "max-lag-age", 0, "a partition whose oldest unprocessed record has waited this long is LAGGING, whatever its commit cadence allows (your SLO; 0: no limit)")
	fs.IntVar(&f.judging.MaxRebalances, "max-rebalances", 0, "more rebalances than this in the last 10 minutes are a rebalance storm: marked in the header, a rebalance_storm event, storm in JSON (0: no limit)")
	fs.StringVar(&f.failOnWord, "fail-on", "", "exit 3 when a partition (a group, without --group) is at or past this status: lagging, unowned or stopped with --once; with --events also stalled, rewound, or storm (with --max-rebalances), ending the watch at the first such event")
	fs.StringVar(&f.record, "record", "", "record what is watched to FILE, for kgwatch replay (with the TUI or --events)")
	fs.BoolVar(&f.judging.HideKeys, "hide-keys", false, "show the keys and header values of the records partitions are stuck on as their sizes (\"key 12 B hidden\"), everywhere: screen, --once, --events, --record")
	fs.BoolVar(&f.version, "version", false, "print version and exit")
	f.security.Register(fs)
}

func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	var f watchFlags
	cmd := cli.New("kgwatch", "Usage:\n  kgwatch [flags]           watch a consumer group live (no --group: every group)\n  kgwatch demo [flags]      embedded cluster and demo consumers (kgwatch demo --help)\n  kgwatch replay FILE       play a recording made with --record (kgwatch replay --help)\n\nFlags:\n%s", stdout, stderr)
	fs := cmd.Flags
	f.register(fs)
	if err := cmd.Parse(args, false); err != nil {
		return err
	}
	if f.version {
		_, err := fmt.Fprintln(stdout, versionString())
		return err
	}
	brokers, err := f.check(fs)
	if err != nil {
		return err
	}
	cfg := kafka.Config{Brokers: brokers, Group: f.group, Timeout: f.timeout}
	if err := f.security.ApplyContext(ctx, &cfg); err != nil {
		return err
	}
	opts := ui.Options{Brokers: brokers, Interval: f.interval, Timeout: f.timeout, Judging: f.judging}
	rec, err := f.openRecorder(brokers)
	if err != nil {
		return err
	}
	defer rec.CloseInto(&err)
	opts.Recording = rec.StatusFunc()
	if f.group == "" {
		return watchOverview(ctx, f, cfg, opts, rec, stdout)
	}
	w := kafka.NewWatcher(cfg)
	defer w.Close()
	hopts := headless.Options{Group: f.group, Interval: f.interval, Timeout: f.timeout, Judging: f.judging, Tap: rec.Tap(f.group), Stop: f.failOn.Event}
	if f.once {
		snap, err := headless.Once(ctx, w, hopts, f.format, stdout)
		if err != nil {
			return err
		}
		return f.failOn.Partitions(snap.Partitions)
	}
	if f.events {
		if rec != nil {
			// Said when it happens: the events go on, the file does not.
			rec.OnStop(func(err error) { fmt.Fprintf(stderr, "kgwatch: %v; the events go on\n", err) })
		}
		return headless.RunEvents(ctx, w, hopts, stdout, stderr)
	}
	return runApp(ctx, opts, func(opts ui.Options) *ui.App {
		return ui.New(ui.Watch{Group: f.group, Source: w, Tap: rec.Tap(f.group)}, opts)
	})
}

// openRecorder opens --record's file, if given, before anything connects;
// nil without --record.
func (f *watchFlags) openRecorder(brokers []string) (*recorder.Recorder, error) {
	if f.record == "" {
		return nil, nil
	}
	mode := "tui"
	if f.events {
		mode = "events"
	}
	return recorder.Open(f.record, versioned(record.Header{
		Mode: mode, Group: f.group, Overview: f.group == "", Brokers: brokers,
		Interval: f.interval, Timeout: f.timeout, StallAfter: f.judging.StallAfter, MaxLagAge: f.judging.MaxLagAge,
		MaxRebalances: f.judging.MaxRebalances,
	}))
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
