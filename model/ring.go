package model

import "math"

// cursor is the one ring arithmetic of the history: where the values of a
// ring of size slots lie, head the newest of n. A ring's storage is its
// owner's (ring's slice, samples' array in place); cursor only counts.
type cursor struct {
	head, n int32 // head: index of the newest value
}

// slot is the index of value i, 0 the oldest, in storage of size slots.
func (c *cursor) slot(i, size int) int {
	j := int(c.head) - int(c.n) + 1 + i
	if j < 0 {
		j += size
	}
	return j
}

// next makes room for a newest value in storage of size slots, dropping
// the oldest when full, and returns its index.
func (c *cursor) next(size int) int {
	c.head++
	if int(c.head) == size {
		c.head = 0
	}
	if int(c.n) < size {
		c.n++
	}
	return int(c.head)
}

// len is how many values the ring holds.
func (c *cursor) len() int { return int(c.n) }

// drop forgets the k oldest values.
func (c *cursor) drop(k int) { c.n -= int32(min(k, int(c.n))) }

// clear forgets every value.
func (c *cursor) clear() { c.n = 0 }

// ring is a ring buffer of up to len(buf) values, oldest first. push drops
// the oldest when it is full, so memory stays fixed; add grows it instead,
// for a ring its owner trims by time (drop). Its storage is shared with
// nothing.
type ring[T any] struct {
	buf []T
	cursor
}

// newRing returns an empty ring holding at most size values.
func newRing[T any](size int) ring[T] { return ring[T]{buf: make([]T, size)} }

// at returns value i, 0 the oldest.
func (r *ring[T]) at(i int) *T { return &r.buf[r.slot(i, len(r.buf))] }

// newest returns the latest value; the ring must not be empty.
func (r *ring[T]) newest() *T { return &r.buf[r.head] }

// push adds v as the newest value, dropping the oldest when the ring is
// full.
func (r *ring[T]) push(v T) { r.buf[r.next(len(r.buf))] = v }

// add adds v as the newest value, doubling the storage when the ring is
// full rather than dropping the oldest.
func (r *ring[T]) add(v T) {
	if r.len() == len(r.buf) {
		buf := make([]T, max(2*len(r.buf), 4))
		for i := range r.len() {
			buf[i] = *r.at(i)
		}
		r.buf, r.head = buf, r.n-1
	}
	r.push(v)
}

// appendTo appends the values to dst, oldest first.
func (r *ring[T]) appendTo(dst []T) []T {
	for i := range r.len() {
		dst = append(dst, *r.at(i))
	}
	return dst
}

// sample is one poll of one partition. The lag a poll saw is not kept:
// nothing reads it back.
type sample struct {
	t         int64 // unix nanoseconds
	committed int64
	logEnd    int64
}

// samples is a partition's ring of polls, its ringSize samples held in
// place (no storage of their own to allocate, point to or scan): every
// sample but the newest is at least spacing after the one before it, and
// the newest is always the latest poll (pushSpaced replaces it until
// spacing has passed). So a ring of n samples spans at least (n-2) ×
// spacing whatever the poll interval, and its memory is fixed.
//
// A sample's time is held whole (rates, spacing and the look back for
// lag in time compare times to the nanosecond, as the poll clock gives
// them: a ring that held milliseconds read a 999.6 ms gap as 1 s and
// kept other samples than a ring of whole samples). Its offsets are held
// as their distances from the ring's base offsets, 4 bytes each: 216
// bytes for the ring where whole samples took 296 (8 MB less at 100,000
// partitions, 2.4 MB at 5,000 groups' 30,000 tracks). A ring's offsets
// move by what a partition takes in seconds: when a distance does not
// fit (an offset billions on), the base moves to the sample pushed, and
// older samples that do not fit from it are dropped.
type samples struct {
	t [ringSize]int64 // each sample's time, unix nanoseconds
	// baseC and baseE are the base offsets (negative: none read yet); dc
	// and de each sample's committed offset and log end as distances
	// from them (noOff: negative, not read).
	baseC, baseE int64
	dc, de       [ringSize]int32
	cursor
}

