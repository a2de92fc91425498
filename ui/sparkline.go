package ui

import (
	"strconv"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// sparkLevels are the eight heights of a sparkline cell, lowest first.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last w points as one cell each on a fixed scale,
// one level a decade: no lag is the bottom level, 1–9 the second, 10–99
// the third … a million or more the top. A steady lag in flight is a flat
// low line, and a line climbing a level means ten times the lag, whatever
// came before.
func sparkline(points []int64, w int) string {
	if w <= 0 || len(points) == 0 {
		return ""
	}
	if len(points) > w {
		points = points[len(points)-w:]
	}
	var b strings.Builder
	b.Grow(len(points) * 3)
	for _, p := range points {
		lvl := 0
		for v := p; v > 0 && lvl < len(sparkLevels)-1; v /= 10 {
			lvl++
		}
		b.WriteRune(sparkLevels[lvl])
	}
	return b.String()
}

// statusPaint returns the paint of a status; nothing for an unknown one.
func (s Styles) statusPaint(st model.Status) paint { return s.statuses[st] }

// barPaint colours a partition's lag bar and lag by its status, so a
// small lag on a stalled partition is red and a large one that is being
// worked off is not.
func (s Styles) barPaint(p *model.PartitionLag) paint {
	if p.Lag <= 0 {
		return s.lagNone
	}
	if p.Status == model.StatusOK || p.Status == "" {
		return s.lagLow
	}
	return s.statusPaint(p.Status)
}

// statusText is a status cell: glyph and word, or only the glyph when
// the column is too narrow for every row's word.
func statusText(st model.Status, words bool) string {
	if st == "" {
		return "-"
	}
	if words {
		return st.Label()
	}
	return st.Glyph()
}

// lagAgeText is the LAG AGE cell: "2m04s", "0s" with no lag, "gone" when
// the oldest unprocessed record was deleted by retention, "-" when no
// timestamp could be read.
func lagAgeText(p *model.PartitionLag) string {
	switch {
	case p.LagAgeGone:
		return "gone"
	case !p.LagAgeKnown:
		return "-"
	}
	return model.Age(p.LagAge)
}

// commitText is how long ago p's commit last moved, "-" before a move
// is seen.
func commitText(p *model.PartitionLag) string {
	if !p.CommitMoveSeen {
		return "-"
	}
	return model.Age(p.CommitDelay)
}

// rateNum writes a per-second rate compactly: 0, 0.4, 12, 1.2k, 35k, 1.2M;
// "-" when unknown.
func rateNum(r model.Rate) string {
	if !r.Known {
		return "-"
	}
	v := r.PerSec
	switch {
	case v == 0:
		return "0"
	case v < 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v < 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v < 10_000:
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + "k"
	case v < 1_000_000:
		return strconv.FormatFloat(v/1000, 'f', 0, 64) + "k"
	default:
		return strconv.FormatFloat(v/1_000_000, 'f', 1, 64) + "M"
	}
}

// perSec is a rate with its unit, "12/s"; "-" when unknown.
func perSec(r model.Rate) string {
	if !r.Known {
		return "-"
	}
	return rateNum(r) + "/s"
}

// rateText is the RATE cell: consume/produce per second, "12/15"; a rate
// not measured this poll shows its last value, marked "12~".
func rateText(p *model.PartitionLag) string {
	return rateNum(p.ConsumeRate) + staleMark(p.ConsumeRate) + "/" + rateNum(p.ProduceRate) + staleMark(p.ProduceRate)
}

func staleMark(r model.Rate) string {
	if r.Stale {
		return glyphStaleRate
	}
	return ""
}

// partName names a partition for the header: "orders/2".
func partName(tp model.TopicPartition) string {
	return model.Printable(tp.Topic) + "/" + strconv.Itoa(int(tp.Partition))
}

// worstText names the worst partition, its owner, its lag, its lag age and
// its status: "worst: orders/2 consumer-b 12,034 behind, 2m04s, ▴ LAGGING".
// Short drops the owner and the words, and the topic when the group reads
// only one ("worst p2 12,034 2m04s ▴").
func worstText(p *model.PartitionLag, short, oneTopic bool) string {
	owner := "unowned"
	if p.Owned() {
		owner = ownerText(p, false)
	}
	age := lagAgeText(p)
	if short {
		name := partName(p.TopicPartition)
		if oneTopic {
			name = "p" + strconv.Itoa(int(p.Partition))
		}
		s := "worst " + name + " " + model.Thousands(p.Lag)
		if age != "-" {
			s += " " + age
		}
		return s + " " + p.Status.Glyph()
	}
	s := "worst: " + partName(p.TopicPartition) + " " + owner + " " + model.Thousands(p.Lag) + " behind"
	switch {
	case p.LagAgeGone:
		s += ", oldest gone (retention)"
	case age != "-":
		s += ", " + age + " old"
	}
	return s + ", " + p.Status.Label()
}

// lagSegments are the header's items about lag: on the first line the
// group's status and total lag with its sparkline (and the worst
// partition, when it has no line of its own); on the second the consume
// vs produce rate and the verdict (ETA to zero lag, or falling behind).
// Short forms below 80 columns.
func (h Header) lagSegments() (lag, rates []string) {
	st, s := h.styles, &h.st.Snap
	if s.Status != "" {
		lag = append(lag, st.statusPaint(s.Status).Render(s.Status.Label()))
	}
	total := st.Label.Render("lag ") + st.Value.Render(model.Thousands(s.TotalLag))
	if w := h.fromStartMark(); w != "" { // the table's note says what it means
		total += st.Value.Render(w)
	}
	if sw := min(len(s.TotalLagHistory), h.width/8); sw >= 2 {
		total += " " + st.statusPaint(s.Status).Render(sparkline(s.TotalLagHistory, sw))
	}
	lag = append(lag, total)
	if h.maxLines < 3 {
		// No line of its own: the worst partition comes after the lag.
		if w := h.worstSegment(false); w != "" {
			lag = append(lag, w)
		}
	}
	if s.ConsumeRate.Known || s.ProduceRate.Known {
		consume, produce := "consume ", " vs produce "
		if h.width < 80 {
			consume, produce = "cons ", " prod "
		}
		rates = append(rates, st.Label.Render(consume)+st.Value.Render(perSec(s.ConsumeRate))+
			st.Label.Render(produce)+st.Value.Render(perSec(s.ProduceRate)))
	}
	switch {
	case s.FallingBehind:
		rates = append(rates, st.StateWarn.Render("falling behind"))
	case s.ETAKnown:
		rates = append(rates, st.Label.Render("zero lag in ")+st.Value.Render(model.Age(s.ETA)))
	}
	return lag, rates
}

// worstSegment is the worst partition as a header line (own: a line of its
// own) or a short segment; "" when nothing is wrong.
func (h Header) worstSegment(own bool) string {
	s := &h.st.Snap
	w, ok := h.worst()
	if !ok {
		return ""
	}
	oneTopic := s.Partitions[0].Topic == s.Partitions[len(s.Partitions)-1].Topic
	return h.styles.statusPaint(w.Status).Render(worstText(w, !own, oneTopic))
}
