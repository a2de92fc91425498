package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// TableView picks what the --once table shows, as kafka-consumer-groups
// --describe does: the partitions' offsets (the default, its --offsets),
// the members (--members) or the group's state (--state); Verbose adds
// the columns its --verbose adds (epochs, assignments, leader epochs) and
// kgwatch's own that explain a rebalance (the partitions a classic member
// said it owned as it joined).
type TableView struct {
	Members bool
	State   bool
	Verbose bool
}

// FormatTableView renders the snapshot in view v. The columns follow
// kafka-consumer-groups' words and order; a column the group's type has
// no value for shows "-".
func FormatTableView(s Snapshot, v TableView) string {
	switch {
	case v.State:
		return formatState(s, v.Verbose)
	case v.Members:
		return formatMembers(s, v.Verbose)
	}
	return formatOffsets(s, v.Verbose)
}

// formatState is --state: one row for the group.
func formatState(s Snapshot, verbose bool) string {
	var b strings.Builder
	b.WriteString("\n")
	header := []string{"GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE"}
	coordinator := "-"
	if s.Group.Coordinator != "" {
		coordinator = fmt.Sprintf("%s (%d)", s.Group.Coordinator, s.Group.CoordinatorID)
	}
	row := []string{NameCell(s.Group.ID, MaxNameCells), coordinator, dash(s.Group.Assignor), dash(s.Group.State)}
	if verbose {
		header = append(header, "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH")
		epoch, target := "-", "-"
		if s.Group.Kind().CoordinatorAssigned { // classic groups have generations, not epochs
			epoch, target = strconv.Itoa(int(s.Group.Epoch)), strconv.Itoa(int(s.Group.AssignmentEpoch))
		}
		row = append(row, epoch, target)
	}
	header = append(header, "#MEMBERS")
	row = append(row, strconv.Itoa(len(s.Members)))
	writeColumns(&b, [][]string{header, row}, nil)
	return b.String()
}

// formatMembers is --members: one row a member.
func formatMembers(s Snapshot, verbose bool) string {
	var b strings.Builder
	if len(s.Members) == 0 {
		b.WriteString("\nConsumer group '" + Name(s.Group.ID) + "' has no active members.\n")
		return b.String()
	}
	b.WriteString("\n")
	kind := s.Group.Kind()
	static := slices.ContainsFunc(s.Members, func(m Member) bool { return m.InstanceID != "" })
	header := []string{"GROUP", "CONSUMER-ID"}
	if verbose && static {
		header = append(header, "GROUP-INSTANCE-ID")
	}
	header = append(header, "HOST", "CLIENT-ID", "#PARTITIONS")
	classic := !kind.CoordinatorAssigned
	if verbose {
		switch {
		case classic:
			header = append(header, "ASSIGNMENT", "OWNED-PARTITIONS")
		case kind.TargetAssignment:
			header = append(header, "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT")
		default:
			header = append(header, "CURRENT-EPOCH", "CURRENT-ASSIGNMENT")
		}
	}
	rows := [][]string{header}
	for _, m := range s.Members {
		r := []string{NameCell(s.Group.ID, MaxNameCells), m.MemberID}
		if verbose && static {
			r = append(r, dash(m.InstanceID))
		}
		r = append(r, dash(m.Host), dash(m.ClientID), strconv.Itoa(len(m.Partitions)))
		if verbose {
			switch {
			case classic:
				owned := "-"
				if m.OwnedKnown {
					owned = assignmentCell(m.OwnedPartitions)
				}
				r = append(r, assignmentCell(m.Partitions), owned)
			case kind.TargetAssignment:
				r = append(r, strconv.Itoa(int(m.MemberEpoch)), assignmentCell(m.Partitions),
					strconv.Itoa(int(s.Group.AssignmentEpoch)), assignmentCell(m.TargetPartitions))
			default:
				r = append(r, strconv.Itoa(int(m.MemberEpoch)), assignmentCell(m.Partitions))
			}
		}
		rows = append(rows, r)
	}
	writeColumns(&b, rows, nil)
	return b.String()
}

// assignmentCell writes partitions as kafka-consumer-groups does, each
// topic's partitions after it: "orders:0,1,2;payments:3"; "-" for none.
func assignmentCell(tps []TopicPartition) string {
	if len(tps) == 0 {
		return "-"
	}
	sorted := slices.SortedFunc(slices.Values(tps), CompareTP)
	var b strings.Builder
	for i, tp := range sorted {
		switch {
		case i == 0:
			b.WriteString(tp.Topic + ":")
		case tp.Topic != sorted[i-1].Topic:
			b.WriteString(";" + tp.Topic + ":")
		default:
			b.WriteString(",")
		}
		b.WriteString(strconv.Itoa(int(tp.Partition)))
	}
	return b.String()
}
