package model

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// FormatTable renders the snapshot the way `kafka-consumer-groups
// --describe` does: a state line for groups that are empty or rebalancing,
// then one padded row per partition with `-` for missing values. A lag
// counted from the log start (nothing committed) is marked "20*", and
// LagFromStartNote follows the table; a share group's lag, the broker's
// count, is said under it (ShareLagNote). FormatTableView gives the other
// views.
func FormatTable(s Snapshot) string { return formatOffsets(s, false) }

// ShareLagNote follows a table whose LAG is a share group's, as the
// broker counts it (KIP-1226).
const ShareLagNote = "LAG of a share group is the broker's count of records not yet acknowledged from CURRENT-OFFSET (the share-partition start offset) on, not LOG-END-OFFSET minus CURRENT-OFFSET."

// formatOffsets is the offsets view; verbose adds LEADER-EPOCH, the
// committed offset's leader epoch, after PARTITION.
func formatOffsets(s Snapshot, verbose bool) string {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	writeOffsets(w, s, verbose)
	w.Flush()
	return b.String()
}

// WriteTableView writes the snapshot in view v to w, as FormatTableView
// gives it. The offsets view is written as it is laid out, a row at a
// time: a table of 50,000 partitions is never held whole (its cells and
// text were 16 MB of --once's peak).
func WriteTableView(w io.Writer, s Snapshot, v TableView) error {
	if v.State || v.Members {
		_, err := io.WriteString(w, FormatTableView(s, v))
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	writeOffsets(bw, s, v.Verbose)
	return bw.Flush()
}

// writeOffsets writes the offsets view to b; its errors are b's, for the
// caller's Flush to return.
func writeOffsets(b *bufio.Writer, s Snapshot, verbose bool) {
	group := Name(s.Group.ID)
	switch {
	case s.Group.State == StateEmpty:
		fmt.Fprintf(b, "\nConsumer group '%s' has no active members.\n\n", group)
	case s.Group.Rebalancing():
		fmt.Fprintf(b, "\nWarning: Consumer group '%s' is rebalancing.\n\n", group)
	case s.Group.State == StateUnknown:
		what := "is not a classic group kgwatch can describe"
		if k := s.Group.Kind(); s.Group.Type.Known() && !k.Described {
			what = "is a " + k.Label + " group, which kgwatch lists but cannot describe yet"
		}
		fmt.Fprintf(b, "\nWarning: Consumer group '%s' %s: its members are unknown, its offsets are shown.\n\n", group, what)
	default:
		b.WriteString("\n")
	}
	// kafka-consumer-groups' columns, then kgwatch's own: the lag's age
	// and the verdict, so a script can cut the first nine as it does the
	// tool's and a person sees which partition to look at.
	header := []string{"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID", "LAG-AGE", "STATUS"}
	if verbose {
		header = slices.Insert(header, 3, "LEADER-EPOCH")
	}
	// The cells of a row are made when the grid asks for them, twice (to
	// size the columns, then to write them): the group's cell, the same
	// on every row, is made once, and so is a topic's for its run of
	// partitions.
	groupCell := NameCell(s.Group.ID, MaxNameCells)
	topic, topicCell := "", ""
	fromStart, fromBroker := false, false
	row := func(i int, cells []string) []string {
		if i == 0 {
			return append(cells, header...)
		}
		p := &s.Partitions[i-1]
		lag := "-" // unknown, as kafka-consumer-groups writes it; so is a row's in error
		if p.LogEnd >= 0 && p.Err == "" {
			lag = strconv.FormatInt(p.Lag, 10)
			if p.LagFromStart {
				lag += FromStartMark // nothing committed: counted from the log start
				fromStart = true
			}
		}
		age := "-"
		if p.LagAgeKnown {
			age = Age(p.LagAge)
		}
		fromBroker = fromBroker || (p.LagFromBroker && lag != "-")
		if topicCell == "" || p.Topic != topic {
			topic, topicCell = p.Topic, NameCell(p.Topic, MaxNameCells)
		}
		cells = append(cells, groupCell, topicCell, strconv.Itoa(int(p.Partition)))
		if verbose {
			epoch := "-"
			if p.LeaderEpochKnown {
				epoch = strconv.Itoa(int(p.LeaderEpoch))
			}
			cells = append(cells, epoch)
		}
		return append(cells, Offset(p.Committed), Offset(p.LogEnd), lag,
			dash(p.MemberID), dash(p.Host), dash(p.ClientID), age, dash(string(p.Status)))
	}
	streamGrid(b, len(s.Partitions)+1, len(header), row, nil)
	if fromStart {
		b.WriteString("\n" + LagFromStartNote + "\n")
	}
	if fromBroker {
		b.WriteString("\n" + ShareLagNote + "\n")
	}
	// Rows in error show LAG "-"; why is said under the table, one line a
	// partition (the first few).
	const maxErrLines = 10
	var errs []string
	for _, p := range s.Partitions {
		if p.Err != "" {
			errs = append(errs, Printable(p.Topic)+"/"+strconv.Itoa(int(p.Partition))+": "+Printable(p.Err))
		}
	}
	if len(errs) > 0 {
		b.WriteString("\n")
		for i, e := range errs {
			if i == maxErrLines {
				b.WriteString("… and " + Count(len(errs)-maxErrLines, "more partition") + " in error\n")
				break
			}
			b.WriteString("error " + e + "\n")
		}
	}
	var notes strings.Builder
	writeStuckNotes(&notes, s)
	b.WriteString(notes.String())
}

// writeColumns writes rows of cells as columns padded to their widest cell
// (in terminal cells, not bytes), one space apart; right marks the columns
// aligned right. Every cell is passed through Printable: the cells hold
// names brokers and clients chose.
func writeColumns(b *strings.Builder, rows [][]string, right []bool) {
	if len(rows) == 0 {
		return
	}
	cols := len(rows[0])
	cells := make([]string, 0, len(rows)*cols)
	for _, r := range rows {
		cells = append(cells, r...)
	}
	writeGrid(b, cells, cols, right)
}

// writeGrid is writeColumns of the rows of cols cells laid end to end in
// cells. Widths are measured twice, to size the columns and to pad, rather
// than kept: a cell's is a scan of its bytes.
func writeGrid(b *strings.Builder, cells []string, cols int, right []bool) {
	if len(cells) == 0 || cols == 0 {
		return
	}
	for i := range cells {
		cells[i] = Printable(cells[i])
	}
	widths := gridWidths(len(cells)/cols, cols, func(r int, _ []string) []string { return cells[r*cols : (r+1)*cols] })
	size := 0
	for i := range cells {
		size += len(cells[i])
	}
	line := cols
	for _, w := range widths {
		line += w
	}
	rows := len(cells) / cols
	b.Grow(max(line*rows, size+cols*rows))
	for r := 0; r < rows; r++ {
		writeGridRow(b, cells[r*cols:(r+1)*cols], widths, right)
	}
}

// streamGrid is writeGrid of rows rows of cols cells that are not held:
// row(i, dst) appends row i's cells to dst and returns it. It is called
// twice a row, to size the columns and then to write the row, and must
// give the same cells both times.
func streamGrid(b *bufio.Writer, rows, cols int, row func(i int, dst []string) []string, right []bool) {
	if rows == 0 || cols == 0 {
		return
	}
	widths := gridWidths(rows, cols, row)
	cells := make([]string, 0, cols)
	for r := 0; r < rows; r++ {
		cells = row(r, cells[:0])
		for i := range cells {
			cells[i] = Printable(cells[i])
		}
		writeGridRow(b, cells, widths, right)
	}
}

// gridWidths is each column's widest cell, in terminal cells, of the rows
// row gives (Printable first).
func gridWidths(rows, cols int, row func(i int, dst []string) []string) []int {
	widths := make([]int, cols)
	cells := make([]string, 0, cols)
	for r := 0; r < rows; r++ {
		cells = row(r, cells[:0])
		for i, c := range cells {
			widths[i] = max(widths[i], Width(Printable(c)))
		}
	}
	return widths
}

// gridWriter is what a grid is written to: a strings.Builder or a
// bufio.Writer.
type gridWriter interface {
	WriteString(string) (int, error)
	WriteByte(byte) error
}

// writeGridRow writes one row of printable cells padded to widths.
func writeGridRow(b gridWriter, row []string, widths []int, right []bool) {
	cols := len(row)
	for i, c := range row {
		pad := widths[i] - Width(c)
		if i < len(right) && right[i] {
			writeSpaces(b, pad)
			b.WriteString(c)
		} else {
			b.WriteString(c)
			if i < cols-1 {
				writeSpaces(b, pad)
			}
		}
		if i < cols-1 {
			b.WriteByte(' ')
		}
	}
	b.WriteString("\n")
}

const spaces = "                                                                "

// writeSpaces writes n spaces.
func writeSpaces(b gridWriter, n int) {
	for n > len(spaces) {
		b.WriteString(spaces)
		n -= len(spaces)
	}
	if n > 0 {
		b.WriteString(spaces[:n])
	}
}
