package kafka

import (
	"fmt"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/protocol/fetch"
	"github.com/segmentio/kafka-go/protocol/findcoordinator"
	"github.com/segmentio/kafka-go/protocol/listoffsets"

	"github.com/kgwatch/kgwatch/model"
)

// kafka-go routes each request type its own way: ListOffsets is split into
// one request per partition, FindCoordinator goes to a broker of its
// choosing, Fetch to its partitions' leader in the transport's own
// metadata (which holds no topics here, see newTransport). The watcher needs
// one request per broker, sent to the broker it names, so for these three
// it sends its own request types, registered as overrides of the standard
// ones: same wire encoding (the field tags are copied from kafka-go's
// protocol packages, so every version kafka-go negotiates can be encoded),
// but routed to the broker the watcher names and never split. Responses
// decode into kafka-go's standard response types (Fetch's excepted: it
// reads its own, see fetchraw.go). The group requests and Metadata are kmsg
// requests instead (kmsgreq.go).

// overrideKey tags kgwatch's request types in kafka-go's override registry.
// kafka-go itself uses 0 (raw produce); the key space is per API.
const overrideKey protocol.OverrideTypeKey = 0x4b47 // "KG"

func init() {
	protocol.RegisterOverride(&findCoordinatorRequest{}, &findcoordinator.Response{}, overrideKey)
	protocol.RegisterOverride(&listOffsetsRequest{}, &listoffsets.Response{}, overrideKey)
	protocol.RegisterOverride(&fetchRequest{}, &fetch.Response{}, overrideKey)
}

// route names the broker a request goes to. It is unexported, so the
// protocol encoder never sees it.
type route struct{ broker int32 }

func (r route) Broker(c protocol.Cluster) (protocol.Broker, error) {
	b, ok := c.Brokers[r.broker]
	if !ok {
		return protocol.Broker{ID: -1}, fmt.Errorf("broker %d is not in the cluster metadata", r.broker)
	}
	return b, nil
}

func (route) TypeKey() protocol.OverrideTypeKey { return overrideKey }

// findCoordinatorRequest mirrors findcoordinator.Request.
type findCoordinatorRequest struct {
	Key     string `kafka:"min=v0,max=v2"`
	KeyType int8   `kafka:"min=v1,max=v2"`
	route
}

func (*findCoordinatorRequest) ApiKey() protocol.ApiKey { return protocol.FindCoordinator }

// listOffsetsRequest mirrors listoffsets.Request without its Split: all the
// partitions go to their leader in one request.
type listOffsetsRequest struct {
	ReplicaID      int32                      `kafka:"min=v1,max=v5"`
	IsolationLevel int8                       `kafka:"min=v2,max=v5"`
	Topics         []listoffsets.RequestTopic `kafka:"min=v1,max=v5"`
	route
}

func (*listOffsetsRequest) ApiKey() protocol.ApiKey { return protocol.ListOffsets }

// fetchRequest mirrors fetch.Request, routed to a named leader. It reads
// its own response (see fetchraw.go).
type fetchRequest struct {
	ReplicaID       int32                         `kafka:"min=v0,max=v11"`
	MaxWaitTime     int32                         `kafka:"min=v0,max=v11"`
	MinBytes        int32                         `kafka:"min=v0,max=v11"`
	MaxBytes        int32                         `kafka:"min=v3,max=v11"`
	IsolationLevel  int8                          `kafka:"min=v4,max=v11"`
	SessionID       int32                         `kafka:"min=v7,max=v11"`
	SessionEpoch    int32                         `kafka:"min=v7,max=v11"`
	Topics          []fetchRequestTopic           `kafka:"min=v0,max=v11"`
	ForgottenTopics []fetch.RequestForgottenTopic `kafka:"min=v7,max=v11"`
	RackID          string                        `kafka:"min=v11,max=v11"`
	route
	version int16
	// also names, per partition, further offsets to read in the records
	// the answer brings (the overview: several groups' offsets at once).
	also map[model.TopicPartition][]int64
}

// fetchRequestTopic is fetch.RequestTopic.
type fetchRequestTopic = fetch.RequestTopic

func (*fetchRequest) ApiKey() protocol.ApiKey { return protocol.Fetch }

var (
	_ protocol.BrokerMessage       = (*listOffsetsRequest)(nil)
	_ protocol.OverrideTypeMessage = (*listOffsetsRequest)(nil)
	_ protocol.OverrideTypeMessage = (*fetchRequest)(nil)
)