// noOff is the distance that stands for an offset not read (negative).
const noOff = math.MinInt32

// at returns sample i, 0 the oldest.
func (r *samples) at(i int) sample { return r.sample(r.slot(i, ringSize)) }

// sample decodes the sample in slot j.
func (r *samples) sample(j int) sample {
	return sample{t: r.t[j], committed: fromBase(r.dc[j], r.baseC), logEnd: fromBase(r.de[j], r.baseE)}
}

// newest returns the latest sample; the ring must not be empty.
func (r *samples) newest() sample { return r.sample(int(r.head)) }

// pushSpaced adds c as the newest sample, or replaces the newest with it
// while that one is less than spacing after the sample before it.
func (r *samples) pushSpaced(c sample, spacing int64) {
	if r.n >= 2 && r.t[r.head]-r.t[r.slot(int(r.n)-2, ringSize)] < spacing {
		r.put(int(r.head), c)
		return
	}
	r.put(r.next(ringSize), c)
}

// put writes c in slot j, the newest: from the ring's base, or from a
// base moved to c when c is not within reach of it.
func (r *samples) put(j int, c sample) {
	if r.n == 1 {
		r.baseC, r.baseE = c.committed, c.logEnd
	}
	// A base offset not read is taken from the first sample that read
	// one: every sample before it read none (noOff), nothing moves.
	if r.baseC < 0 {
		r.baseC = c.committed
	}
	if r.baseE < 0 {
		r.baseE = c.logEnd
	}
	dc, de, ok := r.distance(c)
	if !ok {
		r.rebase(c)
		j = int(r.head)
		dc, de, _ = r.distance(c)
	}
	r.t[j], r.dc[j], r.de[j] = c.t, dc, de
}

// distance is c's offsets' distance from the base; ok false when one
// does not fit.
func (r *samples) distance(c sample) (dc, de int32, ok bool) {
	var okC, okE bool
	dc, okC = toBase(c.committed, r.baseC)
	de, okE = toBase(c.logEnd, r.baseE)
	return dc, de, okC && okE
}

// rebase moves the base to c, the sample about to be written in the
// newest slot (r.head once it returns), keeping the older samples that
// fit from it: the newest of them, back to the first that does not.
func (r *samples) rebase(c sample) {
	var held [ringSize]sample
	old := int(r.n) - 1 // the samples before the newest
	for i := range old {
		held[i] = r.at(i)
	}
	// Each offset's base is c's, or, c not having read it, the newest
	// older sample's that did: one not read moves no sample out of reach.
	r.baseC, r.baseE = c.committed, c.logEnd
	for i := old - 1; i >= 0 && (r.baseC < 0 || r.baseE < 0); i-- {
		if r.baseC < 0 {
			r.baseC = held[i].committed
		}
		if r.baseE < 0 {
			r.baseE = held[i].logEnd
		}
	}
	from := old // the oldest kept
	for from > 0 {
		if _, _, ok := r.distance(held[from-1]); !ok {
			break
		}
		from--
	}
	r.n = 0
	for _, h := range held[from:old] {
		dc, de, _ := r.distance(h)
		r.t[r.n], r.dc[r.n], r.de[r.n] = h.t, dc, de
		r.n++
	}
	r.head = r.n // the newest's slot
	r.n++
}

// toBase is an offset's distance from base; ok false when it does not
// fit. A negative offset (not read) is noOff. A base not read (no sample
// held read one) is given one by put before it is asked.
func toBase(v, base int64) (int32, bool) {
	switch {
	case v < 0:
		return noOff, true
	case base < 0:
		return 0, false
	}
	d := v - base
	return int32(d), d > math.MinInt32 && d <= math.MaxInt32
}

// fromBase is the offset at distance d from base.
func fromBase(d int32, base int64) int64 {
	if d == noOff {
		return NoOffset
	}
	return base + int64(d)
}
