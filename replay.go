package main

import (
	"context"
	"io"

	"github.com/kgwatch/kgwatch/ui"
	"github.com/kgwatch/kgwatch/ui/cli"
	"github.com/kgwatch/kgwatch/ui/replayer"
)

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f replayer.Flags
	cmd := cli.New("kgwatch replay", "Usage:\n  kgwatch replay FILE [flags]\n\nPlays a recording made with --record in the same TUI, with no cluster:\nspace pauses, ←/→ jump to the previous/next event, +/- change the speed\n(1×, 2×, 4×, 10×, 60×), home/end go to the start/end.\n\nFlags:\n%s", stdout, stderr)
	f.Register(cmd.Flags)
	if err := cmd.Parse(args, true); err != nil { // FILE is an argument
		return err
	}
	path, format, err := f.Check(cmd.Flags)
	if err != nil {
		return err
	}
	if f.Events {
		return replayer.Events(ctx, path, f.Group, stdout, stderr)
	}
	// --once and the TUI read the file twice: its span first (--at, the
	// position), then its records.
	rec, err := replayer.Scan(path, f.Group)
	if err != nil {
		return err
	}
	if f.Once {
		return rec.Once(f.At, format, stdout, stderr)
	}
	rp, opts, err := rec.Player(f.From, f.Speed)
	if err != nil {
		return err
	}
	if err := runApp(ctx, opts, func(opts ui.Options) *ui.App { return ui.NewReplay(rp, opts) }); err != nil {
		return err
	}
	return rec.Ended(stderr)
}
