package record

import (
	"fmt"
	"reflect"
	"unsafe"
)

// The reading of slices written column by column (columns.go).

// columns reads a slice written column by column into the slice at f (of
// type typ, holding the previous slice; nil: drop it), in place when it
// has room.
func (d *decoder) columns(p *plan, typ reflect.Type, f unsafe.Pointer) error {
	hdr, n, ok, err := d.sliceHead(typ, f)
	if err != nil || !ok {
		return err
	}
	if n < fewElems {
		return d.rows(p, hdr, n)
	}
	var mask, done [4]uint64
	mbuf, err := d.mask(len(p.leaves), mask[:0])
	if err != nil {
		return err
	}
	changed := func(i int) bool { return mbuf[i/64]&(1<<(i%64)) != 0 }
	nums := 0
	for i := range p.leaves {
		if changed(i) && numeric(p.leaves[i].kind) {
			nums++
		}
	}
	k, err := d.uvarint()
	if err != nil {
		return errCorrupt
	}
	// The columns' heads: here, or (format 5, the count's low bit set)
	// the slice's last ones again.
	hd, same := d, false
	if d.carry {
		k, same = k>>1, k&1 != 0
	}
	if k != uint64(nums) {
		return errCorrupt
	}
	var last *[]byte
	if d.carry {
		last = d.heads[p]
	}
	var again decoder
	if same {
		if last == nil {
			return errCorrupt
		}
		again.buf = *last
		hd = &again
	}
	if d.carry && nums > 0 {
		// The slice's coded columns' stream (format 5).
		size, err := d.uvarint()
		if err != nil || size > uint64(len(d.buf)) {
			return errCorrupt
		}
		d.rc.init(d.buf[:size])
		d.buf = d.buf[size:]
	}
	read := done[:]
	if len(mbuf) > len(done) {
		read = make([]uint64, len(mbuf))
	}
	var heads []byte
	for range nums {
		from := hd.buf
		x, err := hd.uvarint()
		if err != nil || x >= uint64(len(p.leaves)) {
			return errCorrupt
		}
		i := int(x)
		if !changed(i) || !numeric(p.leaves[i].kind) || read[i/64]&(1<<(i%64)) != 0 {
			return errCorrupt
		}
		read[i/64] |= 1 << (i % 64)
		if err := d.numColumn(hd, p, i, hdr, int(n)); err != nil {
			return err
		}
		if d.carry && !same {
			heads = append(heads, from[:len(from)-d.headLeft]...)
		}
	}
	if same && len(hd.buf) != 0 {
		return errCorrupt
	}
	if d.carry && !same {
		if err := d.keepHeads(p, last, heads); err != nil {
			return err
		}
	}
	for i := range p.leaves {
		if changed(i) && !numeric(p.leaves[i].kind) {
			if err := d.column(p, i, hdr, int(n)); err != nil {
				return err
			}
		}
	}
	return nil
}

// column reads leaf i, not a number, of the n elements of the slice hdr
// (nil: drop them).
func (d *decoder) column(p *plan, i int, hdr *sliceHeader, n int) error {
	pl := &p.leaves[i]
	l := pl.target
	if l == nil {
		hdr = nil
	}
	if pl.kind == kindBool {
		mode, err := d.uvarint()
		if err != nil || mode > 1 {
			return errCorrupt
		}
		bits, err := d.bitmap(n)
		if err != nil {
			return err
		}
		if hdr == nil {
			return nil
		}
		for j := range n {
			b := (*bool)(l.at(p.elemAt(hdr, j)))
			set := bits[j/8]&(1<<(j%8)) != 0
			if mode == 1 {
				*b = set
			} else if set {
				*b = !*b
			}
		}
		return nil
	}
	bits, err := d.bitmap(n)
	if err != nil {
		return err
	}
	for j := range n {
		if bits[j/8]&(1<<(j%8)) == 0 {
			continue
		}
		var f unsafe.Pointer
		if hdr != nil {
			f = l.at(p.elemAt(hdr, j))
		}
		if err := d.leaf(pl, f); err != nil {
			return err
		}
	}
	return nil
}

