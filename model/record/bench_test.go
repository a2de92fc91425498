package record

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kgwatch/kgwatch/model"
)

// group builds the observation of a group of n partitions over one topic
// (two for n > 1,000), owned by 10 members, each partition committed a
// little behind its log end, as a watcher reads it.
func group(n int) model.Observation {
	o := model.Observation{
		TakenAt: t0, Brokers: []string{"kafka-1:9092", "kafka-2:9092", "kafka-3:9092"},
		Group: model.Group{ID: "order-workers", State: model.StateStable, ProtocolType: "consumer", Assignor: "range", Coordinator: "kafka-2:9092"},
	}
	const members = 10
	for m := range members {
		o.Members = append(o.Members, model.Member{
			MemberID: fmt.Sprintf("consumer-%d-7d1c6f9e-3b1a-4c55-9f0e-%012x", m, m*7919),
			ClientID: fmt.Sprintf("consumer-%d", m), Host: fmt.Sprintf("/10.1.%d.%d", m/4, 10+m),
		})
	}
	for i := range n {
		tp := model.TopicPartition{Topic: "orders", Partition: int32(i)}
		if n > 1000 && i%2 == 1 {
			tp = model.TopicPartition{Topic: "payments", Partition: int32(i / 2)}
		}
		m := &o.Members[i*members/n]
		m.Partitions = append(m.Partitions, tp)
		end := int64(1_000_000 + i*37)
		o.SetCommitted(tp, end-int64(i%5))
		o.SetOffsets(tp, model.PartitionOffsets{LogStart: int64(i * 3), LogEnd: end})
		if i%5 != 0 {
			o.SetOldestTimestamp(tp, t0.Add(-time.Duration(i%5)*150*time.Millisecond).Truncate(time.Millisecond))
		}
	}
	return o
}

// poll advances o by one poll interval: a stable group, either idle
// (nothing moves: busy false) or consuming what is produced (every
// partition's log end and commit move a few records, ages jitter).
func poll(o *model.Observation, rng *rand.Rand, busy bool) model.Snapshot {
	// time.Now() to the nanosecond, as the watcher reads it.
	o.TakenAt = o.TakenAt.Add(time.Second + time.Duration(rng.IntN(20_000_000)))
	if busy {
		for _, p := range o.All() {
			if !p.HasOffsets {
				continue
			}
			p.Offsets.LogEnd += int64(rng.IntN(8))
			p.Committed = p.Offsets.LogEnd - int64(rng.IntN(3))
			p.HasOldestTimestamp, p.OldestTimestamp = false, time.Time{}
			if p.Committed < p.Offsets.LogEnd {
				p.HasOldestTimestamp, p.OldestTimestamp = true, o.TakenAt.Add(-time.Duration(rng.IntN(400))*time.Millisecond).Truncate(time.Millisecond)
			}
		}
	}
	s := model.NewSnapshot(*o)
	s.CompletedAt = o.TakenAt.Add(time.Duration(3+rng.IntN(5)) * time.Millisecond)
	return s
}

// countWriter counts what reaches the file.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkStablePoll records polls of a stable group of 3, 1,000 and
// 10,000 partitions, idle and busy, and reports the bytes each poll adds
// to the file (after compression and the flush) and what an hour of
// polls every second costs.
func BenchmarkStablePoll(b *testing.B) {
	for _, n := range []int{3, 1000, 10000} {
		for _, busy := range []bool{false, true} {
			name := fmt.Sprintf("partitions=%d/idle", n)
			if busy {
				name = fmt.Sprintf("partitions=%d/busy", n)
			}
			b.Run(name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				o := group(n)
				var cw countWriter
				w, err := NewWriter(&cw, testHeader())
				if err != nil {
					b.Fatal(err)
				}
				// The first poll is the whole group; the rate is of the
				// stable ones after it. Each poll is new (made with the
				// timer stopped): a compressor must not find one it saw.
				s := poll(&o, rng, busy)
				w.Snapshot(s.CompletedAt, "g", s)
				start := cw.n
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					s := poll(&o, rng, busy)
					b.StartTimer()
					if err := w.Snapshot(s.CompletedAt, "g", s); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				per := float64(cw.n-start) / float64(b.N)
				b.ReportMetric(per, "B/poll")
				b.ReportMetric(per*3600/1e6, "MB/hour@1s")
			})
		}
	}
}

// BenchmarkReplayPoll reads back polls of 10,000 busy partitions: the
// cost of a replay, or of a jump back, per poll.
func BenchmarkReplayPoll(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	o := group(10000)
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, testHeader())
	const polls = 20
	for range polls {
		s := poll(&o, rng, true)
		w.Snapshot(s.CompletedAt, "g", s)
	}
	w.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, err := NewReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		for range polls {
			if _, err := r.Next(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*polls)/1e6, "ms/poll")
}
