package model

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name returns a name (a group's, a topic's) as it is drawn: Printable,
// and quoted with Go escapes when it would otherwise not be told apart
// from another or from no name at all. A name is quoted when it is empty,
// begins or ends with white space, or begins with a quote: "", "   ",
// "\u3000", " orders", so a group named "" and one named "   " are two
// rows that say so. Characters that draw nothing are escaped by Printable
// wherever they are (\u3164). JSON keeps the exact name.
func Name(s string) string {
	p := Printable(s)
	if !needsQuotes(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 2)
	b.WriteByte('"')
	for _, r := range p {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r != ' ' && unicode.In(r, unicode.Zs):
			b.WriteString(escapeRune(r)) // a wide or thin blank: say which
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// needsQuotes reports whether a printable name needs quotes to be seen.
func needsQuotes(p string) bool {
	if p == "" || p[0] == '"' {
		return true
	}
	first, _ := utf8.DecodeRuneInString(p)
	last, _ := utf8.DecodeLastRuneInString(p)
	return unicode.In(first, unicode.Zs) || unicode.In(last, unicode.Zs)
}

// MaxNameCells is how wide a name's column in the --once tables grows:
// a longer name is cut, ending in "…", so one pathological name (Kafka
// takes group names of 32 KB) does not pad every row to its width.
const MaxNameCells = 80

// NameCell is Name cut to at most cells cells, ending in "…" when it had
// to cut. Only the start of a long name is looked at.
func NameCell(s string, cells int) string {
	// A cell is at most a character and its capped marks, a few bytes
	// each: more than this prefix cannot fit in cells.
	cut := false
	if lim := 32 * max(cells, 1); len(s) > lim {
		i := lim
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s, cut = s[:i], true
	}
	n := Name(s)
	if w := Width(n); w > cells || (cut && w >= cells) {
		return Truncate(n, cells-1, "") + "…"
	}
	if cut {
		return n + "…"
	}
	return n
}
