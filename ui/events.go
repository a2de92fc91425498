package ui

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// RunEvents is `--events`: it polls src on the TUI's cadence (NextPollDelay:
// opts.Interval, faster while the group rebalances, backing off after
// failures), turns the snapshots into timeline events and writes each as
// one JSON line to out, until ctx is done; then it returns nil. Events from
// opts.Events are written too. A failed poll is one line on errOut and a
// connection_lost event (once per outage); polling goes on.
func RunEvents(ctx context.Context, src Source, opts Options, out, errOut io.Writer) error {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	tr := model.NewTracker(opts.Group, opts.TimelineSize)
	hist := model.NewHistory(model.HistoryOptions{StallAfter: opts.StallAfter})
	write := func(evs []model.Event) error {
		for _, e := range evs {
			b, err := model.MarshalEventJSON(e)
			if err != nil {
				return fmt.Errorf("encode %s event: %w", e.Type, err)
			}
			// One write per line, so a reader never sees half an event.
			if _, err := out.Write(append(b, '\n')); err != nil {
				return fmt.Errorf("write event: %w", err)
			}
		}
		return nil
	}
	var (
		group    model.Group
		failures int
	)
	timer := time.NewTimer(0)
	defer timer.Stop()
	events := opts.Events
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if e.Time.IsZero() {
				e.Time = opts.Now()
			}
			if e.Group == "" {
				e.Group = opts.Group
			}
			tr.Add(e)
			if err := write([]model.Event{e}); err != nil {
				return err
			}
			continue
		case <-timer.C:
		}
		pctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		snap, err := src.Poll(pctx)
		cancel()
		if ctx.Err() != nil {
			return nil // interrupted mid-poll: not a failure
		}
		var evs []model.Event
		if err != nil {
			failures++
			fmt.Fprintf(errOut, "kgwatch: poll %s (attempt %d, retrying in %s): %s\n",
				opts.Group, failures, NextPollDelay(group, opts.Interval, failures), oneLine(err.Error()))
			evs = tr.ConnectionLost(opts.Now(), err)
		} else {
			failures = 0
			group = snap.Group
			status := hist.Annotate(&snap) // status_changed events
			evs = tr.Observe(snap)
			for _, e := range status {
				tr.Add(e)
			}
			evs = append(evs, status...)
		}
		if err := write(evs); err != nil {
			return err
		}
		timer.Reset(NextPollDelay(group, opts.Interval, failures))
	}
}
