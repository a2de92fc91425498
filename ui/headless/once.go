package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// Once is `--once`: one poll of src within opts.Timeout, judged by the
// pipeline the TUI and --events feed (so all three judge a snapshot
// alike), printed to out in format f. It returns the snapshot printed.
//
// One poll has no history: rates, ETA and falling_behind stay null, and
// every status but STALLED and REWOUND (which need polls before) can be
// given: records that have waited past the first allowance are LAGGING.
// Its events (watch_started) are not printed.
func Once(ctx context.Context, src Source, opts Options, f Format, out io.Writer) (model.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	snap, err := src.Poll(ctx)
	if err != nil {
		return snap, timeoutSaid(err, opts.Timeout)
	}
	if !snap.Group.Exists() {
		return snap, GroupMissing(opts.Group)
	}
	// One poll: no interval, no tap, and a timeline of which nothing is
	// printed.
	po := opts.Pipeline(opts.Group, 0, nil)
	po.OnePoll = true
	pipe := model.NewPipeline(po)
	pipe.Observe(&snap)
	return snap, f.PrintSnapshot(out, snap)
}

// GroupMissing is the error of a group that does not exist, worded as
// kafka-consumer-groups words it.
func GroupMissing(group string) error {
	return fmt.Errorf("Consumer group '%s' does not exist.", group)
}

// timeoutSaid is err saying so when it is --timeout running out: the
// poll's context, or the connection's deadline (set from the same
// timeout, it can fire first).
func timeoutSaid(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("%w (no answer within --timeout %s)", err, timeout)
	}
	return err
}
