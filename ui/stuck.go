package ui

import "github.com/kgwatch/kgwatch/model"

// stuckLineFrom is the least height at which the group page's header
// shows, under the worst partition, the record it is stuck on.
const stuckLineFrom = 20

// stuckLine is the header's line for the record the worst partition is
// stuck on (model.PartitionLag.StuckOn: STALLED, or LAGGING on a record
// older than --stall-after): "stuck at offset 1,234 since 14:02:11,
// record written 14:01:58, 512 B, key order-42, headers trace-id=abc";
// "" when it is not stuck or the record was not read. Where that does
// not fit, the short form (model.StuckShort) puts key and headers first. It comes and goes
// with the stall, not with each poll: a STALLED partition stays so until
// its commit moves. Key and headers arrive printable (model.KeyText).
func (h Header) stuckLine() string {
	w, ok := h.worst()
	if !ok {
		return ""
	}
	r, ok := w.StuckOn(h.st.StallAfter)
	if !ok {
		return ""
	}
	text := model.StuckText(w, r, h.st.Now)
	if textWidth(text) > h.width {
		// Narrower: the key and headers first, so they are what stays.
		text = model.StuckShort(w, r, h.st.Now)
	}
	return h.styles.statusPaint(w.Status).Render(text)
}