// numColumn reads number leaf i of the n elements of hdr (nil: drop
// them), its head (its prediction, how it is coded) from hd.
func (d *decoder) numColumn(hd *decoder, p *plan, i int, hdr *sliceHeader, n int) error {
	pl := &p.leaves[i]
	l := pl.target
	if l == nil {
		hdr = nil
	}
	m, err := hd.uvarint()
	if err != nil || m>>1 >= numCol || m>>1 == colPrev && !d.carry {
		return errCorrupt
	}
	mode, coded := m>>1, m&1 != 0
	// A leaf referred to (or the context's) is read as the row holds
	// it: this kgwatch must know it.
	leafAt := func(a uint64) (*leaf, error) {
		if a >= uint64(len(p.leaves)) || a == uint64(i) || !numeric(p.leaves[a].kind) {
			return nil, errCorrupt
		}
		t := p.leaves[a].target
		if t == nil && hdr != nil {
			return nil, fmt.Errorf("leaf %d is written from leaf %d, which this kgwatch does not know", i, a)
		}
		return t, nil
	}
	var refs [2]*leaf
	nrefs := 0
	switch mode {
	case colRef:
		nrefs = 1
	case colRef2:
		nrefs = 2
	}
	for k := range nrefs {
		a, err := hd.uvarint()
		if err != nil {
			return errCorrupt
		}
		if refs[k], err = leafAt(a); err != nil {
			return err
		}
	}
	var ctx *leaf
	var cm *[numCtx]*[2]numModel
	how := codePlain
	d.headLeft = len(hd.buf)
	if coded {
		c, err := hd.uvarint()
		if err != nil {
			return errCorrupt
		}
		d.headLeft = len(hd.buf)
		switch {
		case c&1 != 0 && pl.kind != kindDuration:
			return errCorrupt
		case c&1 != 0:
			how = codeMillis
		case pl.kind == kindDuration:
			how = codeSplit
		}
		if c >>= 1; c > 0 {
			if ctx, err = leafAt(c - 1); err != nil {
				return err
			}
		}
		if d.carry {
			cm = d.carried.of(p, i*numCol+int(mode))
		} else {
			size, err := d.uvarint()
			if err != nil || size > uint64(len(d.buf)) {
				return errCorrupt
			}
			d.rc.init(d.buf[:size])
			d.buf = d.buf[size:]
			d.models.reset(c > 0)
		}
		// A coded number may take less than a bit: each is charged a
		// byte of what the record may add, so its length bounds the
		// work they make (a real column takes a byte for ~100 of them
		// at most, and budget allows 256).
		if err := d.charge(uint64(n)); err != nil {
			return err
		}
	} else if uint64(n) > uint64(len(d.buf)) {
		return errCorrupt // each value takes a byte at least
	}
	for j := range n {
		var q unsafe.Pointer
		if hdr != nil {
			q = p.elemAt(hdr, j)
		}
		var x int64
		switch {
		case coded:
			b := 0
			if ctx != nil && q != nil {
				b = bucket(ctx.num(q))
			}
			ms := &d.models[b]
			if d.carry {
				if ms, err = d.carriedCtx(cm, b); err != nil {
					return err
				}
			}
			var ok bool
			if x, ok = d.rc.column(how, ms); !ok {
				return errCorrupt
			}
		case pl.kind == kindDuration:
			x, err = d.duration()
		default:
			x, err = d.varint()
		}
		if err != nil {
			return err
		}
		if q == nil {
			continue
		}
		switch mode {
		case colDelta:
			x += l.num(q)
		case colRef:
			x += refs[0].num(q)
		case colRef2:
			x += refs[0].num(q) - refs[1].num(q)
		case colPrev:
			if j > 0 {
				x += l.num(p.elemAt(hdr, j-1))
			}
		}
		l.setNum(q, x)
	}
	return nil
}

// bitmap reads a bitmap of n bits.
func (d *decoder) bitmap(n int) ([]byte, error) {
	nb := (n + 7) / 8
	if nb > len(d.buf) {
		return nil, errCorrupt
	}
	b := d.buf[:nb]
	d.buf = d.buf[nb:]
	return b, nil
}

// carriedCtx is context b of the carried models cm (format 5). Models
// made are charged to what the record may add, and bounded in all
// (maxCarried): a column's models are kept until the next keyframe.
func (d *decoder) carriedCtx(cm *[numCtx]*[2]numModel, b int) (*[2]numModel, error) {
	if cm[b] != nil {
		return cm[b], nil
	}
	if d.carried.sets >= maxCarried {
		return nil, tooLargef("more than %d columns' models", maxCarried)
	}
	if err := d.charge(modelSize); err != nil {
		return nil, err
	}
	return d.carried.ctx(cm, b), nil
}

// maxHeads bounds the bytes of the columns' heads a reader keeps
// (format 5: a slice's are written once while they stay the same), in
// all: kgwatch's take a few bytes a column.
const maxHeads = 1 << 20

// keepHeads keeps heads as the slice of p's last (was: the ones kept
// before, nil for none).
func (d *decoder) keepHeads(p *plan, was *[]byte, heads []byte) error {
	if was == nil {
		if d.heads == nil {
			d.heads = make(map[*plan]*[]byte)
		}
		was = new([]byte)
		d.heads[p] = was
	}
	d.headBytes += len(heads) - len(*was)
	if d.headBytes > maxHeads {
		return tooLargef("the columns' heads kept take more than %d bytes", maxHeads)
	}
	*was = append((*was)[:0], heads...)
	return nil
}
