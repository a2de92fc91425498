package kafka

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// answerRW is a connection whose broker answers with body: what is written
// is discarded, what is read is the response.
type answerRW struct {
	bytes.Reader
}

func (*answerRW) Write(p []byte) (int, error) { return len(p), nil }

// answer frames res as a broker's response to req (its version set).
func answer(req kmsg.Request, res kmsg.Response) *answerRW {
	res.SetVersion(req.GetVersion())
	var body []byte
	body = binary.BigEndian.AppendUint32(body, kmsgCorrelationID)
	if req.IsFlexible() {
		body = append(body, 0) // no header tags
	}
	body = res.AppendTo(body)
	framed := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	rw := &answerRW{}
	rw.Reset(append(framed, body...))
	return rw
}

// TestPooledResponsesKeepNothingOfTheirBody: the bodies of ListOffsets,
// Metadata and OffsetFetch answers are reused once decoded
// (pooledResponse), so what a decoded answer holds must not point into
// its body: the next answer, read into the same buffer, leaves the
// first's topic names and metadata as they were.
func TestPooledResponsesKeepNothingOfTheirBody(t *testing.T) {
	offsetFetch := func(topic, meta string) (kmsg.Request, kmsg.Response) {
		req := kmsg.NewPtrOffsetFetchRequest()
		req.SetVersion(8)
		res := kmsg.NewPtrOffsetFetchResponse()
		g := kmsg.NewOffsetFetchResponseGroup()
		g.Group = "g"
		rt := kmsg.NewOffsetFetchResponseGroupTopic()
		rt.Topic = topic
		rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
		rp.Metadata = &meta
		rt.Partitions = append(rt.Partitions, rp)
		g.Topics = append(g.Topics, rt)
		res.Groups = append(res.Groups, g)
		return req, res
	}
	listOffsets := func(topic string) (kmsg.Request, kmsg.Response) {
		req := kmsg.NewPtrListOffsetsRequest()
		req.SetVersion(6)
		res := kmsg.NewPtrListOffsetsResponse()
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = topic
		rt.Partitions = append(rt.Partitions, kmsg.NewListOffsetsResponseTopicPartition())
		res.Topics = append(res.Topics, rt)
		return req, res
	}
	metadata := func(topic string) (kmsg.Request, kmsg.Response) {
		req := kmsg.NewPtrMetadataRequest()
		req.SetVersion(9)
		res := kmsg.NewPtrMetadataResponse()
		rt := kmsg.NewMetadataResponseTopic()
		rt.Topic = &topic
		res.Topics = append(res.Topics, rt)
		return req, res
	}
	read := func(req kmsg.Request, res kmsg.Response) kmsg.Response {
		t.Helper()
		if !pooledResponse(req.Key()) {
			t.Fatalf("%s: not pooled", kmsg.NameForKey(req.Key()))
		}
		got, _, err := exchange(answer(req, res), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for range 3 { // whichever buffer the pool hands out
		first := read(offsetFetch("orders-aaaa", "meta-aaaa")).(*kmsg.OffsetFetchResponse)
		read(offsetFetch("orders-bbbb", "meta-bbbb"))
		if g := first.Groups[0].Topics[0]; g.Topic != "orders-aaaa" || *g.Partitions[0].Metadata != "meta-aaaa" {
			t.Errorf("OffsetFetch: first answer now names %q, metadata %q", g.Topic, *g.Partitions[0].Metadata)
		}
		lo := read(listOffsets("orders-aaaa")).(*kmsg.ListOffsetsResponse)
		read(listOffsets("orders-bbbb"))
		if got := lo.Topics[0].Topic; got != "orders-aaaa" {
			t.Errorf("ListOffsets: first answer now names %q", got)
		}
		md := read(metadata("orders-aaaa")).(*kmsg.MetadataResponse)
		read(metadata("orders-bbbb"))
		if got := *md.Topics[0].Topic; got != "orders-aaaa" {
			t.Errorf("Metadata: first answer now names %q", got)
		}
	}
}

// TestOffsetFetchDecodedWithoutCopies: an OffsetFetch answer read with a
// names table is decoded without copying its strings, then detached from
// its body before the body is reused: a first answer keeps its group and
// topic names when the next is read into the same buffer (overwritten
// once released, TestMain), at v7 (top-level topics) and v8 (groups); its
// metadata, which kgwatch never reads, is dropped; and a name read twice
// is one copy.
func TestOffsetFetchDecodedWithoutCopies(t *testing.T) {
	answerAt := func(version int16, group, topic string) (kmsg.Request, kmsg.Response) {
		req := kmsg.NewPtrOffsetFetchRequest()
		req.SetVersion(version)
		res := kmsg.NewPtrOffsetFetchResponse()
		meta := "meta-" + topic
		if version < 8 {
			rt := kmsg.NewOffsetFetchResponseTopic()
			rt.Topic = topic
			rp := kmsg.NewOffsetFetchResponseTopicPartition()
			rp.Offset, rp.Metadata = 42, &meta
			rt.Partitions = append(rt.Partitions, rp)
			res.Topics = append(res.Topics, rt)
			return req, res
		}
		g := kmsg.NewOffsetFetchResponseGroup()
		g.Group = group
		rt := kmsg.NewOffsetFetchResponseGroupTopic()
		rt.Topic = topic
		rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
		rp.Offset, rp.Metadata = 42, &meta
		rt.Partitions = append(rt.Partitions, rp)
		g.Topics = append(g.Topics, rt)
		res.Groups = append(res.Groups, g)
		return req, res
	}
	var n names
	read := func(version int16, group, topic string) *kmsg.OffsetFetchResponse {
		t.Helper()
		req, res := answerAt(version, group, topic)
		got, _, err := exchange(answer(req, res), req, &n)
		if err != nil {
			t.Fatal(err)
		}
		return got.(*kmsg.OffsetFetchResponse)
	}
	for range 3 { // whichever buffer the pool hands out
		first := read(7, "", "orders-aaaa")
		read(7, "", "orders-bbbb")
		if tp := first.Topics[0]; tp.Topic != "orders-aaaa" || tp.Partitions[0].Offset != 42 || tp.Partitions[0].Metadata != nil {
			t.Errorf("v7: first answer now names %q, offset %d, metadata %v", tp.Topic, tp.Partitions[0].Offset, tp.Partitions[0].Metadata)
		}
		first8 := read(8, "group-aaaa", "orders-aaaa")
		again := read(8, "group-aaaa", "orders-aaaa")
		read(8, "group-bbbb", "orders-bbbb")
		g := first8.Groups[0]
		if g.Group != "group-aaaa" || g.Topics[0].Topic != "orders-aaaa" || g.Topics[0].Partitions[0].Metadata != nil {
			t.Errorf("v8: first answer now names group %q, topic %q, metadata %v", g.Group, g.Topics[0].Topic, g.Topics[0].Partitions[0].Metadata)
		}
		if unsafe.StringData(again.Groups[0].Topics[0].Topic) != unsafe.StringData(g.Topics[0].Topic) ||
			unsafe.StringData(again.Groups[0].Group) != unsafe.StringData(g.Group) {
			t.Error("a name read twice is two copies, not one interned")
		}
	}
}

// TestNamesTableIsBounded: the interned names of a cluster whose names
// come and go are bounded by two generations; a name still in use when
// its generation is retired keeps its copy.
func TestNamesTableIsBounded(t *testing.T) {
	var n names
	n.mu.Lock()
	defer n.mu.Unlock()
	kept := n.intern("orders")
	for i := range 3 * maxNames {
		n.intern(fmt.Sprintf("group-%d", i))
		if i%1000 == 0 && unsafe.StringData(n.intern("orders")) != unsafe.StringData(kept) {
			t.Fatalf("after %d names, a name in use was copied again", i)
		}
	}
	if len(n.cur)+len(n.old) > 2*maxNames {
		t.Fatalf("%d names held, want at most %d", len(n.cur)+len(n.old), 2*maxNames)
	}
}
