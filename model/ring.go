package model

// ring is the history's one ring buffer: up to len(buf) values, oldest
// first. push drops the oldest when it is full, so memory stays fixed; add
// grows it instead, for a ring its owner trims by time (drop). Its storage
// is shared with nothing.
type ring[T any] struct {
	buf     []T
	head, n int // head: index of the newest value
}

// newRing returns an empty ring holding at most size values.
func newRing[T any](size int) ring[T] { return ring[T]{buf: make([]T, size)} }

// len is how many values the ring holds.
func (r *ring[T]) len() int { return r.n }

// at returns value i, 0 the oldest.
func (r *ring[T]) at(i int) *T {
	return &r.buf[(r.head+len(r.buf)-r.n+1+i)%len(r.buf)]
}

// newest returns the latest value; the ring must not be empty.
func (r *ring[T]) newest() *T { return &r.buf[r.head] }

// push adds v as the newest value, dropping the oldest when the ring is
// full.
func (r *ring[T]) push(v T) {
	r.head = (r.head + 1) % len(r.buf)
	r.buf[r.head] = v
	r.n = min(r.n+1, len(r.buf))
}

// add adds v as the newest value, doubling the storage when the ring is
// full rather than dropping the oldest.
func (r *ring[T]) add(v T) {
	if r.n == len(r.buf) {
		buf := make([]T, max(2*len(r.buf), 4))
		for i := range r.n {
			buf[i] = *r.at(i)
		}
		r.buf, r.head = buf, r.n-1
	}
	r.push(v)
}

// drop forgets the k oldest values.
func (r *ring[T]) drop(k int) { r.n -= min(k, r.n) }

// clear forgets every value.
func (r *ring[T]) clear() { r.n = 0 }

// appendTo appends the values to dst, oldest first.
func (r *ring[T]) appendTo(dst []T) []T {
	for i := range r.n {
		dst = append(dst, *r.at(i))
	}
	return dst
}

// sample is one poll of one partition.
type sample struct {
	t         int64 // unix nanoseconds
	committed int64
	logEnd    int64
	lag       int64
}

// samples is a partition's ring of polls: every sample but the newest is
// at least spacing after the one before it, and the newest is always the
// latest poll (pushSpaced replaces it until spacing has passed). So a ring
// of n samples spans at least (n-2) × spacing whatever the poll interval,
// and its memory is fixed.
type samples struct{ ring[sample] }

// pushSpaced adds c as the newest sample, or replaces the newest with it
// while that one is less than spacing after the sample before it.
func (r *samples) pushSpaced(c sample, spacing int64) {
	if r.n >= 2 && r.newest().t-r.at(r.n-2).t < spacing {
		*r.newest() = c
		return
	}
	r.push(c)
}
