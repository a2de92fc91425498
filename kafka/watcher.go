// Package kafka is all of kgwatch's broker I/O: a read-only Watcher that
// turns a consumer group's state into model snapshots, using
// github.com/segmentio/kafka-go's Transport.
package kafka

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kgwatch/kgwatch/model"
)

// Config says where and how to watch a group.
type Config struct {
	// Brokers is the bootstrap list, host:port each.
	Brokers []string
	// Group is the consumer group to watch.
	Group string
	// Timeout bounds each request, connecting included.
	Timeout time.Duration
	// TLS enables TLS; nil is plaintext.
	TLS *tls.Config
	// SASL authenticates connections; nil is none.
	SASL sasl.Mechanism
}

// DefaultTimeout is used when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// connDropped reports whether err is an established connection that
// died, rather than a refusal, a timeout or a broker's answer.
func connDropped(err error) bool {
	return err != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed))
}

// clientID is the client id the watcher's requests carry.
const clientID = "kgwatch"

// metadataMaxAge is how long cached topic metadata is trusted.
const metadataMaxAge = 30 * time.Second

// Watcher reads snapshots of one group, of any type (classic, consumer,
// share). It only ever sends read requests (FindCoordinator,
// ConsumerGroupDescribe, ShareGroupDescribe, DescribeGroups, OffsetFetch,
// DescribeShareGroupOffsets, ListGroups, Metadata, ListOffsets, Fetch,
// ApiVersions): it never joins, commits or produces. A Watcher is safe for
// concurrent use; polls are serialized.
type Watcher struct {
	cfg  Config
	addr net.Addr
	// dial replaces the transport's dialer when set (tests tap the wire).
	dial func(ctx context.Context, network, address string) (net.Conn, error)

	mu    sync.Mutex
	tr    *kafka.Transport
	coord *broker // cached group coordinator; nil until found
	// askedVia is the broker that last answered FindCoordinator.
	askedVia int32
	meta     metadataCache
	// stamps holds the lag-age records the overview read (stampCache),
	// lag those the group's polls read (lagCache); logBuf is
	// logOffsetsFor's buffers.
	stamps stampCache
	lag    lagCache
	// members holds the last describe's decoded members.
	members memberCache
	// commits is fillCommitted's scratch.
	commits commitStage
	logBuf  logScratch
	// topics is the last poll's Observation.Topics, cleared and filled
	// again by the next (a snapshot keeps nothing of them).
	topics []model.TopicObservation
	starts startCache
	// clock replaces time.Now for the log-start cadence when set (tests).
	clock func() time.Time
	// vers holds each connection's API versions, for kmsg requests;
	// names the names kept from answers decoded without copying.
	vers  versionCache
	names names
	// topicIDs names the topic ids metadata answers gave.
	topicIDs map[[16]byte]string
	// kind is the group's type as last learned; "" until known, and
	// again when the group disappears or its describe fails. listed says
	// kind was learned from ListGroups, no describe kgwatch speaks knowing
	// the group (a streams group): then no describe or ListGroups is sent
	// until OffsetFetch finds the group gone or fails, and listedProtocol
	// is its listed protocol type.
	kind           model.GroupType
	listed         bool
	listedProtocol string
	closed         bool

	// clusterID is the cluster's id as the freshest metadata gave it:
	// the bootstrap's answer, then the watcher's own topic Metadata
	// (learnTopicIDs), never the transport's background cache, which may
	// hold the old cluster's id for up to metadataMaxAge. A cluster
	// restarted fails the polls in between, so the next one bootstraps
	// afresh; one swapped between two polls is seen when the topic
	// metadata is next read (within metadataMaxAge).
	clusterID string
}

// broker is a broker's id and address.
type broker struct {
	id   int32
	addr string
}

// NewWatcher returns a watcher for cfg.Group. It connects lazily, on the
// first Poll.
func NewWatcher(cfg Config) *Watcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	brokers := make([]string, 0, len(cfg.Brokers))
	for _, b := range cfg.Brokers {
		if b = strings.TrimSpace(b); b != "" {
			brokers = append(brokers, b)
		}
	}
	cfg.Brokers = brokers
	w := &Watcher{cfg: cfg}
	if len(brokers) > 0 {
		w.addr = kafka.TCP(brokers...)
	}
	return w
}

// Close releases the watcher's connections and background goroutines.
func (w *Watcher) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	w.resetTransport()
	return nil
}

