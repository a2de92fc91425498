package kafka

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/compress"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kgwatch/kgwatch/model"
)

// keyedBatch encodes a v2 record batch of records from base.
func keyedBatch(t *testing.T, codec compress.Compression, base int64, records ...protocol.Record) []byte {
	t.Helper()
	rs := protocol.RecordSet{Version: 2, Attributes: protocol.Attributes(codec), Records: protocol.NewRecordReader(records...)}
	var buf bytes.Buffer
	if _, err := rs.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()[4:] // size prefix
	binary.BigEndian.PutUint64(b, uint64(base))
	return b
}

func keyed(ts time.Time, key, value string, headers ...protocol.Header) protocol.Record {
	r := protocol.Record{Time: ts, Value: protocol.NewBytes([]byte(value)), Headers: headers}
	if key != "" {
		r.Key = protocol.NewBytes([]byte(key))
	}
	return r
}

// TestRecordAtReadsKeyAndHeaders: the walk that finds the timestamp reads
// the record's key, sizes and headers, in every codec, and keeps only
// their first bytes.
func TestRecordAtReadsKeyAndHeaders(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	for _, codec := range []compress.Compression{0, compress.Gzip, compress.Snappy, compress.Lz4, compress.Zstd} {
		b := keyedBatch(t, codec, 100,
			keyed(t0, "order-41", "fine"),
			keyed(t0.Add(time.Second), "order-42", strings.Repeat("v", 480),
				protocol.Header{Key: "trace-id", Value: []byte("abc")}, protocol.Header{Key: "retry", Value: []byte("3")}),
			keyed(t0.Add(2*time.Second), "", "no key"))
		ts, rec, ok := recordAt(b, 101)
		if !ok || !ts.Equal(t0.Add(time.Second)) || rec == nil {
			t.Fatalf("codec %v: %v %+v %v", codec, ts, rec, ok)
		}
		want := model.OldestRecord{Offset: 101, Time: ts, Size: rec.Size, ValueSize: 480, Key: "order-42", KeySize: 8, HeaderCount: 2,
			Headers: []model.RecordHeader{{Name: "trace-id", NameSize: 8, Value: "abc", ValueSize: 3}, {Name: "retry", NameSize: 5, Value: "3", ValueSize: 1}}}
		if !equalRecord(*rec, want) {
			t.Errorf("codec %v: record\n %+v\nwant %+v", codec, *rec, want)
		}
		if rec.Size < 8+480+8+3+5+1 || rec.Size > 8+480+8+3+5+1+20 {
			t.Errorf("codec %v: size %d, want the record's encoded size (its fields and lengths around 505 bytes)", codec, rec.Size)
		}
		if _, rec, _ := recordAt(b, 102); rec == nil || rec.KeySize != -1 || rec.HeaderCount != 0 {
			t.Errorf("codec %v: a null key read as %+v", codec, rec)
		}
	}

	// The encoded size, exactly: a batch of one record is its header and
	// the record.
	one := keyedBatch(t, 0, 7, keyed(t0, "k", "v"))
	if _, rec, _ := recordAt(one, 7); rec == nil || int(rec.Size) != len(one)-batchHeaderLen {
		t.Errorf("one record: size %+v, want %d", rec, len(one)-batchHeaderLen)
	}

	// What a hostile producer sends is cut when kept: a 1 MiB key to 64
	// bytes, 20 headers to 8, a 100-byte header name to 32.
	var hs []protocol.Header
	for i := 0; i < 20; i++ {
		hs = append(hs, protocol.Header{Key: strings.Repeat("h", 100), Value: bytes.Repeat([]byte{0xff}, 100)})
	}
	huge := keyedBatch(t, compress.Zstd, 0, keyed(t0, "\x1b[2J\xff"+strings.Repeat("k", 1<<20), "", hs...))
	_, rec, ok := recordAt(huge, 0)
	if !ok || rec == nil || len(rec.Key) != model.MaxKeyBytes || rec.KeySize != 1<<20+5 || rec.HeaderCount != 20 ||
		len(rec.Headers) != model.MaxHeaders || len(rec.Headers[0].Name) != model.MaxHeaderBytes || rec.Headers[0].NameSize != 100 ||
		len(rec.Headers[7].Value) != model.MaxHeaderBytes || rec.Headers[7].ValueSize != 100 {
		t.Errorf("hostile record kept as %+v", rec)
	}

	// An answer cut inside the key still gives its start, partial; cut
	// before it, the time alone.
	big := keyedBatch(t, 0, 0, keyed(t0, strings.Repeat("k", 200), "v", protocol.Header{Key: "h", Value: []byte("x")}))
	_, rec, ok = recordAt(big[:batchHeaderLen+40], 0)
	if !ok || rec == nil || !rec.Partial || rec.KeySize != 200 || !strings.HasPrefix(rec.Key, "kkk") || len(rec.Key) >= 40 || rec.Headers != nil {
		t.Errorf("cut in the key: %+v %v", rec, ok)
	}
	if ts, rec, ok := recordAt(big[:batchHeaderLen+5], 0); !ok || !ts.Equal(t0) || rec != nil {
		t.Errorf("cut before the key: %v %+v %v, want the time alone", ts, rec, ok)
	}

	// Lengths that run past the record are damage: the time, no record.
	bad := keyedBatch(t, 0, 0, keyed(t0, "k", "v"))
	bad[batchHeaderLen+4] = 0x7e // key length 63, in a record of a dozen bytes
	if ts, rec, ok := recordAt(bad, 0); !ok || !ts.Equal(t0) || rec != nil {
		t.Errorf("damaged key length: %v %+v %v", ts, rec, ok)
	}

	// Log append time: the record's time is the batch's.
	la := keyedBatch(t, 0, 100, keyed(t0, "a", "b"), keyed(t0, "c", "d"))
	binary.BigEndian.PutUint16(la[offsetAttributes:], attrLogAppend)
	appended := t0.Add(time.Hour)
	binary.BigEndian.PutUint64(la[35:], uint64(appended.UnixMilli()))
	if ts, rec, ok := recordAt(la, 101); !ok || !ts.Equal(appended) || rec == nil || !rec.Time.Equal(appended) || rec.Key != "c" {
		t.Errorf("log append time: %v %+v %v", ts, rec, ok)
	}
}

