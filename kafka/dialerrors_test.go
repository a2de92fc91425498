package kafka

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model/testutil"
)

// listen serves every connection with serve, until the test ends.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

// pollErr polls once with cfg and returns the error and how long it took.
func pollErr(t *testing.T, cfg Config) (string, time.Duration) {
	t.Helper()
	cfg.Group = "g"
	w := NewWatcher(cfg)
	defer w.Close()
	start := time.Now()
	_, err := w.Poll(context.Background())
	took := time.Since(start)
	if err == nil {
		t.Fatal("poll succeeded")
	}
	t.Logf("after %s: %v", took.Round(time.Millisecond), err)
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is several lines: %q", err)
	}
	return err.Error(), took
}

// A plaintext client against a TLS listener (kfake's: Go's TLS server
// closes a connection whose first bytes are not a handshake) is told the
// broker may require TLS, at once, and not blamed on SASL credentials.
func TestPlaintextAgainstTLSBroker(t *testing.T) {
	server, _ := testutil.Cert(t)
	tc := newTestCluster(t, false, kfake.TLS(server))
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"no SASL", Config{}},
		{"SASL PLAIN", Config{SASL: plain.Mechanism{Username: "u", Password: "p"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Brokers, cfg.Timeout = tc.addrs[:1], 5*time.Second
			msg, took := pollErr(t, cfg)
			if !strings.Contains(msg, "connect to broker "+tc.addrs[0]) || !strings.Contains(msg, "the broker may require TLS (--tls)") || strings.Contains(msg, "SASL") {
				t.Errorf("error %q: want one naming %s, saying it may require TLS, not blaming SASL", msg, tc.addrs[0])
			}
			if took > time.Second {
				t.Errorf("took %s: want at once", took)
			}
		})
	}
}

// A broker whose TLS stack answers plaintext with an alert record (a JDK
// broker's SSLEngine does) reads the same.
func TestPlaintextAgainstTLSAlert(t *testing.T) {
	addr := listen(t, func(c net.Conn) {
		buf := make([]byte, 512)
		if _, err := c.Read(buf); err != nil {
			return
		}
		c.Write([]byte{0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a}) // fatal alert: unexpected_message
	})
	msg, took := pollErr(t, Config{Brokers: []string{addr}, Timeout: 5 * time.Second, SASL: plain.Mechanism{Username: "u", Password: "p"}})
	if !strings.Contains(msg, "the broker answered with TLS: the broker may require TLS (--tls)") || strings.Contains(msg, "password") {
		t.Errorf("error %q: want one saying the broker answered with TLS", msg)
	}
	if took > time.Second {
		t.Errorf("took %s: want at once", took)
	}
}

// --tls against a plaintext kfake broker, which reads the ClientHello as
// the start of a 352 MB request and waits for the rest: the plaintext probe
// finds a Kafka broker there, and the poll fails in about tlsProbeAfter.
func TestTLSAgainstPlaintextBroker(t *testing.T) {
	tc := newTestCluster(t, false)
	_, client := testutil.Cert(t)
	const timeout = 10 * time.Second
	msg, took := pollErr(t, Config{Brokers: tc.addrs[:1], Timeout: timeout, TLS: client})
	want := "TLS handshake with " + tc.addrs[0] + " failed: the broker may not use TLS"
	if !strings.Contains(msg, want) {
		t.Errorf("error %q: want %q", msg, want)
	}
	if took > tlsProbeAfter+timeout/10 {
		t.Errorf("took %s: want about %s, not the %s timeout", took, tlsProbeAfter, timeout)
	}
}

// --tls against a plaintext broker that closes the connection on the
// ClientHello, as Kafka does (the size field reads 0x16030100: past
// socket.request.max.bytes).
func TestTLSAgainstClosingBroker(t *testing.T) {
	addr := listen(t, func(c net.Conn) {
		io.ReadFull(c, make([]byte, 4))
	})
	_, client := testutil.Cert(t)
	msg, took := pollErr(t, Config{Brokers: []string{addr}, Timeout: 5 * time.Second, TLS: client})
	want := "TLS handshake with " + addr + " failed: the broker closed the connection; the broker may not use TLS"
	if !strings.Contains(msg, want) {
		t.Errorf("error %q: want %q", msg, want)
	}
	if took > time.Second {
		t.Errorf("took %s: want at once", took)
	}
}

// --tls against a broker that answers nothing at all: neither TLS nor
// plaintext is heard, so the error says it did not answer, not that it
// does not use TLS.
func TestTLSAgainstHungBroker(t *testing.T) {
	hung, accepted := hungBroker(t)
	_, client := testutil.Cert(t)
	msg, took := pollErr(t, Config{Brokers: []string{hung}, Timeout: time.Second, TLS: client})
	if !strings.Contains(msg, "no answer within 1s") || strings.Contains(msg, "TLS") {
		t.Errorf("error %q: want one saying the broker did not answer within 1s", msg)
	}
	if took > 2*time.Second {
		t.Errorf("took %s with a 1s timeout", took)
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (the handshake, the plaintext probe)", n)
	}
}

