package kafka

import (
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// logStartEvery is how long a partition's log start, once read, is kept
// before it is read again. It moves only when retention or a
// DeleteRecords deletes records, and only matters to lag where the commit
// is near it, so a poll asks it of the partitions that need it (see
// startCache.need), not of every partition every poll (at 10,000
// partitions it was half of each poll's ListOffsets).
const logStartEvery = 30 * time.Second

// startCache holds the log starts the group watcher read, and when, per
// topic in a slice indexed by partition number (a poll looks a partition
// up twice: a map keyed by TopicPartition was a tenth of a warm poll at
// 10,000 partitions); numbers no topic has that many of (negative, or
// beyond maxSlot) are kept in a map.
type startCache struct {
	slots[startRead]
	// gone holds partitions whose record at the commit the last lag-age
	// Fetch found deleted: retention passed the commit, the start moved.
	gone map[model.TopicPartition]bool
}

// startRead is one partition's log start: 32 bytes holding no pointer
// (the collector does not scan the slots; a time.Time made them 48
// bytes with one).
type startRead struct {
	offset int64
	at     int64 // when it was read, unix nanoseconds
	// end is the log end the last poll read.
	end int64
	// has: a start was read; asked: the poll in hand asks it (need
	// said so).
	has, asked bool
}

// need reports whether tp's log start must be read in a poll at now, the
// group's commit on it being committed (ok false: none): when it was never
// read or is older than logStartEvery, when the commit is near it (in the
// oldest tenth of the log, where retention deletes next, or at or below
// it, where the lag counts from the start), or when the record at the
// commit was found deleted. The answer is kept for fill (asked).
func (c *startCache) need(tp model.TopicPartition, now time.Time, committed int64, ok bool) bool {
	s := c.slot(tp)
	at := now.UnixNano()
	s.asked = !s.has || at-s.at >= int64(logStartEvery) || at < s.at ||
		ok && committed <= s.offset+max(1, (s.end-s.offset)/10) || c.gone[tp]
	return s.asked
}

// fill completes offsets read at now (offsets[i] is tps[i]'s): the starts
// read are kept, the ones not asked are given from the cache. A log end
// below the start kept (the topic was deleted and made again) drops it:
// the next poll reads it.
func (c *startCache) fill(tps []model.TopicPartition, offsets []model.PartitionOffsets, now time.Time) {
	for i, tp := range tps {
		po := &offsets[i]
		if po.Err != "" {
			continue
		}
		s := c.slot(tp)
		if s.asked {
			*s = startRead{offset: po.LogStart, at: now.UnixNano(), end: po.LogEnd, has: true}
			continue
		}
		if !s.has || po.LogEnd < s.offset {
			*s = startRead{}
			continue // a start never read stays NoOffset for this poll
		}
		s.end = po.LogEnd
		po.LogStart = s.offset
	}
}

func (c *startCache) sawGone(obs *model.Observation) {
	clear(c.gone)
	for tp, p := range obs.All() {
		if !p.OldestGone {
			continue
		}
		if c.gone == nil {
			c.gone = make(map[model.TopicPartition]bool)
		}
		c.gone[tp] = true
	}
}
