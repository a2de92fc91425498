package record

import (
	"math/bits"
	"unsafe"
)

// A number column may be written through a range coder (LZMA's, with
// adaptive binary probabilities) rather than as varints: deflate codes
// every byte of a poll with one Huffman table, where a log end that moves
// by 0 to 7 and an age of up to 400ms would each want their own, and a
// Huffman code spends a whole bit at least on every symbol. The writer
// keeps whichever is smaller (numColumn).
//
// A number is coded as the bit length of its magnitude (a tree of 4
// adaptive bits for 0 to 14; 15 and more is 15 there, then a tree of 6
// for the rest), its sign (adaptive, by length), then the bits below its
// top one: the first three through a tree of adaptive bits (by length),
// the rest even.

const (
	probBits = 16
	probOne  = 1 << probBits
	rcTop    = 1 << 24
	// A probability adapts by 1/2^shift of the way each bit, shift the
	// bit length of the bits it has seen (+2), up to 7 (1/128) after
	// maxSeen: each of the first moves it by about 1/(seen+2), as the KT
	// estimator would. It stays within [1, probOne-1], so either bit
	// can always be coded.
	maxSeen = 253
)

// prob is an adaptive probability that the next bit is 0, and how many
// bits it has seen (up to maxSeen).
type prob struct {
	p    uint16
	seen uint8
}

func (p *prob) update(b uint64) {
	shift := bits.Len8(p.seen+2) - 1
	if p.seen < maxSeen {
		p.seen++
	}
	if b == 0 {
		p.p += uint16((probOne - uint32(p.p)) >> shift)
	} else {
		p.p -= p.p >> shift
	}
}

// numModel is the adaptive probabilities of one column.
type numModel struct {
	length [16]prob
	long   [64]prob
	sign   [65]prob
	top    [65][8]prob
}

// colModels are a number column's models: by context, the whole
// milliseconds and the rest of a duration (or the number).
type colModels [numCtx][2]numModel

// reset readies the models of the first context, or (all) of every one.
func (m *colModels) reset(all bool) {
	n := 1
	if all {
		n = numCtx
	}
	for c := range n {
		m[c][0].reset()
		m[c][1].reset()
	}
}

// carriedModels are the models of every number column coded so far
// since the last keyframe (format 5: they carry from one record to the
// next, so a column's first numbers are not coded by models knowing
// nothing), by the slice's codec (the writer) or plan (the reader), the
// leaf and its prediction (i*numCol+mode: a keyframe's numbers, from
// the element before, are not the next polls' moves). A context's
// models are made when first used, in the state reset gives them.
type carriedModels[K comparable] struct {
	cols map[colKey[K]]*[numCtx]*[2]numModel
	sets int // the [2]numModel made
}

type colKey[K comparable] struct {
	of K
	i  int
}

// modelSize is the bytes of a context's models (a [2]numModel).
const modelSize = uint64(unsafe.Sizeof([2]numModel{}))

// maxCarried bounds the contexts' models a reader carries (each
// modelSize, ~5 KB): kgwatch's schemas have far fewer number columns in
// slices, times the contexts.
const maxCarried = 1 << 10

// of is the models of leaf i of the slice of, made when first used.
func (c *carriedModels[K]) of(of K, i int) *[numCtx]*[2]numModel {
	k := colKey[K]{of, i}
	m := c.cols[k]
	if m == nil {
		if c.cols == nil {
			c.cols = make(map[colKey[K]]*[numCtx]*[2]numModel)
		}
		m = new([numCtx]*[2]numModel)
		c.cols[k] = m
	}
	return m
}

// ctx is context b of m, made (and counted) when first used.
func (c *carriedModels[K]) ctx(m *[numCtx]*[2]numModel, b int) *[2]numModel {
	if m[b] == nil {
		m[b] = new([2]numModel)
		m[b][0].reset()
		m[b][1].reset()
		c.sets++
	}
	return m[b]
}

// clear forgets every model: a keyframe.
func (c *carriedModels[K]) clear() { *c = carriedModels[K]{} }

// reset readies every model made as new, in place (the writer's
// keyframe: the models are made once, not at each keyframe).
func (c *carriedModels[K]) reset() {
	for _, m := range c.cols {
		for _, ms := range m {
			if ms != nil {
				ms[0].reset()
				ms[1].reset()
			}
		}
	}
}

func (m *numModel) reset() {
	for i := range m.length {
		m.length[i] = prob{p: probOne / 2}
	}
	for i := range m.long {
		m.long[i] = prob{p: probOne / 2}
	}
	for i := range m.sign {
		m.sign[i] = prob{p: probOne / 2}
		for j := range m.top[i] {
			m.top[i][j] = prob{p: probOne / 2}
		}
	}
}

type rangeEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int
	out       []byte
}

func (e *rangeEncoder) init(out []byte) {
	*e = rangeEncoder{rng: 0xFFFFFFFF, cacheSize: 1, out: out}
}

