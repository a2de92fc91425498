package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/cli"
	"github.com/kgwatch/kgwatch/ui/recorder"
)

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	var f demo.Flags
	cmd := cli.New("kgwatch demo", "Usage:\n  kgwatch demo [flags]\n\nStarts an in-process Kafka cluster (3 brokers), a producer of orders and demo\nconsumers in one group (--compare: two or three groups side by side), and\nwatches it.\n\nKeys: n add consumer · x stop · X kill -9 · r restart · s slow · p pause producer · [ ] rate · h hot key ·\nR rolling restart of every consumer · P poison order (P again skips it)\n\nFlags:\n%s", stdout, stderr)
	fs := cmd.Flags
	f.Register(fs)
	if err := cmd.Parse(demo.CompareArgs(args), false); err != nil {
		return err
	}
	cfg, err := f.Config(fs)
	if err != nil {
		return err
	}
	if err := model.CheckMaxRebalances(f.MaxRebalances); err != nil {
		return err
	}
	if f.Record != "" && len(cfg.Compare) > 0 {
		return model.UsageError{Msg: "--record does not record --compare yet: record one group (no --compare)"}
	}
	var recFile *os.File
	if f.Record != "" {
		// Created before the demo starts, so a path that cannot be
		// written fails at once; the header follows once the brokers
		// are known.
		if recFile, err = recorder.Create(f.Record); err != nil {
			return err
		}
	}

	events := demo.NewEventPipe(1024)
	d, err := demo.Start(ctx, cfg, events.Emit)
	if err != nil {
		if recFile != nil {
			recFile.Close()
			os.Remove(f.Record)
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
		BrokerHeartbeat: d.Groups()[0].HeartbeatInterval,
	}
	opts := ui.Options{Brokers: d.Brokers(), Interval: f.Interval, Timeout: 5 * time.Second, Judging: model.Judging{StallAfter: f.StallAfter, MaxRebalances: f.MaxRebalances}}
	// One watcher per group: compare mode watches two or three.
	var groups []ui.CompareGroup
	for _, g := range d.Groups() {
		w := kafka.NewWatcher(kafka.Config{Brokers: d.Brokers(), Group: g.Name, Timeout: 5 * time.Second})
		defer w.Close()
		groups = append(groups, ui.CompareGroup{Watch: ui.Watch{Group: g.Name, Source: w}, Label: g.GroupSpec.Label()})
	}
	if d.Comparing() {
		return runApp(ctx, opts, func(opts ui.Options) *ui.App { return ui.NewCompare(groups, d, settings, events.Events(), opts) })
	}
	watch := groups[0].Watch
	watch.Events, watch.Demo, watch.DemoSettings = events.Events(), d, settings
	if recFile != nil {
		var rec *recorder.Recorder
		if rec, err = newDemoRecorder(recFile, f.Record, watch.Group, settings, opts); err != nil {
			return err
		}
		defer rec.CloseInto(&err)
		watch.Demo, watch.Tap = rec.Demo(d), rec.Tap(watch.Group)
		opts.Recording = rec.StatusFunc()
	}
	return runApp(ctx, opts, func(opts ui.Options) *ui.App { return ui.New(watch, opts) })
}

// newDemoRecorder starts the recording of a demo watching group, on the
// file recorder.Create made.
func newDemoRecorder(f *os.File, path, group string, set ui.DemoSettings, opts ui.Options) (*recorder.Recorder, error) {
	h, err := recorder.DemoHeader(group, set, opts)
	if err != nil {
		return nil, err
	}
	return recorder.New(f, path, versioned(h))
}
