package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var stuckT0 = time.Date(2026, 11, 29, 14, 1, 58, 0, time.UTC)

// poisonRecord is a record as kafka reads it: key order-42, two headers.
func poisonRecord() OldestRecord {
	return OldestRecord{Offset: 1234, Time: stuckT0, Size: 512, ValueSize: 480, Key: "order-42", KeySize: 8,
		Headers:     []RecordHeader{{Name: "trace-id", NameSize: 8, Value: "abc", ValueSize: 3}, {Name: "retry", NameSize: 5, Value: "3", ValueSize: 1}},
		HeaderCount: 2}
}

// stuckObservation is one poll of a stable group whose member owns p0
// (committed at 1234, log end 1300) and p1 (no lag), with the record p0
// waits on read, and one for p1 (which needs none).
func stuckObservation(at time.Time, r OldestRecord) Observation {
	p0, p1 := TopicPartition{"orders", 0}, TopicPartition{"orders", 1}
	return Observation{
		TakenAt: at,
		Group:   Group{ID: "g", State: StateStable, Type: TypeClassic},
		Members: []Member{{MemberID: "m-1", ClientID: "worker-a", Partitions: []TopicPartition{p0, p1}}},
	}.With(Readings{
		Committed:       map[TopicPartition]int64{p0: 1234, p1: 50},
		Offsets:         map[TopicPartition]PartitionOffsets{p0: {0, 1300, ""}, p1: {0, 50, ""}},
		OldestTimestamp: map[TopicPartition]time.Time{p0: r.Time},
		OldestRecords:   map[TopicPartition]OldestRecord{p0: r, p1: r},
	})
}

func TestSnapshotCarriesTheRecordOnlyWithLag(t *testing.T) {
	s := NewSnapshot(stuckObservation(stuckT0.Add(time.Minute), poisonRecord()))
	if r, ok := s.Partitions[0].OldestRecord(); !ok || r.Key != "order-42" || r.Offset != 1234 || len(r.Headers) != 2 {
		t.Errorf("p0 (lag 66): record %+v %v, want order-42 at 1234", r, ok)
	}
	if r, ok := s.Partitions[1].OldestRecord(); ok {
		t.Errorf("p1 (no lag) holds a record: %+v", r)
	}
}

