package demo

import "github.com/kgwatch/kgwatch/model"

// Groups describes the demo's groups, in order: one, or in compare mode two
// or three.
func (d *Demo) Groups() []GroupInfo {
	out := make([]GroupInfo, 0, len(d.groups))
	for _, g := range d.groups {
		out = append(out, GroupInfo{GroupSpec: g.spec, SessionTimeout: g.sessionTimeout, HeartbeatInterval: g.heartbeatInterval})
	}
	return out
}

// Comparing reports whether the demo runs several groups (compare mode).
func (d *Demo) Comparing() bool { return len(d.groups) > 1 }

// Consumers describes every consumer started so far: group by group (in
// Groups order), each group's in start order. ConsumerInfo.Group tells
// them apart in compare mode.
func (d *Demo) Consumers() []ConsumerInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []ConsumerInfo
	for _, g := range d.groups {
		out = g.appendInfo(out)
	}
	return out
}

// GroupConsumers describes the consumers of one group, in start order; nil
// for a group that is not the demo's.
func (d *Demo) GroupConsumers(group string) []ConsumerInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, g := range d.groups {
		if g.spec.Name == group {
			return g.appendInfo(nil)
		}
	}
	return nil
}

// appendInfo appends the group's consumers' descriptions; d.mu is held.
func (g *group) appendInfo(out []ConsumerInfo) []ConsumerInfo {
	if out == nil {
		out = make([]ConsumerInfo, 0, len(g.consumers))
	}
	for _, c := range g.consumers {
		out = append(out, ConsumerInfo{
			ClientID:         c.id,
			MemberID:         c.memberID,
			State:            c.state,
			Slow:             c.slow,
			KilledAt:         c.killedAt,
			EvictedAt:        c.evictedAt,
			StoppedAt:        c.stoppedAt,
			Assigned:         append([]model.TopicPartition(nil), c.assigned...),
			Group:            g.spec.Name,
			InstanceID:       c.instanceID,
			Generation:       c.generation,
			Restarts:         c.restarts,
			RestartedAt:      c.restartedAt,
			PendingOrder:     c.pending.order,
			PendingPartition: c.pending.tp,
			PendingOffset:    c.pending.offset,
			PendingPhase:     c.pending.phase,
			PendingUntil:     c.pending.until,
			PoisonTries:      c.poisonTries,
			PoisonPartition:  c.poisonTP,
			PoisonOffset:     c.poisonOffset,
		})
	}
	return out
}

// Ledger returns the exact counts of produced, processed, duplicated and lost
// orders of the demo group (in compare mode, of the first group: see
// GroupLedger).
func (d *Demo) Ledger() model.Ledger {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.groups[0].book.Ledger()
}

// GroupLedger returns one group's ledger; ok is false for a group that is
// not the demo's. Each group consumes every order, so each has its own.
func (d *Demo) GroupLedger(group string) (l model.Ledger, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, g := range d.groups {
		if g.spec.Name == group {
			return g.book.Ledger(), true
		}
	}
	return model.Ledger{}, false
}
