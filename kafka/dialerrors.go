package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Explaining a failure to connect. kafka-go reports what its last read
// returned — usually io.ErrUnexpectedEOF or a deadline — which reads the
// same whether the broker wanted TLS, wanted SASL, or is not there. The
// bootstrap dialer wraps each control connection in a watchedConn that
// notes what came back on the wire, so the error can say which:
//
//   - plaintext, and the answer is a TLS record (0x15 or 0x16, then 0x03:
//     a JDK broker's alert), or the broker closed the connection without
//     answering ApiVersions (Go's TLS server): it may require TLS;
//   - TLS, and the broker closed the connection at the ClientHello (Kafka
//     refuses a frame of 0x16030100 bytes), or a plaintext ApiVersions on
//     a second connection is answered while the handshake is not: it may
//     not use TLS. The probe starts when the handshake has gone
//     unanswered for tlsProbeAfter, so --tls against a plaintext broker
//     that waits for the rest of that "frame" (kfake does) fails in about
//     that time, not at the --timeout;
//   - plaintext, and the first four bytes, a response's size, are not one
//     an ApiVersions answer can have (below 4, above maxFirstAnswer: an
//     HTTP server's "HTTP"), or the answer does not decode (a wrong
//     correlation id, a body shorter than its fields) while the connection
//     stays open: it is not a Kafka broker. A size that cannot be is not
//     waited for: the connection is closed at once;
//   - the broker sent part of an answer and no more within the timeout: it
//     answered too slowly; or closed the connection in the middle of it;
//   - the broker answered, then closed: SASL (or wrong credentials).

// tlsProbeAfter is how long a TLS handshake may go unanswered before a
// plaintext ApiVersions asks the same address whether it speaks Kafka
// without TLS.
const tlsProbeAfter = 500 * time.Millisecond

// maxFirstAnswer is the largest first response (ApiVersions) a plaintext
// bootstrap connection accepts; Kafka 4's is under 1 KiB.
const maxFirstAnswer = 1 << 20

// errNotKafka is a bootstrap connection's read of an answer that cannot
// be Kafka's (garbled).
var errNotKafka = errors.New("not a Kafka response")

// connReport is what a watched connection saw.
type connReport struct {
	read    int    // bytes read
	head    []byte // the first bytes read, up to 5 (a TLS record header)
	readErr error  // the first read error
	notTLS  bool   // a plaintext probe was answered while the handshake was not
	// garbled: plaintext, and the first response's size cannot be an
	// ApiVersions answer's.
	garbled bool
}

// firstSize is the size of the first response, from its first four bytes;
// false before they are read or under TLS (the bytes are TLS records).
func (r connReport) firstSize(tlsOn bool) (int, bool) {
	if tlsOn || len(r.head) < 4 {
		return 0, false
	}
	return int(int32(binary.BigEndian.Uint32(r.head))), true
}

// whole reports whether the first response was read in full (true when it
// cannot be told: under TLS).
func (r connReport) whole(tlsOn bool) bool {
	n, ok := r.firstSize(tlsOn)
	return !ok && tlsOn || ok && r.read >= 4+n
}

// watchedConn notes what a bootstrap connection reads, marks its address
// as answering or not, and, under TLS, runs the plaintext probe.
type watchedConn struct {
	net.Conn
	d    *bootDialer
	addr string
	done chan struct{}

	mu      sync.Mutex
	rep     connReport
	probe   *time.Timer
	closed  bool
	noticed bool // the address was marked
}

func (d *bootDialer) watch(c net.Conn, addr string) *watchedConn {
	return &watchedConn{Conn: c, d: d, addr: addr, done: make(chan struct{})}
}

func (c *watchedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	if n > 0 {
		if c.rep.read == 0 {
			c.notice(true)
			if c.probe != nil {
				c.probe.Stop()
			}
		}
		had := len(c.rep.head)
		if k := min(n, 5-had); k > 0 {
			c.rep.head = append(c.rep.head, b[:k]...)
		}
		c.rep.read += n
		if size, ok := c.rep.firstSize(c.d.tls); ok && had < 4 && (size < 4 || size > maxFirstAnswer) {
			// Not a Kafka answer. kafka-go is not given it: it
			// would wait for the rest of a size that cannot be, or
			// spin decoding arrays of billions of elements, until
			// the timeout.
			c.rep.garbled = true
			c.Conn.Close()
			n, err = 0, errNotKafka
		}
	}
	if err != nil && c.rep.readErr == nil {
		c.rep.readErr = err
		if c.rep.read == 0 {
			c.notice(false)
		}
	}
	c.mu.Unlock()
	return n, err
}

func (c *watchedConn) Write(b []byte) (int, error) {
	if c.d.tls {
		c.mu.Lock()
		if c.probe == nil && c.rep.read == 0 && !c.closed {
			c.probe = time.AfterFunc(c.d.probeAfter, c.probePlaintext)
		}
		c.mu.Unlock()
	}
	return c.Conn.Write(b)
}

func (c *watchedConn) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.done)
		if c.probe != nil {
			c.probe.Stop()
		}
		if c.rep.read == 0 {
			c.notice(false)
		}
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

