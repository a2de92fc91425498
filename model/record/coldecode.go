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
	if k, err := d.uvarint(); err != nil || k != uint64(nums) {
		return errCorrupt
	}
	read := done[:]
	if len(mbuf) > len(done) {
		read = make([]uint64, len(mbuf))
	}
	for range nums {
		x, err := d.uvarint()
		if err != nil || x >= uint64(len(p.leaves)) {
			return errCorrupt
		}
		i := int(x)
		if !changed(i) || !numeric(p.leaves[i].kind) || read[i/64]&(1<<(i%64)) != 0 {
			return errCorrupt
		}
		read[i/64] |= 1 << (i % 64)
		if err := d.numColumn(p, i, hdr, int(n)); err != nil {
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
// them).
func (d *decoder) numColumn(p *plan, i int, hdr *sliceHeader, n int) error {
	pl := &p.leaves[i]
	l := pl.target
	if l == nil {
		hdr = nil
	}
	m, err := d.uvarint()
	if err != nil || m>>1 >= numCol {
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
	for k := range int(mode) - colValue {
		a, err := d.uvarint()
		if err != nil {
			return errCorrupt
		}
		if refs[k], err = leafAt(a); err != nil {
			return err
		}
	}
	var ctx *leaf
	how := codePlain
	if coded {
		c, err := d.uvarint()
		if err != nil {
			return errCorrupt
		}
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
		size, err := d.uvarint()
		if err != nil || size > uint64(len(d.buf)) {
			return errCorrupt
		}
		d.rc.init(d.buf[:size])
		d.buf = d.buf[size:]
		d.models.reset(c > 0)
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
			var ok bool
			if x, ok = d.rc.column(how, &d.models[b]); !ok {
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
