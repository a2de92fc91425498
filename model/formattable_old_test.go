package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The offsets table written a row at a time (writeOffsets, streamGrid) is
// byte for byte the one the held grid wrote before it (f38d0e3's
// formatOffsets, kept below word for word as the reference): hostile and
// wide names, errors, lag from the start and from the broker, stuck
// records, verbose, empty.
func TestOffsetsTableAsHeldBefore(t *testing.T) {
	stuck := NewSnapshot(stuckObservation(stuckT0.Add(time.Minute), poisonRecord()))
	stuck.Group.ID = "g\x1b[31m\u202e注文"
	stuck.Partitions[0].Topic = "t\u0300\u0300\u0300\u0300"
	wide := wideTable(300)
	wide.Partitions[3].Err = "NOT_LEADER_OR_FOLLOWER"
	wide.Partitions[5].LagFromStart = true
	wide.Partitions[7].LagFromBroker = true
	wide.Partitions[9].Topic = "注文-orders"
	wide.Partitions[10].Topic = strings.Repeat("long-topic-", 20)
	wide.Partitions[11].LeaderEpochKnown, wide.Partitions[11].LeaderEpoch = true, 12
	empty := NewSnapshot(sampleObservation())
	empty.Partitions = nil
	empty.Group.State = StateEmpty
	rebalancing := NewSnapshot(sampleObservation())
	rebalancing.Group.State = StatePreparingRebalance
	unknown := wideTable(3)
	unknown.Group.State, unknown.Group.Type = StateUnknown, TypeStreams
	for name, s := range map[string]Snapshot{"sample": NewSnapshot(sampleObservation()), "stuck": stuck, "wide": wide,
		"empty": empty, "rebalancing": rebalancing, "unknown": unknown} {
		for _, verbose := range []bool{false, true} {
			if got, want := formatOffsets(s, verbose), oldFormatOffsets(s, verbose); got != want {
				t.Fatalf("%s (verbose %v): the table differs from the held grid's\n%s\nwas\n%s", name, verbose, got, want)
			}
		}
	}
}

func oldFormatOffsets(s Snapshot, verbose bool) string {
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
	oldWriteGrid(&b, cells, cols, nil)
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
func oldWriteGrid(b *strings.Builder, cells []string, cols int, right []bool) {
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
				oldWriteSpaces(b, pad)
				b.WriteString(c)
			} else {
				b.WriteString(c)
				if i < cols-1 {
					oldWriteSpaces(b, pad)
				}
			}
			if i < cols-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString("\n")
	}
}
func oldWriteSpaces(b *strings.Builder, n int) {
	for n > len(spaces) {
		b.WriteString(spaces)
		n -= len(spaces)
	}
	if n > 0 {
		b.WriteString(spaces[:n])
	}
}
