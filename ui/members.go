package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/kgwatch/kgwatch/model"
)

// Members is the members pane: each member of the group, the partitions it
// owns and their total lag.
type Members struct {
	styles  Styles
	keys    KeyMap
	members []model.Member
	parts   []string // partition list text per member, built in SetMembers
	sc      scroller
	width   int
	height  int
	focused bool
	stale   bool
	pending bool // the group is rebalancing: assignments are on their way
	// partCount is how many partitions the group has, to tell why a member
	// owns none; mostLag is the member with the most lag (marked), -1 when
	// none stands out.
	partCount int
	mostLag   int
	// notes say what only the demo knows about each member (ui/demo.go).
	notes []string
}

// Members columns, in screen order.
const (
	mcolClient = iota
	mcolHost
	mcolMember
	mcolCount
	mcolLag
	mcolRate
	mcolParts
	numMCols
)

const membersChrome = 2 // title and column header

// maxPartsText bounds the partition list kept per member; the screen is
// never wider.
const maxPartsText = 512

// NewMembers returns an empty members pane.
func NewMembers(st Styles, km KeyMap) Members {
	return Members{styles: st, keys: km}
}

// SetSize sets the pane's outer size, title and column header included.
func (m *Members) SetSize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.sc.SetHeight(max(m.height-membersChrome, 0))
}

// SetFocused marks the pane as the one receiving scroll keys.
func (m *Members) SetFocused(f bool) { m.focused = f }

// SetStale marks the rows as last-known data from an earlier poll.
func (m *Members) SetStale(s bool) { m.stale = s }

// SetPending says whether the group is rebalancing, so members without
// partitions read as awaiting assignment rather than idle.
func (m *Members) SetPending(p bool) { m.pending = p }

// SetMembers replaces the members; the selected member stays selected when
// it is still present.
func (m *Members) SetMembers(ms []model.Member) {
	sel, selClient := "", ""
	if c := m.sc.Cursor(); c >= 0 && c < len(m.members) {
		sel, selClient = m.members[c].MemberID, m.members[c].ClientID
	}
	m.members = ms
	m.parts = make([]string, len(ms))
	for i := range ms {
		m.parts[i] = partitionList(ms[i].Partitions)
	}
	m.sc.SetLen(len(ms))
	m.mostLag = -1
	if len(ms) > 1 {
		for i := range ms {
			// Lag only in flight is no overload: marking it would move
			// the marker between members every poll on a healthy group.
			if ms[i].Lag > 0 && !ms[i].InFlight && (m.mostLag < 0 || ms[i].Lag > ms[m.mostLag].Lag) {
				m.mostLag = i
			}
		}
	}
	if i := findMember(ms, sel, selClient); i >= 0 {
		m.sc.SetCursor(i)
	}
}

// Selected returns the member under the cursor.
func (m Members) Selected() (model.Member, bool) {
	i := m.sc.Cursor()
	if i < 0 || i >= len(m.members) {
		return model.Member{}, false
	}
	return m.members[i], true
}

// Len returns the number of members.
func (m Members) Len() int { return len(m.members) }

// Update handles scroll keys.
func (m Members) Update(msg tea.Msg) (Members, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		m.sc.handleKey(k, m.keys)
	}
	return m, nil
}

