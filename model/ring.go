package model

// sample is one poll of one partition (or, for the sparkline, of the
// group: lag is then the total).
type sample struct {
	t         int64 // unix nanoseconds
	committed int64
	logEnd    int64
	lag       int64
}

// ring is the one time-indexed ring of the history: samples oldest
// first, each at least spacing after the one before it except the newest,
// which is always the latest poll (push replaces it until spacing has
// passed). So a ring of n samples spans at least (n-2) × spacing whatever
// the poll interval, and its memory is fixed. buf is its storage, shared
// with nothing.
type ring struct {
	buf     []sample
	head, n int // head: index of the newest sample
}

func newRing(buf []sample) ring { return ring{buf: buf} }

// len is how many samples the ring holds.
func (r *ring) len() int { return r.n }

// at returns sample i, 0 the oldest.
func (r *ring) at(i int) *sample {
	return &r.buf[(r.head+len(r.buf)-r.n+1+i)%len(r.buf)]
}

// newest returns the latest sample; the ring must not be empty.
func (r *ring) newest() *sample { return &r.buf[r.head] }

// push adds c as the newest sample, or replaces the newest with it while
// that one is less than spacing after the sample before it: every sample
// but the newest is then at least spacing after the one before.
func (r *ring) push(c sample, spacing int64) {
	switch {
	case r.n == 0:
		r.head, r.n, r.buf[0] = 0, 1, c
		return
	case r.n >= 2 && r.newest().t-r.at(r.n-2).t < spacing:
		r.buf[r.head] = c
		return
	}
	r.head = (r.head + 1) % len(r.buf)
	r.buf[r.head] = c
	r.n = min(r.n+1, len(r.buf))
}

// clear forgets every sample.
func (r *ring) clear() { r.n = 0 }

// since returns the index of the oldest sample taken at or after t, r.len()
// when none was.
func (r *ring) since(t int64) int {
	for i := 0; i < r.n; i++ {
		if r.at(i).t >= t {
			return i
		}
	}
	return r.n
}