func equalRecord(a, b model.OldestRecord) bool {
	if len(a.Headers) != len(b.Headers) {
		return false
	}
	for i := range a.Headers {
		if a.Headers[i] != b.Headers[i] {
			return false
		}
	}
	a.Headers, b.Headers = nil, nil
	return a.Offset == b.Offset && a.Time.Equal(b.Time) && a.Size == b.Size && a.ValueSize == b.ValueSize &&
		a.Key == b.Key && a.KeySize == b.KeySize && a.HeaderCount == b.HeaderCount && a.Hidden == b.Hidden && a.Partial == b.Partial
}

// produceRecords writes records to one partition of topic.
func (tc *testCluster) produceRecords(t testing.TB, topic string, partition int, records ...kafka.Record) {
	t.Helper()
	cl, done := tc.client()
	res, err := cl.Produce(context.Background(), &kafka.ProduceRequest{
		Topic: topic, Partition: partition, RequiredAcks: kafka.RequireAll,
		Records: kafka.NewRecordReader(records...),
	})
	done()
	if err == nil {
		err = res.Error
	}
	if err != nil {
		t.Fatalf("produce %d records to %s/%d: %v", len(records), topic, partition, err)
	}
}

// TestPollReadsTheStuckRecord: a group committed before a keyed record
// with headers (a poison order): the snapshot carries that record's
// offset, time, size, key and headers, from the fetch that reads its
// time (one per leader, none more); a partition without lag carries
// none; the pipeline under --hide-keys keeps only the sizes.
func TestPollReadsTheStuckRecord(t *testing.T) {
	tc := newTestCluster(t, false)
	const group, topic = "poison-workers", "orders"
	tc.createTopic(t, topic, 2)
	written := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	tc.produceRecords(t, topic, 0,
		kafka.Record{Time: written, Key: kafka.NewBytes([]byte("order-41")), Value: kafka.NewBytes([]byte("ok"))},
		kafka.Record{Time: written.Add(time.Second), Key: kafka.NewBytes([]byte("order-42")), Value: kafka.NewBytes(bytes.Repeat([]byte("v"), 480)),
			Headers: []kafka.Header{{Key: "trace-id", Value: []byte("abc")}, {Key: "retry", Value: []byte("3")}}},
		kafka.Record{Time: written.Add(2 * time.Second), Key: kafka.NewBytes([]byte("order-43")), Value: kafka.NewBytes([]byte("ok"))})
	tc.produce(t, topic, 1, 3, written)
	tc.commit(t, group, topic, map[int]int64{0: 1, 1: 3})

	w := newTestWatcher(t, tc, group)
	tc.resetCounts()
	s := pollUntil(t, w, "the commits", func(s model.Snapshot) bool { return len(s.Partitions) == 2 && s.Partitions[0].Committed == 1 })
	if n := tc.requestCounts()["Fetch"]; n != 1 {
		t.Errorf("%d fetches, want 1: the record comes with its timestamp", n)
	}
	r, ok := s.Partitions[0].OldestRecord()
	if !ok {
		t.Fatalf("p0 (lag 2): no record")
	}
	if r.Offset != 1 || !r.Time.Equal(written.Add(time.Second)) || r.Key != "order-42" || r.KeySize != 8 || r.ValueSize != 480 ||
		r.Size < 500 || r.Size > 530 || r.HeaderCount != 2 || len(r.Headers) != 2 ||
		r.Headers[0] != (model.RecordHeader{Name: "trace-id", NameSize: 8, Value: "abc", ValueSize: 3}) || r.Headers[1].Name != "retry" {
		t.Errorf("p0's record %+v", r)
	}
	if _, ok := s.Partitions[1].OldestRecord(); ok {
		t.Errorf("p1 (no lag) carries a record")
	}

	pipe := model.NewPipeline(model.PipelineOptions{Group: group, HideKeys: true})
	pipe.Observe(&s)
	h := s.Partitions[0].Oldest[0]
	if h.Key != "" || h.Headers[0].Value != "" || h.KeySize != 8 || h.Headers[0].ValueSize != 3 || !h.Hidden {
		t.Errorf("--hide-keys: %+v", h)
	}
	if b, _ := model.MarshalJSONSnapshot(s); strings.Contains(string(b), "order-42") || strings.Contains(string(b), "abc") {
		t.Errorf("--hide-keys: the JSON holds the key or a header value:\n%s", b)
	}
}

