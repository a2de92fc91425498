package demo

import (
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/kafka"
)

// describeLikeKafka makes the embedded cluster answer a classic
// DescribeGroups for the demo's consumer-protocol (KIP-848) groups as
// Apache Kafka 4 does (kafka.NotClassicAnswer). kfake answers with the
// group's live state and no members, so a watcher that
// looked at the group while it was still being made (a classic group of
// the demo's first commits, say) took it for a classic group with no
// members, and kept to that: the demo's own view then showed nothing of
// its consumers. A request naming other groups too is kfake's (the
// overview asks DescribeGroups only of groups listed as classic).
func describeLikeKafka(c *kfake.Cluster, consumerGroups []string) {
	if len(consumerGroups) == 0 {
		return
	}
	ours := make(map[string]bool, len(consumerGroups))
	for _, g := range consumerGroups {
		ours[g] = true
	}
	c.ControlKey(int16(kmsg.DescribeGroups), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.DescribeGroupsRequest)
		for _, g := range req.Groups {
			if !ours[g] {
				return nil, nil, false
			}
		}
		return kafka.NotClassicAnswer(req), nil, true
	})
}