func (e *rangeEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		temp := e.cache
		for {
			e.out = append(e.out, temp+carry)
			temp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

func (e *rangeEncoder) bit(p *prob, b uint64) {
	bound := (e.rng >> probBits) * uint32(p.p)
	if b == 0 {
		e.rng = bound
	} else {
		e.low += uint64(bound)
		e.rng -= bound
	}
	p.update(b)
	for e.rng < rcTop {
		e.rng <<= 8
		e.shiftLow()
	}
}

func (e *rangeEncoder) even(b uint64) {
	e.rng >>= 1
	if b != 0 {
		e.low += uint64(e.rng)
	}
	for e.rng < rcTop {
		e.rng <<= 8
		e.shiftLow()
	}
}

// finish flushes what is pending and returns the bytes: not the first,
// always 0 (the code is a fraction), nor the zeros that end them (the
// decoder reads zeros past the end); the code flushed is the one in the
// range with the most zeros at its end.
func (e *rangeEncoder) finish() []byte {
	for k := 32; k > 0; k-- {
		mask := uint64(1)<<k - 1
		if v := (e.low + mask) &^ mask; v < e.low+uint64(e.rng) {
			e.low = v
			break
		}
	}
	for range 5 {
		e.shiftLow()
	}
	out := e.out[1:]
	for len(out) > 0 && out[len(out)-1] == 0 {
		out = out[:len(out)-1]
	}
	return out
}

func (e *rangeEncoder) num(m *numModel, x int64) {
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	n := bits.Len64(u)
	e.tree(m.length[:], min(n, 15), 4)
	if n >= 15 {
		e.tree(m.long[:], n-15, 6)
	}
	if n == 0 {
		return
	}
	e.bit(&m.sign[min(n, 3)], uint64(x)>>63)
	i, ctx := n-2, 1
	for ; i >= 0 && i >= n-4; i-- {
		b := u >> i & 1
		e.bit(&m.top[n][ctx], b)
		ctx = ctx<<1 | int(b)
	}
	for ; i >= 0; i-- {
		e.even(u >> i & 1)
	}
}

// tree codes the k bits of v, first to last, each by its prefix's
// probability in probs (of 1<<k).
func (e *rangeEncoder) tree(probs []prob, v, k int) {
	ctx := 1
	for i := k - 1; i >= 0; i-- {
		b := uint64(v>>i) & 1
		e.bit(&probs[ctx], b)
		ctx = ctx<<1 | int(b)
	}
}

type rangeDecoder struct {
	in   []byte
	rng  uint32
	code uint32
}

func (d *rangeDecoder) init(in []byte) {
	*d = rangeDecoder{in: in, rng: 0xFFFFFFFF}
	for range 4 {
		d.code = d.code<<8 | uint32(d.next())
	}
}

// next is the next byte; past the end, zero (a column cut short decodes
// to numbers the caller bounds, never past its length).
func (d *rangeDecoder) next() byte {
	if len(d.in) == 0 {
		return 0
	}
	b := d.in[0]
	d.in = d.in[1:]
	return b
}

func (d *rangeDecoder) bit(p *prob) uint64 {
	bound := (d.rng >> probBits) * uint32(p.p)
	var b uint64
	if d.code < bound {
		d.rng = bound
	} else {
		d.code -= bound
		d.rng -= bound
		b = 1
	}
	p.update(b)
	for d.rng < rcTop {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return b
}

func (d *rangeDecoder) even() uint64 {
	d.rng >>= 1
	var b uint64
	if d.code >= d.rng {
		d.code -= d.rng
		b = 1
	}
	for d.rng < rcTop {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	return b
}

// tree reads k bits written by rangeEncoder.tree.
func (d *rangeDecoder) tree(probs []prob, k int) int {
	ctx := 1
	for range k {
		ctx = ctx<<1 | int(d.bit(&probs[ctx]))
	}
	return ctx - 1<<k
}

// num reads a number written by rangeEncoder.num; ok is false for a bit
// length past 64 (damage).
func (d *rangeDecoder) num(m *numModel) (int64, bool) {
	n := d.tree(m.length[:], 4)
	if n == 15 {
		if n += d.tree(m.long[:], 6); n > 64 {
			return 0, false
		}
	}
	if n == 0 {
		return 0, true
	}
	neg := d.bit(&m.sign[min(n, 3)])
	u := uint64(1)
	i, ctx := n-2, 1
	for ; i >= 0 && i >= n-4; i-- {
		b := d.bit(&m.top[n][ctx])
		u = u<<1 | b
		ctx = ctx<<1 | int(b)
	}
	for ; i >= 0; i-- {
		u = u<<1 | d.even()
	}
	if neg != 0 {
		return int64(-u), true
	}
	return int64(u), true
}

// How a column's numbers go through the range coder: as they are, as
// whole milliseconds (durations that all are), or as whole milliseconds
// (by models[0]) and what is left (models[1]).
const (
	codePlain = iota
	codeMillis
	codeSplit
)

// column codes a number of a column coded as how.
func (e *rangeEncoder) column(how int, models *[2]numModel, x int64) {
	switch how {
	case codePlain:
		e.num(&models[0], x)
	case codeMillis:
		e.num(&models[0], x/1e6)
	default:
		e.num(&models[0], x/1e6)
		e.num(&models[1], x%1e6)
	}
}

// column reads a number written by rangeEncoder.column.
func (d *rangeDecoder) column(how int, models *[2]numModel) (int64, bool) {
	x, ok := d.num(&models[0])
	switch {
	case !ok || how == codePlain:
		return x, ok
	case how == codeMillis:
		return x * 1e6, true
	}
	r, ok := d.num(&models[1])
	if !ok || r <= -1e6 || r >= 1e6 {
		return 0, false
	}
	return x*1e6 + r, true
}
