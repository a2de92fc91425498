package kafka

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/compress"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// batch encodes a v2 record batch with kafka-go's encoder: one record per
// time, offsets from base.
func batch(t *testing.T, codec compress.Compression, base int64, times ...time.Time) []byte {
	t.Helper()
	records := make([]protocol.Record, len(times))
	for i, ts := range times {
		records[i] = protocol.Record{Time: ts, Value: protocol.NewBytes(bytes.Repeat([]byte{'v'}, 100+i))}
	}
	return keyedBatch(t, codec, base, records...)
}

func TestRecordTime(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	times := []time.Time{t0, t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(3 * time.Second)}
	for _, codec := range []compress.Compression{0, compress.Gzip, compress.Snappy, compress.Lz4, compress.Zstd} {
		b := append(batch(t, codec, 100, times[:2]...), batch(t, codec, 102, times[2:]...)...)
		for offset, want := range map[int64]time.Time{90: t0, 100: t0, 101: times[1], 102: times[2], 103: times[3]} {
			if got, ok := recordTime(b, offset); !ok || !got.Equal(want) {
				t.Errorf("codec %v offset %d: %v %v, want %v", codec, offset, got, ok, want)
			}
		}
		if got, ok := recordTime(b, 104); ok {
			t.Errorf("codec %v offset 104 (past the end): %v, want not found", codec, got)
		}
	}

	// A batch cut short by the byte limit still gives a record in the part
	// that came; not one past it.
	b := batch(t, 0, 100, times...)
	cut := b[:batchHeaderLen+150]
	if got, ok := recordTime(cut, 100); !ok || !got.Equal(t0) {
		t.Errorf("cut batch, offset 100: %v %v, want %v", got, ok, t0)
	}
	if got, ok := recordTime(cut, 103); ok {
		t.Errorf("cut batch, offset 103: %v, want not found", got)
	}
	if _, ok := recordTime(b[:40], 100); ok {
		t.Error("a cut header gave a time")
	}

	// LogAppendTime: every record has the batch's max timestamp.
	la := batch(t, 0, 100, times...)
	binary.BigEndian.PutUint16(la[offsetAttributes:], attrLogAppend)
	appended := t0.Add(time.Hour)
	binary.BigEndian.PutUint64(la[35:], uint64(appended.UnixMilli()))
	if got, ok := recordTime(la, 101); !ok || !got.Equal(appended) {
		t.Errorf("log append time: %v %v, want %v", got, ok, appended)
	}

	// A control batch (transaction marker) is skipped.
	ctl := batch(t, 0, 100, t0.Add(-time.Hour))
	binary.BigEndian.PutUint16(ctl[offsetAttributes:], attrControl)
	if got, ok := recordTime(append(ctl, batch(t, 0, 101, t0)...), 100); !ok || !got.Equal(t0) {
		t.Errorf("after a control batch: %v %v, want %v", got, ok, t0)
	}

	// Only markers from 100: no record, and markersOnly says so; not
	// when a message follows, nor when the bytes are cut short.
	if end, ok := markersOnly(ctl, 100); !ok || end != 101 {
		t.Errorf("markers only: %d %v, want 101 true", end, ok)
	}
	if _, ok := markersOnly(append(ctl, batch(t, 0, 101, t0)...), 100); ok {
		t.Error("a message after the marker read as markers only")
	}
	if _, ok := markersOnly(ctl[:len(ctl)-1], 100); ok {
		t.Error("a cut marker batch read as markers only")
	}
}

// fetchBody builds a v11 Fetch response body for one partition.
func fetchBody(topic string, partition int32, code int16, logStart int64, records []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, 0) // throttle
	b = binary.BigEndian.AppendUint16(b, 0) // error
	b = binary.BigEndian.AppendUint32(b, 0) // session
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint16(b, uint16(len(topic)))
	b = append(b, topic...)
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, uint32(partition))
	b = binary.BigEndian.AppendUint16(b, uint16(code))
	b = binary.BigEndian.AppendUint64(b, 50) // high watermark
	b = binary.BigEndian.AppendUint64(b, 50) // last stable
	b = binary.BigEndian.AppendUint64(b, uint64(logStart))
	b = binary.BigEndian.AppendUint32(b, 0xffffffff) // no aborted txns
	b = binary.BigEndian.AppendUint32(b, 0xffffffff) // preferred replica
	b = binary.BigEndian.AppendUint32(b, uint32(len(records)))
	return append(b, records...)
}

