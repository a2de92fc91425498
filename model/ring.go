package model

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
type samples struct {
	buf [ringSize]sample
	cursor
}

// at returns sample i, 0 the oldest.
func (r *samples) at(i int) *sample { return &r.buf[r.slot(i, ringSize)] }

// newest returns the latest sample; the ring must not be empty.
func (r *samples) newest() *sample { return &r.buf[r.head] }

// pushSpaced adds c as the newest sample, or replaces the newest with it
// while that one is less than spacing after the sample before it.
func (r *samples) pushSpaced(c sample, spacing int64) {
	if r.n >= 2 && r.newest().t-r.at(int(r.n)-2).t < spacing {
		*r.newest() = c
		return
	}
	r.buf[r.next(ringSize)] = c
}
