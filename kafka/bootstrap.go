package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	kafka "github.com/segmentio/kafka-go"
	meta "github.com/segmentio/kafka-go/protocol/metadata"
)

// Bootstrapping. kafka-go's Transport, given kafka.TCP(a, b, c), keeps one
// "control" connection for its broker-list refresh: it shuffles the
// addresses and dials them in turn until one accepts TCP, then spends its
// whole DialTimeout on that one connection's ApiVersions (and TLS, SASL).
// A broker that accepts TCP and never answers — a frozen process, a
// half-open load balancer — fails the connection, and the other addresses
// are never tried: with one such broker in two, every other --once timed
// out.
//
// So the watcher does not hand kafka-go the choice. It races the bootstrap
// addresses, each in a Transport of its own built by newTransport (one
// TLS/SASL setup, one dial function), in the order given: the next starts
// as soon as the one before fails, or when it has not answered within
// bootstrapStagger. The first to deliver the cluster's broker list is kept
// as the watcher's one Transport, with its pool and connections; the
// others are closed before bootstrap returns. (A Transport cannot drop one
// of its pools, so racing inside one Transport would leave the losers'
// pools refreshing in the background for the watcher's lifetime.)
//
// The kept Transport's pool address still lists every bootstrap address,
// under the network name bootNetwork, so its dialer can tell the control
// connection from connections to brokers by id: when kafka-go redials the
// control connection for a refresh, the dialer refuses the addresses that
// did not answer (the race's losers, or a connection that died before its
// first byte), so kafka-go's loop moves on to one that did. When every
// address has failed, all are allowed again.

// bootstrapStagger is how long one bootstrap broker may take to answer
// before the next one is tried alongside it (RFC 8305's 250ms).
const bootstrapStagger = 250 * time.Millisecond

// bootNetwork names the network of bootstrap addresses in the
// transport's pool address; they are dialed over "tcp".
const bootNetwork = "kgwatch-bootstrap"

// bootAddr is the bootstrap list as a kafka-go pool address.
type bootAddr []string

func (a bootAddr) Network() string {
	n := make([]string, len(a))
	for i := range n {
		n[i] = bootNetwork
	}
	return strings.Join(n, ",")
}

func (a bootAddr) String() string { return strings.Join(a, ",") }

// errOtherCandidate refuses, during the race, the bootstrap addresses a
// candidate does not own.
var errOtherCandidate = errors.New("address belongs to another bootstrap attempt")

// dialFunc is the signature of kafka.Transport.Dial.
type dialFunc = func(ctx context.Context, network, address string) (net.Conn, error)

// bootDialer is the dialing state shared by a race's candidates and kept
// by the winner: which bootstrap addresses did not answer.
type bootDialer struct {
	base  dialFunc
	addrs []string
	// tls is whether connections start a TLS handshake; probeAfter is how
	// long a handshake may go unanswered before a plaintext probe asks
	// whether the broker speaks Kafka without TLS.
	tls        bool
	probeAfter time.Duration
	timeout    time.Duration

	mu  sync.Mutex
	bad map[string]bool
}

func newBootDialer(base dialFunc, addrs []string, cfg Config) *bootDialer {
	if base == nil {
		var d net.Dialer
		base = d.DialContext
	}
	return &bootDialer{
		base: base, addrs: addrs, tls: cfg.TLS != nil,
		probeAfter: min(tlsProbeAfter, cfg.Timeout/4), timeout: cfg.Timeout,
		bad: make(map[string]bool),
	}
}

// mark records whether addr answered.
func (d *bootDialer) mark(addr string, answered bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if answered {
		delete(d.bad, addr)
	} else {
		d.bad[addr] = true
	}
}

// avoid reports whether addr did not answer while another bootstrap
// address may.
func (d *bootDialer) avoid(addr string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.bad[addr] {
		return false
	}
	for _, a := range d.addrs {
		if !d.bad[a] {
			return true
		}
	}
	return false
}

// candidate is one bootstrap attempt: a Transport whose control
// connection may only go to addr until it wins.
type candidate struct {
	d    *bootDialer
	addr string
	tr   *kafka.Transport

	mu   sync.Mutex
	won  bool
	last *watchedConn // the latest control connection
	// dialErr is addr's dial failure: kafka-go reports the last address
	// of its loop, which may be another candidate's refusal.
	dialErr error
}

func (c *candidate) dial(ctx context.Context, network, address string) (net.Conn, error) {
	if network != bootNetwork {
		return c.d.base(ctx, network, address)
	}
	c.mu.Lock()
	won := c.won
	c.mu.Unlock()
	switch {
	case !won && address != c.addr:
		return nil, errOtherCandidate
	case won && c.d.avoid(address):
		return nil, fmt.Errorf("bootstrap broker %s did not answer before; trying another", address)
	}
	conn, err := c.d.base(ctx, "tcp", address)
	if err != nil {
		c.d.mark(address, false)
		if !won {
			c.mu.Lock()
			c.dialErr = err
			c.mu.Unlock()
		}
		return nil, err
	}
	wc := c.d.watch(conn, address)
	if !won {
		c.mu.Lock()
		c.last = wc
		c.mu.Unlock()
	}
	return wc, nil
}

// close ends a losing candidate: its pool, and the connection it may be
// still setting up (kafka-go would wait out its deadline on it).
func (c *candidate) close() {
	c.tr.CloseIdleConnections()
	c.mu.Lock()
	last := c.last
	c.mu.Unlock()
	if last != nil {
		last.Close()
	}
}

