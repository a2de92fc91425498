package model

import (
	"fmt"
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
	group := Name(s.Group.ID)
	switch {
	case s.Group.State == StateEmpty:
		fmt.Fprintf(&b, "\nConsumer group '%s' has no active members.\n\n", group)
	case s.Group.Rebalancing():
		fmt.Fprintf(&b, "\nWarning: Consumer group '%s' is rebalancing.\n\n", group)
	case s.Group.State == StateUnknown:
		what := "is not a classic group kgwatch can describe"
		if k := s.Group.Kind(); s.Group.Type.Known() && !k.Described {
			what = "is a " + k.Label + " group, which kgwatch lists but cannot describe yet"
		}
		fmt.Fprintf(&b, "\nWarning: Consumer group '%s' %s: its members are unknown, its offsets are shown.\n\n", group, what)
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
	// One grid of cells, row after row, for every partition: no slice a
	// row; the group's cell, the same on every row, is made once, and so
	// is a topic's for its run of partitions.
	cols := len(header)
	cells := make([]string, 0, (len(s.Partitions)+1)*cols)
	cells = append(cells, header...)
	groupCell := NameCell(s.Group.ID, MaxNameCells)
	topic, topicCell := "", ""
	fromStart, fromBroker := false, false
	for i, p := range s.Partitions {
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
		if i == 0 || p.Topic != topic {
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
		cells = append(cells, Offset(p.Committed), Offset(p.LogEnd), lag,
			dash(p.MemberID), dash(p.Host), dash(p.ClientID), age, dash(string(p.Status)))
	}
	writeGrid(&b, cells, cols, nil)
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
	writeStuckNotes(&b, s)
	return b.String()
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
	widths := make([]int, cols)
	size := 0
	for i := range cells {
		cells[i] = Printable(cells[i])
		widths[i%cols] = max(widths[i%cols], Width(cells[i]))
		size += len(cells[i])
	}
	rows := len(cells) / cols
	line := cols
	for _, w := range widths {
		line += w
	}
	b.Grow(max(line*rows, size+cols*rows))
	for r := 0; r < rows; r++ {
		row := cells[r*cols : (r+1)*cols]
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
}

const spaces = "                                                                "

// writeSpaces writes n spaces.
func writeSpaces(b *strings.Builder, n int) {
	for n > len(spaces) {
		b.WriteString(spaces)
		n -= len(spaces)
	}
	if n > 0 {
		b.WriteString(spaces[:n])
	}
}
