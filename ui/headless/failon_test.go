package headless

import (
	"errors"
	"strings"
	"testing"

	"github.com/kgwatch/kgwatch/model"
)

// FailOn.Event trips on a rebalance_storm for storm, on a status_changed
// at or past the status otherwise, and on nothing else.
func TestFailOnEvent(t *testing.T) {
	storm, err := ParseFailOn("storm", false, true, 3)
	if err != nil {
		t.Fatal(err)
	}
	lagging, err := ParseFailOn("lagging", false, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		f    FailOn
		e    model.Event
		trip bool
	}{
		{storm, model.Event{Type: model.EventRebalanceStorm, Detail: "rebalance storm"}, true},
		{storm, model.Event{Type: model.EventStatusChanged, State: "STOPPED"}, false},
		{lagging, model.Event{Type: model.EventStatusChanged, State: "STALLED", Detail: "p0 STALLED"}, true},
		{lagging, model.Event{Type: model.EventStatusChanged, State: "OK"}, false},
		{lagging, model.Event{Type: model.EventRebalanceStorm}, false},
		{lagging, model.Event{Type: model.EventMemberLeft, State: "LAGGING"}, false},
		{FailOn{}, model.Event{Type: model.EventStatusChanged, State: "STOPPED"}, false},
	} {
		err := tt.f.Event(tt.e)
		var fe FailOnError
		if got := errors.As(err, &fe); got != tt.trip || tt.trip && !strings.HasPrefix(fe.Msg, tt.e.Detail+" (--fail-on ") {
			t.Errorf("--fail-on %s, %s %s: %v, want trip %v", tt.f.word, tt.e.Type, tt.e.State, err, tt.trip)
		}
	}
}

// --once's verdict counts what is at or past the status; no --fail-on
// never trips.
func TestFailOnVerdict(t *testing.T) {
	lagging, err := ParseFailOn("LAGGING", true, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	ps := []model.PartitionLag{{Status: model.StatusOK}, {Status: model.StatusLagging}, {Status: model.StatusStopped}}
	if err := lagging.Partitions(ps); err == nil || err.Error() != "2 partitions at or past LAGGING (--fail-on lagging)" {
		t.Errorf("partitions: %v", err)
	}
	gs := []model.GroupSummary{{Status: model.StatusUnowned}}
	if err := lagging.Groups(gs); err == nil || err.Error() != "1 group at or past LAGGING (--fail-on lagging)" {
		t.Errorf("groups: %v", err)
	}
	if err := (FailOn{}).Partitions(ps); err != nil {
		t.Errorf("no --fail-on: %v", err)
	}
}
