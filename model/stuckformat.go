package model

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// JSONOldestRecord is the record a partition with lag waits on, in
// JSONPartition (`oldest_record`; null without lag, or when it could not
// be read). A key or header value is given as text ("key") when its bytes
// are UTF-8, else as base64 ("key_base64"): binary keys (Avro, Protobuf
// ids) stay exact, text keys stay readable to jq. Both are null for a
// null key and under --hide-keys, which keeps the sizes. Keys are cut to
// MaxKeyBytes (key_truncated), header names and values to MaxHeaderBytes,
// headers to MaxHeaders (header_count counts them all).
type JSONOldestRecord struct {
	Offset int64 `json:"offset"`
	// Timestamp is RFC 3339, null when the record carries none.
	Timestamp *string `json:"timestamp"`
	// SizeBytes is the record as encoded in its batch, uncompressed:
	// length prefix, fields, key, value and headers.
	SizeBytes int32 `json:"size_bytes"`
	// ValueSize is null for a null value (a tombstone).
	ValueSize    *int32       `json:"value_size"`
	Key          *string      `json:"key"`
	KeyBase64    *string      `json:"key_base64,omitempty"`
	KeySize      *int32       `json:"key_size"`
	KeyTruncated bool         `json:"key_truncated,omitempty"`
	KeyHidden    bool         `json:"key_hidden,omitempty"`
	Headers      []JSONHeader `json:"headers"`
	HeaderCount  int32        `json:"header_count"`
	// Partial: the fetch held only the record's start; its headers were
	// not read, its key may be cut shorter, value_size is null.
	Partial bool `json:"partial,omitempty"`
}

// JSONHeader is one header of a JSONOldestRecord; value and value_base64
// as key and key_base64.
type JSONHeader struct {
	Name        string  `json:"name"`
	Value       *string `json:"value"`
	ValueBase64 *string `json:"value_base64,omitempty"`
	ValueSize   *int32  `json:"value_size"`
	Truncated   bool    `json:"truncated,omitempty"`
}

// oldestJSON converts the record a row waits on; nil for none.
func oldestJSON(p *PartitionLag) *JSONOldestRecord {
	r, ok := p.OldestRecord()
	if !ok {
		return nil
	}
	j := &JSONOldestRecord{Offset: r.Offset, SizeBytes: r.Size, HeaderCount: r.HeaderCount,
		KeyHidden: r.Hidden, Partial: r.Partial, Headers: make([]JSONHeader, 0, len(r.Headers))}
	if !r.Time.IsZero() {
		j.Timestamp = ptr(r.Time.UTC().Format(time.RFC3339Nano))
	}
	if r.ValueSize >= 0 && !r.Partial {
		j.ValueSize = ptr(r.ValueSize)
	}
	if r.KeySize >= 0 {
		j.KeySize = ptr(r.KeySize)
		j.KeyTruncated = len(r.Key) < int(r.KeySize) && !r.Hidden
		if !r.Hidden {
			j.Key, j.KeyBase64 = textOrBase64(r.Key)
		}
	}
	for _, h := range r.Headers {
		jh := JSONHeader{Name: strings.ToValidUTF8(h.Name, "\uFFFD"), Truncated: len(h.Name) < int(h.NameSize)}
		if h.ValueSize >= 0 {
			jh.ValueSize = ptr(h.ValueSize)
			jh.Truncated = jh.Truncated || len(h.Value) < int(h.ValueSize) && !r.Hidden
			if !r.Hidden {
				jh.Value, jh.ValueBase64 = textOrBase64(h.Value)
			}
		}
		j.Headers = append(j.Headers, jh)
	}
	return j
}

// textOrBase64 gives bytes as a JSON string when they are UTF-8, else as
// base64 (the first nil then).
func textOrBase64(b string) (text, b64 *string) {
	if utf8.ValidString(b) {
		return ptr(b), nil
	}
	return nil, ptr(base64.StdEncoding.EncodeToString([]byte(b)))
}

// maxStuckLines bounds the records FormatTable lists under its table.
const maxStuckLines = 10

// writeStuckNotes writes, under FormatTable's table, the record each
// partition LAGGING or worse waits on (one poll has no STALLED: its
// commit has not been seen standing still), the first few: "orders/3
// LAGGING: waiting at offset 1,234, record written 14:01:58, 512 B, key
// order-42, headers trace-id=abc".
func writeStuckNotes(b *strings.Builder, s Snapshot) {
	n := 0
	for i := range s.Partitions {
		p := &s.Partitions[i]
		r, ok := p.OldestRecord()
		if !ok || p.Status.Severity() < StatusLagging.Severity() {
			continue
		}
		if n == 0 {
			b.WriteString("\n")
		}
		if n++; n > maxStuckLines {
			continue
		}
		b.WriteString(Printable(p.Topic) + "/" + strconv.Itoa(int(p.Partition)) + " " + string(p.Status) + ": " + StuckText(p, r, s.TakenAt) + "\n")
	}
	if n > maxStuckLines {
		b.WriteString("… and " + Count(n-maxStuckLines, "more partition") + " waiting\n")
	}
}
