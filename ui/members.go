package ui

import (
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/kgwatch/kgwatch/model"
)

// Members is the members pane: each member of the group, the partitions it
// owns and their total lag.
type Members struct {
	listPane[model.Member]
	styles  Styles
	parts   []string // partition list text per member, built in SetMembers
	width   int
	height  int
	focused bool
	stale   bool
	// ageShift is how much the COMMITS column counts on (SetAgeShift).
	ageShift time.Duration
	pending  bool // the group is rebalancing: assignments are on their way
	// partCount is how many partitions the group has, to tell why a member
	// owns none; mostLag is the member with the most lag (marked), -1 when
	// none stands out.
	partCount int
	mostLag   int
	// notes say what only the demo knows about each member (ui/demo.go).
	notes []string
	grid  grid[memberRow]
	now   time.Time
	// target is the group's target assignment epoch (consumer groups).
	target int32

	// rowsSeq counts SetMembers calls; frame is the last View's inputs
	// and output, shown again while they are equal.
	rowsSeq uint64
	frame   membersFrame
}

// membersFrame is a rendered members pane and what it was rendered from,
// but for the clock, which only the column widths' hold reads.
type membersFrame struct {
	key membersKey
	out string
}

// membersKey is what a frame of the members pane shows: the members are
// replaced (rowsSeq) only by SetMembers.
type membersKey struct {
	rowsSeq                  uint64
	sc                       scroller
	width, height, partCount int
	focused, stale, pending  bool
	target                   int32
	shift                    time.Duration
}

// SetTargetEpoch says the group's target assignment epoch, for the
// members' EPOCH cells.
func (m *Members) SetTargetEpoch(e int32) { m.target = e }

const membersChrome = 2 // title and column header

// NewMembers returns an empty members pane.
func NewMembers(st Styles, km KeyMap) Members {
	return Members{listPane: newListPane[model.Member](km), styles: st, grid: newGrid(memberColumns())}
}

// SetNow sets the clock the column widths are held by.
func (m *Members) SetNow(now time.Time) { m.now = now }

// SetSize sets the pane's outer size, title and column header included.
func (m *Members) SetSize(w, h int) {
	m.width, m.height = max(w, 0), max(h, 0)
	m.setHeight(m.height - membersChrome)
}

// SetFocused marks the pane as the one receiving scroll keys.
func (m *Members) SetFocused(f bool) { m.focused = f }

// SetStale marks the rows as last-known data from an earlier poll.
func (m *Members) SetStale(s bool) { m.stale = s }

// SetAgeShift sets how far the clock is past the poll of stale members
// (GroupPage.ageShift; 0 while fresh): the COMMITS column's "0.4s ago"
// counts on by it.
func (m *Members) SetAgeShift(d time.Duration) { m.ageShift = d }

// SetPending says whether the group is rebalancing, so members without
// partitions read as awaiting assignment rather than idle.
func (m *Members) SetPending(p bool) { m.pending = p }

// SetMembers replaces the members; the selected member stays selected when
// it is still present.
func (m *Members) SetMembers(ms []model.Member) {
	prev, _ := m.selected()
	sel, selClient := prev.MemberID, prev.ClientID
	m.replace(ms)
	m.rowsSeq++
	m.parts = make([]string, len(ms))
	for i := range ms {
		m.parts[i] = model.PartitionList(ms[i].Partitions, model.MultiTopic(ms[i].Partitions))
	}
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
	i := findMember(ms, sel, selClient)
	if i >= 0 && sel != "" && ms[i].MemberID == "" {
		// The member left the group (x): only the demo still lists it.
		// The cursor goes to the nearest member still in the group, so
		// the next key acts on a live one.
		i = nearestLive(ms, i)
	}
	if i >= 0 {
		m.setCursor(i)
	}
}

