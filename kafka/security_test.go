package kafka

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kgwatch/kgwatch/model"
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
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kfake"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	tc := newTestCluster(t, false, kfake.TLS(&tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}))
	pool := x509.NewCertPool()
	pool.AddCert(cert)

	w := NewWatcher(Config{Brokers: tc.addrs, Group: "g", Timeout: 2 * time.Second, TLS: &tls.Config{RootCAs: pool}})
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
