package ui

import (
	"strconv"

	"github.com/kgwatch/kgwatch/model"
)

// The demo keys that play the lag note's operations checklist: a rolling
// restart of every consumer (R) and a poison order (P), and what the
// screen says while they run.

// Glyphs of a rolling restart and a poison order, as their events' glyphs
// (model.EventTypes: demo_restarted, demo_poison).
const (
	glyphRolling = "↻"
	glyphPoison  = "⊗"
)

// sayRolling answers R.
func sayRolling(o model.DemoOutcome, _ model.DemoAction, c sayCtx) string {
	s := "rolling restart of " + model.Count(o.Count, "consumer") + ": each restarted in turn, the next once it is back in the group"
	if c.set.Static {
		return s + "; static members, so no rebalance if each is back within " + model.Setting(c.set.SessionTimeout)
	}
	return s + "; the timeline tells it as one rolling deploy, with the rebalances it cost"
}

// sayPoison answers P: a poison order produced, or skipped.
func sayPoison(o model.DemoOutcome, _ model.DemoAction, _ sayCtx) string {
	po := o.Poison
	where := model.PartName(po.Partition, false)
	if !o.On {
		return po.OrderID + " skipped, as to a dead-letter topic: its owner commits past it and " + where + " moves on"
	}
	return po.OrderID + " on " + where + " at offset " + strconv.FormatInt(po.Offset, 10) +
		": its owner cannot process it and commits nothing past it, so " + where + " stalls as its lag grows; P again skips it"
}

// playSegments are the producer line's words on a rolling restart or a
// poison order in progress: "↻ rolling restart 2/3: consumer-b",
// "⊗ poison-000001 stuck at p1 offset 41 (P skips it)".
func (p LedgerPane) playSegments() []string {
	if !p.has {
		return nil
	}
	st := p.styles
	var segs []string
	if r := p.st.Rolling; r.Of > 0 {
		segs = append(segs, st.StateWarn.Render(glyphRolling+" rolling restart "+strconv.Itoa(r.Done+1)+"/"+strconv.Itoa(r.Of)+": "+r.Current))
	}
	if po := p.st.Poison; po.OrderID != "" {
		segs = append(segs, st.StateBad.Render(glyphPoison+" "+po.OrderID+" stuck at "+model.PartName(po.Partition, false)+
			" offset "+model.Offset(po.Offset))+st.Muted.Render(" (P skips it)"))
	}
	return segs
}

// poisonNote is a member's note while it fails on a poison order:
// "⊗ poison at p1 offset 41 · failed 12 times"; "" when it is not.
func poisonNote(c model.DemoConsumer) string {
	if c.PoisonTries == 0 {
		return ""
	}
	return glyphPoison + " poison at " + model.PartName(c.PoisonPartition, false) + " offset " +
		model.Offset(c.PoisonOffset) + " · failed " + model.Count(c.PoisonTries, "time")
}
