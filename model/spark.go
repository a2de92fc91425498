package model

// sparkline records total lag and returns the points, oldest first. A
// point holds the latest total of its SparkEvery bucket. The slice is the
// caller's: History never writes it again.
func (h *History) sparkline(now, total int64) []int64 {
	if h.spark.len() == 0 || now-h.sparkStart >= int64(h.opts.SparkEvery) {
		h.spark.push(total)
		h.sparkStart = now
	} else {
		*h.spark.newest() = total
	}
	n := h.spark.len()
	if cap(h.sparkSlab)-len(h.sparkSlab) < n {
		h.sparkSlab = make([]int64, 0, sparkSlabs*len(h.spark.buf))
	}
	from := len(h.sparkSlab)
	h.sparkSlab = h.spark.appendTo(h.sparkSlab)
	return h.sparkSlab[from:len(h.sparkSlab):len(h.sparkSlab)]
}

// sparkSlabs sparklines are cut from one allocation (History.sparkSlab):
// a poll costs no allocation of its own, and a slab lives while a
// snapshot holds one of its sparklines.
const sparkSlabs = 32
