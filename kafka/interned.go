package kafka

import (
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// An OffsetFetch answer is decoded without copying its strings
// (kmsg.UnsafeReadFrom): each committed offset's metadata is a string the
// committing client chose (a kgo client writes ~40 bytes), which a safe
// decode copies for every partition of every poll, though kgwatch never
// reads it: at 10,000 partitions polled every 250 ms that was a quarter of
// the TUI's allocation and 4% of its CPU. The strings kgwatch keeps, the
// group and topic names, are replaced by copies interned once (names)
// before the body goes back to the pool, and the metadata pointers are
// cleared, so nothing of the answer refers to the body once it is reused.

// names interns the group and topic names taken from answers decoded
// without copying. Safe for concurrent use: the overview reads its
// coordinators' answers in parallel.
type names struct {
	mu sync.Mutex
	// cur and old are two generations: when cur holds maxNames, it
	// becomes old and cur starts afresh, and a name found in old moves
	// to cur. A cluster whose groups and topics come and go does not
	// grow the table forever, and one with more names than maxNames
	// copies only those not seen for a generation, not all of them at
	// every poll.
	cur, old map[string]string
}

// maxNames is the most names a generation holds.
const maxNames = 1 << 16

// intern returns a copy of s that does not refer to the body it was
// decoded from, the same copy each time; the caller holds n.mu.
func (n *names) intern(s string) string {
	if v, ok := n.cur[s]; ok {
		return v
	}
	v, ok := n.old[s]
	if !ok {
		v = strings.Clone(s)
	}
	if n.cur == nil || len(n.cur) >= maxNames {
		n.old, n.cur = n.cur, make(map[string]string)
	}
	n.cur[v] = v
	return v
}

// unsafeResponse reports whether a response of API key is decoded without
// copying its strings, then detached from its body (detachStrings).
func unsafeResponse(key int16) bool { return key == 9 } // OffsetFetch

// detachStrings makes a response decoded without copying refer to no
// part of its body (but unknown tagged fields, which kgwatch never reads,
// and which a safe decode leaves in the body too): its names interned,
// its metadata dropped.
func (n *names) detachStrings(res kmsg.Response) {
	r, ok := res.(*kmsg.OffsetFetchResponse)
	if !ok {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for i := range r.Topics {
		t := &r.Topics[i]
		t.Topic = n.intern(t.Topic)
		for j := range t.Partitions {
			t.Partitions[j].Metadata = nil
		}
	}
	for i := range r.Groups {
		g := &r.Groups[i]
		g.Group = n.intern(g.Group)
		for k := range g.Topics {
			t := &g.Topics[k]
			t.Topic = n.intern(t.Topic)
			for j := range t.Partitions {
				t.Partitions[j].Metadata = nil
			}
		}
	}
}
