package kafka

import "github.com/kgwatch/kgwatch/model"

// slots holds a T per partition: a slice per topic indexed by partition
// number below maxSlot, a map for other numbers (negative, or a broken
// broker's far ones). The log-start cache and the lag-age cache keep
// theirs in one.
type slots[T any] struct {
	topics map[string][]T
	other  map[model.TopicPartition]*T
	// last and lastRow are the topic looked up last and its slice.
	last    string
	lastRow []T
}

// maxSlot bounds the partition numbers kept in a topic's slice, as
// model.Observation bounds its slots (a stray number costs at most 12 MB).
const maxSlot = 1 << 18

// slot returns tp's entry, made when missing. The pointer is valid until
// the next slot of another partition of the same topic.
func (c *slots[T]) slot(tp model.TopicPartition) *T {
	p := tp.Partition
	if p < 0 || p >= maxSlot {
		if c.other == nil {
			c.other = make(map[model.TopicPartition]*T)
		}
		s := c.other[tp]
		if s == nil {
			s = new(T)
			c.other[tp] = s
		}
		return s
	}
	row := c.lastRow
	if c.last != tp.Topic || row == nil {
		if c.topics == nil {
			c.topics = make(map[string][]T)
		}
		row = c.topics[tp.Topic]
	}
	if int(p) >= len(row) {
		row = append(row, make([]T, int(p)+1-len(row))...)
		c.topics[tp.Topic] = row
	}
	c.last, c.lastRow = tp.Topic, row
	return &row[p]
}

// reserve makes topic's slice hold partitions 0 to n-1 (n at most
// maxSlot), so that the slots a poll then asks for in order do not grow it
// one partition at a time: grown by append, a slice of 50,000 entries
// allocates about five times its size on the way.
func (c *slots[T]) reserve(topic string, n int) {
	n = min(n, maxSlot)
	if c.topics == nil {
		c.topics = make(map[string][]T)
	}
	row := c.topics[topic]
	if n <= len(row) {
		return
	}
	grown := make([]T, n)
	copy(grown, row)
	c.topics[topic] = grown
	if c.last == topic {
		c.lastRow = grown
	}
}
