package record

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"
)

// Format 4 writes a slice column by column (the schema's kind "columns";
// formats 1 to 3 wrote it row by row, kind "slice", which decode.go still
// reads), so that one leaf's values come together and a leaf that moved
// in no element costs one bit: its length (0 for nil, else length+1);
// under fewElems elements, its rows (encoder.rows); else the mask of the
// element's leaves that differ in any element (from the element at the
// same index before, or the zero value past the previous slice's end),
// the count of the number leaves among them, then each of those in the
// order the writer chose, as its index and its column, then the other
// leaves of the mask in order, as their columns.
//
// A number column (an integer, a duration) is its prediction (colDelta
// and the rest, shifted left, its low bit set when it is range-coded),
// the leaves the prediction refers to, then each element's value less
// its prediction: as varints (a duration as in format 2), or, when that
// is smaller, through the range coder (rangecoder.go): the context leaf
// (+1, 0 for none, shifted left, its low bit set for durations coded as
// whole milliseconds), the coded bytes' length, the bytes. A leaf
// referred to, or the context's, is read as the reader's row holds it
// then: new for the number leaves before in the order, as before for the
// rest. The writer puts first the leaf cheapest to write knowing those
// before it (greedily: a lag alone, its log end by its difference from
// the poll before, then its commit, the log end less the lag, is
// nothing), each by the prediction whose residuals have the least
// entropy on a sample (colSample); an age written as itself costs less
// than its difference from the age before, and is split by whether the
// lag is 0 (context).
//
// Format 5 carries each number column's range coder models from one
// record to the next (rangecoder.go: carriedModels), writes the count
// of the number leaves shifted left, its low bit set when the columns'
// heads (each leaf's index, prediction, context and coding: all but the
// coded bytes' length and the numbers) are the slice's last ones again,
// then left out; then (when there are number leaves) the length of the
// range coder's bytes of all its coded columns, one stream, and the
// bytes, the columns after them holding none of their own; models and
// heads start afresh at a keyframe. It may predict a column from the
// element before (colPrev).
//
// A bool column is whether the bitmap that follows holds the elements'
// flips or their values (whichever has less entropy), then the bitmap.
// Any other column is a bitmap of the elements that differ, then each of
// those, as a leaf of a value is written (a slice within: its columns).

// Predictions of a number column. The byte values are part of the format.
const (
	colDelta = iota // its difference from the element before
	colValue        // itself
	colRef          // its difference from leaf a of the same element
	colRef2         // its difference from leaf a less leaf b of the same element
	// colPrev (format 5) is its difference from the element before
	// (the first's from 0): partition numbers that count up, log
	// starts and ends that step, in a keyframe's whole snapshot.
	colPrev
	numCol
)

// colSample bounds the elements the writer tries each prediction on.
const colSample = 256

// fewElems: a slice of fewer elements is written row by row, as formats
// 1 to 3 wrote every slice (encoder.rows): for so few, the columns' heads
// cost more than they save. (At 3 busy partitions rows are 1.5 bytes a
// poll smaller than columns; at 10 members whose lags all move, columns
// are 50 bytes smaller.)
const fewElems = 4

type colPred struct{ mode, a, b int }

// numeric reports whether a leaf of kind k is a number column, which
// another may refer to.
func numeric(k kind) bool { return k == kindInt || k == kindUint || k == kindDuration }

// num is the number in leaf l of the element at p, an unsigned one as
// its bits.
func (l *leaf) num(p unsafe.Pointer) int64 {
	f := l.at(p)
	if l.kind == kindUint {
		return int64(l.getUint(f))
	}
	return l.getInt(f)
}

func (l *leaf) setNum(p unsafe.Pointer, v int64) {
	f := l.at(p)
	if l.kind == kindUint {
		l.setUint(f, uint64(v))
		return
	}
	l.setInt(f, v)
}

// prevElem is element i of prev, or the zero value past its end.
func (c *codec) prevElem(prev *sliceHeader, i int) unsafe.Pointer {
	if i < prev.len {
		return c.elemAt(prev, i)
	}
	return c.zero
}

// slab is a slice being written column by column, and what the reader
// holds of its rows at each point: a number leaf already written holds
// the new values, any other the previous ones.
type slab struct {
	c         *codec
	prev, cur *sliceHeader
	n         int
	written   []uint64 // the number leaves written so far
}

func (s *slab) isWritten(a int) bool { return s.written[a/64]&(1<<(a%64)) != 0 }