// notice marks the address once, by the connection's first outcome.
// Called with c.mu held.
func (c *watchedConn) notice(answered bool) {
	if !c.noticed {
		c.noticed = true
		c.d.mark(c.addr, answered)
	}
}

func (c *watchedConn) report() connReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rep
	r.head = append([]byte(nil), r.head...)
	return r
}

// probePlaintext sends ApiVersions without TLS to the address of a TLS
// handshake that has not been answered. A Kafka answer means the broker
// does not use TLS there: the handshake is ended at once.
func (c *watchedConn) probePlaintext() {
	ctx, cancel := context.WithTimeout(context.Background(), c.d.timeout)
	defer cancel()
	go func() {
		select {
		case <-c.done: // the handshake ended: the probe is moot
			cancel()
		case <-ctx.Done():
		}
	}()
	raw, err := c.d.base(ctx, "tcp", c.addr)
	if err != nil {
		return
	}
	defer raw.Close()
	stop := context.AfterFunc(ctx, func() { raw.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		raw.SetDeadline(dl)
	}
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(0) // every broker answers v0, whatever it speaks
	if _, _, err := exchange(raw, req, nil); err != nil {
		return
	}
	c.mu.Lock()
	end := c.rep.read == 0 && !c.closed
	c.rep.notTLS = end
	c.mu.Unlock()
	if end {
		c.Conn.Close() // fails the handshake now; Close marks the address
	}
}

// looksLikeTLS reports whether b starts like a TLS record: an alert (21)
// or handshake (22), then major version 3.
func looksLikeTLS(b []byte) bool {
	return len(b) >= 2 && (b[0] == 0x15 || b[0] == 0x16) && b[1] == 0x03
}

// closedByPeer reports whether err is the peer closing or resetting the
// connection.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// explain turns a failure to connect to addr into one line saying what the
// wire suggests. rep is what the connection saw (zero when none was made).
func (w *Watcher) explain(ctx context.Context, addr string, rep connReport, err error) error {
	tlsOn, saslOn := w.cfg.TLS != nil, w.cfg.SASL != nil
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recErr tls.RecordHeaderError
	connected := rep.read > 0 || rep.readErr != nil || rep.notTLS
	// The broker ended the connection (under TLS, kafka-go may see the
	// end first, in a close_notify).
	peerClosed := closedByPeer(rep.readErr) || tlsOn && closedByPeer(err)
	deadline := errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded)
	var protoErr protocol.Error
	mismatch := errors.As(err, &protoErr) && strings.HasPrefix(string(protoErr), "correlation id mismatch")
	switch {
	case tlsOn && rep.notTLS:
		// err is the handshake cut short; the probe's answer is the news.
		return fmt.Errorf("TLS handshake with %s failed: the broker may not use TLS (it answered a plaintext ApiVersions request)", addr)
	case tlsOn && errors.As(err, &recErr):
		return fmt.Errorf("TLS handshake with %s failed: the broker may not use TLS: %w", addr, err)
	case tlsOn && connected && rep.read == 0 && closedByPeer(rep.readErr):
		return fmt.Errorf("TLS handshake with %s failed: the broker closed the connection; the broker may not use TLS: %w", addr, err)
	case tlsOn && (errors.As(err, &certErr) || errors.As(err, &unknownAuth) || errors.As(err, &hostErr)):
		return fmt.Errorf("TLS handshake with %s failed: %w", addr, err)
	case !tlsOn && looksLikeTLS(rep.head):
		return fmt.Errorf("the broker answered with TLS: the broker may require TLS (--tls): %w", err)
	case !tlsOn && connected && rep.read == 0 && closedByPeer(rep.readErr):
		return fmt.Errorf("the broker closed the connection without answering: the broker may require TLS (--tls): %w", err)
	case rep.garbled:
		return fmt.Errorf("the broker answered something that is not a Kafka response (it began %q)", rep.head)
	case mismatch:
		return fmt.Errorf("the broker answered something that is not a Kafka response: %w", err)
	case rep.read > 0 && !peerClosed && errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the broker answered something that is not a Kafka response (its answer is shorter than its fields): %w", err)
	case rep.read > 0 && !rep.whole(tlsOn) && deadline:
		// err (a deadline) is not wrapped: this is not "no answer",
		// which callers add to a bare timeout.
		return fmt.Errorf("the broker answered too slowly: no complete response within %s (%d bytes of it came)", w.cfg.Timeout, rep.read)
	case rep.read > 0 && !rep.whole(tlsOn) && peerClosed:
		return fmt.Errorf("the broker closed the connection in the middle of its answer: %w", err)
	case rep.read > 0 && peerClosed && saslOn:
		return fmt.Errorf("the broker closed the connection while authenticating (check the SASL mechanism, user and password): %w", err)
	case rep.read > 0 && peerClosed:
		return fmt.Errorf("the broker closed the connection after answering (does it require SASL? see --sasl-mechanism): %w", err)
	case ctx.Err() == nil && deadline:
		return fmt.Errorf("no answer within %s: %w", w.cfg.Timeout, err)
	}
	return err
}
