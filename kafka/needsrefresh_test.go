package kafka

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// TestNeedsRefreshSeesCommitsOutsideTheMetadata: a commit on a partition
// the cached metadata does not list (added since, or a broker's stray
// number: -1, 2,000,000,000) makes the metadata stale, whether the topic's
// partitions are numbered 0 to n-1 (only the slots outside are looked at)
// or not (a gap, a number listed twice); commits on partitions it lists
// do not.
func TestNeedsRefreshSeesCommitsOutsideTheMetadata(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	// The cache as a Metadata answer listing ids makes it.
	meta := func(ids ...int32) metadataCache {
		res := kmsg.NewPtrMetadataResponse()
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic = kmsg.StringPtr("t")
		for _, id := range ids {
			rp := kmsg.NewMetadataResponseTopicPartition()
			rp.Partition, rp.Leader = id, 1
			rt.Partitions = append(rt.Partitions, rp)
		}
		res.Topics = append(res.Topics, rt)
		return metadataCache{topics: topicMetas(res), fetched: now}
	}
	for _, c := range []struct {
		name    string
		ids     []int32
		commits []int32
		want    bool
	}{
		{"dense, all known", []int32{0, 1, 2, 3}, []int32{0, 1, 2, 3}, false},
		{"dense, one added", []int32{0, 1, 2, 3}, []int32{0, 4}, true},
		{"dense, negative", []int32{0, 1, 2, 3}, []int32{-1, 2}, true},
		{"dense, far", []int32{0, 1, 2, 3}, []int32{1, 2_000_000_000}, true},
		{"gap, known", []int32{0, 2, 5}, []int32{0, 2, 5}, false},
		{"gap, in it", []int32{0, 2, 5}, []int32{1}, true},
		{"listed twice, missing one", []int32{0, 1, 1, 3}, []int32{2}, true},
		{"listed twice, known", []int32{0, 1, 1, 3}, []int32{1, 3}, false},
	} {
		mc := meta(c.ids...)
		var obs model.Observation
		for _, p := range c.commits {
			obs.SetCommitted(model.TopicPartition{Topic: "t", Partition: p}, 5)
		}
		// An empty slot past the metadata (offsets asked, nothing read)
		// is no commit.
		obs.Part(model.TopicPartition{Topic: "t", Partition: 9})
		if got := mc.needsRefresh([]string{"t"}, &obs, now); got != c.want {
			t.Errorf("%s: metadata %v, commits %v: needsRefresh %v, want %v", c.name, c.ids, c.commits, got, c.want)
		}
		// The same partitions assigned to a member, uncommitted.
		var owned model.Observation
		m := model.Member{MemberID: "m"}
		for _, p := range c.commits {
			m.Partitions = append(m.Partitions, model.TopicPartition{Topic: "t", Partition: p})
		}
		owned.Members = []model.Member{m}
		if got := mc.needsRefresh([]string{"t"}, &owned, now); got != c.want {
			t.Errorf("%s: metadata %v, assigned %v: needsRefresh %v, want %v", c.name, c.ids, c.commits, got, c.want)
		}
	}
	mc := meta(0, 1)
	var obs model.Observation
	obs.SetCommitted(model.TopicPartition{Topic: "other", Partition: 0}, 1)
	if !mc.needsRefresh([]string{"t"}, &obs, now) {
		t.Error("a commit on a topic the metadata does not hold: no refresh")
	}
}