// held is number leaf a of element j as the reader holds it.
func (s *slab) held(a, j int) int64 {
	if s.isWritten(a) {
		return s.c.leaves[a].num(s.c.elemAt(s.cur, j))
	}
	return s.c.leaves[a].num(s.c.prevElem(s.prev, j))
}

// residual is number leaf i of element j less its prediction p.
func (s *slab) residual(p colPred, i, j int) int64 {
	v := s.c.leaves[i].num(s.c.elemAt(s.cur, j))
	switch p.mode {
	case colDelta:
		return v - s.held(i, j)
	case colRef:
		return v - s.held(p.a, j)
	case colRef2:
		return v - s.held(p.a, j) + s.held(p.b, j)
	case colPrev:
		if j == 0 {
			return v
		}
		return v - s.c.leaves[i].num(s.c.elemAt(s.cur, j-1))
	}
	return v
}

// columns appends the slice cur against prev, column by column: the mask
// of the leaves that differ, the number leaves among them in the order
// chosen (cheapest first: each may be predicted from those before it),
// then the others in order.
func (e *encoder) columns(c *codec, prev, cur *sliceHeader) {
	if cur.data == nil {
		e.buf = binary.AppendUvarint(e.buf, 0)
		return
	}
	n := cur.len
	e.buf = binary.AppendUvarint(e.buf, uint64(n)+1)
	if n < fewElems {
		e.rows(c, prev, cur)
		return
	}
	words := (len(c.leaves) + 63) / 64
	start := len(e.mask)
	for range 2 * words {
		e.mask = append(e.mask, 0)
	}
	mask := e.mask[start : start+words]
	s := slab{c: c, prev: prev, cur: cur, n: n, written: e.mask[start+words : start+2*words]}
	// Row by row (a row's leaves are near each other in memory), each
	// leaf until it is found to differ.
	left := len(c.leaves)
	for j := 0; j < n && left > 0; j++ {
		p, q := c.prevElem(prev, j), c.elemAt(cur, j)
		for i := range c.leaves {
			if mask[i/64]&(1<<(i%64)) == 0 && !equalLeaf(&c.leaves[i], p, q) {
				mask[i/64] |= 1 << (i % 64)
				left--
			}
		}
	}
	var nums []int
	for i := range c.leaves {
		if mask[i/64]&(1<<(i%64)) != 0 && numeric(c.leaves[i].kind) {
			nums = append(nums, i)
		}
	}
	for _, w := range mask {
		e.buf = binary.AppendUvarint(e.buf, w)
	}
	count := uint64(len(nums))
	sec := len(e.buf)
	// The columns' heads (each leaf, its prediction, how it is coded)
	// are noted as written: the same as the slice's before are written
	// once (format 5: the count shifted left, its low bit set, then the
	// columns without their heads).
	e.heads = e.heads[:0]
	e.rc.init(e.rcbuf[:0])
	e.rcUsed = false
	for len(nums) > 0 {
		k, pred, cost := 0, colPred{}, math.Inf(1)
		for x, i := range nums {
			if p, h := e.predict(&s, i); h < cost {
				k, pred, cost = x, p, h
			}
		}
		i := nums[k]
		nums = append(nums[:k], nums[k+1:]...)
		at := len(e.buf)
		e.buf = binary.AppendUvarint(e.buf, uint64(i))
		end := e.numColumn(&s, i, pred)
		e.heads = append(e.heads, at-sec, end-sec)
		s.written[i/64] |= 1 << (i % 64)
	}
	e.section = append(e.section[:0], e.buf[sec:]...)
	e.buf = e.buf[:sec]
	var stream []byte
	if e.rcUsed {
		stream = e.rc.finish()
	}
	e.head = e.head[:0]
	for k := 0; k < len(e.heads); k += 2 {
		e.head = append(e.head, e.section[e.heads[k]:e.heads[k+1]]...)
	}
	last := e.lastHeads[c]
	if count > 0 && last != nil && bytes.Equal(*last, e.head) {
		e.buf = binary.AppendUvarint(e.buf, count<<1|1)
		e.buf = binary.AppendUvarint(e.buf, uint64(len(stream)))
		e.buf = append(e.buf, stream...)
		for k := 0; k < len(e.heads); k += 2 {
			end := len(e.section)
			if k+2 < len(e.heads) {
				end = e.heads[k+2]
			}
			e.buf = append(e.buf, e.section[e.heads[k+1]:end]...)
		}
	} else {
		e.buf = binary.AppendUvarint(e.buf, count<<1)
		if count > 0 {
			e.buf = binary.AppendUvarint(e.buf, uint64(len(stream)))
			e.buf = append(e.buf, stream...)
		}
		e.buf = append(e.buf, e.section...)
		if last == nil {
			if e.lastHeads == nil {
				e.lastHeads = make(map[*codec]*[]byte)
			}
			last = new([]byte)
			e.lastHeads[c] = last
		}
		*last = append((*last)[:0], e.head...)
	}
	e.rcbuf = e.rc.out[:0]
	for i := range c.leaves {
		if mask[i/64]&(1<<(i%64)) != 0 && !numeric(c.leaves[i].kind) {
			e.column(c, i, prev, cur)
		}
	}
	e.mask = e.mask[:start]
}

