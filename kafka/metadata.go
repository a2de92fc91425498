package kafka

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kgwatch/kgwatch/model"
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
// or failed, the group owns or committed a partition the cache does not
// know (partitions were added), a leader failed, or the cache is older
// than metadataMaxAge.
func (c *metadataCache) needsRefresh(topics []string, obs *model.Observation, now time.Time) bool {
	if c.stale || c.topics == nil || now.Sub(c.fetched) > metadataMaxAge {
		return true
	}
	for _, t := range topics {
		if tm, ok := c.topics[t]; !ok || tm.err != "" {
			return true
		}
	}
	for tp := range obs.Committed {
		if !c.knows(tp) {
			return true
		}
	}
	for _, m := range obs.Members {
		for _, tp := range m.Partitions {
			if !c.knows(tp) {
				return true
			}
		}
	}
	return false
}

// knows reports whether the cache lists partition tp.
func (c *metadataCache) knows(tp model.TopicPartition) bool {
	tm, ok := c.topics[tp.Topic]
	if !ok {
		return false
	}
	if i := int(tp.Partition); i >= 0 && i < len(tm.partitions) && tm.partitions[i].id == tp.Partition {
		return true
	}
	for _, p := range tm.partitions {
		if p.id == tp.Partition {
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
	w.meta = metadataCache{topics: topicMetas(res.(*metadataResponse)), fetched: time.Now()}
	return nil
}

// topicMetas reads the topics' partitions and leaders from a Metadata
// response.
func topicMetas(r *metadataResponse) map[string]*topicMeta {
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
		sort.Slice(tm.partitions, func(i, j int) bool { return tm.partitions[i].id < tm.partitions[j].id })
		cache[t.Name] = tm
	}
	return cache
}

// leader returns the cached leader of tp.
func (c *metadataCache) leader(tp model.TopicPartition) (int32, bool) {
	tm, ok := c.topics[tp.Topic]
	if !ok || tm.err != "" {
		return -1, false
	}
	// Partitions are usually listed in order; fall back to a scan.
	if i := int(tp.Partition); i >= 0 && i < len(tm.partitions) && tm.partitions[i].id == tp.Partition {
		p := tm.partitions[i]
		return p.leader, p.err == ""
	}
	for _, p := range tm.partitions {
		if p.id == tp.Partition {
			return p.leader, p.err == ""
		}
	}
	return -1, false
}
