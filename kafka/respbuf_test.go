package kafka

import (
	"bytes"
	"encoding/binary"
	"testing"

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
		got, _, err := exchange(answer(req, res), req)
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