// partitionList writes a member's partitions compactly: runs become ranges
// ("0-3,7"), and the topic is named when it has more than one
// ("orders[0-3] payments[1]"). Partitions arrive sorted by topic, number.
func partitionList(tps []model.TopicPartition) string {
	if len(tps) == 0 {
		return "-"
	}
	multi := false
	for _, tp := range tps[1:] {
		if tp.Topic != tps[0].Topic {
			multi = true
			break
		}
	}
	var b strings.Builder
	for i := 0; i < len(tps) && b.Len() < maxPartsText; {
		topic := tps[i].Topic
		if multi {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(model.Printable(topic))
			b.WriteByte('[')
		}
		first := true
		for i < len(tps) && tps[i].Topic == topic {
			j := i
			for j+1 < len(tps) && tps[j+1].Topic == topic && tps[j+1].Partition == tps[j].Partition+1 {
				j++
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			b.WriteString(strconv.Itoa(int(tps[i].Partition)))
			if j > i {
				b.WriteByte('-')
				b.WriteString(strconv.Itoa(int(tps[j].Partition)))
			}
			i = j + 1
		}
		if multi {
			b.WriteByte(']')
		}
	}
	return b.String()
}

// lagText is member i's LAG cell; the member with the most lag, when
// there are several, is marked so an overloaded member stands out.
func (m Members) lagText(i int) string {
	s := strconv.FormatInt(m.members[i].Lag, 10)
	if i == m.mostLag {
		return s + " " + glyphWorst
	}
	return s + "  "
}

// SetPartitionCount says how many partitions the group has, so members
// owning none can be explained.
func (m *Members) SetPartitionCount(n int) { m.partCount = n }

// partsText is member i's PARTITIONS cell.
func (m Members) partsText(i int) string {
	if i < len(m.notes) && m.notes[i] != "" {
		return m.notedParts(i)
	}
	switch {
	case len(m.members[i].Partitions) > 0:
		return m.parts[i]
	case m.pending:
		return glyphWaiting + " awaiting assignment"
	case m.partCount > 0 && len(m.members) > m.partCount:
		return "none · idle: more consumers than partitions"
	default:
		return "none · idle"
	}
}

func memberHost(h string) string {
	if h == "" {
		return "-"
	}
	return model.Printable(strings.TrimPrefix(h, "/"))
}

// memberName names a member on screen: its client id, or its short member
// id without one.
func memberName(mb *model.Member) string {
	if mb.ClientID != "" {
		return model.Printable(mb.ClientID)
	}
	return model.ShortID(mb.MemberID)
}

// View renders the title, the column header and the visible members.
func (m Members) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	start, end := m.sc.Window()
	visible := m.members[start:end]

	var nat [numMCols]int
	nat[mcolClient], nat[mcolHost], nat[mcolMember] = 9, 4, 9
	nat[mcolCount], nat[mcolLag], nat[mcolParts] = 5, 3, 10
	nat[mcolRate] = 9
	for i := range visible {
		mb := &visible[i]
		nat[mcolClient] = max(nat[mcolClient], textWidth(memberName(mb)))
		nat[mcolHost] = max(nat[mcolHost], textWidth(memberHost(mb.Host)))
		nat[mcolLag] = max(nat[mcolLag], digits(mb.Lag)+2) // + " ◀"
		nat[mcolRate] = max(nat[mcolRate], len(rateNum(mb.ConsumeRate)))
		nat[mcolParts] = max(nat[mcolParts], textWidth(m.partsText(start+i)))
	}
	w := nat
	w[mcolClient] = min(nat[mcolClient], 24)
	w[mcolParts] = max(10, m.notesWidth(start, end)) // a demo note is never cut
	show := [numMCols]bool{true, true, true, true, true, true, true}
	avail := m.width - 1
	used := func() int {
		n, cols := 0, 0
		for c := range numMCols {
			if show[c] {
				n += w[c]
				cols++
			}
		}
		return n + max(cols-1, 0)
	}
	for _, c := range []int{mcolMember, mcolHost, mcolCount, mcolRate} {
		if used() <= avail {
			break
		}
		show[c] = false
	}
	if extra := avail - used(); extra > 0 {
		d := min(extra, nat[mcolClient]-w[mcolClient])
		w[mcolClient] += d
		w[mcolParts] += extra - d
	}

	var b strings.Builder
	b.WriteString(m.title(start, end))
	if m.height < 2 {
		return b.String()
	}
	titles := [numMCols]string{"CLIENT-ID", "HOST", "MEMBER-ID", "PARTS", "LAG", "CONSUME/s", "PARTITIONS"}
	right := [numMCols]bool{mcolCount: true, mcolLag: true, mcolRate: true}
	cells := func(vals [numMCols]string) string { return joinCells(vals[:], w[:], show[:], right[:]) }
	b.WriteByte('\n')
	b.WriteString(m.styles.ColHeader.Render(" " + cells(titles)))
	if len(m.members) == 0 && m.height > membersChrome {
		b.WriteByte('\n')
		b.WriteString(m.styles.Muted.Render(cell("  no active members", m.width, false)))
	}
	for i := range visible {
		mb := &visible[i]
		vals := [numMCols]string{
			memberName(mb),
			memberHost(mb.Host),
			model.ShortID(mb.MemberID),
			strconv.Itoa(len(mb.Partitions)),
			m.lagText(start + i),
			rateNum(mb.ConsumeRate),
			m.partsText(start + i),
		}
		b.WriteByte('\n')
		selected := m.focused && start+i == m.sc.Cursor()
		if selected {
			b.WriteString(m.styles.Selected.Render(glyphCursor + cells(vals)))
			continue
		}
		line := " " + cells(vals)
		if len(mb.Partitions) == 0 {
			line = m.styles.Muted.Render(line)
		}
		b.WriteString(line)
	}
	return b.String()
}

func (m Members) title(start, end int) string {
	st := m.styles.PaneTitleOff
	glyph := glyphUnfocused
	if m.focused {
		st, glyph = m.styles.PaneTitle, glyphFocused
	}
	ghosts := m.ghosts() // demo consumers listed though the group does not list them
	s := st.Render(glyph + " Members " + strconv.Itoa(len(m.members)-ghosts))
	var extra []string
	if ghosts > 0 {
		extra = append(extra, "+"+strconv.Itoa(ghosts)+" not in the group")
	}
	if len(m.members) > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if m.stale {
		extra = append(extra, glyphStale+" stale")
	}
	if len(extra) > 0 {
		s += m.styles.Muted.Render("  " + strings.Join(extra, " · "))
	}
	return ansi.Truncate(s, m.width, ellipsis)
}
