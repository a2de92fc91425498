package model

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// WriteJSONSnapshot writes, a partition at a time, the bytes the whole
// document indented at once gives (heldJSON, as MarshalJSONSnapshot
// encoded before it wrote through WriteJSONSnapshot): no partitions, one, many; hostile names and
// record keys (escape sequences, bidi controls, invalid UTF-8, combining
// marks SafeJSON escapes), stuck records, a judged group.
func TestWriteJSONSnapshotIsMarshalJSONSnapshot(t *testing.T) {
	hostile := poisonRecord()
	hostile.Key, hostile.KeySize = "\x1b]0;pwn\x07\u202e\xff"+"e\u0301\u0301\u0301", 20
	hostile.Headers = append(hostile.Headers, RecordHeader{Name: "注文\x1b[2J", NameSize: 9, Value: "\u200b<&>", ValueSize: 9})
	stuck := NewSnapshot(stuckObservation(stuckT0.Add(time.Minute), hostile))
	stuck.Group.ID = "g\x1b[31m\u202e"
	stuck.Partitions[0].Topic = "t\u0300\u0300\u0300\u0300"

	judged := NewSnapshot(benchGroup(90))
	p := NewPipeline(PipelineOptions{Group: "big"})
	p.Observe(&judged)

	one := NewSnapshot(sampleObservation())
	one.Partitions = one.Partitions[:1]
	none := NewSnapshot(sampleObservation())
	none.Partitions = nil

	for name, s := range map[string]Snapshot{
		"sample": NewSnapshot(sampleObservation()), "stuck, hostile": stuck, "judged": judged,
		"one partition": one, "no partition": none, "wide": wideTable(200),
	} {
		want, err := heldJSON(s)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteJSONSnapshot(&got, s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%s: WriteJSONSnapshot differs:\n%s\nheld:\n%s", name, got.Bytes(), want)
		}
	}

	// Written, the document is not held whole: 20,000 partitions reach
	// the writer in 64 KB pieces.
	s := wideTable(20000)
	doc, _ := MarshalJSONSnapshot(s)
	var w chunks
	if err := WriteJSONSnapshot(&w, s); err != nil {
		t.Fatal(err)
	}
	if w.n < len(doc)/(64<<10) || w.max > 64<<10 {
		t.Fatalf("a %d-byte document came in %d writes, the largest %d bytes: held whole, not streamed", len(doc), w.n, w.max)
	}
}

// heldJSON is the snapshot's JSON indented whole, as MarshalJSONSnapshot
// made it before the document was written a partition at a time: the
// reference.
func heldJSON(s Snapshot) ([]byte, error) {
	b, err := json.MarshalIndent(s.ToJSON(), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(SafeJSON(b), '\n'), nil
}
