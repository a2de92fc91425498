package kafka

import (
	"context"
	"encoding/binary"
	"net"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// kafka-go opens every connection with an ApiVersions v0 of its own (the
// handshake) and keeps of the answer only the versions its codecs speak.
// The kmsg requests need the broker's full ranges (kmsgreq.go), which the
// handshake's answer holds: a connection dialed for the transport keeps
// that answer as it passes (handshakeConn), so the first kmsg exchange on
// it need not ask again. The answer is read as it arrives, never changed;
// over TLS the bytes below kafka-go's TLS client are ciphertext, so there
// the connection is not wrapped and the kmsg exchange asks as before.

// maxHandshakeAnswer bounds the handshake answer kept: ApiVersions v0
// lists ~100 keys of 6 bytes. A larger claim is not kept.
const maxHandshakeAnswer = 4 << 10

// connKey names a live TCP connection: its two ends.
type connKey struct{ local, remote string }

func keyOf(c interface {
	LocalAddr() net.Addr
	RemoteAddr() net.Addr
}) (connKey, bool) {
	l, r := c.LocalAddr(), c.RemoteAddr()
	if l == nil || r == nil {
		return connKey{}, false
	}
	return connKey{l.String(), r.String()}, true
}

// handshakeDial wraps dial so that each connection keeps its handshake's
// answer in c; with TLS it is dial.
func (c *versionCache) handshakeDial(dial dialFunc, tls bool) dialFunc {
	if tls {
		return dial
	}
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dial(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return &handshakeConn{Conn: conn, cache: c}, nil
	}
}

// handshakeConn reads the first response on its connection (the answer to
// kafka-go's handshake) into its cache as the bytes pass.
type handshakeConn struct {
	net.Conn
	cache *versionCache
	buf   []byte
	done  bool
}

func (c *handshakeConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if !c.done && n > 0 {
		c.observe(b[:n])
	}
	return n, err
}

// observe gathers the first response frame; once whole, it is decoded as
// an ApiVersions v0 answer and, when one without error, kept.
func (c *handshakeConn) observe(b []byte) {
	c.buf = append(c.buf, b...)
	if len(c.buf) < 4 {
		return
	}
	size := int(int32(binary.BigEndian.Uint32(c.buf)))
	if size < 4 || size > maxHandshakeAnswer {
		c.done, c.buf = true, nil
		return
	}
	if len(c.buf) < 4+size {
		return
	}
	res := kmsg.NewPtrApiVersionsResponse()
	res.SetVersion(0)
	if err := res.ReadFrom(c.buf[8 : 4+size]); err == nil && res.ErrorCode == 0 && len(res.ApiKeys) > 0 {
		if k, ok := keyOf(c.Conn); ok {
			v := make(brokerVersions, len(res.ApiKeys))
			for _, a := range res.ApiKeys {
				v[a.ApiKey] = [2]int16{a.MinVersion, a.MaxVersion}
			}
			c.cache.shook(k, v)
		}
	}
	c.done, c.buf = true, nil
}

func (c *handshakeConn) Close() error {
	if k, ok := keyOf(c.Conn); ok {
		c.cache.forgetHandshake(k)
	}
	return c.Conn.Close()
}