// A plaintext broker requiring SASL, and a client without: the broker
// answered ApiVersions, then closed: SASL is named, TLS is not.
func TestPlaintextWithoutSASL(t *testing.T) {
	tc := newTestCluster(t, false, kfake.EnableSASL(), kfake.Superuser("PLAIN", "u", "p"))
	msg, _ := pollErr(t, Config{Brokers: tc.addrs[:1], Timeout: 2 * time.Second})
	if !strings.Contains(msg, "SASL") || strings.Contains(msg, "TLS") {
		t.Errorf("error %q: want SASL named, not TLS", msg)
	}
}

// readFrame reads one request and returns its correlation id.
func readFrame(c net.Conn) (int32, bool) {
	var size [4]byte
	if _, err := io.ReadFull(c, size[:]); err != nil {
		return 0, false
	}
	b := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(c, b); err != nil || len(b) < 8 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(b[4:8])), true
}

// frame is a response: its size, the correlation id, the body.
func frame(corr int32, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	return append(b, body...)
}

// apiVersionsV0 is the body of an ApiVersions v0 answer: no error, no API.
var apiVersionsV0 = []byte{0, 0, 0, 0, 0, 0}

// Servers that are not Kafka brokers, or not well: each diagnosis says
// what came back, none blames SASL, and a garbled answer fails at once.
func TestBadServerDiagnoses(t *testing.T) {
	const timeout = 2 * time.Second
	for _, tt := range []struct {
		name  string
		serve func(net.Conn)
		want  string
		most  time.Duration
	}{
		{"wrong correlation id", func(c net.Conn) {
			for {
				corr, ok := readFrame(c)
				if !ok {
					return
				}
				c.Write(frame(corr+7, make([]byte, 20)))
			}
		}, "the broker answered something that is not a Kafka response: correlation id mismatch", time.Second},
		{"body shorter than its fields, connection open", func(c net.Conn) {
			for {
				corr, ok := readFrame(c)
				if !ok {
					return
				}
				c.Write(frame(corr, []byte{0xff}))
			}
		}, "the broker answered something that is not a Kafka response (its answer is shorter than its fields)", time.Second},
		{"an HTTP server", func(c net.Conn) {
			readFrame(c)
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n"))
			time.Sleep(timeout) // kafka-go would spin decoding it until the timeout
		}, `the broker answered something that is not a Kafka response (it began "HTTP/")`, time.Second},
		{"a zero byte every 0.5s", func(c net.Conn) {
			readFrame(c)
			for {
				if _, err := c.Write([]byte{0}); err != nil {
					return
				}
				time.Sleep(500 * time.Millisecond)
			}
		}, `the broker answered something that is not a Kafka response (it began "\x00\x00\x00\x00")`, timeout},
		{"a good answer, one byte every 0.5s", func(c net.Conn) {
			corr, _ := readFrame(c)
			for _, b := range frame(corr, apiVersionsV0) {
				if _, err := c.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(500 * time.Millisecond)
			}
		}, "the broker answered too slowly: no complete response within 2s", timeout + time.Second},
		{"closed in the middle of its answer", func(c net.Conn) {
			corr, _ := readFrame(c)
			c.Write(frame(corr, apiVersionsV0)[:7])
		}, "the broker closed the connection in the middle of its answer", time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := listen(t, tt.serve)
			msg, took := pollErr(t, Config{Brokers: []string{addr}, Timeout: timeout})
			if !strings.Contains(msg, "connect to broker "+addr+": "+tt.want) || strings.Contains(msg, "SASL") {
				t.Errorf("error %q: want %q, and SASL not named", msg, tt.want)
			}
			if took > tt.most {
				t.Errorf("took %s: want at most %s", took, tt.most)
			}
		})
	}
}

// An error code kafka-go has no text for is named with its number, not
// written "[32767] : ": in ApiVersions (kafka-go's own negotiation) and in
// an answer kgwatch reads.
func TestUnknownErrorCode(t *testing.T) {
	for _, tt := range []struct {
		key  kmsg.Key
		want string
	}{
		{kmsg.ApiVersions, "error code 32767 (unknown to kgwatch)"},
		{kmsg.FindCoordinator, "error code 32767 (unknown to kgwatch)"},
	} {
		t.Run(tt.key.Name(), func(t *testing.T) {
			tc := newTestCluster(t, false)
			tc.ControlKey(int16(tt.key), func(req kmsg.Request) (kmsg.Response, error, bool) {
				tc.KeepControl()
				res := req.ResponseKind()
				switch r := res.(type) {
				case *kmsg.ApiVersionsResponse:
					r.ErrorCode = 32767
				case *kmsg.FindCoordinatorResponse:
					r.ErrorCode = 32767
					for _, k := range req.(*kmsg.FindCoordinatorRequest).CoordinatorKeys {
						r.Coordinators = append(r.Coordinators, kmsg.FindCoordinatorResponseCoordinator{Key: k, NodeID: -1, ErrorCode: 32767})
					}
				}
				return res, nil, true
			})
			msg, _ := pollErr(t, Config{Brokers: tc.addrs[:1], Timeout: 2 * time.Second})
			if !strings.Contains(msg, tt.want) || strings.Contains(msg, "[32767]") {
				t.Errorf("error %q: want %q", msg, tt.want)
			}
		})
	}
	if got := errText(32767); got != "error code 32767 (unknown to kgwatch)" {
		t.Errorf("errText(32767) = %q", got)
	}
}
