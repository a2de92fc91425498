package kafka

import (
	"encoding/hex"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// assigned lists an assignment's partitions, sorted, topics named by
// topicNamed.
func assigned(tps []kmsg.AssignmentTopicPartition, name func([16]byte) string) []model.TopicPartition {
	var out []model.TopicPartition
	for _, t := range tps {
		topic := topicNamed(t.Topic, t.TopicID, name)
		for _, p := range t.Partitions {
			out = append(out, model.TopicPartition{Topic: topic, Partition: p})
		}
	}
	slices.SortFunc(out, model.CompareTP)
	return slices.Compact(out)
}

// unnamed returns the topic ids of tps given without a name.
func unnamed(ids map[[16]byte]bool, tps []kmsg.AssignmentTopicPartition) {
	for _, t := range tps {
		if t.Topic == "" {
			ids[t.TopicID] = true
		}
	}
}

// topicNamed is the name of a topic an answer gave as topic (its name, ""
// when it gave only the id) and id: that name, else the one name knows
// for the id, else, for a topic deleted since, the id itself.
func topicNamed(topic string, id [16]byte, name func([16]byte) string) string {
	if topic != "" {
		return topic
	}
	if topic = name(id); topic != "" {
		return topic
	}
	return topicIDText(id)
}

// topicIDText shows a topic id no name is known for.
func topicIDText(id [16]byte) string { return "topic-id:" + hex.EncodeToString(id[:]) }