// nearestLive returns the index of the member nearest i that the group
// lists (a member id), i itself when there is none.
func nearestLive(ms []model.Member, i int) int {
	for d := 1; d < len(ms); d++ {
		for _, j := range []int{i - d, i + d} {
			if j >= 0 && j < len(ms) && ms[j].MemberID != "" {
				return j
			}
		}
	}
	return i
}

// Selected returns the member under the cursor.
func (m Members) Selected() (model.Member, bool) { return m.selected() }

// Update handles the list keys.
func (m Members) Update(msg tea.Msg) (Members, tea.Cmd) {
	m.handleKey(msg)
	return m, nil
}

// lagText is member i's LAG cell; the member with the most lag, when
// there are several, is marked so an overloaded member stands out.
func (m Members) lagText(i int) string {
	s := model.Thousands(m.rows[i].Lag)
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
	mb := &m.rows[i]
	if mb.Reconciling && mb.TargetPartitions != nil {
		// A consumer group member on its way to its target.
		now := m.parts[i]
		if len(mb.Partitions) == 0 {
			now = "none"
		}
		return now + " " + glyphReconciling + " reconciling to " + model.PartitionList(mb.TargetPartitions, model.MultiTopic(mb.TargetPartitions))
	}
	switch {
	case len(mb.Partitions) > 0:
		return m.parts[i]
	case m.pending:
		return glyphWaiting + " awaiting assignment"
	case m.partCount > 0 && len(m.rows) > m.partCount:
		return "none · idle: more consumers than partitions"
	default:
		return "none · idle"
	}
}

// glyphReconciling marks a member reconciling towards its target.
const glyphReconciling = "⇄"

func memberHost(h string) string {
	if h == "" {
		return "-"
	}
	return strings.TrimPrefix(h, "/")
}

// memberName names a member on screen: its client id, or its short member
// id without one.
func memberName(mb *model.Member) string {
	if mb.ClientID != "" {
		return model.Printable(mb.ClientID)
	}
	return model.ShortID(mb.MemberID)
}

// memberRow is one row of the members pane as the grid draws it: the
// member and what the pane says of it.
type memberRow struct {
	m      *model.Member
	parts  string        // PARTITIONS: its partitions, or why none, or a demo note
	lag    string        // LAG, marked when it is the member with the most
	note   bool          // parts holds a demo note, which is never cut
	target int32         // the group's target assignment epoch (consumer groups)
	shift  time.Duration // how much its commit's age counts on (SetAgeShift)
}

// memberColumns declares the members pane's columns, in screen order: the
// rack, epoch, instance and member ids, commits, host, partition count,
// rate and last the lag give way, the partitions (with the demo's notes, never cut)
// take the rest.
func memberColumns() []column[memberRow] {
	return []column[memberRow]{
		{title: "CLIENT-ID", min: 9, max: 24, grow: 1, text: func(r *memberRow) string { return memberName(r.m) }},
		{title: "HOST", drop: 6, grow: 3, text: func(r *memberRow) string { return memberHost(r.m.Host) }},
		{title: "MEMBER-ID", drop: 8, grow: 4, text: memberIDText},
		{title: "INSTANCE-ID", drop: 10, grow: 6, max: 24, hideEmpty: true, text: func(r *memberRow) string { return r.m.InstanceID }},
		{title: "EPOCH", right: true, drop: 12, grow: 7, hideEmpty: true, text: memberEpoch},
		{title: "RACK", drop: 14, grow: 8, hideEmpty: true, text: func(r *memberRow) string { return r.m.Rack }},
		{title: "PROTOCOL", drop: 11, grow: 10, hideEmpty: true, text: func(r *memberRow) string { return r.m.Protocol }},
		{title: "PROCESS", drop: 13, grow: 11, hideEmpty: true, text: func(r *memberRow) string { return model.ShortID(r.m.ProcessID) }},
		{title: "TASKS", drop: 9, grow: 12, max: 32, hideEmpty: true, text: func(r *memberRow) string { return memberTasks(r.m.Tasks) }},
		{title: "PARTS", right: true, drop: 4, grow: 2, text: func(r *memberRow) string { return strconv.Itoa(len(r.m.Partitions)) }},
		{title: "LAG", right: true, drop: 1, grow: 0, text: func(r *memberRow) string { return r.lag }},
		{title: "CONSUME/s", right: true, drop: 2, grow: 5, text: func(r *memberRow) string {
			return rateNum(r.m.ConsumeRate) + staleMark(r.m.ConsumeRate)
		}},
		{title: "COMMITS", min: 6, drop: 7, grow: 9,
			text:   func(r *memberRow) string { return memberCommits(r.m, true, r.shift) },
			narrow: func(r *memberRow) string { return memberCommits(r.m, false, r.shift) }},
		{title: "PARTITIONS", min: 10, fill: true, natural: 10, text: func(r *memberRow) string { return r.parts }},
	}
}

