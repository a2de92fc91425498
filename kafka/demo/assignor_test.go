package demo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Kafka's range assignor on 2 members and 3 partitions gives the member
// first in member-id order [0, 1] and the other [2] — the field note's
// split (consumer-a [0, 1], consumer-b [2]) — with the classic protocol's
// client-side range and the consumer protocol's server-side range alike.
func TestRangeSplitIsKafkas(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Compare = []GroupSpec{
		{Protocol: ProtocolClassic, Assignor: AssignorRange},
		{Protocol: ProtocolConsumer, Assignor: AssignorRange},
	}
	d, _ := startDemo(t, cfg)
	for _, g := range d.Groups() {
		waitFor(t, 10*time.Second, g.Name+": two members own every partition", func() bool {
			return groupOwnsAll(d, g.Name, "consumer-a", "consumer-b")
		})
		gi := d.cluster.GroupInfo(g.Name)
		ms := slices.Clone(gi.Members)
		slices.SortFunc(ms, func(a, b kfake.GroupMember) int { return strings.Compare(a.MemberID, b.MemberID) })
		first := slices.Sorted(slices.Values(ms[0].Assignment[d.cfg.Topic]))
		second := slices.Sorted(slices.Values(ms[1].Assignment[d.cfg.Topic]))
		t.Logf("%s (%s): %s %v, %s %v", g.Name, g, ms[0].ClientID, first, ms[1].ClientID, second)
		if !slices.Equal(first, []int32{0, 1}) || !slices.Equal(second, []int32{2}) {
			t.Fatalf("%s: in member-id order %s %v, %s %v; want [0 1] and [2]", g.Name, ms[0].ClientID, first, ms[1].ClientID, second)
		}
		if g.Protocol == ProtocolClassic {
			// Classic member ids start with the client id: the field
			// note's consumer-a [0, 1], consumer-b [2].
			if o := groupOwners(d, g.Name); !slices.Equal(o["consumer-a"], []int32{0, 1}) || !slices.Equal(o["consumer-b"], []int32{2}) {
				t.Fatalf("%s: %s, want consumer-a [0 1], consumer-b [2]", g.Name, ownersString(o))
			}
		}
	}
}
