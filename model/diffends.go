package model

// lastEnds is what the tracker keeps of the last snapshot's partitions
// for log_end_backwards: their keys and readable log ends, 32 bytes a
// partition, so a poll is compared without reading the last one's rows.
type lastEnds struct {
	keys []TopicPartition
	ends []int64 // -1: not readable (an error, or no log end)
}

// back lists the partitions of cur whose log end, readable in both, is
// lower than at the snapshot kept. Both are sorted by topic and partition
// (NewSnapshot sorts them).
func (l *lastEnds) back(cur []PartitionLag) []TopicPartition {
	var out []TopicPartition
	i, j := 0, 0
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
	l.ends = l.ends[:0]
	for i := range rows {
		r := &rows[i]
		switch {
		case i == len(l.keys):
			l.keys = append(l.keys, r.TopicPartition)
		case l.keys[i] != r.TopicPartition:
			l.keys[i] = r.TopicPartition
		}
		e := r.LogEnd
		if r.Err != "" {
			e = -1
		}
		l.ends = append(l.ends, max(e, -1))
	}
	clear(l.keys[len(rows):])
	l.keys = l.keys[:len(rows)]
}