// report is what the candidate's connection saw, for explaining a
// failure.
func (c *candidate) report() (connReport, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		return connReport{}, c.dialErr
	}
	return c.last.report(), nil
}

// clusterMetadata returns the transport's cached broker list, connecting
// first (bootstrap) when the watcher has no transport.
func (w *Watcher) clusterMetadata(ctx context.Context) (*meta.Response, error) {
	if w.tr != nil {
		res, err := w.roundTrip(ctx, &meta.Request{TopicNames: []string{}})
		if err != nil {
			return nil, fmt.Errorf("read the broker list: %w", err)
		}
		return res.(*meta.Response), nil
	}
	return w.bootstrap(ctx)
}

// bootstrap races the bootstrap brokers (see the top of this file) and
// keeps the first to answer as the watcher's transport.
func (w *Watcher) bootstrap(ctx context.Context) (*meta.Response, error) {
	addrs, err := canonicalBrokers(w.cfg.Brokers)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if len(addrs) == 0 {
		return nil, errors.New("connect: no broker address configured")
	}
	d := newBootDialer(w.dial, addrs, w.cfg)
	boot := bootAddr(addrs)
	cands := make([]*candidate, len(addrs)) // each try sets its own
	stagger := min(bootstrapStagger, w.cfg.Timeout/time.Duration(2*len(addrs)))

	win, res, errs := firstAnswer(ctx, len(addrs), stagger, func(ctx context.Context, i int) (*meta.Response, error) {
		c := &candidate{d: d, addr: addrs[i]}
		c.tr = w.newTransport(c.dial)
		cands[i] = c
		rctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
		defer cancel()
		r, err := c.tr.RoundTrip(rctx, boot, &meta.Request{TopicNames: []string{}})
		if err != nil {
			return nil, err
		}
		m := r.(*meta.Response)
		if len(m.Brokers) == 0 {
			return nil, errors.New("no brokers in metadata")
		}
		return m, nil
	})
	for i, c := range cands {
		if c != nil && i != win {
			c.close()
		}
	}
	if win >= 0 {
		c := cands[win]
		c.mu.Lock()
		c.won, c.last = true, nil
		c.mu.Unlock()
		w.tr, w.addr = c.tr, boot
		if res.ClusterID != "" {
			w.clusterID = res.ClusterID // a fresh answer, not the transport's cache
		}
		return res, nil
	}

	// Every address failed: say why, each.
	which := "broker"
	if len(addrs) > 1 {
		which = "brokers"
	}
	var parts []string
	var wrapped []any
	for i, err := range errs {
		if err == nil {
			continue // never tried: the context ended first
		}
		rep, dialErr := cands[i].report()
		if dialErr != nil {
			err = dialErr
		}
		e := w.explain(ctx, addrs[i], rep, err)
		if len(addrs) > 1 && !strings.Contains(e.Error(), addrs[i]) {
			e = fmt.Errorf("%s: %w", addrs[i], e)
		}
		parts = append(parts, "%w")
		wrapped = append(wrapped, e)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("connect to %s %s: %w", which, strings.Join(addrs, ","), ctx.Err())
	}
	return nil, fmt.Errorf("connect to %s %s: "+strings.Join(parts, "; "),
		append([]any{which, strings.Join(addrs, ",")}, wrapped...)...)
}

// firstAnswer runs try for 0..n-1 until one succeeds: try(0) at once, and
// each next one when the one before failed or has run for stagger without
// an answer. It returns the first success (its index, -1 if none, and its
// result) and the errors of those that failed; a try never started (ctx
// ended first) has a nil error. The ctx given to try is canceled once a
// try succeeds; firstAnswer returns after every try it started.
func firstAnswer[T any](ctx context.Context, n int, stagger time.Duration, try func(context.Context, int) (T, error)) (int, T, []error) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i   int
		v   T
		err error
	}
	results := make(chan result, n)
	var wg sync.WaitGroup
	started, running := 0, 0
	start := func() {
		i := started
		started++
		running++
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := try(tctx, i)
			results <- result{i, v, err}
		}()
	}
	errs := make([]error, n)
	start()
	timer := time.NewTimer(stagger)
	defer timer.Stop()
	win := -1
	var val T
	for running > 0 && win < 0 {
		select {
		case r := <-results:
			running--
			if r.err == nil {
				win, val = r.i, r.v
				break
			}
			errs[r.i] = r.err
			if started < n && ctx.Err() == nil {
				start()
				timer.Reset(stagger)
			}
		case <-timer.C:
			if started < n && ctx.Err() == nil {
				start()
				timer.Reset(stagger)
			}
		}
	}
	cancel()
	wg.Wait()
	close(results)
	for r := range results {
		if r.i != win && errs[r.i] == nil {
			errs[r.i] = r.err
			if errs[r.i] == nil {
				errs[r.i] = context.Canceled // answered after the winner
			}
		}
	}
	return win, val, errs
}

// plainDial is the dialer of a transport made outside bootstrap: every
// address, bootstrap or not, over tcp.
func (w *Watcher) plainDial(ctx context.Context, network, address string) (net.Conn, error) {
	if network == bootNetwork {
		network = "tcp"
	}
	if w.dial != nil {
		return w.dial(ctx, network, address)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}
