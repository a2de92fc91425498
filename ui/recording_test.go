package ui

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model/testutil"
)

// TestRecordingShown: with --record the header says the file and its
// size while it records (at 120 and 80 columns, in the group view and the
// overview), and once a write failed a banner says why, how far the file
// goes and that the watch goes on.
func TestRecordingShown(t *testing.T) {
	status := RecordingStatus{Path: "/var/tmp/incidents/2026-12-01-order-workers.kgw", Bytes: 1_234_567}
	rec := func() RecordingStatus { return status }
	for _, w := range []int{120, 80} {
		clk := testutil.NewClock(t0)
		a := New(Watch{Group: "order-workers", Source: &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}}, Options{
			Brokers: testBrokers, Interval: time.Second, Timeout: time.Second, Now: clk.Now, Recording: rec,
		})
		a.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		feed(t, a, a.Init())
		status.Err = nil
		a.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		if s := plain(a); !strings.Contains(s, "● rec …12-01-order-workers.kgw 1.2 MB") {
			t.Errorf("%d columns: recording not shown:\n%s", w, s)
		}
		status.Err = &fs.PathError{Op: "write", Path: status.Path, Err: syscall.ENOSPC}
		status.Until = t0.Add(-time.Minute)
		a.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		s := plain(a)
		if strings.Contains(s, "● rec") || !strings.Contains(s, "! recording stopped: no space left on device · …12-01-order-") {
			t.Errorf("%d columns: a stopped recording not said:\n%s", w, s)
		}
		if w == 120 && !strings.Contains(s, "…12-01-order-workers.kgw holds up to "+status.Until.Format("15:04:05")+" · the watch goes on") {
			t.Errorf("how far the file goes not said:\n%s", s)
		}
	}
	status = RecordingStatus{Path: "all.kgw", Bytes: 812}
	o := NewOverview(&fakeOverview{results: []overviewResult{{groups: overviewGroups()}}}, nil, Options{Brokers: testBrokers, Now: func() time.Time { return t0 }, Recording: rec}).overview
	if h := ansi.Strip(o.header(120)); !strings.Contains(h, "● rec all.kgw 812 B") {
		t.Errorf("overview: recording not shown: %q", h)
	}
	status.Err = errors.New("write all.kgw: input/output error")
	if h := ansi.Strip(o.header(120)); !strings.Contains(h, "! recording stopped: write all.kgw: input/output error · all.kgw holds nothing after its header") {
		t.Errorf("overview: a stopped recording not said: %q", h)
	}
}
