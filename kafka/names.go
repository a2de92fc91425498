package kafka

import "fmt"

// MaxGroupNameBytes is the longest group name a Kafka request can carry:
// the requests that name a group (DescribeGroups, OffsetFetch, ListGroups'
// answer, FindCoordinator) encode it as a protocol STRING, whose length is
// a signed 16-bit count of bytes. A longer name cannot be sent, so no
// broker holds such a group: kafka-go cuts the length and the broker
// answers a frame it cannot parse ("unexpected EOF"), or a name of a
// megabyte overflows a request frame and reads as the brokers being down.
const MaxGroupNameBytes = 32767

// CheckGroupName refuses a group name Kafka cannot carry, with the reason,
// before any request is made of it.
func CheckGroupName(group string) error {
	if len(group) > MaxGroupNameBytes {
		return fmt.Errorf("group name is %d bytes: Kafka carries a group name of at most %d bytes (a protocol STRING), so no broker can hold this group", len(group), MaxGroupNameBytes)
	}
	return nil
}
