package model

import "fmt"

// DemoActor is a running demo as the demo keys act on it: kafka/demo's
// Demo, and whatever stands in for it.
type DemoActor interface {
	Spawn() (clientID string, err error)
	Stop(clientID string) error
	Kill(clientID string) error
	Restart(clientID string) error
	ToggleSlow(clientID string) (on bool, err error)
	TogglePause() (on bool)
	SetRate(perSec float64)
	ToggleHotKey() (on bool)
	RollingRestart() (consumers int, err error)
	Poison() (order DemoPoisonOrder, produced bool, err error)
}

// Do does what a asks of d: a member action on the consumer a names, or
// one on the whole demo.
func (a DemoAction) Do(d DemoActor) (DemoOutcome, error) {
	var out DemoOutcome
	var err error
	switch a.Kind {
	case DemoSpawn:
		out.ClientID, err = d.Spawn()
	case DemoStop:
		err = d.Stop(a.ClientID)
	case DemoKill:
		err = d.Kill(a.ClientID)
	case DemoRestart:
		err = d.Restart(a.ClientID)
	case DemoSlow:
		out.On, err = d.ToggleSlow(a.ClientID)
	case DemoPause:
		out.On = d.TogglePause()
	case DemoRate:
		d.SetRate(a.Rate)
	case DemoHotKey:
		out.On = d.ToggleHotKey()
	case DemoRolling:
		out.Count, err = d.RollingRestart()
	case DemoPoison:
		out.Poison, out.On, err = d.Poison()
	default:
		err = fmt.Errorf("demo action %q: unknown", a.Kind)
	}
	return out, err
}
