package model

import "fmt"

// The differ's events about protocols and group types: a consumer group
// being migrated online from the classic protocol (and back).
//
// Apache Kafka's group coordinator (GroupMetadataManager, with
// group.consumer.migration.policy allowing it) converts a classic group to
// a consumer group when a member joins it speaking the consumer protocol,
// keeping its classic members, and converts it back to a classic group
// when its last consumer-protocol member leaves (or is replaced by a
// static member speaking classic). The group keeps its name throughout.

// spokenMembers returns the snapshot's members with the protocol each
// speaks where the snapshot implies it: every member of a group that
// rebalances by generations (JoinGroup and SyncGroup) speaks the classic
// protocol, though its describe does not say so. Others keep what their
// describe told ("" when it did not). s.Members is not changed.
func spokenMembers(s Snapshot) []Member {
	if s.Group.Kind().Rebalance != RebalanceGeneration {
		return s.Members
	}
	out := make([]Member, len(s.Members))
	for i, m := range s.Members {
		if m.Protocol == "" {
			m.Protocol = ProtocolClassic
		}
		out[i] = m
	}
	return out
}

// kindEvents are the members' protocol changes between prev and cur, then
// the group's type change.
func kindEvents(b stamp, prev, cur *snapView) []Event {
	out := protocolChanges(b, prev, cur)
	if e, ok := typeChange(b, prev, cur); ok {
		out = append(out, e)
	}
	return out
}

// protocolChanges finds the members speaking another protocol than at
// the last poll: the same member (by member id, or instance id for a
// static member) with another protocol, or a member that left under one
// protocol paired with one of the same client id that joined under the
// other, as a client restarted with group.protocol changed rejoins.
func protocolChanges(b stamp, prev, cur *snapView) []Event {
	var out []Event
	var left []Member
	for i, m := range prev.members {
		if _, ok := cur.byKey[memberKey(m)]; !ok && prev.byKey[memberKey(m)] == i && m.Protocol != "" {
			left = append(left, m)
		}
	}
	for i, m := range cur.members {
		k := memberKey(m)
		if cur.byKey[k] != i || m.Protocol == "" {
			continue
		}
		if j, ok := prev.byKey[k]; ok {
			was := prev.members[j]
			if was.Protocol != "" && was.Protocol != m.Protocol {
				out = append(out, protocolEvent(b, m, was))
			}
			continue
		}
		for l, was := range left {
			if was.ClientID != "" && was.ClientID == m.ClientID && was.Protocol != m.Protocol {
				out = append(out, protocolEvent(b, m, was))
				left = append(left[:l], left[l+1:]...)
				break
			}
		}
	}
	return out
}

// protocolEvent says that m, which was was, now speaks m.Protocol:
// "consumer-a rejoined speaking the consumer protocol (was classic, as
// member 1a2b3c4d)".
func protocolEvent(b stamp, m, was Member) Event {
	e := b.memberEvent(EventMemberProtocolChanged, m)
	e.FromProtocol = was.Protocol
	if was.MemberID == m.MemberID {
		e.Detail = fmt.Sprintf("%s now speaks the %s protocol (was %s)", memberLabel(m), m.Protocol, was.Protocol)
	} else {
		e.Detail = fmt.Sprintf("%s rejoined speaking the %s protocol (was %s, as member %s)",
			memberLabel(m), m.Protocol, was.Protocol, ShortID(was.MemberID))
	}
	return e
}

// typeChange is the group's type changing between two polls that both
// found it: "order-workers became a consumer group (online migration from
// classic): consumer-d joined speaking the consumer protocol; 2 of 3
// members still classic".
func typeChange(b stamp, prev, cur *snapView) (Event, bool) {
	from, to := prev.typ.Kind().Type, cur.typ.Kind().Type
	if from == to || !groupExists(prev.state) || !groupExists(cur.state) || !prev.typ.Known() && prev.typ != "" || !cur.typ.Known() {
		return Event{}, false
	}
	e := b.event(EventGroupTypeChanged, "")
	e.FromType, e.ToType = from, to
	switch {
	case from == TypeClassic && to == TypeConsumer:
		e.Detail = fmt.Sprintf("%s became a consumer group (online migration from classic)", b.group)
		if names := speakers(cur, prev, ProtocolConsumer); len(names) > 0 {
			e.Detail += ": " + listNames(names) + " joined speaking the consumer protocol"
		}
		if n := ClassicMembers(cur.members); n > 0 {
			e.Detail += fmt.Sprintf("; %d of %s still classic", n, Count(len(cur.members), "member"))
		}
	case from == TypeConsumer && to == TypeClassic:
		e.Detail = fmt.Sprintf("%s became a classic group again (online downgrade)", b.group)
		if names := speakers(prev, cur, ProtocolConsumer); len(names) == 1 {
			e.Detail += ": its last consumer-protocol member, " + names[0] + ", left"
		} else if len(names) > 1 {
			e.Detail += ": its last consumer-protocol members left (" + listNames(names) + ")"
		}
	default:
		e.Detail = fmt.Sprintf("%s is now a %s group (was %s)", b.group, to, from)
	}
	return e, true
}

// speakers names the members of in that speak protocol and are not
// members of other speaking it.
func speakers(in, other *snapView, protocol string) []string {
	var names []string
	for _, m := range in.members {
		if m.Protocol != protocol {
			continue
		}
		if j, ok := other.byKey[memberKey(m)]; ok && other.members[j].Protocol == protocol {
			continue
		}
		names = append(names, memberLabel(m))
	}
	return names
}
