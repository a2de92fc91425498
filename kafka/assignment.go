package kafka

import (
	"encoding/binary"
	"errors"
	"sort"

	"github.com/segmentio/kafka-go/protocol/describegroups"

	"github.com/kgwatch/kgwatch/model"
)

// members turns DescribeGroups members into model members. Assignments are
// decoded only for the consumer protocol; a member whose assignment is empty
// (the group is rebalancing) or undecodable is listed with no partitions.
func members(g describegroups.ResponseGroup) []model.Member {
	out := make([]model.Member, 0, len(g.Members))
	for _, m := range g.Members {
		mm := model.Member{MemberID: m.MemberID, InstanceID: m.GroupInstanceID, ClientID: m.ClientID, Host: m.ClientHost}
		if g.ProtocolType == "consumer" || g.ProtocolType == "" {
			if parts, err := decodeAssignment(m.MemberAssignment); err == nil {
				mm.Partitions = parts
			}
		}
		out = append(out, mm)
	}
	return out
}

var errShortAssignment = errors.New("consumer protocol assignment: truncated")

// decodeAssignment decodes a ConsumerProtocolAssignment (any version: they
// share the layout of version 0 up to the user data, which is ignored):
//
//	version int16, [topic string, [partition int32]], user_data bytes
func decodeAssignment(b []byte) ([]model.TopicPartition, error) {
	if len(b) == 0 {
		return nil, nil
	}
	d := decoder{b: b}
	if v := d.int16(); v < 0 {
		return nil, errors.New("consumer protocol assignment: negative version")
	}
	nt := d.int32()
	var out []model.TopicPartition
	for i := int32(0); i < nt && d.err == nil; i++ {
		topic := d.string()
		np := d.int32()
		if np < 0 || int(np)*4 > len(d.b) {
			d.err = errShortAssignment
			break
		}
		for j := int32(0); j < np; j++ {
			out = append(out, model.TopicPartition{Topic: topic, Partition: d.int32()})
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Less(out[j]) })
	return out, nil
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) need(n int) bool {
	if d.err != nil {
		return false
	}
	if n < 0 || len(d.b) < n {
		d.err = errShortAssignment
		d.b = nil
		return false
	}
	return true
}

func (d *decoder) int16() int16 {
	if !d.need(2) {
		return 0
	}
	v := int16(binary.BigEndian.Uint16(d.b))
	d.b = d.b[2:]
	return v
}

func (d *decoder) int32() int32 {
	if !d.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(d.b))
	d.b = d.b[4:]
	return v
}

func (d *decoder) string() string {
	n := int(d.int16())
	if !d.need(n) {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
