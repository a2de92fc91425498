package ui

import (
	"github.com/kgwatch/kgwatch/model"
)

// rebalanceSegments are the header's items on the group's rebalances:
// how many the last 10 minutes counted ("7 rebalances/10m (2 inferred)")
// and the partition-time they stopped ("41s stopped"); none until one
// happened within the hour. Past --max-rebalances (model.RebalanceStorm)
// the count is marked with rebalance_storm's glyph, in the bad state's
// paint, so the mark does not ride on colour alone. They come after the
// age of the data and the member count, so they give way before those on
// a narrow screen, and after them the group's protocol and brokers.
func rebalanceSegments(st Styles, r model.RebalanceStats) []string {
	if !r.Measured() || r.Hour.Count == 0 {
		return nil
	}
	w := r.Window(model.StormWindow)
	count := st.Value.Render(model.RebalanceCount(w, "/"+model.Setting(model.StormWindow)))
	if model.RebalanceStorm(r, r.Max) {
		spec, _ := model.EventRebalanceStorm.Spec()
		count = st.StateBad.Render(spec.Glyph + " " + model.RebalanceCount(w, "/"+model.Setting(model.StormWindow)))
	}
	segs := []string{count}
	if w.Stopped > 0 {
		segs = append(segs, st.Value.Render(model.Age(w.Stopped))+st.Label.Render(" stopped"))
	}
	return segs
}
