package model

// sparkline records total lag and returns the points, oldest first. A
// point holds the latest total of its SparkEvery bucket.
func (h *History) sparkline(now, total int64) []int64 {
	if h.spark.len() == 0 || now-h.sparkStart >= int64(h.opts.SparkEvery) {
		h.spark.push(total)
		h.sparkStart = now
	} else {
		*h.spark.newest() = total
	}
	return h.spark.appendTo(make([]int64, 0, h.spark.len()))
}
