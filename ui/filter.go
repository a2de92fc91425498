package ui

import (
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
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

	// bufs are reused between polls for the sorted, filtered rows
	// (pointers into the snapshot's). Two alternate, because the table
	// still reads the previous rows while it takes the next (to keep the
	// selected partition selected).
	bufs [2][]*model.PartitionLag
	cur  int
}

// apply returns rows filtered and sorted, as pointers into rows, which is
// not modified. The result reuses one of v's two buffers, so it is valid
// until the call after next.
func (v *rowView) apply(rows []model.PartitionLag) []*model.PartitionLag {
	v.cur ^= 1
	out := model.AppendFiltered(v.bufs[v.cur][:0], rows, v.query, v.onlyLag)
	clear(out[len(out):cap(out)])
	model.SortPartitions(out, v.sort)
	// Keep the buffer only while it is not much larger than needed, so a
	// filter that once matched everything does not pin the memory.
	if cap(out) <= 2*len(out)+64 {
		v.bufs[v.cur] = out
	} else {
		v.bufs[v.cur] = nil
	}
	return out
}

// release lets go of the rows before the last apply's, once the table has
// taken the new ones, so they do not keep an old snapshot alive.
func (v *rowView) release() { clear(v.bufs[v.cur^1]) }

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
// input is open (editing) the draft being typed, which takes every key.
type textFilter struct {
	query   string
	editing bool
	draft   string
}

// open opens the input on the applied query.
func (f *textFilter) open() { f.editing, f.draft = true, f.query }

// typed takes a key while the input is open: enter applies, esc clears,
// backspace and ctrl+u edit, text is typed (control characters dropped).
// It reports whether it took the key and whether the query changed; it
// never takes ctrl+c.
func (f *textFilter) typed(msg tea.KeyPressMsg) (took, changed bool) {
	if !f.editing {
		return false, false
	}
	switch msg.String() {
	case "ctrl+c":
		return false, false
	case "enter":
		f.editing = false
		f.query = strings.TrimSpace(f.draft)
		return true, true
	case "esc":
		f.editing, f.draft, f.query = false, "", ""
		return true, true
	case "backspace", "ctrl+h":
		if f.draft != "" {
			_, n := utf8.DecodeLastRuneInString(f.draft)
			f.draft = f.draft[:len(f.draft)-n]
		}
	case "ctrl+u":
		f.draft = ""
	default:
		if t := msg.Text; t != "" && utf8.RuneCountInString(f.draft) < maxFilterLen {
			// Only what Printable would keep: no control, format or
			// bidi character reaches the title or the input line.
			f.draft += strings.Map(func(r rune) rune {
				if !model.IsPrintable(string(r)) {
					return -1
				}
				return r
			}, t)
		}
	}
	return true, false
}

// line is the input, shown in place of the help line while it is open:
// "filter / pay▏  enter apply · esc clear · what it matches".
func (f *textFilter) line(w int, st Styles, matches string) string {
	if !f.editing || w <= 0 {
		return ""
	}
	hint := "  enter apply · esc clear · " + matches
	prompt := st.Help.ShortKey.Render("filter /") + " "
	text := model.Printable(f.draft) + glyphInputCursor
	line := prompt + text + st.Muted.Render(hint)
	if textWidth(line) > w {
		line = prompt + text + st.Muted.Render("  enter · esc")
	}
	if textWidth(line) > w {
		// Keep the end of the draft in view: that is where typing goes.
		room := max(w-textWidth(prompt), 1)
		r := []rune(text)
		for textWidth(string(r)) > room && len(r) > 1 {
			r = r[1:]
		}
		line = prompt + string(r)
	}
	return cell(line, w, false)
}

// glyphInputCursor marks where typed text goes in the filter input.
const glyphInputCursor = "▏"