// memberTasks says a streams member's tasks as Kafka Streams names them
// (subtopology_partition): its active tasks, then "s:" its standbys and
// "w:" its warm-ups; "" for a member with none (and every member of
// other groups).
func memberTasks(t model.Tasks) string {
	var parts []string
	for _, k := range []struct {
		mark  string
		tasks []model.TaskID
	}{{"", t.Active}, {"s:", t.Standby}, {"w:", t.Warmup}} {
		if len(k.tasks) == 0 {
			continue
		}
		ids := make([]string, len(k.tasks))
		for i, id := range k.tasks {
			ids[i] = model.Printable(id.Subtopology) + "_" + strconv.Itoa(int(id.Partition))
		}
		parts = append(parts, k.mark+strings.Join(ids, ","))
	}
	return strings.Join(parts, " ")
}

// memberCommits says how often m commits and how long ago it last did,
// shift later than its poll: "every 1.0s, 0.4s ago" (narrow: "0.4s
// ago"); "-" before any commit is seen.
func memberCommits(m *model.Member, wide bool, shift time.Duration) string {
	switch {
	case !m.CommitSeen:
		return "-"
	case wide && m.CommitEvery > 0:
		return "every " + model.Age(m.CommitEvery) + ", " + model.Age(m.CommitDelay+shift) + " ago"
	}
	return model.Age(m.CommitDelay+shift) + " ago"
}

// gridRows are the members [start, end) as the grid draws them, with notes.
func (m *Members) gridRows(start, end int, notes []string) []memberRow {
	rows := make([]memberRow, 0, end-start)
	for i := start; i < end; i++ {
		parts := m.partsText(i)
		noted := i < len(notes) && notes[i] != ""
		if noted {
			parts = notes[i]
			if len(m.rows[i].Partitions) > 0 {
				parts += "  " + m.parts[i]
			}
		}
		rows = append(rows, memberRow{m: &m.rows[i], parts: parts, lag: m.lagText(i), note: noted, target: m.target, shift: m.ageShift})
	}
	return rows
}

// shown counts the columns a layout shows.
func shown(l gridLayout) int {
	n := 0
	for _, s := range l.show {
		if s {
			n++
		}
	}
	return n
}

// memberEpoch is a consumer or share group member's epoch ("" for classic
// members, which have none): "5", "4→5" while it reconciles towards the
// group's target, "away" for a static member between restarts.
func memberEpoch(r *memberRow) string {
	switch {
	case r.m.MemberEpoch == -2:
		return "away"
	case r.m.MemberEpoch == 0:
		return ""
	case r.m.Reconciling && r.target > r.m.MemberEpoch:
		return strconv.Itoa(int(r.m.MemberEpoch)) + "→" + strconv.Itoa(int(r.target))
	}
	return strconv.Itoa(int(r.m.MemberEpoch))
}

