package ui

import (
	"math/bits"
	"slices"

	"github.com/kgwatch/kgwatch/model"
)

// order is the partition table's rows sorted lazily: only the rows asked
// for (the window on screen, the cursor's) are put in their sorted places;
// the others are only known to lie on the right side of them. A poll of
// 100,000 partitions then costs a few passes over the rows (a selection)
// instead of a sort, and a key that scrolls within what is placed costs
// nothing. The order is total (model.ComparePartitions), so the rows a
// window shows are the very rows a full sort puts there.
//
// Invariant: rows[lo:hi] are in their sorted places, every row of
// rows[:lo] comes before them and every row of rows[hi:] after them.
type order struct {
	rows   []*model.PartitionLag
	cmp    func(a, b *model.PartitionLag) int
	lo, hi int
}

// reset takes new rows, in any order, to be ordered by cmp.
func (o *order) reset(rows []*model.PartitionLag, cmp func(a, b *model.PartitionLag) int) {
	o.rows, o.cmp, o.lo, o.hi = rows, cmp, 0, 0
}

// minPlace is the fewest rows a placement puts in place: a screenful or
// two, so the rows around the window are ready for j/k.
const minPlace = 128

// place puts rows [a, b) in their sorted places. A range next to the
// placed one grows it by at least its own size, so paging through n rows
// costs O(n log n) in all, as one sort would.
func (o *order) place(a, b int) {
	n := len(o.rows)
	a, b = max(a, 0), min(b, n)
	if a >= b || a >= o.lo && b <= o.hi {
		return
	}
	if o.cmp == nil {
		return // never reset: rows as given
	}
	placed := o.hi - o.lo
	grow := max(placed, minPlace)
	switch {
	case placed == 0:
		a, b = max(0, a-minPlace/4), min(n, max(b, a+minPlace))
		o.selectRange(0, n, a, b)
		o.lo, o.hi = a, b
	case b < o.lo: // above, apart
		a = max(0, min(a, b-minPlace))
		o.selectRange(0, o.lo, a, b)
		o.lo, o.hi = a, b
	case a > o.hi: // below, apart
		b = min(n, max(b, a+minPlace))
		o.selectRange(o.hi, n, a, b)
		o.lo, o.hi = a, b
	default: // touching the placed rows: grow them
		if a < o.lo {
			a = max(0, min(a, o.lo-grow))
			o.selectRange(0, o.lo, a, o.lo)
			o.lo = a
		}
		if b > o.hi {
			b = min(n, max(b, o.hi+grow))
			o.selectRange(o.hi, n, o.hi, b)
			o.hi = b
		}
	}
}

// selectRange puts rows [a, b) in their sorted places, where rows[from:to]
// hold exactly the rows of ranks from to to-1 (in any order) and
// from <= a < b <= to. Near either end a heap picks the rows in one pass
// (the rows on screen are most often the first: 100,000 rows are then
// compared about once each); elsewhere introselect does, in a few.
func (o *order) selectRange(from, to, a, b int) {
	s := o.rows[from:to]
	i, j := a-from, b-from
	switch {
	case j <= heapSelectMax:
		o.heapSelect(s, j, true)
		slices.SortFunc(s[:j], o.cmp)
		return
	case len(s)-i <= heapSelectMax:
		o.heapSelect(s, len(s)-i, false)
		slices.SortFunc(s[i:], o.cmp)
		return
	}
	if i > 0 {
		o.nth(s, i)
	}
	if j < len(s) {
		o.nth(s[i:], j-i)
	}
	slices.SortFunc(s[i:j], o.cmp)
}

// heapSelectMax is the most rows heapSelect picks: past it, a heap's log
// factor costs more than introselect's passes.
const heapSelectMax = 4096

// heapSelect moves to the front of s (first) or to its back the k rows a
// sort puts there. It keeps them in a heap whose root is the one nearest
// the others (the last of the first k, the first of the last k), and
// compares every other row with the root once.
func (o *order) heapSelect(s []*model.PartitionLag, k int, first bool) {
	if k <= 0 || k >= len(s) {
		return
	}
	h, rest := s[:k], s[k:]
	above := func(x, y *model.PartitionLag) bool { return o.cmp(x, y) > 0 }
	if !first {
		h, rest = s[len(s)-k:], s[:len(s)-k]
		above = func(x, y *model.PartitionLag) bool { return o.cmp(x, y) < 0 }
	}
	for i := k/2 - 1; i >= 0; i-- {
		siftDown(h, i, above)
	}
	for i := range rest {
		if above(h[0], rest[i]) {
			h[0], rest[i] = rest[i], h[0]
			siftDown(h, 0, above)
		}
	}
}

// siftDown moves h[i] down the heap h until no child is above it.
func siftDown(h []*model.PartitionLag, i int, above func(x, y *model.PartitionLag) bool) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && above(h[c+1], h[c]) {
			c++
		}
		if !above(h[c], h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// nth partitions s so that s[k] is the row a sort would put there, every
// row before it comes before it and every row after it after it
// (introselect: quickselect that sorts when it recurses too deep, so its
// worst case is a sort's).
func (o *order) nth(s []*model.PartitionLag, k int) {
	depth := 2 * bits.Len(uint(len(s)))
	for len(s) > 16 {
		if depth == 0 {
			slices.SortFunc(s, o.cmp)
			return
		}
		depth--
		j := o.partition(s, o.pivot(s))
		switch {
		case k == j:
			return
		case k < j:
			s = s[:j]
		default:
			s, k = s[j+1:], k-j-1
		}
	}
	slices.SortFunc(s, o.cmp)
}

// partition moves the rows of s that come before s[p] in front of it and
// the others after it, and returns where s[p] then is.
func (o *order) partition(s []*model.PartitionLag, p int) int {
	s[0], s[p] = s[p], s[0]
	pv := s[0]
	i, j := 1, len(s)-1
	for {
		for i <= j && o.cmp(s[i], pv) < 0 {
			i++
		}
		for i <= j && o.cmp(s[j], pv) > 0 {
			j--
		}
		if i >= j {
			break
		}
		s[i], s[j] = s[j], s[i]
		i++
		j--
	}
	s[0], s[j] = s[j], s[0]
	return j
}

// pivot picks the index of a pivot for s: the median of three, or of three
// medians of three on longer slices, so sorted and reversed rows (the
// previous poll's order) partition evenly.
func (o *order) pivot(s []*model.PartitionLag) int {
	n := len(s)
	a, b, c := 0, n/2, n-1
	if n >= 128 {
		d := n / 8
		a, b, c = o.median(a, a+d, a+2*d, s), o.median(b-d, b, b+d, s), o.median(c-2*d, c-d, c, s)
	}
	return o.median(a, b, c, s)
}

// median returns whichever of s[a], s[b], s[c] lies between the others.
func (o *order) median(a, b, c int, s []*model.PartitionLag) int {
	if o.cmp(s[a], s[b]) > 0 {
		a, b = b, a
	}
	if o.cmp(s[b], s[c]) > 0 {
		b = c
		if o.cmp(s[a], s[b]) > 0 {
			b = a
		}
	}
	return b
}

// placeRow puts rows[i] in its sorted place, in one pass over the rows
// (which it partitions around it), and returns that place. The placed
// range is then that row alone, which the window grows from.
func (o *order) placeRow(i int) int {
	if o.cmp == nil {
		return i
	}
	r := o.partition(o.rows, i)
	o.lo, o.hi = r, r+1
	return r
}
