package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/kafka/demo"
	"github.com/kgwatch/kgwatch/model/testutil"
)

// TestOnceHideKeys: --once -o json gives the record each partition with
// lag waits on (the demo's orders are keyed by customer); with
// --hide-keys the keys are gone and their sizes stay.
func TestOnceHideKeys(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d, err := demo.Start(ctx, demo.Config{Consumers: 1, Rate: 20, ProcessTime: 5 * time.Second}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(); cancel() })
	brokers := strings.Join(d.Brokers(), ",")

	type record struct {
		Key       *string `json:"key"`
		KeySize   *int32  `json:"key_size"`
		KeyHidden bool    `json:"key_hidden"`
	}
	var snap struct {
		Partitions []struct {
			Lag    int64   `json:"lag"`
			Oldest *record `json:"oldest_record"`
		} `json:"partitions"`
	}
	oldest := func(args ...string) *record {
		t.Helper()
		var r *record
		testutil.WaitFor(t, 30*time.Second, "a partition with lag and its record read", func() bool {
			code, out, _ := runArgs(append([]string{"-group", "order-workers", "-brokers", brokers, "--once", "-o", "json"}, args...)...)
			if code != 0 || json.Unmarshal([]byte(out), &snap) != nil {
				return false
			}
			for _, p := range snap.Partitions {
				if p.Lag > 0 && p.Oldest != nil {
					r = p.Oldest
					return true
				}
			}
			return false
		})
		return r
	}
	if r := oldest(); r.Key == nil || !strings.HasPrefix(*r.Key, "customer-") || r.KeyHidden {
		t.Errorf("without --hide-keys: oldest_record %+v, want a customer's key", r)
	}
	if r := oldest("--hide-keys"); r.Key != nil || !r.KeyHidden || r.KeySize == nil || *r.KeySize == 0 {
		t.Errorf("--hide-keys: oldest_record %+v, want no key and its size", r)
	}
}
