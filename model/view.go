package model

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// SortKey orders the partition table.
type SortKey int

// Sort keys, in the order the `o` key cycles through them.
const (
	// SortByLag: most messages behind first.
	SortByLag SortKey = iota
	// SortByLagAge: oldest unprocessed message first.
	SortByLagAge
	// SortByPartition: topic, then partition number.
	SortByPartition
	// SortByOwner: owner client id, then member id; unowned last.
	SortByOwner
	numSortKeys
)

// sortNames name the keys for the UI.
var sortNames = [numSortKeys]string{SortByLag: "lag", SortByLagAge: "lag age", SortByPartition: "partition", SortByOwner: "owner"}

// String names the key for the UI.
func (k SortKey) String() string { return keyName(sortNames[:], k) }

// keyName is names[k], "?" for a key out of range.
func keyName[K ~int](names []string, k K) string {
	if k < 0 || int(k) >= len(names) {
		return "?"
	}
	return names[k]
}

// Next returns the key after k, wrapping around.
func (k SortKey) Next() SortKey { return (k + 1) % numSortKeys }

// SortPartitions sorts rows in place by key; ties fall back to topic and
// partition, so the order is total and stable across polls. Lag only in
// flight (PartitionLag.InFlight) sorts as none, by lag and by lag age. The
// rows are pointers (into a snapshot's Partitions): at 10,000 partitions
// sorting and keeping copies of whole rows cost more than the rest of a
// poll's UI work.
func SortPartitions(rows []*PartitionLag, key SortKey) {
	if len(rows) < 2 {
		return
	}
	slices.SortFunc(rows, ComparePartitions(key))
}

// ComparePartitions is the order SortPartitions sorts by: negative when a
// comes before b. It is total (ties fall back to topic and partition), so
// a view may order only the rows it shows and find the rest when asked.
func ComparePartitions(key SortKey) func(a, b *PartitionLag) int {
	var less func(a, b *PartitionLag) int
	switch key {
	case SortByLag:
		less = func(a, b *PartitionLag) int { return cmp.Compare(sortLag(b), sortLag(a)) }
	case SortByLagAge:
		less = compareLagAge
	case SortByOwner:
		less = func(a, b *PartitionLag) int {
			if a.Owned() != b.Owned() {
				if a.Owned() {
					return -1
				}
				return 1
			}
			if c := strings.Compare(a.ClientID, b.ClientID); c != 0 {
				return c
			}
			return strings.Compare(a.MemberID, b.MemberID)
		}
	default:
		less = func(a, b *PartitionLag) int { return 0 }
	}
	return func(a, b *PartitionLag) int {
		if c := less(a, b); c != 0 {
			return c
		}
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return cmp.Compare(a.Partition, b.Partition)
	}
}

// compareLagAge orders by lag age, oldest first: records lost to retention
// before they were consumed (LagAgeGone) count as oldest, then known ages,
// then partitions with lag but no known age, then those without lag; ties
// go to the larger lag.
func compareLagAge(a, b *PartitionLag) int {
	if c := compareAge(a, b); c != 0 {
		return c
	}
	return cmp.Compare(sortLag(b), sortLag(a))
}

// compareAge is negative when a's oldest unprocessed record is older.
func compareAge(a, b *PartitionLag) int {
	ra, rb := ageRank(a), ageRank(b)
	if ra != rb || ra == 3 {
		return cmp.Compare(ra, rb)
	}
	return cmp.Compare(b.LagAge, a.LagAge)
}

// sortLag is the lag a row sorts by: none while it is only in flight, so
// a healthy group's rows, lag 0 or 1 from poll to poll, keep their order.
func sortLag(p *PartitionLag) int64 {
	if p.InFlight {
		return 0
	}
	return p.Lag
}

func ageRank(p *PartitionLag) int {
	switch {
	case p.Lag <= 0 || p.InFlight:
		return 3
	case p.LagAgeGone:
		return 0
	case p.LagAgeKnown:
		return 1
	}
	return 2
}

// AppendFiltered appends to dst a pointer to each row of rows that
// matches query and, when onlyLag is set, has lag. The query is split into
// words; each word must occur, ignoring case, in the topic, the owner's
// client id or host, or the status ("stall" finds STALLED). rows is not
// modified.
func AppendFiltered(dst []*PartitionLag, rows []PartitionLag, query string, onlyLag bool) []*PartitionLag {
	words := strings.Fields(strings.ToLower(query))
	for i := range rows {
		p := &rows[i]
		if onlyLag && p.Lag <= 0 {
			continue
		}
		ok := true
		for _, w := range words {
			if !containsFold(p.Topic, w) && !containsFold(p.ClientID, w) &&
				!containsFold(p.Host, w) && !containsFold(string(p.Status), w) {
				ok = false
				break
			}
		}
		if ok {
			dst = append(dst, p)
		}
	}
	return dst
}

// containsFold reports whether s contains sub, which is lower case, ignoring
// case. ASCII (topic names always are) is compared without allocating.
func containsFold(s, sub string) bool {
	if len(sub) == 0 {
		return true
	}
	if len(sub) > len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), sub)
		}
	}
	first := sub[0]
	for i := 0; i+len(sub) <= len(s); i++ {
		if lower(s[i]) != first {
			continue
		}
		j := 1
		for j < len(sub) && lower(s[i+j]) == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
