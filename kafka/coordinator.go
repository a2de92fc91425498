package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"time"

	kafka "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// coordinator returns the group's coordinator, cached until it fails. It
// asks the broker that last answered first, then the others in id order,
// so one unreachable broker does not hide the coordinator.
func (w *Watcher) coordinator(ctx context.Context, brokers map[int32]broker) (broker, error) {
	if w.coord != nil {
		return *w.coord, nil
	}
	ids := make([]int32, 0, len(brokers))
	for id := range brokers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if (ids[i] == w.askedVia) != (ids[j] == w.askedVia) {
			return ids[i] == w.askedVia
		}
		return ids[i] < ids[j]
	})
	var earlier string // failures before the last, one line
	var last error
	lastAddr := ""
	for _, id := range ids {
		via := brokers[id]
		c, err := w.findCoordinator(ctx, id)
		if err == nil {
			w.coord, w.askedVia = &c, id
			return c, nil
		}
		if last != nil {
			earlier += fmt.Sprintf("via broker %s: %v; ", lastAddr, last)
		}
		last, lastAddr = err, via.addr
		if ctx.Err() != nil {
			break
		}
	}
	if last == nil {
		return broker{}, fmt.Errorf("find coordinator of group %q: no broker to ask", w.cfg.Group)
	}
	return broker{}, fmt.Errorf("find coordinator of group %q: %svia broker %s: %w", w.cfg.Group, earlier, lastAddr, last)
}

// toCoordinator sends a group request to the cached coordinator. When the
// coordinator moved or cannot be reached, it looks it up again and retries
// once. A coordinator that is still loading the group's offsets
// (COORDINATOR_LOAD_IN_PROGRESS), or none being available yet, is asked
// again after a backoff, for at most the request timeout.
func (w *Watcher) toCoordinator(ctx context.Context, brokers map[int32]broker, what string,
	req func(route) protocol.Message, code func(protocol.Message) int16) (protocol.Message, broker, error) {
	giveUp := time.Now().Add(w.cfg.Timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(giveUp) {
		giveUp = d
	}
	backoff := 50 * time.Millisecond
	moved := 0 // lookups after a move or a failure to answer
	for {
		c, err := w.coordinator(ctx, brokers)
		if err != nil {
			if !coordinatorBusy(err) || !sleepUntil(ctx, backoff, giveUp) {
				return nil, c, err
			}
			backoff *= 2
			continue
		}
		res, err := w.roundTrip(ctx, req(route{c.id}))
		if kr, ok := res.(*kmsgResponse); ok && err == nil && kr.unsupported != nil {
			return nil, c, fmt.Errorf("%s %q on coordinator %s: %w", what, w.cfg.Group, c.addr, kr.unsupported)
		}
		if err == nil {
			switch ec := kafka.Error(code(res)); ec {
			case 0:
				return res, c, nil
			case kafka.GroupLoadInProgress:
				if !sleepUntil(ctx, backoff, giveUp) {
					return nil, c, fmt.Errorf("%s %q on coordinator %s: %w", what, w.cfg.Group, c.addr, ec)
				}
				backoff *= 2
				continue
			case kafka.NotCoordinatorForGroup, kafka.GroupCoordinatorNotAvailable:
				err = ec
			default:
				return nil, c, fmt.Errorf("%s %q on coordinator %s: %w", what, w.cfg.Group, c.addr, errCode(int16(ec)))
			}
		}
		w.coord = nil
		// A coordinator that moved is looked up again, once; one that did
		// not answer in time is not waited for twice.
		if moved > 0 || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, c, fmt.Errorf("%s %q on coordinator %s: %w", what, w.cfg.Group, c.addr, err)
		}
		moved++
	}
}

// coordinatorBusy reports whether a FindCoordinator failure means the
// coordinator is being elected or is loading, so asking again helps.
func coordinatorBusy(err error) bool {
	return errors.Is(err, kafka.GroupCoordinatorNotAvailable) || errors.Is(err, kafka.GroupLoadInProgress)
}

// sleepUntil waits d, unless that would pass giveUp or ctx ends first; it
// reports whether it waited.
func sleepUntil(ctx context.Context, d time.Duration, giveUp time.Time) bool {
	if time.Now().Add(d).After(giveUp) {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// findCoordinator asks broker id for the group's coordinator, at the
// highest FindCoordinator version both sides speak (v4 and up ask in a
// list of keys and answer in one).
func (w *Watcher) findCoordinator(ctx context.Context, id int32) (broker, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey = w.cfg.Group
	req.CoordinatorKeys = []string{w.cfg.Group}
	res, err := w.sendKmsg(ctx, id, req, 0, -1)
	if err != nil {
		return broker{}, err
	}
	r := res.(*kmsg.FindCoordinatorResponse)
	node, host, port, code := r.NodeID, r.Host, r.Port, r.ErrorCode
	if r.Version >= 4 {
		if len(r.Coordinators) != 1 {
			return broker{}, fmt.Errorf("%d coordinators in the answer for one group", len(r.Coordinators))
		}
		c := r.Coordinators[0]
		node, host, port, code = c.NodeID, c.Host, c.Port, c.ErrorCode
	}
	if code != 0 {
		return broker{}, errCode(code)
	}
	return broker{id: node, addr: net.JoinHostPort(host, strconv.Itoa(int(port)))}, nil
}
