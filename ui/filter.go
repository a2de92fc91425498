package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// rowView is how the partition table orders and narrows the snapshot's
// partitions: a sort key (`o`), a filter query (`/`) and "only partitions
// with lag" (`l`).
type rowView struct {
	sort    model.SortKey
	onlyLag bool
	textFilter

	// buf is reused between polls for the filtered rows (pointers into
	// the snapshot's), which the table orders as it shows them.
	buf []*model.PartitionLag
	// sortAll sorts every row in apply, as the table did before it
	// ordered only the rows it shows: the tests' reference.
	sortAll bool
}

// apply returns the rows of rows the view keeps, as pointers into rows,
// which is not modified, in rows' order: the table sorts them by cmp as
// it shows them. The result reuses v's buffer, so it is valid until the
// next call.
func (v *rowView) apply(rows []model.PartitionLag) []*model.PartitionLag {
	out := model.AppendFiltered(v.buf[:0], rows, v.query, v.onlyLag)
	clear(out[len(out):cap(out)])
	if v.sortAll {
		model.SortPartitions(out, v.sort)
	}
	// Keep the buffer only while it is not much larger than needed, so a
	// filter that once matched everything does not pin the memory.
	if cap(out) <= 2*len(out)+64 {
		v.buf = out
	} else {
		v.buf = nil
	}
	return out
}

// cmp is the order the table shows apply's rows in: the sort key's; nil
// (as they are) once apply sorted them all.
func (v *rowView) cmp() func(a, b *model.PartitionLag) int {
	if v.sortAll {
		return nil
	}
	return model.ComparePartitions(v.sort)
}

// describe says what the view does, for the table title: "sort: lag age ·
// filter "pay" · only lag". The default view (sort by lag, nothing hidden)
// still names its sort key, so `o` always shows its effect.
func (v *rowView) describe() string {
	parts := []string{"sort: " + v.sort.String()}
	if v.query != "" {
		parts = append(parts, "filter \""+model.Printable(v.query)+"\"")
	}
	if v.onlyLag {
		parts = append(parts, "only lag")
	}
	return strings.Join(parts, " · ")
}

// empty says why the view shows no row of the total: "" when it shows all
// there are (none: nothing assigned or committed, which the table says).
func (v *rowView) empty(total int) string {
	switch {
	case total == 0:
		return ""
	case v.query != "" && v.onlyLag:
		return "no partition with lag matches \"" + model.Printable(v.query) + "\" (esc clears the filter, l shows all)"
	case v.query != "":
		return "no partition matches \"" + model.Printable(v.query) + "\" (esc clears the filter)"
	case v.onlyLag:
		return "no partition has lag (l shows all " + model.Count(total, "partition") + ")"
	}
	return ""
}

// viewKey handles the keys that change the row view: `o`, `/`, `l`, and,
// while the filter input is open, every key but ctrl+c. It reports whether
// it took the key.
func (g *GroupPage) viewKey(msg tea.KeyPressMsg) bool {
	v := &g.rows
	if took, changed := v.typed(msg); took {
		if changed {
			g.refreshRows()
		}
		return true
	}
	if g.showLanes && tableOnly(msg, g.keys) {
		// Off in the lanes (and out of their help), but never silent.
		g.notice("the lanes show every partition as it is: sort (o), filter (/) and only lag (l) shape the table — v goes back to it")
		return true
	}
	switch {
	case key.Matches(msg, g.keys.Sort):
		v.sort = v.sort.Next()
	case key.Matches(msg, g.keys.Filter):
		v.open()
	case key.Matches(msg, g.keys.OnlyLag):
		v.onlyLag = !v.onlyLag
	case key.Matches(msg, g.keys.ClearFilter) && v.query != "":
		v.query = ""
	default:
		return false
	}
	g.refreshRows()
	return true
}

// tableOnly reports whether msg is one of the keys that shape the table
// (o, /, l), disabled or not.
func tableOnly(msg tea.KeyPressMsg, km KeyMap) bool {
	for _, b := range []key.Binding{km.Sort, km.Filter, km.OnlyLag} {
		for _, k := range b.Keys() {
			if msg.String() == k {
				return true
			}
		}
	}
	return false
}

// maxFilterLen bounds the filter text.
const maxFilterLen = 64

