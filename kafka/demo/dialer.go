package demo

import (
	"context"
	"errors"
	"net"
	"sync"
)

// errKilled is what every dial returns once a consumer has been killed.
var errKilled = errors.New("consumer killed: connection refused")

// cutDialer dials TCP and remembers every connection it opened, so that a
// kill can cut them all at once and refuse any redial: the consumer goes
// silent the way a process does after kill -9, and no LeaveGroup goes out.
type cutDialer struct {
	nd    net.Dialer
	mu    sync.Mutex
	cut   bool
	conns map[*trackedConn]struct{}
}

func newCutDialer() *cutDialer {
	return &cutDialer{conns: make(map[*trackedConn]struct{})}
}

// DialContext opens a tracked connection, or fails once the dialer is cut.
func (d *cutDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	cut := d.cut
	d.mu.Unlock()
	if cut {
		return nil, errKilled
	}
	c, err := d.nd.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, d: d}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cut {
		c.Close()
		return nil, errKilled
	}
	d.conns[tc] = struct{}{}
	return tc, nil
}

// Cut closes every open connection and makes every later dial fail.
func (d *cutDialer) Cut() {
	d.mu.Lock()
	d.cut = true
	conns := make([]*trackedConn, 0, len(d.conns))
	for c := range d.conns {
		conns = append(conns, c)
	}
	d.conns = make(map[*trackedConn]struct{})
	d.mu.Unlock()
	for _, c := range conns {
		c.Conn.Close()
	}
}

func (d *cutDialer) forget(c *trackedConn) {
	d.mu.Lock()
	delete(d.conns, c)
	d.mu.Unlock()
}

type trackedConn struct {
	net.Conn
	d *cutDialer
}

func (c *trackedConn) Close() error {
	c.d.forget(c)
	return c.Conn.Close()
}
