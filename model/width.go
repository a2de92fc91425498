package model

import "github.com/charmbracelet/x/ansi"

// Width is the number of cells s takes on a terminal, the one width rule
// every table, pane and --once printer lays text out by. It counts code
// points, as tmux, xterm, VTE and Bubble Tea's renderer do (wcwidth(3)
// summed), not grapheme clusters: "a" and a spacing mark (U+0903) are two
// cells, a thumbs-up and its skin tone four. A grapheme count (what
// ansi.StringWidth and lipgloss.Width return) calls both one cluster and
// shifts every column after such a name. ANSI escape sequences take no
// cell. Printable ASCII, nearly every cell of a table, is one cell a byte.
func Width(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return ansi.StringWidthWc(s)
		}
	}
	return len(s)
}

// Truncate cuts s to at most w cells by Width's rule, ending in tail when
// it had to cut.
func Truncate(s string, w int, tail string) string {
	return ansi.TruncateWc(s, w, tail)
}
