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
	rows := [][]string{header}
	fromStart, fromBroker := false, false
	for _, p := range s.Partitions {
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
		row := []string{
			NameCell(s.Group.ID, MaxNameCells), NameCell(p.Topic, MaxNameCells), strconv.Itoa(int(p.Partition)),
			Offset(p.Committed), Offset(p.LogEnd), lag,
			dash(p.MemberID), dash(p.Host), dash(p.ClientID), age, dash(string(p.Status)),
		}
		if verbose {
			epoch := "-"
			if p.LeaderEpochKnown {
				epoch = strconv.Itoa(int(p.LeaderEpoch))
			}
			row = slices.Insert(row, 3, epoch)
		}
		rows = append(rows, row)
	}
	writeColumns(&b, rows, nil)
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
	widths := make([]int, len(rows[0]))
	cells := make([]int, 0, len(rows)*len(rows[0])) // each cell's width, in order
	for _, r := range rows {
		for i := range r {
			r[i] = Printable(r[i])
			w := Width(r[i])
			cells = append(cells, w)
			widths[i] = max(widths[i], w)
		}
	}
	line := len(widths)
	for _, w := range widths {
		line += w
	}
	b.Grow(line * len(rows))
	k := 0
	for _, r := range rows {
		for i, c := range r {
			pad := widths[i] - cells[k]
			k++
			if i < len(right) && right[i] {
				writeSpaces(b, pad)
				b.WriteString(c)
			} else {
				b.WriteString(c)
				if i < len(r)-1 {
					writeSpaces(b, pad)
				}
			}
			if i < len(r)-1 {
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
