package kafka

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"weak"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// APIs kafka-go v0.4.51 does not speak (keys >= 52: ConsumerGroupDescribe,
// ShareGroupDescribe, DescribeShareGroupOffsets) or speaks only at old
// versions (ListGroups v2, DescribeGroups v5, OffsetFetch v5, Metadata v8)
// are encoded and decoded with franz-go's kmsg and sent through kafka-go's
// own Transport: kmsgRequest implements protocol.RawExchanger, so it takes
// over a pooled connection (same dialer, TLS and SASL) for one exchange,
// and protocol.BrokerMessage, so it goes to the broker the watcher names.
//
// kafka-go negotiates versions once per connection, but keeps only
// min(its own max, the broker's max) per key, and 0 for keys it has no
// codec for (protocol.ApiKey.SelectVersion): the versions map Required
// receives cannot say that a broker speaks ConsumerGroupDescribe v1 or
// OffsetFetch v9. So the first kmsg exchange on a connection asks the broker
// itself (ApiVersions v0, which every broker answers, on the same
// connection) and the answer is kept for that connection's life.

// kmsgCorrelationID tags kmsg exchanges; kafka-go sends one request at a
// time on a connection, so the response to read is always this one's.
const kmsgCorrelationID = 0x4b49

// kmsgMaxResponse bounds a response's size: a broker's claim beyond it is
// refused rather than believed. Memory grows with the bytes that arrive,
// never with the claim.
const kmsgMaxResponse = 256 << 20

// brokerVersions is what one broker's ApiVersions said: the [min, max]
// version range of each key it speaks.
type brokerVersions map[int16][2]int16

// versionCache remembers each connection's brokerVersions. Connections are
// kafka-go's; a weak pointer keys each so that a closed connection's entry
// neither keeps it alive nor matches a later connection at the same
// address.
type versionCache struct {
	mu    sync.Mutex
	conns map[weak.Pointer[protocol.Conn]]brokerVersions
	// brokers holds the versions last seen per broker id, so a request
	// whose shape depends on the version (one OffsetFetch for many
	// groups needs v8) can be built for it.
	brokers map[int32]brokerVersions
}

// supports reports whether broker id was last seen speaking key at version
// v or above (false before any kmsg exchange with it).
func (c *versionCache) supports(id int32, key, v int16) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, has := c.brokers[id][key]
	return has && r[1] >= v
}

func (c *versionCache) seen(id int32, v brokerVersions) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.brokers == nil {
		c.brokers = make(map[int32]brokerVersions)
	}
	c.brokers[id] = v
}

func (c *versionCache) get(conn *protocol.Conn) (brokerVersions, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.conns[weak.Make(conn)]
	return v, ok
}

func (c *versionCache) put(conn *protocol.Conn, v brokerVersions) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conns == nil {
		c.conns = make(map[weak.Pointer[protocol.Conn]]brokerVersions)
	}
	for k := range c.conns {
		if k.Value() == nil {
			delete(c.conns, k) // its connection is gone
		}
	}
	c.conns[weak.Make(conn)] = v
}

// kmsgRequest is any kmsg request sent through kafka-go's transport at the
// highest version both kmsg and the broker support, at most max (when not
// negative) and at least min.
type kmsgRequest struct {
	req      kmsg.Request
	min, max int16
	cache    *versionCache
	// names interns what an answer decoded without copying keeps
	// (unsafeResponse); nil: every answer is copied.
	names *names
	route
}

// kmsgResponse carries a kmsg response, or the reason the request could not
// be sent at a version both sides speak, past the transport. An unsupported
// request is an answer, not an I/O failure: kafka-go keeps the connection.
type kmsgResponse struct {
	key         int16
	res         kmsg.Response
	unsupported *UnsupportedError
	// held is the pooled body res was decoded from (heldResponse):
	// sendKmsgHeld's release gives it back.
	held *bytes.Buffer
}

func (r *kmsgResponse) ApiKey() protocol.ApiKey { return protocol.ApiKey(r.key) }

// UnsupportedError says a broker does not speak a request at any version
// kgwatch can use.
type UnsupportedError struct {
	Key              int16
	BrokerMin        int16 // -1: the broker does not know the key
	BrokerMax        int16
	WantMin, WantMax int16
}

func (e *UnsupportedError) Error() string {
	name := kmsg.NameForKey(e.Key)
	if e.BrokerMin < 0 {
		return fmt.Sprintf("broker does not support %s", name)
	}
	return fmt.Sprintf("broker supports %s v%d-v%d, kgwatch needs v%d-v%d", name, e.BrokerMin, e.BrokerMax, e.WantMin, e.WantMax)
}

func (r *kmsgRequest) ApiKey() protocol.ApiKey { return protocol.ApiKey(r.req.Key()) }

// Required: the exchange is always raw.
func (r *kmsgRequest) Required(map[protocol.ApiKey]int16) bool { return true }