// Poll reads one snapshot of the group. A group that does not exist is not
// an error: the snapshot's Group.State is model.StateDead. Errors mean no
// snapshot could be read (no broker reachable, auth failed) and name the
// address tried. Failures that concern single partitions are recorded on
// those partitions. Each snapshot is the caller's.
func (w *Watcher) Poll(ctx context.Context) (model.Snapshot, error) {
	var snap model.Snapshot
	err := w.observe(ctx, func(obs *model.Observation) { snap = model.NewSnapshot(*obs) })
	return snap, err
}

// Observe reads what Poll reads, before any arithmetic: the caller builds
// the snapshot (model.SnapshotBuilder, in the rows of its last one, on the
// goroutine that shows it: the TUI's page). The observation's topics are
// the watcher's, cleared and filled again by its next read: build it
// before the next Observe or Poll.
func (w *Watcher) Observe(ctx context.Context) (model.Observation, error) {
	var out model.Observation
	err := w.observe(ctx, func(obs *model.Observation) { out = *obs })
	return out, err
}

// observe reads one observation and hands it to take, under the
// watcher's lock.
func (w *Watcher) observe(ctx context.Context, take func(*model.Observation)) error {
	return w.read("poll", func() error {
		takenAt := time.Now()
		obs, err := w.poll(ctx)
		if err != nil {
			return err
		}
		obs.TakenAt, obs.ClusterID = takenAt, w.clusterID
		obs.CompletedAt = time.Now()
		w.topics = obs.Topics
		take(&obs)
		return nil
	})
}

// read runs one read of the cluster (what: "poll", "overview") under the
// watcher's lock, as the group's polls and the overview's both do: not
// once the watcher is closed or without a broker address. When it fails,
// the next read starts afresh from the bootstrap list (the cluster may
// have moved while it was unreachable), and the error names its codes.
func (w *Watcher) read(what string, f func() error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New(what + ": watcher is closed")
	}
	if w.addr == nil {
		return errors.New(what + ": no broker address configured")
	}
	if err := f(); err != nil {
		w.resetTransport()
		return namedCodes(err)
	}
	return nil
}

func (w *Watcher) poll(ctx context.Context) (model.Observation, error) {
	obs := model.Observation{
		Brokers: append([]string(nil), w.cfg.Brokers...),
		Group:   model.Group{ID: w.cfg.Group},
		Topics:  w.topics,
	}
	obs.Clear()
	brokers, err := w.brokers(ctx)
	if err != nil {
		return obs, err
	}

	if err := w.describeGroup(ctx, brokers, &obs); err != nil {
		return obs, err
	}
	coord, err := w.fetchCommitted(ctx, brokers, &obs)
	if err != nil {
		w.forgetListed()
		return obs, err
	}
	obs.Group.Coordinator, obs.Group.CoordinatorID = coord.addr, coord.id
	if obs.Group.State == model.StateDead {
		if !holdsCommits(&obs) {
			if w.listed {
				// The listed group is gone: detect afresh, it may be
				// back as another type.
				w.forgetListed()
				return w.poll(ctx)
			}
			return obs, nil
		}
		// No describe knows it, yet it holds commits: a group of a type
		// kgwatch cannot describe (streams, KIP-1071), or one whose
		// describe the broker does not speak. Its offsets and lag are
		// real; its members are unknown. ListGroups v5 may name its type.
		obs.Group.State = model.StateUnknown
		if w.listed {
			obs.Group.Type, obs.Group.ProtocolType = w.kind, w.listedProtocol
		} else {
			w.listedAs(ctx, coord, &obs.Group)
		}
	}

	topics := groupTopics(obs)
	if len(topics) == 0 {
		return obs, nil
	}
	if w.meta.needsRefresh(topics, &obs, time.Now()) {
		if err := w.refreshMetadata(ctx, coord, topics); err != nil {
			return obs, err
		}
	}
	r, err := w.listOffsets(ctx, brokers, topics, &obs)
	if err != nil {
		return obs, err
	}
	slots := obsSlots{obs: &obs}
	for i, tp := range r.tps {
		p := slots.part(tp)
		p.HasOffsets, p.Offsets = true, r.offsets[i]
	}
	if r.moved && ctx.Err() == nil && w.refreshMetadata(ctx, coord, topics) == nil {
		// Leaders moved (an election, a reassignment): ask the new ones
		// now rather than show the partitions as failed until next poll.
		retry, _ := w.listOffsets(ctx, brokers, topics, &obs)
		for i, tp := range retry.tps {
			if p := slots.part(tp); !p.HasOffsets || p.Offsets.Err != "" {
				p.HasOffsets, p.Offsets = true, retry.offsets[i]
			}
		}
	}
	w.lagStamps(ctx, &obs)
	w.starts.sawGone(&obs)
	return obs, nil
}

