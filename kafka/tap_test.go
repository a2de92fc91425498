package kafka

import (
	"context"
	"encoding/binary"
	"net"
	"sync"
)

// wireTap records the API key of every request a watcher writes, by
// reading the Kafka framing (int32 size, int16 key, ...) of the bytes its
// connections send. It sees only the watcher's traffic, whatever else talks
// to the cluster.
type wireTap struct {
	mu    sync.Mutex
	keys  []int16
	conns []net.Conn
}

func (tap *wireTap) dial(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	tap.mu.Lock()
	tap.conns = append(tap.conns, c)
	tap.mu.Unlock()
	return &tappedConn{Conn: c, tap: tap}, nil
}

// sent returns the keys recorded since the last call and forgets them.
func (tap *wireTap) sent() []int16 {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	k := tap.keys
	tap.keys = nil
	return k
}

type tappedConn struct {
	net.Conn
	tap *wireTap
	hdr []byte // partial frame header
	// skip is how many bytes of the current frame remain after its header.
	skip int
}

func (c *tappedConn) Write(b []byte) (int, error) {
	c.observe(b)
	return c.Conn.Write(b)
}

func (c *tappedConn) observe(b []byte) {
	for len(b) > 0 {
		if c.skip > 0 {
			n := min(c.skip, len(b))
			c.skip -= n
			b = b[n:]
			continue
		}
		n := min(6-len(c.hdr), len(b))
		c.hdr = append(c.hdr, b[:n]...)
		b = b[n:]
		if len(c.hdr) == 6 {
			size := int(binary.BigEndian.Uint32(c.hdr))
			key := int16(binary.BigEndian.Uint16(c.hdr[4:]))
			c.tap.mu.Lock()
			c.tap.keys = append(c.tap.keys, key)
			c.tap.mu.Unlock()
			c.skip = size - 2
			c.hdr = c.hdr[:0]
		}
	}
}

// dropAll closes every connection the tap has opened (as a broker or a NAT
// dropping idle connections would).
func (tap *wireTap) dropAll() {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	for _, c := range tap.conns {
		c.Close()
	}
	tap.conns = nil
}
