package demo

import (
	"bytes"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rejoinLikeKafka makes the embedded cluster treat a static member that
// joins again without a member id — a restarted process — as Apache Kafka
// does.
//
// Kafka's coordinator lets such a member take its old member's place with
// no rebalance when the group is Stable and the protocol the group would
// select does not change ("Static member which joins during Stable stage
// and doesn't affect the selected protocol will not trigger a rebalance",
// GroupMetadataManager in Kafka 4, GroupCoordinator before). kfake instead
// compares the member's protocol metadata byte for byte with its last join.
// A restarted client never sends the same bytes: its subscription metadata
// carries generation -1 and no owned partitions where the old process sent
// the generation it had rejoined in (and, cooperative, what it owned). So
// on kfake the restart of any member that ever rejoined — the group's
// leader always has — rebalances the group, and static membership would
// not show what it is for.
//
// The control remembers the last protocols each static member joined with,
// per group and instance id, and gives a rejoin without a member id that
// names the same protocols, in the same order, the bytes kfake compares:
// kfake's check then reduces to Kafka's. A rejoin with other protocols
// still rebalances, as in Kafka; any later rebalance carries the member's
// own metadata again. Outside clusters are real brokers and need nothing.
func rejoinLikeKafka(c *kfake.Cluster) {
	type key struct{ group, instance string }
	var (
		mu   sync.Mutex
		last = map[key][]kmsg.JoinGroupRequestProtocol{}
	)
	c.ControlKey(int16(kmsg.JoinGroup), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := r.(*kmsg.JoinGroupRequest)
		if req.InstanceID == nil {
			return nil, nil, false
		}
		k := key{req.Group, *req.InstanceID}
		mu.Lock()
		defer mu.Unlock()
		if prev, ok := last[k]; ok && req.MemberID == "" && sameProtocolNames(prev, req.Protocols) {
			for i := range req.Protocols {
				req.Protocols[i].Metadata = bytes.Clone(prev[i].Metadata)
			}
		}
		saved := make([]kmsg.JoinGroupRequestProtocol, len(req.Protocols))
		for i, p := range req.Protocols {
			saved[i] = kmsg.JoinGroupRequestProtocol{Name: p.Name, Metadata: bytes.Clone(p.Metadata)}
		}
		last[k] = saved
		return nil, nil, false
	})
}

func sameProtocolNames(a, b []kmsg.JoinGroupRequestProtocol) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}
