package model

import "slices"

// lastEnds is what the tracker keeps of the last snapshot's partitions
// for log_end_backwards: their keys and readable log ends, 32 bytes a
// partition, so a poll is compared without reading the last one's rows.
type lastEnds struct {
	keys []TopicPartition
	ends []int64 // -1: not readable (an error, or no log end)
	// kept is the first row of the rows back already kept, as keep
	// would: a poll of the same partitions as the last is compared and
	// remembered in one walk of its rows (nil: back kept none).
	kept *PartitionLag
}

// keptEnd is the log end lastEnds keeps of a row.
func keptEnd(r *PartitionLag) int64 {
	if r.Err != "" {
		return -1
	}
	return max(r.LogEnd, -1)
}

// back lists the partitions of cur whose log end, readable in both, is
// lower than at the snapshot kept. Both are sorted by topic and partition
// (NewSnapshot sorts them). When cur has the kept partitions, in the
// same places, it keeps cur's ends as it goes: keep(cur) then has
// nothing left to do.
func (l *lastEnds) back(cur []PartitionLag) []TopicPartition {
	var out []TopicPartition
	l.kept = nil
	if len(cur) == len(l.keys) && len(l.ends) == len(l.keys) {
		i := 0
		for ; i < len(cur); i++ {
			q := &cur[i]
			if l.keys[i] != q.TopicPartition {
				break
			}
			e := keptEnd(q)
			if was := l.ends[i]; was >= 0 && e >= 0 && q.LogEnd < was {
				out = append(out, q.TopicPartition)
			}
			l.ends[i] = e
		}
		if i == len(cur) {
			if len(cur) > 0 {
				l.kept = &cur[0]
			}
			return out
		}
		// The rest differ: the ones before i were compared, and their
		// ends are cur's now, so the walk goes on from them.
		out = l.merge(out, cur, i, i)
		return out
	}
	return l.merge(out, cur, 0, 0)
}

// merge is back's walk of two lists of partitions that are not the same,
// from l's i-th and cur's j-th on.
func (l *lastEnds) merge(out []TopicPartition, cur []PartitionLag, i, j int) []TopicPartition {
	for i < len(l.keys) && j < len(cur) {
		q := &cur[j]
		c := 0
		if l.keys[i] != q.TopicPartition {
			c = CompareTP(l.keys[i], q.TopicPartition)
		}
		switch {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			if e := l.ends[i]; e >= 0 && q.Err == "" && q.LogEnd >= 0 && q.LogEnd < e {
				out = append(out, q.TopicPartition)
			}
			i++
			j++
		}
	}
	return out
}

// keep remembers rows as the snapshot to compare the next one with. The
// keys are rewritten only where they changed.
func (l *lastEnds) keep(rows []PartitionLag) {
	if k := l.kept; k != nil && len(rows) > 0 && &rows[0] == k && len(rows) == len(l.keys) {
		l.kept = nil // back kept them, as it compared them
		return
	}
	l.kept = nil
	// Grown once to the rows, not by append.
	l.ends = slices.Grow(l.ends[:0], len(rows))
	if len(rows) > len(l.keys) {
		l.keys = slices.Grow(l.keys, len(rows)-len(l.keys))
	}
	for i := range rows {
		r := &rows[i]
		switch {
		case i == len(l.keys):
			l.keys = append(l.keys, r.TopicPartition)
		case l.keys[i] != r.TopicPartition:
			l.keys[i] = r.TopicPartition
		}
		l.ends = append(l.ends, keptEnd(r))
	}
	clear(l.keys[len(rows):])
	l.keys = l.keys[:len(rows)]
}
