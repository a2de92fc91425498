package demo

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The demo's cluster answers a classic DescribeGroups for its
// consumer-protocol group as Apache Kafka 4 does (Dead, GROUP_ID_NOT_FOUND
// from v6), not with the live state and no members as kfake alone does: a
// watcher that met the group as it was being made took it for an empty
// classic group and kept to that. Its classic groups are kfake's.
func TestConsumerProtocolGroupIsNotClassicToDescribeGroups(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{ProtocolConsumer, ProtocolClassic} {
		cfg := fastConfig()
		cfg.GroupProtocol = proto
		d, _ := startDemo(t, cfg)
		waitTwoOwnAll(t, d, ownsAll)
		cl, err := kgo.NewClient(kgo.SeedBrokers(d.Brokers()...))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{d.Group()}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := req.RequestWith(ctx, cl)
		cancel()
		if err != nil || len(res.Groups) != 1 {
			t.Fatalf("%s: DescribeGroups: %v %+v", proto, err, res)
		}
		g := res.Groups[0]
		dead := g.State == "Dead" && (res.Version < 6 || g.ErrorCode == kerr.GroupIDNotFound.Code)
		if want := proto == ProtocolConsumer; dead != want {
			t.Errorf("%s group: DescribeGroups v%d state %q error %d members %d; want Kafka 4's Dead for a consumer-protocol group only", proto, res.Version, g.State, g.ErrorCode, len(g.Members))
		}
	}
}