// View renders the title, the column header and the visible members.
func (m *Members) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	// A demo's notes change at every layout: its frames are all drawn.
	key := membersKey{rowsSeq: m.rowsSeq, sc: m.sc, width: m.width, height: m.height, partCount: m.partCount,
		focused: m.focused, stale: m.stale, pending: m.pending, target: m.target, shift: m.ageShift}
	cache := !slices.ContainsFunc(m.notes, func(n string) bool { return n != "" })
	if cache && m.frame.out != "" && m.frame.key == key && m.grid.holds(m.now) {
		return m.frame.out
	}
	out := m.render()
	m.frame = membersFrame{}
	if cache {
		m.frame = membersFrame{key: key, out: out}
	}
	return out
}

// render renders the title, the column header and the visible members.
func (m *Members) render() string {
	start, end := m.sc.Window()
	rows := m.gridRows(start, end, m.notes)
	// A demo note is never cut: the partitions column is at least as
	// wide as the widest. When that costs a column the short notes would
	// leave ("✗ evicted in 8.1s" for "✗ killed · evicted in 8.1s"), they
	// are shown instead, so MEMBER-ID does not go and come back with a
	// kill at 80 columns.
	last := len(m.grid.cols) - 1
	m.grid.cols[last].min = max(10, notesWidth(m.rows, m.notes, start, end))
	l := m.grid.layout(rows, m.width, m.now)
	if short := shortNotes(m.notes); short != nil {
		full := m.grid.cols[last].min
		m.grid.cols[last].min = max(10, notesWidth(m.rows, short, start, end))
		sRows := m.gridRows(start, end, short)
		if ls := m.grid.layout(sRows, m.width, m.now); shown(ls) > shown(l) {
			rows, l = sRows, ls
		} else {
			m.grid.cols[last].min = full
		}
	}

	var b strings.Builder
	b.WriteString(m.title(start, end))
	if m.height < 2 {
		return b.String()
	}
	b.WriteByte('\n')
	b.WriteString(m.styles.ColHeader.Render(m.grid.header(l)))
	if len(m.rows) == 0 && m.height > membersChrome {
		b.WriteByte('\n')
		b.WriteString(m.styles.Muted.Render(cell("  no active members", m.width, false)))
	}
	for i := range rows {
		b.WriteByte('\n')
		if m.focused && m.isCursor(start+i) {
			var line strings.Builder
			m.grid.row(&line, l, &rows[i], glyphCursor, false)
			b.WriteString(m.styles.Selected.Render(line.String()))
			continue
		}
		var line strings.Builder
		m.grid.row(&line, l, &rows[i], " ", true)
		if len(rows[i].m.Partitions) == 0 {
			b.WriteString(m.styles.Muted.Render(line.String()))
			continue
		}
		b.WriteString(line.String())
	}
	return b.String()
}

func (m *Members) title(start, end int) string {
	st := m.styles.PaneTitleOff
	glyph := glyphUnfocused
	if m.focused {
		st, glyph = m.styles.PaneTitle, glyphFocused
	}
	ghosts := m.ghosts() // demo consumers listed though the group does not list them
	s := st.Render(glyph + " Members " + strconv.Itoa(len(m.rows)-ghosts))
	var extra []string
	if ghosts > 0 {
		extra = append(extra, "+"+strconv.Itoa(ghosts)+" not in the group")
	}
	if len(m.rows) > end-start && end > start {
		extra = append(extra, "rows "+strconv.Itoa(start+1)+"–"+strconv.Itoa(end))
	}
	if m.stale {
		extra = append(extra, glyphStale+" stale")
	}
	if len(extra) > 0 {
		s += m.styles.Muted.Render("  " + strings.Join(extra, " · "))
	}
	return truncate(s, m.width, ellipsis)
}

// memberIDText is the MEMBER-ID cell: the id, shortened; "-" for a member
// with none, as a demo consumer out of the group (its HOST reads "-" too).
func memberIDText(r *memberRow) string {
	if r.m.MemberID == "" {
		return "-"
	}
	return model.ShortID(r.m.MemberID)
}