// filterLine is the filter input, shown in place of the help line while it
// is open.
func (g *GroupPage) filterLine(w int) string {
	return g.rows.line(w, g.styles, "topic, owner or status")
}

// textFilter is a filter typed after `/`: the query applied, and while the
// input is open (editing) a bubbles text input holding the draft, which
// takes every key and pastes.
type textFilter struct {
	query   string
	editing bool
	input   textinput.Model
}

// open opens the input on the applied query, the cursor at its end.
func (f *textFilter) open() {
	if f.input.CharLimit == 0 { // not made yet: the zero input has no keys
		f.input = textinput.New()
		f.input.CharLimit = maxFilterLen
		// ctrl+v would read the system clipboard with an external
		// command; the terminal's own paste arrives as a paste message.
		f.input.KeyMap.Paste.SetEnabled(false)
	}
	f.editing = true
	f.input.SetValue(f.query)
	f.input.CursorEnd()
	f.input.Focus()
}

// draft is the text being typed.
func (f *textFilter) draft() string { return f.input.Value() }

// typed takes a key or a paste while the input is open: enter applies, esc
// clears, anything else edits the draft as a text input does (cursor
// keys, word and line deletion, paste), and characters Printable would
// replace are dropped. It reports whether it took msg and whether the
// query changed; it never takes ctrl+c.
func (f *textFilter) typed(msg tea.Msg) (took, changed bool) {
	if !f.editing {
		return false, false
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch msg.String() {
		case "ctrl+c":
			return false, false
		case "enter":
			f.close()
			f.query = strings.TrimSpace(f.draft())
			return true, true
		case "esc":
			f.close()
			f.query = ""
			f.input.SetValue("")
			return true, true
		}
	case tea.PasteMsg:
	default:
		return false, false
	}
	f.input, _ = f.input.Update(msg) // its commands blink a cursor this line does not draw
	f.keepPrintable()
	return true, false
}

// close closes the input.
func (f *textFilter) close() {
	f.editing = false
	f.input.Blur()
}

// keepPrintable drops from the draft what Printable would replace (escape
// sequences, control, format and bidi characters), keeping the cursor
// where it was among the rest: the input drops only control characters.
func (f *textFilter) keepPrintable() {
	v := []rune(f.input.Value())
	pos := min(f.input.Position(), len(v))
	before, after := printableRunes(v[:pos]), printableRunes(v[pos:])
	if len(before)+len(after) == len(v) {
		return
	}
	f.input.SetValue(string(before) + string(after))
	f.input.SetCursor(len(before))
}

// printableRunes returns the runes of rs that Printable keeps as they are.
func printableRunes(rs []rune) []rune {
	out := make([]rune, 0, len(rs))
	for _, r := range rs {
		if model.IsPrintable(string(r)) {
			out = append(out, r)
		}
	}
	return out
}

// line is the input, shown in place of the help line while it is open:
// "filter / pay▏  enter apply · esc clear · what it matches", the cursor
// where typing goes.
func (f *textFilter) line(w int, st Styles, matches string) string {
	if !f.editing || w <= 0 {
		return ""
	}
	hint := "  enter apply · esc clear · " + matches
	prompt := st.Help.ShortKey.Render("filter /") + " "
	v := []rune(f.draft())
	pos := min(f.input.Position(), len(v))
	before, after := model.Printable(string(v[:pos])), model.Printable(string(v[pos:]))
	text := before + glyphInputCursor + after
	line := prompt + text + st.Muted.Render(hint)
	if textWidth(line) > w {
		line = prompt + text + st.Muted.Render("  enter · esc")
	}
	if textWidth(line) > w {
		// Keep the cursor in view: that is where typing goes. The end
		// goes first, then the start.
		room := max(w-textWidth(prompt), 1)
		b, a := []rune(before), []rune(after)
		for textWidth(string(b)+glyphInputCursor+string(a)) > room && len(a) > 0 {
			a = a[:len(a)-1]
		}
		for textWidth(string(b)+glyphInputCursor) > room && len(b) > 0 {
			b = b[1:]
		}
		line = prompt + string(b) + glyphInputCursor + string(a)
	}
	return cell(line, w, false)
}

// glyphInputCursor marks where typed text goes in the filter input.
const glyphInputCursor = "▏"
