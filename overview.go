package main

import (
	"context"
	"io"

	"github.com/kgwatch/kgwatch/kafka"
	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/headless"
	"github.com/kgwatch/kgwatch/ui/recorder"
)

// watchOverview is the watch without --group: every group of cfg's
// cluster, once (--once) or in the TUI, recorded by rec (nil: not).
func watchOverview(ctx context.Context, f watchFlags, cfg kafka.Config, opts ui.Options, rec *recorder.Recorder, stdout io.Writer) error {
	o := kafka.NewOverviewWatcher(cfg)
	defer o.Close()
	if f.once {
		gs, err := headless.OnceOverview(ctx, o, f.judging.History(), f.timeout, f.format, stdout)
		if err != nil {
			return err
		}
		return f.failOn.Groups(gs)
	}
	return runApp(ctx, opts, func(opts ui.Options) *ui.App { return recordedOverviewApp(o, cfg, opts, rec) })
}

// newOverviewApp is the overview of o's cluster; enter watches a group
// with a Watcher of cfg's cluster, closed when the view goes back.
func newOverviewApp(o *kafka.OverviewWatcher, cfg kafka.Config, opts ui.Options) *ui.App {
	return recordedOverviewApp(o, cfg, opts, nil)
}

// recordedOverviewApp is newOverviewApp recording, with rec, the overview
// and the groups opened from it.
func recordedOverviewApp(o *kafka.OverviewWatcher, cfg kafka.Config, opts ui.Options, rec *recorder.Recorder) *ui.App {
	open := func(group string) (ui.Watch, func()) {
		gc := cfg
		gc.Group = group
		w := kafka.NewWatcher(gc)
		return ui.Watch{Group: group, Source: w, Tap: rec.Tap(group)}, func() { w.Close() }
	}
	return ui.NewOverview(rec.Overview(o), open, opts)
}
