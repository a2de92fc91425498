package kafka

import (
	"fmt"

	"github.com/segmentio/kafka-go/protocol"
)

// route names the broker a request goes to (protocol.BrokerMessage): the
// watcher sends each request to the broker it names, never where kafka-go's
// own routing would (ListOffsets split per partition, FindCoordinator to a
// broker of its choosing, Fetch to a leader in the transport's metadata,
// which holds no topics here, see newTransport). It is unexported, so no
// encoder sees it. Every request is a kmsg request (kmsgreq.go).
type route struct{ broker int32 }

func (r route) Broker(c protocol.Cluster) (protocol.Broker, error) {
	b, ok := c.Brokers[r.broker]
	if !ok {
		return protocol.Broker{ID: -1}, fmt.Errorf("broker %d is not in the cluster metadata", r.broker)
	}
	return b, nil
}
