package kafka

import (
	"context"
	"fmt"
	"time"
)

// metadataCache holds the partitions and leaders of the group's topics.
type metadataCache struct {
	topics  map[string]*topicMeta
	fetched time.Time
	// stale forces the next poll to refresh (a leader moved or failed).
	stale bool
}

type topicMeta struct {
	// err is set when the topic could not be described (deleted, denied).
	err        string
	partitions []partitionMeta
}

type partitionMeta struct {
	id     int32
	leader int32 // -1 when leaderless
	err    string
}

// needsRefresh reports whether topics must be described again: one is new
// or failed, a leader failed, or the cache is older than metadataMaxAge.
func (c *metadataCache) needsRefresh(topics []string, now time.Time) bool {
	if c.stale || c.topics == nil || now.Sub(c.fetched) > metadataMaxAge {
		return true
	}
	for _, t := range topics {
		if tm, ok := c.topics[t]; !ok || tm.err != "" {
			return true
		}
	}
	return false
}

// refreshMetadata describes topics, asking the coordinator (a broker known
// to answer).
func (w *Watcher) refreshMetadata(ctx context.Context, via broker, topics []string) error {
	res, err := w.roundTrip(ctx, &metadataRequest{TopicNames: topics, route: route{via.id}})
	if err != nil {
		return fmt.Errorf("describe topics of group %q on broker %s: %w", w.cfg.Group, via.addr, err)
	}
	r := res.(*metadataResponse)
	cache := make(map[string]*topicMeta, len(r.Topics))
	for _, t := range r.Topics {
		tm := &topicMeta{}
		if t.ErrorCode != 0 {
			tm.err = "topic metadata: " + errText(t.ErrorCode)
		}
		tm.partitions = make([]partitionMeta, 0, len(t.Partitions))
		for _, p := range t.Partitions {
			pm := partitionMeta{id: p.PartitionIndex, leader: p.LeaderID}
			if p.ErrorCode != 0 && p.LeaderID < 0 {
				pm.err = "partition metadata: " + errText(p.ErrorCode)
			} else if p.LeaderID < 0 {
				pm.err = "partition has no leader"
			}
			tm.partitions = append(tm.partitions, pm)
		}
		cache[t.Name] = tm
	}
	w.meta = metadataCache{topics: cache, fetched: time.Now()}
	return nil
}