// TestPollHostileStuckRecord: the record a group waits on has a 1 MiB key
// holding an escape sequence and bytes that are not UTF-8: the snapshot
// keeps 64 bytes of it and its size, and neither the table nor the JSON
// --once prints carries a control byte.
func TestPollHostileStuckRecord(t *testing.T) {
	tc := newTestCluster(t, false, kfake.BrokerConfigs(map[string]string{"message.max.bytes": "4194304"}))
	const group, topic = "dlq-workers", "dlq"
	tc.createTopic(t, topic, 1)
	key := "\x1b[2J\x1b]0;PWNED\x07\xff\xfe" + strings.Repeat("k", 1<<20)
	tc.produceRecords(t, topic, 0, kafka.Record{Time: time.Now().Add(-time.Minute), Key: kafka.NewBytes([]byte(key)), Value: kafka.NewBytes([]byte("x")),
		Headers: []kafka.Header{{Key: "\x1b[31mred", Value: []byte("\x1b[?1049l")}}})
	tc.produce(t, topic, 0, 2, time.Now())
	tc.commit(t, group, topic, map[int]int64{0: 0})

	w := newTestWatcher(t, tc, group)
	s := pollUntil(t, w, "the commit", func(s model.Snapshot) bool { return len(s.Partitions) == 1 && s.Partitions[0].Committed == 0 })
	r, ok := s.Partitions[0].OldestRecord()
	if !ok || len(r.Key) > model.MaxKeyBytes || r.KeySize != int32(len(key)) || !strings.HasPrefix(r.Key, "\x1b[2J") {
		t.Fatalf("record %v: key of %d bytes kept, size %d; want 64 of %d", ok, len(r.Key), r.KeySize, len(key))
	}
	model.NewPipeline(model.PipelineOptions{Group: group}).Observe(&s)
	table := model.FormatTable(s)
	assertNoControls(t, "--once table", table)
	if !strings.Contains(table, `key ␛[2J␛]0;PWNED␇\xff\xfek…,`) || !strings.Contains(table, "headers ␛[31mred=␛[?1049l") {
		t.Errorf("the key is not shown visibly:\n%s", table)
	}
	b, err := model.MarshalJSONSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	assertNoControls(t, "--once -o json", string(b))
	if len(b) > 64<<10 {
		t.Errorf("the JSON is %d bytes: the key was not cut", len(b))
	}
	if !strings.Contains(string(b), `"key_base64": "G1syShtdMDtQV05FRAf//mtr`) || !strings.Contains(string(b), `"key_truncated": true`) {
		t.Errorf("a key not UTF-8 not given as base64:\n%s", b)
	}
}
