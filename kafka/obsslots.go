package kafka

import (
	"slices"
	"strings"

	"github.com/kgwatch/kgwatch/model"
)

// obsSlots finds partitions' slots in an Observation, its topic looked up
// once a run of it, and the slot by its index where the topic's
// partitions are dense (model.TopicObservation: Partitions[p] is
// partition p whenever the numbers allow it); the others through the
// Observation's own Find and Part. A poll walks its partitions in order,
// so the slots are read one after the other, not one cache miss each.
type obsSlots struct {
	obs   *model.Observation
	topic string
	ti    int // index of topic in obs.Topics; -1: not looked up
	has   bool
}

// topicSlots returns the slots of tp's topic, nil when obs has none.
func (s *obsSlots) topicSlots(topic string) []model.PartitionObservation {
	if !s.has || s.topic != topic || s.ti >= len(s.obs.Topics) || s.obs.Topics[s.ti].Topic != topic {
		i, ok := slices.BinarySearchFunc(s.obs.Topics, topic, func(t model.TopicObservation, name string) int {
			return strings.Compare(t.Topic, name)
		})
		s.topic, s.ti, s.has = topic, i, ok
		if !ok {
			return nil
		}
	}
	return s.obs.Topics[s.ti].Partitions
}

// find is obs.Find(tp).
func (s *obsSlots) find(tp model.TopicPartition) *model.PartitionObservation {
	ps := s.topicSlots(tp.Topic)
	if p := tp.Partition; p >= 0 && int(p) < len(ps) && ps[p].Partition == p {
		return &ps[p]
	}
	if ps == nil {
		return nil
	}
	return s.obs.Find(tp)
}

// part is obs.Part(tp). The pointer is valid until the next part of
// another partition, as Part's is.
func (s *obsSlots) part(tp model.TopicPartition) *model.PartitionObservation {
	ps := s.topicSlots(tp.Topic)
	if p := tp.Partition; p >= 0 && int(p) < len(ps) && ps[p].Partition == p {
		return &ps[p]
	}
	s.has = false // Part may add the topic, or move its slots
	return s.obs.Part(tp)
}
