package model

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Names that come from brokers and clients (client ids, hosts, member and
// instance ids, group names, topics, assignors, error texts) are chosen by
// whoever can join a group or commit to one on a shared cluster. They are
// kept as they are in the model and in JSON, and pass through Printable on
// their way to a terminal, so no stranger can drive the operator's terminal
// (set its title, clear it, write the clipboard, leave the alternate screen)
// or break a table's columns.

// Printable returns s as it may be shown on a terminal: every character
// that could control the terminal or make its cell count differ from what
// the layout measured is shown visibly instead of being emitted.
//
//   - C0 controls and DEL become their Unicode control pictures: ESC is ␛,
//     a newline ␊, a carriage return ␍, a tab ␉, DEL ␡ (one cell each);
//   - C1 controls, format characters (bidi overrides and isolates,
//     zero-width spaces and joiners, the byte-order mark, soft hyphens),
//     line and paragraph separators and variation selectors are written as
//     Go escapes: \u202e, \u0085;
//   - bytes that are not UTF-8 are written \xff;
//   - combining marks past maxMarks in a row on one character are written
//     as Go escapes too: a name of one letter and 900 marks ("Zalgo text")
//     is drawn by some terminals over the rows above and below, and one of
//     40 spacing marks (U+0903) takes 41 cells;
//   - characters that draw nothing (the Hangul fillers U+115F, U+3164 and
//     U+FFA0, the blank braille pattern U+2800), and the few whose width
//     terminals and Bubble Tea's renderer count differently (the Hangul
//     vowel and final jamo that only decomposed syllables use, a few
//     symbol blocks), and unassigned code points, are written as escapes,
//     so what Width measures is what the terminal draws.
//
// Everything else, wide characters and a few combining marks on a
// character included, is kept. A string with nothing to replace is
// returned as is, without allocating.
func Printable(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	marks := marksBefore(s, i)
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b.WriteByte(c)
			marks = 0
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		marks = markRun(marks, r)
		switch {
		case marks > maxMarks:
			b.WriteString(escapeRune(r))
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('\u2421')
		case unsafeRune(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// IsPrintable reports whether Printable would return s unchanged.
func IsPrintable(s string) bool { return firstUnsafe(s) < 0 }

// firstUnsafe returns the index of the first byte Printable must replace,
// -1 when there is none. ASCII is checked a byte at a time.
func firstUnsafe(s string) int {
	marks := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			marks = 0
			i++
			continue
		}
		if c < 0x80 {
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || unsafeRune(r) {
			return i
		}
		if marks = markRun(marks, r); marks > maxMarks {
			return i
		}
		i += n
	}
	return -1
}

// maxMarks is how many combining marks in a row a character keeps: enough
// for the scripts that stack them (Vietnamese, Devanagari, Hebrew points).
const maxMarks = 4

// isMark reports whether r is a combining mark: nonspacing and enclosing
// marks draw on the character before it, spacing marks (Mc, the vowel
// signs of Indic scripts) take a cell of their own beside it.
func isMark(r rune) bool { return r >= 0x300 && unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) }

// markRun is how many combining marks in a row end with r, given the
// run before it: one more when r is a mark, none when it is not.
func markRun(run int, r rune) int {
	if isMark(r) {
		return run + 1
	}
	return 0
}

// marksBefore counts the combining marks in a row that end s[:i].
func marksBefore(s string, i int) int {
	n := 0
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		if !isMark(r) {
			break
		}
		n++
		i -= size
	}
	return n
}

// unsafeRune reports whether a rune above ASCII must not reach a terminal
// as itself: C1 controls, format characters (Cf: bidi controls, zero-width
// characters, BOM, soft hyphen, tags), line and paragraph separators,
// variation selectors (which switch a character to emoji width), the
// invisible characters and those of disputed width (see widthRanges), and
// unassigned code points (a terminal's table may not know their width).
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0:
		return true
	case r < 0xa0:
		return false
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	}
	for _, rg := range widthRanges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Cs, unicode.Noncharacter_Code_Point) ||
		!unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Zs, unicode.Co)
}

// widthRanges are the characters Printable escapes for their width: they
// draw nothing, or the terminal (wcwidth(3), which tmux and most terminals
// use) and Bubble Tea's renderer count them differently, so a row holding
// one would be drawn off its columns. Measured: glibc's wcwidth against
// ansi.StringWidthWc over every assigned code point.
var widthRanges = [][2]rune{
	{0x115f, 0x11ff},   // Hangul choseong filler (blank, 2 cells), jungseong and jongseong (0 cells on terminals, 1 to the renderer)
	{0x2630, 0x2637},   // trigrams: 1 cell on terminals, 2 to the renderer
	{0x268a, 0x268f},   // monograms and digrams: likewise
	{0x2800, 0x2800},   // blank braille pattern
	{0x3164, 0x3164},   // Hangul filler (blank, 2 cells)
	{0x3248, 0x324f},   // circled numbers on black squares: 2 cells on terminals, 1 to the renderer
	{0xd7b0, 0xd7ff},   // Hangul jamo extended-B: 0 cells on terminals, 1 to the renderer
	{0xffa0, 0xffa0},   // halfwidth Hangul filler (blank)
	{0x1d165, 0x1d172}, // musical stems and flags: 1 cell on terminals, 0 to the renderer
	{0x1d300, 0x1d376}, // Tai Xuan Jing and counting rod symbols: 1 cell on terminals, 2 to the renderer
}

func escapeRune(r rune) string {
	if r <= 0xffff {
		return `\u` + hex4(r)
	}
	return `\U` + strings.Repeat("0", 8-len(strconv.FormatInt(int64(r), 16))) + strconv.FormatInt(int64(r), 16)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}

// SafeJSON returns encoded JSON with the characters Printable replaces and
// encoding/json leaves raw (DEL, C1 controls, format characters, variation
// selectors) written as \u escapes instead, so `kgwatch --once -o json`
// printed on a terminal cannot drive it either. The JSON value is unchanged:
// a decoder reads the same strings. encoding/json already escapes C0
// controls, U+2028 and U+2029, and replaces invalid UTF-8.
func SafeJSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:i]...)
	marks := 0
	for i < len(b) {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			marks = 0
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		marks = markRun(marks, r)
		if r == 0x7f || unsafeRune(r) || marks > maxMarks {
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				out = append(out, `\u`+hex4(hi)+`\u`+hex4(lo)...)
			} else {
				out = append(out, `\u`+hex4(r)...)
			}
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
