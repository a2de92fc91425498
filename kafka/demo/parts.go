package demo

import (
	"fmt"
	"slices"

	"github.com/kgwatch/kgwatch/model"
)

// topicPartitions turns kgo's map into sorted partitions.
func topicPartitions(m map[string][]int32) []model.TopicPartition {
	var out []model.TopicPartition
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, model.TopicPartition{Topic: t, Partition: p})
		}
	}
	sortTPs(out)
	return out
}

func sortTPs(tps []model.TopicPartition) {
	slices.SortFunc(tps, func(a, b model.TopicPartition) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition - b.Partition)
	})
}

func union(a, b []model.TopicPartition) []model.TopicPartition {
	out := slices.Clone(a)
	for _, tp := range b {
		if !slices.Contains(out, tp) {
			out = append(out, tp)
		}
	}
	sortTPs(out)
	return out
}

func minus(a, b []model.TopicPartition) []model.TopicPartition {
	var out []model.TopicPartition
	for _, tp := range a {
		if !slices.Contains(b, tp) {
			out = append(out, tp)
		}
	}
	return out
}

// partList names partitions the way every view does (model.PartitionList):
// "p0–p1", "no partitions".
func partList(tps []model.TopicPartition) string {
	if len(tps) == 0 {
		return "no partitions"
	}
	return model.PartitionList(tps, model.MultiTopic(tps))
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
