package kafka

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// One partition's answer, fetched at its lowest wanted offset, gives the
// records at the other wanted offsets it reaches (several groups' offsets
// in one Fetch); not those past it, nor any when the fetch offset is out
// of range.
func TestParseFetchAlso(t *testing.T) {
	tp := model.TopicPartition{Topic: "t", Partition: 3}
	req := []kmsg.FetchRequestTopic{{Topic: "t", Partitions: []kmsg.FetchRequestTopicPartition{{Partition: 3, FetchOffset: 4}}}}
	t0 := time.UnixMilli(1_700_000_000_000)
	times := []time.Time{t0, t0.Add(time.Second), t0.Add(2 * time.Second), t0.Add(3 * time.Second)}
	records := append(batch(t, 0, 4, times[:2]...), batch(t, 0, 6, times[2:]...)...)
	also := map[model.TopicPartition][]int64{tp: {5, 7, 9}}

	res, err := parseFetch(fetchBody("t", 3, 0, 0, records), 11, req, also)
	if err != nil || res.stamps[tp].ts != t0.UnixMilli() {
		t.Fatalf("record at 4: %+v %v, want %v", res, err, t0)
	}
	for off, want := range map[int64]time.Time{5: times[1], 7: times[3]} {
		if s, ok := res.also[stampKey{tp, off}]; !ok || s.ts != want.UnixMilli() || s.offset != off {
			t.Errorf("also offset %d: %+v %v, want %v", off, s, ok, want)
		}
	}
	if s, ok := res.also[stampKey{tp, 9}]; ok {
		t.Errorf("offset 9, past the records that came: %+v", s)
	}
	res, err = parseFetch(fetchBody("t", 3, 1, 10, nil), 11, req, also)
	if err != nil || !res.stamps[tp].gone || len(res.also) != 0 {
		t.Errorf("out of range below log-start 10: %+v %v, want 4 gone and nothing else read", res, err)
	}
}
