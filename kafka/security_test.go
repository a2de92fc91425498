package kafka

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/testutil"
)

func TestPollSASL(t *testing.T) {
	tc := newTestCluster(t, true, kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "watcher", "s3cret"),
		kfake.Superuser("SCRAM-SHA-512", "scrammer", "s3cret"))
	scramOK, err := scram.Mechanism(scram.SHA512, "scrammer", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	scramBad, err := scram.Mechanism(scram.SHA512, "scrammer", "wrong")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		mech sasl.Mechanism
		ok   bool
	}{
		{"plain", plain.Mechanism{Username: "watcher", Password: "s3cret"}, true},
		{"scram-sha-512", scramOK, true},
		{"plain, wrong password", plain.Mechanism{Username: "watcher", Password: "wrong"}, false},
		{"scram, wrong password", scramBad, false},
		{"none", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := NewWatcher(Config{Brokers: tc.addrs[:1], Group: "g", Timeout: 2 * time.Second, SASL: c.mech})
			defer w.Close()
			s, err := w.Poll(context.Background())
			if c.ok {
				if err != nil || s.Group.State != model.StateDead {
					t.Errorf("poll: %v, state %q; want a snapshot of a group that does not exist", err, s.Group.State)
				}
				return
			}
			if err == nil {
				t.Fatal("poll succeeded")
			}
			if !strings.Contains(err.Error(), "connect to broker "+tc.addrs[0]) || !strings.Contains(err.Error(), "SASL") || strings.Contains(err.Error(), "wrong") {
				t.Errorf("error %q should name the broker and not the password", err)
			}
		})
	}
}

func TestPollTLS(t *testing.T) {
	server, client := testutil.Cert(t)
	tc := newTestCluster(t, false, kfake.TLS(server))

	w := NewWatcher(Config{Brokers: tc.addrs, Group: "g", Timeout: 2 * time.Second, TLS: client})
	defer w.Close()
	if s, err := w.Poll(context.Background()); err != nil || s.Group.State != model.StateDead {
		t.Errorf("poll over TLS: %v, state %q", err, s.Group.State)
	}

	plainText := NewWatcher(Config{Brokers: tc.addrs[:1], Group: "g", Timeout: time.Second})
	defer plainText.Close()
	if _, err := plainText.Poll(context.Background()); err == nil || !strings.Contains(err.Error(), tc.addrs[0]) {
		t.Errorf("plaintext poll of a TLS cluster: %v, want an error naming %s", err, tc.addrs[0])
	}
}

// TLSConfig reads its PEM files, regular files and pipes alike, and
// refuses a device or a file past MaxPEMFile naming the flag (a CA file of
// /dev/zero grew until the runtime died of it).
func TestTLSConfigFiles(t *testing.T) {
	server, _ := testutil.Cert(t)
	dir := t.TempDir()
	cert := server.Certificates[0]
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certFile := write("cert.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}))
	keyFile := write("key.pem", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	cfg, err := TLSConfig(TLSOptions{CAFile: certFile, CertFile: certFile, KeyFile: keyFile})
	if err != nil || cfg.RootCAs == nil || len(cfg.Certificates) != 1 {
		t.Fatalf("TLSConfig from files: %v, %+v", err, cfg)
	}

	// A pipe, as `--tls-ca <(vault read …)` gives.
	fifo := filepath.Join(dir, "ca.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		f.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}))
	}()
	if cfg, err := TLSConfig(TLSOptions{CAFile: fifo}); err != nil || cfg.RootCAs == nil {
		t.Errorf("TLSConfig with the CA from a pipe: %v", err)
	}

	huge := filepath.Join(dir, "huge.pem")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxPEMFile+1); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		opts TLSOptions
		want string
	}{
		{TLSOptions{CAFile: "/dev/zero"}, "read --tls-ca /dev/zero: not a regular file or a pipe"},
		{TLSOptions{CertFile: "/dev/urandom", KeyFile: keyFile}, "read --tls-cert /dev/urandom: not a regular file or a pipe"},
		{TLSOptions{CertFile: certFile, KeyFile: "/dev/zero"}, "read --tls-key /dev/zero: not a regular file or a pipe"},
		{TLSOptions{CAFile: dir}, "read --tls-ca " + dir + ": not a regular file or a pipe"},
		{TLSOptions{CAFile: huge}, "read --tls-ca " + huge + ": larger than 1 MiB, the most kgwatch reads"},
		{TLSOptions{CertFile: huge, KeyFile: keyFile}, "read --tls-cert " + huge + ": larger than 1 MiB"},
	} {
		if _, err := TLSConfig(tt.opts); err == nil || err.Error() != tt.want && !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("TLSConfig(%+v) = %v, want %q", tt.opts, err, tt.want)
		}
	}
}