func TestKeyText(t *testing.T) {
	for _, c := range []struct {
		name string
		r    OldestRecord
		want string
	}{
		{"text", OldestRecord{Key: "order-42", KeySize: 8}, "order-42"},
		{"null", OldestRecord{KeySize: -1}, "null"},
		{"empty", OldestRecord{KeySize: 0}, `""`},
		{"a space", OldestRecord{Key: "order 42", KeySize: 8}, `"order 42"`},
		{"escape sequence", OldestRecord{Key: "\x1b[2J", KeySize: 4}, "␛[2J"},
		{"not UTF-8", OldestRecord{Key: "\xff\xfe\x00", KeySize: 3}, `\xff\xfe␀`},
		{"cut when read", OldestRecord{Key: strings.Repeat("k", MaxKeyBytes), KeySize: 1 << 20}, strings.Repeat("k", keyCells-1) + "…"},
		{"cut here", OldestRecord{Key: strings.Repeat("k", 30), KeySize: 30}, strings.Repeat("k", keyCells-1) + "…"},
		{"hidden", OldestRecord{KeySize: 12, Hidden: true}, "12 B hidden"},
		{"hidden null", OldestRecord{KeySize: -1, Hidden: true}, "null"},
	} {
		if got := KeyText(c.r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if got := KeyText(c.r); !IsPrintable(got) {
			t.Errorf("%s: %q is not printable", c.name, got)
		}
	}
}

func TestHeadersText(t *testing.T) {
	r := poisonRecord()
	if got := HeadersText(r); got != "trace-id=abc, retry=3" {
		t.Errorf("headers %q", got)
	}
	if got := HeadersText(r.Hide()); got != "trace-id (3 B), retry (1 B)" {
		t.Errorf("hidden headers %q", got)
	}
	r.HeaderCount = 12
	r.Headers = append(r.Headers, RecordHeader{Name: "\x1b]0;owned\a", NameSize: 10, ValueSize: -1})
	if got := HeadersText(r); got != "trace-id=abc, retry=3, ␛]0;owned␇, +9 more" {
		t.Errorf("headers past those kept %q", got)
	}
	if got := HeadersText(OldestRecord{Partial: true, HeaderCount: 0}); got != "unread" {
		t.Errorf("partial record's headers %q", got)
	}
	if got := HeadersText(OldestRecord{}); got != "none" {
		t.Errorf("no headers %q", got)
	}
}

func TestHideKeepsSizesOnly(t *testing.T) {
	r := poisonRecord()
	h := r.Hide()
	if h.Key != "" || !h.Hidden || h.KeySize != 8 || h.Headers[0].Value != "" || h.Headers[0].ValueSize != 3 || h.Headers[0].Name != "trace-id" {
		t.Errorf("hidden %+v", h)
	}
	if r.Headers[0].Value != "abc" {
		t.Error("Hide changed the record it was given")
	}
}

func TestStuckText(t *testing.T) {
	p := PartitionLag{Status: StatusStalled, StalledSince: stuckT0.Add(13 * time.Second), StalledSinceExact: true}
	now := stuckT0.Add(time.Minute)
	want := "stuck at offset 1,234 since 14:02:11, record written 14:01:58, 512 B, key order-42, headers trace-id=abc, retry=3"
	if got := StuckText(&p, poisonRecord(), now); got != want {
		t.Errorf("stalled:\n got %q\nwant %q", got, want)
	}
	p.StalledSinceExact = false
	if got := StuckText(&p, poisonRecord(), now); !strings.HasPrefix(got, "stuck at offset 1,234 since before 14:02:11, ") {
		t.Errorf("stall begun before the watch: %q", got)
	}
	p = PartitionLag{Status: StatusLagging}
	if got := StuckText(&p, poisonRecord(), stuckT0.Add(48*time.Hour)); got != "waiting at offset 1,234, record written Nov 29 14:01:58, 512 B, key order-42, headers trace-id=abc, retry=3" {
		t.Errorf("lagging, two days on: %q", got)
	}
	if got := StuckText(&p, poisonRecord().Hide(), now); !strings.Contains(got, "key 8 B hidden, headers trace-id (3 B), retry (1 B)") || strings.Contains(got, "order-42") {
		t.Errorf("hidden: %q", got)
	}
}

func TestStuckShort(t *testing.T) {
	p := PartitionLag{Status: StatusStalled}
	if got := StuckShort(&p, poisonRecord(), stuckT0); got != "stuck at 1,234: key order-42, headers trace-id=abc, retry=3, 512 B, written 14:01:58" {
		t.Errorf("short: %q", got)
	}
}

func TestStuckOn(t *testing.T) {
	r := []OldestRecord{poisonRecord()}
	for _, c := range []struct {
		name string
		p    PartitionLag
		want bool
	}{
		{"stalled", PartitionLag{Status: StatusStalled, Oldest: r}, true},
		{"lagging, record older than stall-after", PartitionLag{Status: StatusLagging, LagAge: time.Minute, LagAgeKnown: true, Oldest: r}, true},
		{"lagging, record younger", PartitionLag{Status: StatusLagging, LagAge: 20 * time.Second, LagAgeKnown: true, Oldest: r}, false},
		{"stopped: no consumer", PartitionLag{Status: StatusStopped, LagAge: time.Hour, LagAgeKnown: true, Oldest: r}, false},
		{"stalled, record not read", PartitionLag{Status: StatusStalled}, false},
	} {
		if _, got := c.p.StuckOn(30 * time.Second); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestStalledEventNamesTheRecord: the status_changed event of a partition
// turning STALLED says the offset and key it is stuck on; under HideKeys
// only the key's size, there and in what the tap records.
func TestStalledEventNamesTheRecord(t *testing.T) {
	for _, hide := range []bool{false, true} {
		var tap recordingTap
		p := NewPipeline(PipelineOptions{Group: "g", History: HistoryOptions{StallAfter: 10 * time.Second}, HideKeys: hide, Tap: &tap})
		var detail string
		for i := 0; i <= 12; i++ {
			s := NewSnapshot(stuckObservation(stuckT0.Add(time.Duration(i)*time.Second), poisonRecord()))
			for _, e := range p.Observe(&s) {
				if e.Type == EventStatusChanged && e.State == string(StatusStalled) {
					detail = e.Detail
				}
			}
		}
		want := "p0 STALLED: committed offset 1234 unchanged for 10s, lag 66, stuck at offset 1,234, key order-42"
		if hide {
			want = "p0 STALLED: committed offset 1234 unchanged for 10s, lag 66, stuck at offset 1,234, key 8 B hidden"
		}
		if detail != want {
			t.Errorf("hide %v: detail\n got %q\nwant %q", hide, detail, want)
		}
		if r := tap.last.Partitions[0].Oldest[0]; r.Hidden != hide || hide && (r.Key != "" || r.Headers[0].Value != "") {
			t.Errorf("hide %v: the tap was given %+v", hide, r)
		}
	}
}

type recordingTap struct{ last Snapshot }

func (t *recordingTap) Observed(s Snapshot)                   { t.last = s }
func (t *recordingTap) Failed(started, at time.Time, _ error) {}
func (t *recordingTap) Added(Event)                           {}

func TestJSONOldestRecord(t *testing.T) {
	r := poisonRecord()
	r.Key, r.KeySize = "\x1b[2J", 4
	r.Headers[1] = RecordHeader{Name: "bin", NameSize: 3, Value: "\xff\x00", ValueSize: 2}
	s := NewSnapshot(stuckObservation(stuckT0.Add(time.Minute), r))
	b, err := MarshalJSONSnapshot(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "\x1b") {
		t.Fatalf("raw escape in the JSON: %s", b)
	}
	var got struct {
		Partitions []struct {
			OldestRecord *JSONOldestRecord `json:"oldest_record"`
		} `json:"partitions"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	o := got.Partitions[0].OldestRecord
	if o == nil || o.Offset != 1234 || o.SizeBytes != 512 || *o.Timestamp != "2026-11-29T14:01:58Z" || *o.Key != "\x1b[2J" || *o.KeySize != 4 || o.HeaderCount != 2 {
		t.Fatalf("oldest_record %+v", o)
	}
	if h := o.Headers; len(h) != 2 || *h[0].Value != "abc" || h[1].Value != nil || *h[1].ValueBase64 != "/wA=" {
		t.Errorf("headers %+v", h)
	}
	if got.Partitions[1].OldestRecord != nil {
		t.Errorf("p1 without lag: oldest_record %+v, want null", got.Partitions[1].OldestRecord)
	}
	if !strings.Contains(string(b), `"oldest_record": null`) {
		t.Errorf("no lag: oldest_record not written null")
	}

	s.HideKeys()
	b, _ = MarshalJSONSnapshot(s)
	if strings.Contains(string(b), "abc") || strings.Contains(string(b), `\u001b[2J`) || !strings.Contains(string(b), `"key_hidden": true`) {
		t.Errorf("hidden keys written:\n%s", b)
	}
}

func TestFormatTableNotesTheRecord(t *testing.T) {
	s := NewSnapshot(stuckObservation(stuckT0.Add(time.Minute), poisonRecord()))
	NewPipeline(PipelineOptions{Group: "g"}).Observe(&s)
	table := FormatTable(s)
	want := "orders/0 LAGGING: waiting at offset 1,234, record written 14:01:58, 512 B, key order-42, headers trace-id=abc, retry=3\n"
	if !strings.Contains(table, want) {
		t.Errorf("no note of the record under the table:\n%s", table)
	}
	if strings.Contains(table, "orders/1 ") {
		t.Errorf("a partition without lag noted:\n%s", table)
	}
}
