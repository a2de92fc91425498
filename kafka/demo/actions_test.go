package demo

import (
	"testing"
	"time"
)

// In compare mode Status reads the groups' ledgers at one instant: the
// producer books each order in every group's book at once, so all the
// ledgers say the same number produced, and the first group's is the one
// shown alone.
func TestStatusReadsCompareLedgersAtOneInstant(t *testing.T) {
	t.Parallel()
	cfg := fastConfig()
	cfg.Rate = MaxRate // orders are booked while Status reads
	var err error
	if cfg.Compare, err = ParseCompare("range,cooperative-sticky"); err != nil {
		t.Fatal(err)
	}
	d, _ := startDemo(t, cfg)
	first := d.Groups()[0].Name
	var produced int64
	reads := 0
	for end := time.Now().Add(time.Second); time.Now().Before(end) || produced < 50; reads++ {
		if time.Now().After(end.Add(10 * time.Second)) {
			t.Fatalf("%d orders produced in 11s, want 50", produced)
		}
		s := d.Status(true)
		if !s.HasLedger || len(s.Ledgers) != 2 {
			t.Fatalf("Status(true) ledgers %v (has ledger %v), want the 2 groups'", s.Ledgers, s.HasLedger)
		}
		if s.Ledgers[first] != s.Ledger {
			t.Fatalf("read %d: %s's ledger %+v, the ledger shown alone %+v", reads, first, s.Ledgers[first], s.Ledger)
		}
		for g, l := range s.Ledgers {
			if l.Produced != s.Ledger.Produced {
				t.Fatalf("read %d: %s's ledger says %d produced, %s's %d", reads, g, l.Produced, first, s.Ledger.Produced)
			}
		}
		produced = s.Ledger.Produced
	}
	t.Logf("%d reads, %d orders produced", reads, produced)
}
