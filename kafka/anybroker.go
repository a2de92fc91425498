package kafka

import (
	"context"
	"sort"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	meta "github.com/segmentio/kafka-go/protocol/metadata"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataHedgeAfter is how long the broker a Metadata request is routed
// to may take before another broker is asked too. Any broker can describe
// topics; the one routed to (the coordinator, the lowest id) is only the
// one likeliest to have a connection open.
const metadataHedgeAfter = time.Second

// metadataFromAny sends a Metadata request to the broker it is routed to
// and, when that broker fails or has not answered within
// metadataHedgeAfter, to the other brokers the transport knows, one more
// each metadataHedgeAfter, in id order; the first answer is returned. When
// none answers, the routed broker's error is returned.
func (w *Watcher) metadataFromAny(ctx context.Context, m *kmsgRequest) (protocol.Message, error) {
	ids := []int32{m.broker}
	if w.tr != nil {
		if res, err := w.send(ctx, &meta.Request{TopicNames: []string{}}); err == nil {
			var others []int32
			for _, b := range res.(*meta.Response).Brokers {
				if b.NodeID != m.broker {
					others = append(others, b.NodeID)
				}
			}
			sort.Slice(others, func(i, j int) bool { return others[i] < others[j] })
			ids = append(ids, others...)
		}
	}
	if len(ids) == 1 {
		return w.send(ctx, m)
	}
	hedge := min(metadataHedgeAfter, w.cfg.Timeout/4)
	win, res, errs := firstAnswer(ctx, len(ids), hedge, func(ctx context.Context, i int) (protocol.Message, error) {
		r := *m // each try encodes its own copy (the version is per connection)
		req := *m.req.(*kmsg.MetadataRequest)
		r.req, r.route = &req, route{ids[i]}
		return w.send(ctx, &r)
	})
	if win < 0 {
		return nil, errs[0]
	}
	return res, nil
}