func TestParseFetch(t *testing.T) {
	tp := model.TopicPartition{Topic: "t", Partition: 3}
	req := []kmsg.FetchRequestTopic{{Topic: "t", Partitions: []kmsg.FetchRequestTopicPartition{{Partition: 3, FetchOffset: 4}}}}
	t0 := time.UnixMilli(1_700_000_000_000)

	res, err := parseFetch(fetchBody("t", 3, 0, 0, batch(t, 0, 4, t0)), 11, req, nil)
	if err != nil || res.stamps[tp].ts != t0.UnixMilli() {
		t.Errorf("record at 4: %+v %v, want %v", res, err, t0)
	}
	res, err = parseFetch(fetchBody("t", 3, 1, 10, nil), 11, req, nil)
	if err != nil || !res.stamps[tp].gone {
		t.Errorf("offset 4 out of range below log-start 10: %+v %v, want gone", res, err)
	}
	res, err = parseFetch(fetchBody("t", 3, 6, 0, nil), 11, req, nil)
	if err != nil || !res.stamps[tp].leaderMoved {
		t.Errorf("not leader: %+v %v, want leader moved", res, err)
	}
	body := fetchBody("t", 3, 0, 0, batch(t, 0, 4, t0))
	if _, err := parseFetch(body[:len(body)-30], 11, req, nil); err == nil {
		t.Error("truncated response parsed without error")
	}
}

// FuzzParseFetch: any bytes parse without panic or endless loop, and what
// they say holds together: an answer or an error; only the partition asked
// for; a stamp for the offset asked, which is gone, only markers or a
// record (with a time), never two of them; markers up to a high watermark
// past the offset; what is kept of a record within its bounds.
func FuzzParseFetch(f *testing.F) {
	t0 := time.UnixMilli(1_700_000_000_000)
	seed := &testing.T{}
	f.Add(fetchBody("t", 3, 0, 0, batch(seed, compress.Snappy, 4, t0, t0)), int64(4))
	f.Add(fetchBody("t", 3, 0, 0, batch(seed, 0, 0, t0, t0, t0)), int64(2))
	f.Add(fetchBody("t", 3, 1, 10, nil), int64(4))
	f.Add(fetchBody("t", 3, 0, 0, keyedBatch(seed, 0, 4, keyed(t0, "order-42", "v", protocol.Header{Key: "trace-id", Value: []byte("abc")}))), int64(4))
	f.Fuzz(func(t *testing.T, body []byte, offset int64) {
		req := []kmsg.FetchRequestTopic{{Topic: "t", Partitions: []kmsg.FetchRequestTopicPartition{{Partition: 3, FetchOffset: offset}}}}
		res, err := parseFetch(body, 11, req, nil)
		if (res == nil) == (err == nil) {
			t.Fatalf("answer %v and error %v: want exactly one", res, err)
		}
		if res != nil {
			for tp, r := range res.stamps {
				if tp != (model.TopicPartition{Topic: "t", Partition: 3}) {
					t.Fatalf("stamp for %v, which was not asked", tp)
				}
				if r.leaderMoved {
					if r.stamp != (stamp{}) {
						t.Fatalf("leader moved and a stamp %+v", r.stamp)
					}
					continue
				}
				if r.offset != offset {
					t.Fatalf("stamp at %d, asked %d", r.offset, offset)
				}
				if r.gone && (r.markers || r.ts != 0) || r.markers && r.ts != 0 {
					t.Fatalf("stamp %+v says two things", r.stamp)
				}
				if r.markers && r.end <= offset {
					t.Fatalf("markers up to %d, not past offset %d", r.end, offset)
				}
				if rec := r.rec; rec != nil {
					if r.gone || r.markers || rec.Offset < offset || len(rec.Key) > model.MaxKeyBytes || len(rec.Headers) > model.MaxHeaders || rec.Partial && rec.Headers != nil {
						t.Fatalf("stamp %+v with record %+v", r.stamp, *rec)
					}
					for _, h := range rec.Headers {
						if len(h.Name) > model.MaxHeaderBytes || len(h.Value) > model.MaxHeaderBytes {
							t.Fatalf("header kept whole: %+v", h)
						}
					}
				}
			}
		}
		if ts, found := recordTime(body, offset); !found && !ts.IsZero() {
			t.Fatalf("no record at %d, yet time %v", offset, ts)
		}
	})
}

// parseFetch decodes a Fetch response body of version with kmsg, as the
// watcher's exchange does, and reads it.
func parseFetch(body []byte, version int16, topics []kmsg.FetchRequestTopic, also map[model.TopicPartition][]int64) (*fetchStamps, error) {
	res := kmsg.NewPtrFetchResponse()
	res.SetVersion(version)
	if err := res.ReadFrom(body); err != nil {
		return nil, err
	}
	return readFetch(res, topics, also)
}