// RawExchange learns the broker's versions (once per connection), picks the
// request's version, writes it and reads its response.
func (r *kmsgRequest) RawExchange(rw io.ReadWriter) (protocol.Message, error) {
	conn, _ := rw.(*protocol.Conn)
	var versions brokerVersions
	ok := false
	if conn != nil && r.cache != nil {
		versions, ok = r.cache.get(conn)
	}
	if !ok {
		var err error
		if versions, err = askVersions(rw); err != nil {
			return nil, err
		}
		if conn != nil && r.cache != nil {
			r.cache.put(conn, versions)
		}
	}
	if r.cache != nil {
		r.cache.seen(r.broker, versions)
	}
	v, uerr := r.pick(versions)
	if uerr != nil {
		return &kmsgResponse{key: r.req.Key(), unsupported: uerr}, nil
	}
	r.req.SetVersion(v)
	res, held, err := exchange(rw, r.req, r.names)
	if err != nil {
		return nil, err
	}
	return &kmsgResponse{key: r.req.Key(), res: res, held: held}, nil
}

// pick returns the version to send: the highest kmsg, the broker and r
// allow.
func (r *kmsgRequest) pick(versions brokerVersions) (int16, *UnsupportedError) {
	key := r.req.Key()
	want := r.req.MaxVersion()
	if r.max >= 0 && r.max < want {
		want = r.max
	}
	b, ok := versions[key]
	if !ok {
		return 0, &UnsupportedError{Key: key, BrokerMin: -1, WantMin: r.min, WantMax: want}
	}
	v := min(want, b[1])
	if v < b[0] || v < r.min {
		return 0, &UnsupportedError{Key: key, BrokerMin: b[0], BrokerMax: b[1], WantMin: r.min, WantMax: want}
	}
	return v, nil
}

// askVersions sends ApiVersions v0 on rw and returns the broker's ranges.
func askVersions(rw io.ReadWriter) (brokerVersions, error) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(0)
	res, _, err := exchange(rw, req, nil)
	if err != nil {
		return nil, fmt.Errorf("api versions: %w", err)
	}
	av := res.(*kmsg.ApiVersionsResponse)
	if av.ErrorCode != 0 {
		return nil, fmt.Errorf("api versions: %w", errCode(av.ErrorCode))
	}
	out := make(brokerVersions, len(av.ApiKeys))
	for _, k := range av.ApiKeys {
		out[k.ApiKey] = [2]int16{k.MinVersion, k.MaxVersion}
	}
	return out, nil
}

// requestFormatter writes kmsg's request header; requestBufs holds
// encoding buffers for reuse (a poll at 10,000 partitions encodes ~0.5 MB
// of requests), up to maxPooledRequest each.
var (
	requestFormatter = kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID))
	requestBufs      = sync.Pool{New: func() any { return new([]byte) }}
)

// responseBufs holds the bodies of the responses whose decoding keeps no
// part of them (pooledResponse), up to maxPooledRequest each: at 10,000
// partitions a poll's ListOffsets and OffsetFetch answers were ~2 MB of
// garbage.
var responseBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// pooledResponse reports whether a response of API key can be decoded
// from a body that is reused once decoded: ListOffsets, Metadata and
// OffsetFetch have no bytes fields, and their strings are copies (kmsg's
// ReadFrom copies them; an OffsetFetch decoded without copying has its
// names interned and its metadata dropped before the body is reused:
// interned.go). Only unknown tagged fields would point into the body,
// and kgwatch reads none.
func pooledResponse(key int16) bool {
	switch key {
	case 2, 3, 9: // ListOffsets, Metadata, OffsetFetch
		return true
	}
	return false
}

// heldResponse reports whether a response of API key is decoded from a
// pooled body that its reader gives back (sendKmsgHeld): a Fetch's record
// batches are slices of the body, read after the exchange, and its one
// reader (readFetch) keeps none of them: timestamps, and the key and
// headers of a stuck record copied (fieldReader.field). A lag-age read's
// bodies were 7% of the 10k TUI's allocation. A describe's member
// metadata is decoded into slices of the body that are kept, so describes
// are neither pooled nor held.
func heldResponse(key int16) bool { return key == 1 }

// releaseBody puts a response body back in the pool (nil: none).
func releaseBody(body *bytes.Buffer) {
	if body == nil {
		return
	}
	if beforeReuse != nil {
		beforeReuse(body.Bytes())
	}
	if body.Cap() <= maxPooledRequest {
		responseBufs.Put(body)
	}
}

// beforeReuse, when set (by the tests), is handed a pooled response's
// body before it goes back to the pool: they overwrite it, so a decoded
// answer still read after that reads garbage.
var beforeReuse func(body []byte)

const (
	maxPooledRequest = 4 << 20
	// trustedResponseSize is how much of a response's claimed size is
	// allocated at once.
	trustedResponseSize = 16 << 20
)

