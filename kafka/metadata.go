package kafka

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

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
	// dense: partitions[i] is partition i, for every i.
	dense bool
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
	// The topic is looked up once for a run of its partitions (10,000
	// partition polls: a map lookup per partition was most of this).
	var last *topicMeta
	var lastName string
	knows := func(tp model.TopicPartition) bool {
		if last == nil || lastName != tp.Topic {
			tm, ok := c.topics[tp.Topic]
			if !ok {
				return false
			}
			last, lastName = tm, tp.Topic
		}
		return last.has(tp.Partition)
	}
	for i := range obs.Topics {
		if c.commitsUnknown(&obs.Topics[i]) {
			return true
		}
	}
	for _, m := range obs.Members {
		for _, tp := range m.Partitions {
			if !knows(tp) {
				return true
			}
		}
	}
	return false
}

// commitsUnknown reports whether t holds a commit on a partition the
// cache does not know. The slots are sorted by partition: of a topic the
// metadata numbers 0 to n-1 only those outside are looked at.
func (c *metadataCache) commitsUnknown(t *model.TopicObservation) bool {
	tm, ok := c.topics[t.Topic]
	ps := t.Partitions
	if ok && tm.dense {
		lo, _ := slices.BinarySearchFunc(ps, 0, slotAt)
		hi, _ := slices.BinarySearchFunc(ps, int32(len(tm.partitions)), slotAt)
		for _, p := range ps[:lo] {
			if p.HasCommit {
				return true
			}
		}
		ps = ps[hi:]
	}
	for k := range ps {
		if p := &ps[k]; p.HasCommit && (!ok || !tm.has(p.Partition)) {
			return true
		}
	}
	return false
}

func slotAt(s model.PartitionObservation, p int32) int { return cmp.Compare(s.Partition, p) }

// has reports whether the topic has partition p.
func (tm *topicMeta) has(p int32) bool {
	if tm.dense {
		// Known without reading the partition: members' partitions come
		// in assignment order, and at 10,000 a read of each was a miss.
		return p >= 0 && int(p) < len(tm.partitions)
	}
	if i := int(p); i >= 0 && i < len(tm.partitions) && tm.partitions[i].id == p {
		return true
	}
	for _, pm := range tm.partitions {
		if pm.id == p {
			return true
		}
	}
	return false
}

// refreshMetadata describes topics, asking the coordinator (a broker known
// to answer).
func (w *Watcher) refreshMetadata(ctx context.Context, via broker, topics []string) error {
	tms, err := w.describeTopics(ctx, via, topics)
	if err != nil {
		of := "" // the overview's watcher has no group
		if w.cfg.Group != "" {
			of = fmt.Sprintf(" of group %q", w.cfg.Group)
		}
		return fmt.Errorf("describe topics%s on broker %s: %w", of, via.addr, err)
	}
	w.meta = metadataCache{topics: tms, fetched: time.Now()}
	return nil
}

// describeTopics describes topics with Metadata (kmsg, the broker's
// highest version: v10+ gives topic ids, which it records for
// resolveTopicIDs) and returns their partitions and leaders.
func (w *Watcher) describeTopics(ctx context.Context, via broker, topics []string) (map[string]*topicMeta, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = make([]kmsg.MetadataRequestTopic, len(topics))
	for i, t := range topics {
		req.Topics[i] = kmsg.MetadataRequestTopic{Topic: kmsg.StringPtr(t)}
	}
	res, err := w.sendKmsg(ctx, via.id, req, 0, -1)
	if err != nil {
		return nil, err
	}
	r := res.(*kmsg.MetadataResponse)
	w.learnTopicIDs(r)
	return topicMetas(r), nil
}

// learnTopicIDs records the topic ids of a Metadata response, and its
// cluster id (the freshest there is: cluster.go).
func (w *Watcher) learnTopicIDs(r *kmsg.MetadataResponse) {
	if r.ClusterID != nil && *r.ClusterID != "" {
		w.clusterID = *r.ClusterID
	}
	for _, t := range r.Topics {
		if t.Topic == nil || t.TopicID == ([16]byte{}) || t.ErrorCode != 0 {
			continue
		}
		if w.topicIDs == nil {
			w.topicIDs = make(map[[16]byte]string)
		}
		w.topicIDs[t.TopicID] = *t.Topic
	}
}

// resolveTopicIDs learns the names of ids not yet known: Metadata by topic
// id (v12+), or of every topic (v10, v11). KIP-848 and KIP-932 describes
// may give ids without names (kfake does; Apache Kafka sends both). A
// topic id is never reused, so names stay cached; an id no broker knows
// (its topic was deleted) is asked for again only on a later poll.
func (w *Watcher) resolveTopicIDs(ctx context.Context, via broker, ids map[[16]byte]bool) error {
	var missing [][16]byte
	for id := range ids {
		if _, ok := w.topicIDs[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = make([]kmsg.MetadataRequestTopic, len(missing))
	for i, id := range missing {
		req.Topics[i] = kmsg.MetadataRequestTopic{TopicID: id}
	}
	res, err := w.sendKmsg(ctx, via.id, req, 12, -1)
	var ue *UnsupportedError
	if errors.As(err, &ue) {
		all := kmsg.NewPtrMetadataRequest() // nil Topics: every topic
		res, err = w.sendKmsg(ctx, via.id, all, 10, -1)
	}
	if err != nil {
		return fmt.Errorf("resolve topic ids on broker %s: %w", via.addr, err)
	}
	w.learnTopicIDs(res.(*kmsg.MetadataResponse))
	return nil
}

// topicName returns the cached name of a topic id, "" when unknown.
func (w *Watcher) topicName(id [16]byte) string { return w.topicIDs[id] }

// topicMetas reads the topics' partitions and leaders from a Metadata
// response.
func topicMetas(r *kmsg.MetadataResponse) map[string]*topicMeta {
	cache := make(map[string]*topicMeta, len(r.Topics))
	for _, t := range r.Topics {
		if t.Topic == nil {
			continue
		}
		tm := &topicMeta{}
		if t.ErrorCode != 0 {
			tm.err = "topic metadata: " + errText(t.ErrorCode)
		}
		tm.partitions = make([]partitionMeta, 0, len(t.Partitions))
		for _, p := range t.Partitions {
			pm := partitionMeta{id: p.Partition, leader: p.Leader}
			if p.ErrorCode != 0 && p.Leader < 0 {
				pm.err = "partition metadata: " + errText(p.ErrorCode)
			} else if p.Leader < 0 {
				pm.err = "partition has no leader"
			}
			tm.partitions = append(tm.partitions, pm)
		}
		sort.Slice(tm.partitions, func(i, j int) bool { return tm.partitions[i].id < tm.partitions[j].id })
		tm.dense = true
		for i, p := range tm.partitions {
			tm.dense = tm.dense && p.id == int32(i)
		}
		cache[*t.Topic] = tm
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