// roundTrip sends one request with the configured timeout. A Metadata
// request that its broker does not answer goes to another (anybroker.go).
func (w *Watcher) roundTrip(ctx context.Context, req protocol.Message) (protocol.Message, error) {
	if m, ok := req.(*kmsgRequest); ok {
		if _, isMeta := m.req.(*kmsg.MetadataRequest); isMeta {
			return w.metadataFromAny(ctx, m)
		}
	}
	return w.send(ctx, req)
}

// send sends one request to the broker it is routed to.
func (w *Watcher) send(ctx context.Context, req protocol.Message) (protocol.Message, error) {
	// A read given up is not sent: kafka-go's transport, its connection
	// ready, may pick sending over a done context (a select between the
	// two), so a cancelled poll sent some of its requests and not others.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	res, err := w.transport().RoundTrip(rctx, w.addr, req)
	// A pooled connection the broker (or a NAT) closed while idle fails at
	// once, and kafka-go discards it; the next try takes another pooled
	// connection or opens one. A pool holds a few per broker.
	_, routed := req.(protocol.BrokerMessage)
	for try := 0; routed && try < 4 && connDropped(err) && rctx.Err() == nil; try++ {
		res, err = w.transport().RoundTrip(rctx, w.addr, req)
	}
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s: %w", w.cfg.Timeout, err)
	}
	return res, err
}

// transport returns the watcher's transport; brokers makes it, by racing
// the bootstrap brokers (bootstrap.go).
func (w *Watcher) transport() *kafka.Transport {
	if w.tr == nil {
		w.tr = w.newTransport(w.plainDial)
	}
	return w.tr
}

// newTransport is the one kafka-go transport configuration.
func (w *Watcher) newTransport(dial func(ctx context.Context, network, address string) (net.Conn, error)) *kafka.Transport {
	return &kafka.Transport{
		Dial:        dial,
		DialTimeout: w.cfg.Timeout,
		// The transport's own metadata only tracks the broker list, for
		// routing; topic metadata is the watcher's (see refreshMetadata),
		// so no topic is asked for here.
		MetadataTopics: []string{},
		MetadataTTL:    metadataMaxAge,
		ClientID:       clientID,
		TLS:            w.cfg.TLS,
		SASL:           w.cfg.SASL,
	}
}

// resetTransport drops every connection, so the next request reconnects
// from the bootstrap list.
func (w *Watcher) resetTransport() {
	if w.tr != nil {
		w.tr.CloseIdleConnections()
		w.tr = nil
	}
	w.coord = nil
	w.meta.stale = true
}

// brokers returns the cluster's brokers as the transport last saw them. It
// is answered from the transport's cache; the first call connects, to
// whichever bootstrap broker answers first (bootstrap.go).
func (w *Watcher) brokers(ctx context.Context) (map[int32]broker, error) {
	res, err := w.clusterMetadata(ctx)
	if err != nil {
		w.resetTransport()
		return nil, err
	}
	out := make(map[int32]broker)
	for _, b := range res.Brokers {
		out[b.NodeID] = broker{id: b.NodeID, addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))}
	}
	return out, nil
}

// groupTopics lists, sorted, the topics the group owns or committed. A
// topic is looked up once a run of it, and ends its walk at its first
// partition committed.
func groupTopics(obs model.Observation) []string {
	seen := make(map[string]bool)
	for _, m := range obs.Members {
		last := ""
		for i, tp := range m.Partitions {
			if i == 0 || tp.Topic != last {
				seen[tp.Topic], last = true, tp.Topic
			}
		}
	}
	for i := range obs.Topics {
		t := &obs.Topics[i]
		if seen[t.Topic] {
			continue
		}
		for k := range t.Partitions {
			if p := &t.Partitions[k]; p.HasCommit || p.CommitUnread {
				seen[t.Topic] = true
				break
			}
		}
	}
	topics := make([]string, 0, len(seen))
	for t := range seen {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	return topics
}

// holdsCommits reports whether obs read a commit, or failed to read one.
func holdsCommits(obs *model.Observation) bool {
	for _, p := range obs.All() {
		if p.HasCommit || p.CommitUnread {
			return true
		}
	}
	return false
}

// now is the watcher's clock.
func (w *Watcher) now() time.Time {
	if w.clock != nil {
		return w.clock()
	}
	return time.Now()
}
