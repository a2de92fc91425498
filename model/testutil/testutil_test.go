package testutil

import (
	"crypto/tls"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The client configuration trusts the server's certificate for
// 127.0.0.1: a handshake between them completes and a byte crosses it.
func TestCertHandshake(t *testing.T) {
	server, client := Cert(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", server)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte("k"))
			}()
		}
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), client)
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	defer c.Close()
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil || string(b) != "k" {
		t.Fatalf("read %q, %v; want k", b, err)
	}
	// A client trusting nothing of ours refuses it.
	if c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{MinVersion: tls.VersionTLS12}); err == nil {
		c.Close()
		t.Fatal("a client without the certificate's pool completed the handshake")
	}
}

// WaitFor returns once the condition holds, and fails naming what it
// waited for, with the state, once the time is up.
func TestWaitFor(t *testing.T) {
	var n atomic.Int32
	WaitFor(t, 5*time.Second, "three checks", func() bool { return n.Add(1) >= 3 })
	if n.Load() != 3 {
		t.Fatalf("checked %d times, want 3", n.Load())
	}
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		WaitFor(rec, 50*time.Millisecond, "never", func() bool { return false }, func() string { return "still no" })
	}()
	<-done
	if !strings.Contains(rec.msg, "waiting for never (still no)") {
		t.Fatalf("failure %q, want it to name what it waited for and the state", rec.msg)
	}
}

// recorder is a testing.TB whose Fatalf records the message and ends the
// goroutine, as the real one does.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = strings.TrimSpace(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// The clock reads what it was set to, and moves only when advanced.
func TestClock(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)
	c := NewClock(t0)
	if !c.Now().Equal(t0) {
		t.Fatalf("Now %s, want %s", c.Now(), t0)
	}
	if got := c.Advance(1500 * time.Millisecond); !got.Equal(t0.Add(1500*time.Millisecond)) || !c.Now().Equal(got) {
		t.Fatalf("Advance: %s, Now %s", got, c.Now())
	}
	c.Set(t0)
	if !c.Now().Equal(t0) {
		t.Fatalf("after Set: %s, want %s", c.Now(), t0)
	}
}