// column appends leaf i, not a number, of every element of cur.
func (e *encoder) column(c *codec, i int, prev, cur *sliceHeader) {
	l := &c.leaves[i]
	n := cur.len
	if l.kind == kindBool {
		nb := (n + 7) / 8
		at := len(e.buf)
		e.buf = appendZeros(e.buf, 1+2*nb)
		flips, vals := e.buf[at+1:at+1+nb], e.buf[at+1+nb:at+1+2*nb]
		for j := range n {
			p, q := *(*bool)(l.at(c.prevElem(prev, j))), *(*bool)(l.at(c.elemAt(cur, j)))
			if p != q {
				flips[j/8] |= 1 << (j % 8)
			}
			if q {
				vals[j/8] |= 1 << (j % 8)
			}
		}
		if entropy(vals) < entropy(flips) {
			e.buf[at] = 1
			copy(flips, vals)
		}
		e.buf = e.buf[:at+1+nb]
		return
	}
	at := len(e.buf)
	e.buf = appendZeros(e.buf, (n+7)/8)
	for j := range n {
		if !equalLeaf(l, c.prevElem(prev, j), c.elemAt(cur, j)) {
			e.buf[at+j/8] |= 1 << (j % 8)
		}
	}
	for j := range n {
		if e.buf[at+j/8]&(1<<(j%8)) != 0 {
			e.leaf(l, c.prevElem(prev, j), c.elemAt(cur, j))
		}
	}
}

// predict is the prediction of number leaf i whose residuals have the
// least entropy on a sample of the elements, and that entropy: its delta,
// itself, its difference from any other number leaf as held, or from
// the difference of two leaves written before it, or from the element
// before.
func (e *encoder) predict(s *slab, i int) (colPred, float64) {
	kind := s.c.leaves[i].kind
	step := max(1, s.n/colSample)
	best, cost := colPred{mode: colDelta}, math.Inf(1)
	try := func(p colPred) {
		e.scratch = e.scratch[:0]
		for j := 0; j < s.n; j += step {
			e.scratch = appendNum(kind, e.scratch, s.residual(p, i, j))
		}
		if h := entropy(e.scratch); h < cost {
			best, cost = p, h
		}
	}
	try(colPred{mode: colDelta})
	try(colPred{mode: colValue})
	if s.prev.len < s.n/2 {
		// Mostly new rows (a keyframe's): nothing before to move from.
		try(colPred{mode: colPrev})
	}
	for a := range s.c.leaves {
		if a != i && numeric(s.c.leaves[a].kind) {
			try(colPred{mode: colRef, a: a})
		}
	}
	for a := range s.c.leaves {
		for b := range s.c.leaves {
			if a != b && s.isWritten(a) && s.isWritten(b) {
				try(colPred{mode: colRef2, a: a, b: b})
			}
		}
	}
	return best, cost
}

// context is the number leaf (-1: none) by whose value, as held, the
// range coder best splits the residuals of leaf i (predicted by p) in
// numCtx contexts: an age is 0 where the lag is, and spread out where it
// is not.
func (e *encoder) context(s *slab, i int, p colPred) int {
	kind := s.c.leaves[i].kind
	step := max(1, s.n/colSample)
	all := e.parts[numCtx][:0]
	for j := 0; j < s.n; j += step {
		all = appendNum(kind, all, s.residual(p, i, j))
	}
	e.parts[numCtx] = all
	// A context must earn the models it adds.
	best, cost := -1, entropy(all)*0.95-64
	parts := e.parts[:numCtx]
	for a := range s.c.leaves {
		if a == i || !numeric(s.c.leaves[a].kind) {
			continue
		}
		for b := range parts {
			parts[b] = parts[b][:0]
		}
		for j := 0; j < s.n; j += step {
			b := bucket(s.held(a, j))
			parts[b] = appendNum(kind, parts[b], s.residual(p, i, j))
		}
		var h float64
		for _, part := range parts {
			h += entropy(part)
		}
		if h < cost {
			best, cost = a, h
		}
	}
	return best
}

