package demo

import (
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// committed returns the group's committed offset of partition p (-1: none).
func committed(d *Demo, p int32) int64 {
	gi := d.cluster.GroupInfo(d.cfg.Group)
	if gi == nil {
		return -1
	}
	if c, ok := gi.Commits[d.cfg.Topic][p]; ok {
		return c.Offset
	}
	return -1
}

// A poison order stops its partition: the committed offset stays at the
// poison's offset while the log grows past it (kgwatch calls it STALLED
// after --stall-after), the other partitions go on, and its owner reports
// the failure once. Poison again skips it: the owner commits past it and
// the partition moves on.
func TestPoisonOrderStopsItsPartitionUntilSkipped(t *testing.T) {
	t.Parallel()
	d, rec := startDemo(t, fastConfig())
	waitTwoOwnAll(t, d, ownsAllRecorded)
	gw := watchGroupWith(t, d, d.Group(), 100*time.Millisecond, model.HistoryOptions{StallAfter: time.Second})
	po, produced, err := d.Poison()
	if err != nil || !produced || po.Offset < 0 {
		t.Fatalf("Poison() = %+v, %v, %v; want a poison order produced", po, produced, err)
	}
	p := po.Partition.Partition
	// Everything before the poison is committed (nothing, when it is
	// the partition's first record), and nothing after.
	atPoison := func() bool { c := committed(d, p); return c == po.Offset || (po.Offset == 0 && c < 0) }
	waitFor(t, 10*time.Second, "the commits reach the poison", atPoison)
	others := map[int32]int64{}
	for q := range int32(d.partCount) {
		others[q] = committed(d, q)
	}
	waitFor(t, 10*time.Second, "the log grows past the poison", func() bool {
		if !atPoison() {
			t.Fatalf("p%d committed %d, past the poison at %d", p, committed(d, p), po.Offset)
		}
		return logEnds(t, d)[p] > po.Offset+10
	})
	waitFor(t, 10*time.Second, "kgwatch calls the partition STALLED", func() bool {
		if !atPoison() {
			t.Fatalf("p%d committed %d, past the poison at %d", p, committed(d, p), po.Offset)
		}
		return gw.status(po.Partition) == model.StatusStalled
	})
	for q, was := range others {
		if q != p && committed(d, q) <= was {
			t.Errorf("p%d stopped too: committed %d, was %d", q, committed(d, q), was)
		}
	}
	if evs := rec.find(model.EventDemoPoison, ""); len(evs) != 1 || evs[0].Partitions[0] != po.Partition {
		t.Fatalf("demo_poison events %v, want one on p%d", evs, p)
	}
	if st := d.Status(false); st.Poison.OrderID != po.OrderID {
		t.Errorf("Status().Poison = %+v, want %s", st.Poison, po.OrderID)
	}

	skipped, produced, err := d.Poison()
	if err != nil || produced || skipped.OrderID != po.OrderID {
		t.Fatalf("Poison() again = %+v, %v, %v; want %s skipped", skipped, produced, err, po.OrderID)
	}
	waitFor(t, 10*time.Second, "the partition moves on past the poison", func() bool { return committed(d, p) > po.Offset+1 })
	if evs := rec.find(model.EventDemoPoisonSkipped, ""); len(evs) != 1 {
		t.Errorf("demo_poison_skipped events %v, want one", evs)
	}
	if st := d.Status(false); st.Poison.OrderID != "" {
		t.Errorf("Status().Poison = %+v after the skip, want none", st.Poison)
	}
	for _, c := range d.Consumers() {
		if c.PoisonTries != 0 {
			t.Errorf("%s still stuck (%d tries) after the skip", c.ClientID, c.PoisonTries)
		}
	}
	l := d.Ledger()
	if l.Duplicates != 0 || l.Lost != 0 {
		t.Errorf("ledger %+v: the poison made duplicates or losses", l)
	}
}
