package model

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// streamGrid, which asks for each row twice and holds none, lays out what
// writeGrid lays out from the cells held: random grids of names with wide
// runes, control bytes and escape sequences, empty cells and right-aligned
// columns.
func TestStreamGridIsWriteGrid(t *testing.T) {
	pieces := []string{"", "-", "orders", "p7", "12345678901", "注文", "\x1b[31mred\x1b[0m", "a\tb", "\u200b", "ö", "x\ny", strings.Repeat("w", 70)}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		rows, cols := r.IntN(8), 1+r.IntN(6)
		cells := make([]string, rows*cols)
		for i := range cells {
			cells[i] = pieces[r.IntN(len(pieces))] + pieces[r.IntN(len(pieces))]
		}
		var right []bool
		if r.IntN(2) == 0 {
			right = make([]bool, r.IntN(cols+1))
			for i := range right {
				right[i] = r.IntN(2) == 0
			}
		}
		held := append([]string(nil), cells...)
		var want strings.Builder
		writeGrid(&want, held, cols, right)

		calls := 0
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		streamGrid(w, rows, cols, func(i int, dst []string) []string {
			calls++
			return append(dst, cells[i*cols:(i+1)*cols]...)
		}, right)
		w.Flush()
		if got.String() != want.String() {
			t.Fatalf("trial %d: %d×%d grid\nstreamed:\n%q\nheld:\n%q", trial, rows, cols, got.String(), want.String())
		}
		if rows > 0 && calls != 2*rows {
			t.Fatalf("trial %d: row asked %d times for %d rows, want twice each", trial, calls, rows)
		}
	}
}

// WriteTableView writes what FormatTableView gives, in every view, and
// holds no whole table: 20,000 rows reach the writer in 64 KB pieces, not
// in one write of the whole.
func TestWriteTableViewStreams(t *testing.T) {
	s := wideTable(20000)
	s.Partitions[3].Err = "NOT_LEADER_OR_FOLLOWER"
	s.Partitions[5].LagFromStart = true
	for _, v := range []TableView{{}, {Verbose: true}, {Members: true}, {State: true, Verbose: true}} {
		var b bytes.Buffer
		if err := WriteTableView(&b, s, v); err != nil {
			t.Fatal(err)
		}
		if want := FormatTableView(s, v); b.String() != want {
			t.Fatalf("view %+v: WriteTableView differs from FormatTableView", v)
		}
	}
	var w chunks
	if err := WriteTableView(&w, s, TableView{}); err != nil {
		t.Fatal(err)
	}
	if size := len(FormatTable(s)); w.n < size/(64<<10) || w.max > 64<<10 {
		t.Fatalf("a %d-byte table came in %d writes, the largest %d bytes: held whole, not streamed", size, w.n, w.max)
	}
}

// chunks counts the writes made to it and the largest.
type chunks struct{ n, max int }

func (c *chunks) Write(b []byte) (int, error) {
	c.n++
	c.max = max(c.max, len(b))
	return len(b), nil
}
