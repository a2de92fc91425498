package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// cell truncates s to w terminal cells (with an ellipsis) and pads it with
// spaces to exactly w cells, on the right or, with right set, on the left.
// Widths are cells by model.Width's rule (code points, as the terminal
// counts them), not runes or graphemes, so wide runes and spacing marks
// keep columns aligned.
func cell(s string, w int, right bool) string {
	if w <= 0 {
		return ""
	}
	sw := textWidth(s)
	if sw > w {
		s = truncate(s, w, ellipsis)
		sw = textWidth(s)
	}
	if sw == w {
		return s
	}
	if right {
		return spaces(w-sw) + s
	}
	return s + spaces(w-sw)
}

const blank = "                                                                                                                                "

// spaces returns n spaces without allocating for common widths.
func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	if n <= len(blank) {
		return blank[:n]
	}
	return strings.Repeat(" ", n)
}

// fitBlock clips a rendered block to w cells by h lines, so no frame ever
// exceeds the terminal, whatever its size.
func fitBlock(s string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		if textWidth(l) > w {
			lines[i] = ansi.TruncateWc(l, w, "")
		}
	}
	return strings.Join(lines, "\n")
}

// center places a message in the middle of a w×h area, word-wrapped to
// the width.
func center(s string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(ansi.WrapWc(s, w, ""), "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	top := (h - len(lines)) / 2
	for range top {
		b.WriteByte('\n')
	}
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		l = strings.TrimSpace(l)
		b.WriteString(spaces((w - textWidth(l)) / 2))
		b.WriteString(l)
	}
	for range h - top - len(lines) {
		b.WriteByte('\n')
	}
	return b.String()
}

// narrowGlyphs are the non-ASCII characters the UI draws itself, each one
// cell wide. textWidth counts them without grapheme segmentation.
var narrowGlyphs = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range glyphBarFull + glyphBarTrack + glyphWorst + glyphCursor + glyphFocused +
		glyphUnfocused + glyphStable + glyphEmpty + glyphRebalance + glyphWaiting + glyphStale + ellipsis + "·–•↑↓" {
		if model.Width(string(r)) == 1 {
			m[r] = true
		}
	}
	return m
}()

// textWidth is model.Width, the one width rule (code points counted as
// the terminal counts them), with a fast path for what the UI renders
// most: ASCII, its own one-cell glyphs and SGR sequences. Anything else
// (wide runes, marks, other escapes) goes to ansi.StringWidthWc.
func textWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			w++
			i++
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return ansi.StringWidthWc(s)
			}
			i = j + 1
		case c >= 0x80:
			r, n := utf8.DecodeRuneInString(s[i:])
			if !narrowGlyphs[r] {
				return ansi.StringWidthWc(s)
			}
			w++
			i += n
		default:
			return ansi.StringWidthWc(s)
		}
	}
	return w
}

// truncate cuts s to w cells by textWidth's rule, ending in tail when it
// had to cut. Plain ASCII is cut by slicing; anything else goes to
// model.Truncate.
func truncate(s string, w int, tail string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return model.Truncate(s, w, tail)
		}
	}
	if len(s) <= w {
		return s
	}
	tw := textWidth(tail)
	if w < tw {
		return ""
	}
	return s[:w-tw] + tail
}

// wrapCells wraps s at w cells by the one width rule (code points counted
// as the terminal counts them), as ansi.WrapWc does.
func wrapCells(s string, w int) string { return ansi.WrapWc(s, w, "") }