// readFetch matches each answered partition to the offset its request
// asked, as a map of the request does, for answers in the order asked, in
// another, with partitions not asked, topics listed twice and a request
// asking a partition twice (the first asking is the map's last).
func TestReadFetchFindsTheAskedOffset(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 11))
	for round := range 300 {
		var topics []kmsg.FetchRequestTopic
		for range 1 + rng.IntN(4) {
			rt := kmsg.FetchRequestTopic{Topic: []string{"a", "b", "c"}[rng.IntN(3)]}
			for range rng.IntN(5) {
				rt.Partitions = append(rt.Partitions, kmsg.FetchRequestTopicPartition{Partition: int32(rng.IntN(6)), FetchOffset: int64(rng.IntN(100))})
			}
			topics = append(topics, rt)
		}
		res := kmsg.NewPtrFetchResponse()
		for _, rt := range topics {
			t := kmsg.FetchResponseTopic{Topic: rt.Topic}
			for _, rp := range rt.Partitions {
				p := kmsg.NewFetchResponseTopicPartition()
				p.Partition, p.ErrorCode, p.LogStartOffset = rp.Partition, kerr.OffsetOutOfRange.Code, 1000 // every asked record gone
				t.Partitions = append(t.Partitions, p)
			}
			if rng.IntN(3) == 0 { // one not asked
				p := kmsg.NewFetchResponseTopicPartition()
				p.Partition, p.ErrorCode, p.LogStartOffset = 7, kerr.OffsetOutOfRange.Code, 1000
				t.Partitions = append(t.Partitions, p)
			}
			res.Topics = append(res.Topics, t)
		}
		if round%2 == 1 { // answered in another order
			rng.Shuffle(len(res.Topics), func(i, j int) { res.Topics[i], res.Topics[j] = res.Topics[j], res.Topics[i] })
			for _, t := range res.Topics {
				rng.Shuffle(len(t.Partitions), func(i, j int) { t.Partitions[i], t.Partitions[j] = t.Partitions[j], t.Partitions[i] })
			}
		}
		got, err := readFetch(res, topics, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: the request as a map, the last asking kept.
		want := map[model.TopicPartition]int64{}
		for _, rt := range topics {
			for _, rp := range rt.Partitions {
				want[model.TopicPartition{Topic: rt.Topic, Partition: rp.Partition}] = rp.FetchOffset
			}
		}
		for tp, r := range got.stamps {
			if w, ok := want[tp]; !ok || !r.gone || (r.offset != w && !askedAt(topics, tp, r.offset)) {
				t.Fatalf("round %d: %v read as %+v, asked %v (%v)", round, tp, r, w, ok)
			}
		}
		for tp := range want {
			if _, ok := got.stamps[tp]; !ok {
				t.Fatalf("round %d: %v asked and answered, not read", round, tp)
			}
		}
	}
}

// askedAt reports whether topics ask tp at offset (a partition asked
// twice may be matched to either asking).
func askedAt(topics []kmsg.FetchRequestTopic, tp model.TopicPartition, offset int64) bool {
	for _, rt := range topics {
		for _, rp := range rt.Partitions {
			if rt.Topic == tp.Topic && rp.Partition == tp.Partition && rp.FetchOffset == offset {
				return true
			}
		}
	}
	return false
}

// fetchAt asks each wanted offset once, in the order wanted, consecutive
// partitions of a topic in one entry and a topic that recurs in another,
// with the budget its span needs.
func TestFetchAtAsksInOrder(t *testing.T) {
	tc := newTestCluster(t, false)
	tc.createTopic(t, "a", 3)
	tc.createTopic(t, "b", 1)
	var mu sync.Mutex
	var got []string
	tc.ControlKey(int16(kmsg.Fetch), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		tc.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		for _, rt := range kreq.(*kmsg.FetchRequest).Topics {
			var ps []string
			for _, rp := range rt.Partitions {
				ps = append(ps, fmt.Sprintf("%d@%d/%d", rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes))
			}
			got = append(got, rt.Topic+":"+strings.Join(ps, ","))
		}
		return nil, nil, false
	})
	w := newTestWatcher(t, tc, "g")
	// The request is what is checked: any broker will do.
	leader := sortedKeys(mustBrokers(t, w))[0]
	ws := []want{
		{tp: model.TopicPartition{Topic: "a", Partition: 0}, offset: 1},
		{tp: model.TopicPartition{Topic: "a", Partition: 2}, offset: 5, also: []int64{7}},
		{tp: model.TopicPartition{Topic: "b", Partition: 0}, offset: 3},
		{tp: model.TopicPartition{Topic: "a", Partition: 1}, offset: 9},
	}
	if _, err := w.fetchAt(context.Background(), leader, ws); err != nil {
		t.Fatal(err)
	}
	one, span := fetchPartitionMaxBytes, fetchSpanMaxBytes
	want := []string{
		fmt.Sprintf("a:0@1/%d,2@5/%d", one, span),
		fmt.Sprintf("b:0@3/%d", one),
		fmt.Sprintf("a:1@9/%d", one),
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		t.Errorf("Fetch asked %v, want %v", got, want)
	}
}
