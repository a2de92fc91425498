package model

import (
	"fmt"
	"strings"
)

// The human sentences of timeline events (Event.Detail).

// memberLabel names a member: its client id, or its short member id without one.
func memberLabel(m Member) string {
	if m.ClientID != "" {
		return m.ClientID
	}
	return ShortID(m.MemberID)
}

func watchDetail(group string, v *snapView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "watching %s: ", group)
	switch {
	case !groupExists(v.state):
		b.WriteString("the group does not exist yet")
		return b.String()
	case len(v.members) == 0:
		b.WriteString(v.state + ", no active members")
		return b.String()
	}
	names := make([]string, len(v.members))
	for i, m := range v.members {
		names[i] = memberLabel(m)
	}
	fmt.Fprintf(&b, "%s, %s (%s)", v.state, Count(len(v.members), "member"), listNames(names))
	if v.assigned() {
		n := 0
		for _, m := range v.members {
			n += len(m.Partitions)
		}
		fmt.Fprintf(&b, ", %s owned", Count(n, "partition"))
	} else if rebalancing(v.state) {
		b.WriteString(", rebalance in progress")
	}
	return b.String()
}

// memberDetail says "consumer-c joined (host /127.0.0.1); it owns p0–p2".
func memberDetail(m Member, verb, owns string, parts []TopicPartition, multi bool) string {
	s := memberLabel(m) + " " + verb
	if m.Host != "" {
		s += " (host " + m.Host + ")"
	}
	switch {
	case owns == "":
	case len(parts) == 0 && verb == "left":
		s += "; it owned no partitions"
	case len(parts) == 0:
		s += "; it owns no partitions"
	default:
		s += "; " + owns + " " + PartitionList(parts, multi)
	}
	return s
}

func startDetail(prefix string, causes []string) string {
	if len(causes) == 0 {
		return prefix
	}
	return prefix + ": " + strings.Join(causes, ", ")
}

// moveDetail says "p2: consumer-a → consumer-b".
func moveDetail(m ownerMove, multi bool) string {
	from, to := m.From, m.To
	// Two owners that would read the same get their member ids.
	same := from != "" && Printable(from) == Printable(to)
	if from == "" {
		from = "(unowned)"
	}
	if to == "" {
		to = "(unowned)"
	}
	b := make([]byte, 0, 64)
	b = appendPartName(b, m.TopicPartition, multi)
	b = append(b, ": "...)
	b = append(b, from...)
	if same {
		b = append(b, " ("+ShortID(m.fromID)+")"...)
	}
	b = append(b, " → "...)
	b = append(b, to...)
	if same {
		b = append(b, " ("+ShortID(m.toID)+")"...)
	}
	return string(b)
}

func listNames(names []string) string {
	const maxNames = 5
	if len(names) > maxNames {
		return strings.Join(names[:maxNames], ", ") + fmt.Sprintf(" and %d more", len(names)-maxNames)
	}
	return strings.Join(names, ", ")
}

// revokeDetail is a cooperative revoke phase's rebalance_completed
// detail: who gave up what (held: the revoked partitions, moved by the
// next round), then the moves it completed itself (moves), if any.
func revokeDetail(e Event, held, moves []ownerMove, multi bool) string {
	var b strings.Builder
	b.WriteString("revoke phase of a cooperative rebalance")
	switch {
	case e.Inferred:
		b.WriteString(" between polls")
	case e.HasDuration:
		b.WriteString(" took " + Elapsed(e.Duration))
	}
	b.WriteString(": " + revokedDetail(held, multi))
	if s := movesSummary(moves); s != "" {
		b.WriteString("; " + s)
	}
	return b.String()
}

// revokedDetail says what members gave up in a revoke phase: "consumer-a
// gave up p2; the next generation assigns it".
func revokedDetail(held []ownerMove, multi bool) string {
	byFrom := map[string][]TopicPartition{}
	var froms []string
	for _, m := range held {
		if _, ok := byFrom[m.From]; !ok {
			froms = append(froms, m.From)
		}
		byFrom[m.From] = append(byFrom[m.From], m.TopicPartition)
	}
	var gave []string
	for _, f := range froms {
		gave = append(gave, f+" gave up "+PartitionList(byFrom[f], multi))
	}
	if len(held) == 1 {
		return listNames(gave) + "; the next generation assigns it"
	}
	return listNames(gave) + "; the next generation assigns them"
}