// numCtx is the contexts a number column may be split in, by the bit
// length of another leaf's value: 0, 1, 2 and more.
const numCtx = 2

func bucket(v int64) int {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	return min(bits.Len64(u), numCtx-1)
}

// numColumn appends number leaf i of every element of cur, predicted by
// p: as varints, or through the range coder (in its context, when that
// pays), whichever is smaller. head is where its head (the prediction,
// how it is coded) ends in buf.
func (e *encoder) numColumn(s *slab, i int, p colPred) (head int) {
	kind := s.c.leaves[i].kind
	e.scratch = e.scratch[:0]
	for j := range s.n {
		e.scratch = appendNum(kind, e.scratch, s.residual(p, i, j))
	}
	est := deflated(e.scratch)
	how := codePlain
	if kind == kindDuration {
		how = codeMillis
		for j := range s.n {
			if s.residual(p, i, j)%1e6 != 0 {
				how = codeSplit
				break
			}
		}
	}
	ctx := e.context(s, i, p)
	// The column's models, as the records since the keyframe left them
	// (format 5), saved: a column written as varints leaves them as
	// they were, as the reader, who codes none of its numbers, does.
	cm := e.carried.of(s.c, i*numCol+p.mode)
	nctx := 1
	if ctx >= 0 {
		nctx = numCtx
	}
	var ms [numCtx]*[2]numModel
	for b := range nctx {
		ms[b] = e.carried.ctx(cm, b)
		e.saved[b] = *ms[b]
	}
	// Coded on trial into the slice's stream (format 5: one for all
	// its coded columns), taken back when varints are smaller.
	before := e.rc
	from := len(e.rc.out) + e.rc.cacheSize
	for j := range s.n {
		b := 0
		if ctx >= 0 {
			b = bucket(s.held(ctx, j))
		}
		e.rc.column(how, ms[b], s.residual(p, i, j))
	}
	coded := len(e.rc.out)+e.rc.cacheSize-from < est*5/4+8
	if !coded {
		e.rc = before
		for b := range nctx {
			*ms[b] = e.saved[b]
		}
	}
	e.rcUsed = e.rcUsed || coded
	m := uint64(p.mode) << 1
	if coded {
		m |= 1
	}
	e.buf = binary.AppendUvarint(e.buf, m)
	switch p.mode {
	case colRef:
		e.buf = binary.AppendUvarint(e.buf, uint64(p.a))
	case colRef2:
		e.buf = binary.AppendUvarint(e.buf, uint64(p.a))
		e.buf = binary.AppendUvarint(e.buf, uint64(p.b))
	}
	if !coded {
		head = len(e.buf)
		e.buf = append(e.buf, e.scratch...)
		return head
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(ctx+1)<<1|uint64(how&1))
	return len(e.buf)
}

// deflated is about what deflate makes of b: its entropy, and a little
// for each run its matches stand for.
func deflated(b []byte) int { return int(entropy(b)/8) + len(b)/128 + 1 }

// appendNum appends a number of a column: a duration as whole
// milliseconds and what is left (as format 2 writes a duration's
// difference), any other as a varint.
func appendNum(k kind, buf []byte, x int64) []byte {
	if k != kindDuration {
		return binary.AppendVarint(buf, x)
	}
	q, r := x/1e6, x%1e6
	if r == 0 {
		return binary.AppendVarint(buf, q<<1)
	}
	buf = binary.AppendVarint(buf, q<<1|1)
	return binary.AppendVarint(buf, r)
}

func appendZeros(buf []byte, n int) []byte {
	for range n {
		buf = append(buf, 0)
	}
	return buf
}

// entropy is the order-0 entropy of b in bits: what a Huffman code of its
// bytes would take, near enough to choose between two ways of writing it.
func entropy(b []byte) float64 {
	var hist [256]int
	for _, x := range b {
		hist[x]++
	}
	n := float64(len(b))
	var h float64
	for _, k := range hist {
		if k > 0 {
			h += float64(k) * math.Log2(n/float64(k))
		}
	}
	return h
}
