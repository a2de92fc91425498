package model

import (
	"encoding/binary"
	"hash/maphash"
)

// A partition's state keeps who owned it as its member id and client id
// hashed (ownerHash), not as strings: a state then holds no pointer, so
// the collector never scans the states (38 MB at 100,000 partitions),
// and each is 48 bytes smaller. The hashes of the members a poll lists are made once a poll
// (History.memberSums), not once a row. Two owners of one group hashing
// alike (a chance of one in 2^63) would read as one: its commit cadence
// kept across the handover.

// ownerName is what a rebalance shows of a partition's owner before it:
// its label (client id, else its short member id) and member id.
type ownerName struct {
	label, id string
}

// ownerHash is an owner's hash: its member id and its client id, so
// members listed with one id (a snapshot made by hand may list them) are
// told apart as their rows tell them; 0 for none (member id "").
func (h *History) ownerHash(memberID, clientID string) uint64 {
	switch {
	case memberID == "":
		return 0
	case clientID == "": // the overview's rows, librdkafka's without one
		return maphash.String(h.seed, memberID) | 1
	}
	var m maphash.Hash
	m.SetSeed(h.seed)
	var n [4]byte // the member id's length: ("a", "bc") and ("ab", "c") differ
	binary.LittleEndian.PutUint32(n[:], uint32(len(memberID)))
	m.Write(n[:])
	m.WriteString(memberID)
	m.WriteString(clientID)
	return m.Sum64() | 1
}

// memberLabelOf is an owner's label: its client id, else its short
// member id.
func memberLabelOf(clientID, memberID string) string {
	if clientID != "" {
		return clientID
	}
	return ShortID(memberID)
}

// forgetOwners drops, once h.owners holds many more names than a poll
// lists members, the names no state remembers: a group whose members come
// and go (each restart is a new member id) does not grow it forever. It
// walks the states again only once the names have doubled since it last
// did: states that remember many owners while a rebalance lists no
// members do not cost a walk every poll.
func (h *History) forgetOwners(members int) {
	if len(h.owners) <= max(4*members+64, 2*h.ownersKept) {
		return
	}
	defer func() { h.ownersKept = len(h.owners) }()
	kept := make(map[uint64]bool, members)
	for _, id := range h.memberHash {
		kept[id] = true
	}
	for i := range h.states {
		kept[h.states[i].owner] = true
	}
	for id := range h.owners {
		if !kept[id] {
			delete(h.owners, id)
		}
	}
}

// statusCode is a Status kept in a state: 0 for none, else its place in
// Statuses() plus one.
type statusCode uint8

// codeOf is s's code; a status Statuses does not list is kept as none.
func codeOf(s Status) statusCode {
	for i, t := range Statuses() {
		if t == s {
			return statusCode(i + 1)
		}
	}
	return 0
}

// status is the Status c codes.
func (c statusCode) status() Status {
	if c == 0 || int(c) > len(Statuses()) {
		return ""
	}
	return Statuses()[c-1]
}
