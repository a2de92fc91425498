package headless

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// Every --once format prints a snapshot and an overview as its printers
// give them, under a name of its own; another name is a usage error
// listing them.
func TestFormats(t *testing.T) {
	snap := model.NewSnapshot(model.Observation{TakenAt: time.Date(2026, 3, 14, 3, 12, 40, 0, time.UTC), Group: model.Group{ID: "g", State: model.StateStable}})
	gs := []model.GroupSummary{{ID: "g", State: model.StateStable, Members: 2, Partitions: 3, Status: model.StatusOK}}
	seen := map[string]bool{}
	for _, f := range Formats() {
		if f.Name == "" || seen[f.Name] || f.Snapshot == nil || f.Overview == nil {
			t.Fatalf("format %+v: a name of its own and both printers", f)
		}
		seen[f.Name] = true
		got, err := LookupFormat(f.Name)
		if err != nil || got.Name != f.Name {
			t.Fatalf("LookupFormat(%q) = %q, %v", f.Name, got.Name, err)
		}
		var out, want bytes.Buffer
		f.Snapshot(&want, snap, f.View)
		if err := f.PrintSnapshot(&out, snap); err != nil || out.String() != want.String() || out.Len() == 0 {
			t.Errorf("%s snapshot: %q, %v; want %q", f.Name, out.String(), err, want.String())
		}
		out.Reset()
		wantOverview, _ := f.Overview(gs)
		if err := f.PrintOverview(&out, gs); err != nil || out.String() != string(wantOverview) || out.Len() == 0 {
			t.Errorf("%s overview: %q, %v; want %q", f.Name, out.String(), err, wantOverview)
		}
	}
	if got := FormatNames(); got != "table or json" {
		t.Errorf("FormatNames() = %q", got)
	}
	_, err := LookupFormat("yaml")
	var ue model.UsageError
	if !errors.As(err, &ue) || ue.Msg != `unknown output format "yaml": use table or json` {
		t.Errorf("LookupFormat(yaml) = %v", err)
	}
}