// readBody reads the n bytes of a response body into body. Room for them
// (believed up to trustedResponseSize) is made at once, with the MinRead
// more that bytes.Buffer's ReadFrom wants free before each read: without
// it the last read doubled the buffer, a copy of every unpooled response
// (5% of the 10k TUI's allocation, in lag-age Fetches and describes).
func readBody(body *bytes.Buffer, r io.Reader, n int32) error {
	body.Grow(int(min(n, trustedResponseSize)) + bytes.MinRead)
	if _, err := io.CopyN(body, r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// exchange writes req (its version set) with kmsg's request header and
// reads and decodes its response. held is the pooled body a heldResponse
// was decoded from, for its reader to release once read (nil for the
// others). With names, an unsafeResponse is decoded without copying its
// strings, then detached from its body before the body is reused.
func exchange(rw io.ReadWriter, req kmsg.Request, names *names) (_ kmsg.Response, held *bytes.Buffer, err error) {
	buf := requestBufs.Get().(*[]byte)
	*buf = requestFormatter.AppendRequest((*buf)[:0], req, kmsgCorrelationID)
	_, err = rw.Write(*buf)
	if cap(*buf) <= maxPooledRequest {
		requestBufs.Put(buf)
	}
	if err != nil {
		return nil, nil, err
	}
	var hdr [8]byte
	if _, err := io.ReadFull(rw, hdr[:]); err != nil {
		return nil, nil, err
	}
	size := int32(binary.BigEndian.Uint32(hdr[:4]))
	name := kmsg.NameForKey(req.Key())
	if size < 4 || size > kmsgMaxResponse {
		return nil, nil, fmt.Errorf("%s response: size %d out of range", name, size)
	}
	if id := int32(binary.BigEndian.Uint32(hdr[4:])); id != kmsgCorrelationID {
		return nil, nil, fmt.Errorf("%s response: correlation id %d, want %d", name, id, kmsgCorrelationID)
	}
	// The claim is believed up to a bound: beyond it the buffer grows
	// with the bytes that arrive.
	body := new(bytes.Buffer)
	switch {
	case pooledResponse(req.Key()):
		body = responseBufs.Get().(*bytes.Buffer)
		body.Reset()
		defer releaseBody(body)
	case heldResponse(req.Key()):
		body = responseBufs.Get().(*bytes.Buffer)
		body.Reset()
		defer func() {
			if err != nil {
				releaseBody(body)
			}
		}()
		held = body
	}
	if err := readBody(body, rw, size-4); err != nil {
		return nil, nil, err
	}
	b := body.Bytes()
	// A flexible response header ends with tags, except ApiVersions',
	// which is never flexible (clients read it before knowing versions).
	if req.IsFlexible() && req.Key() != 18 {
		r := kbin.Reader{Src: b}
		kmsg.SkipTags(&r)
		if !r.Ok() {
			return nil, nil, fmt.Errorf("%s response: truncated header", name)
		}
		b = r.Src
	}
	res := req.ResponseKind()
	res.SetVersion(req.GetVersion())
	if u, ok := res.(kmsg.UnsafeReadFrom); ok && names != nil && unsafeResponse(req.Key()) && pooledResponse(req.Key()) {
		if err := u.UnsafeReadFrom(b); err != nil {
			return nil, nil, fmt.Errorf("decode %s v%d response: %w", name, req.GetVersion(), err)
		}
		names.detachStrings(res) // before the deferred release reuses b
		return res, held, nil
	}
	if err := res.ReadFrom(b); err != nil {
		return nil, nil, fmt.Errorf("decode %s v%d response: %w", name, req.GetVersion(), err)
	}
	return res, held, nil
}

var (
	_ protocol.RawExchanger  = (*kmsgRequest)(nil)
	_ protocol.BrokerMessage = (*kmsgRequest)(nil)
)

// sendKmsg sends req to broker at the highest version both sides speak, at
// least minV and at most maxV (negative: kmsg's highest). A broker that
// speaks no such version gives an *UnsupportedError.
func (w *Watcher) sendKmsg(ctx context.Context, broker int32, req kmsg.Request, minV, maxV int16) (kmsg.Response, error) {
	// A held body not released is not reused: the collector takes it.
	res, _, err := w.sendKmsgHeld(ctx, broker, req, minV, maxV)
	return res, err
}

// sendKmsgHeld is sendKmsg for a response decoded into slices of its body
// (heldResponse: a Fetch's records): release, never nil, gives the body
// back to the pool, after which nothing of the response may be read.
func (w *Watcher) sendKmsgHeld(ctx context.Context, broker int32, req kmsg.Request, minV, maxV int16) (_ kmsg.Response, release func(), _ error) {
	res, err := w.roundTrip(ctx, w.kmsg(req, minV, maxV, route{broker}))
	if err != nil {
		return nil, func() {}, err
	}
	kr := res.(*kmsgResponse)
	if kr.unsupported != nil {
		return nil, func() {}, kr.unsupported
	}
	return kr.res, func() { releaseBody(kr.held) }, nil
}

// kmsg wraps req for the transport, routed to.
func (w *Watcher) kmsg(req kmsg.Request, minV, maxV int16, to route) *kmsgRequest {
	return &kmsgRequest{req: req, min: minV, max: maxV, cache: &w.vers, names: &w.names, route: to}
}
