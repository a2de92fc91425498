package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"
)

// JSONSnapshot is the stable JSON shape of a snapshot (`--once -o json`).
type JSONSnapshot struct {
	Group string `json:"group"`
	State string `json:"state"`
	// GroupType is the group's type as ListGroups names it ("classic",
	// "consumer", "share", "streams"); "" when unknown (the group does
	// not exist).
	GroupType    GroupType `json:"group_type"`
	ProtocolType string    `json:"protocol_type"`
	// Assignor is the classic protocol chosen, or a consumer or share
	// group's server assignor.
	Assignor    string `json:"assignor"`
	Coordinator string `json:"coordinator,omitempty"`
	// GroupEpoch and AssignmentEpoch: consumer and share groups' epochs
	// (the group's, its target assignment's); null for other groups.
	GroupEpoch      *int32 `json:"group_epoch"`
	AssignmentEpoch *int32 `json:"assignment_epoch"`
	// Cooperative: a classic group seen rebalancing incrementally (its
	// members joined still owning partitions); omitted otherwise.
	Cooperative bool `json:"cooperative,omitempty"`
	// TopologyEpoch and Topology: a streams group's topology (KIP-1071);
	// omitted for other groups.
	TopologyEpoch *int32            `json:"topology_epoch,omitempty"`
	Topology      []JSONSubtopology `json:"topology,omitempty"`
	TakenAt       string            `json:"taken_at"`
	TotalLag      int64             `json:"total_lag"`
	MaxLag        int64             `json:"max_lag"`
	// MaxLagAgeMs is the oldest known lag age in milliseconds; null when no
	// partition's age is known.
	MaxLagAgeMs *int64 `json:"max_lag_age_ms"`

	// Status, rates, ETA and the worst partition come from History; null
	// (status, rates, eta) when the snapshot was not annotated or there is
	// not enough history. eta_seconds is null unless consumption outpaces
	// production with lag > 0.
	Status      *string  `json:"status"`
	ConsumeRate *float64 `json:"consume_rate"`
	ProduceRate *float64 `json:"produce_rate"`
	ETASeconds  *float64 `json:"eta_seconds"`
	// FallingBehind is null until the group's rates are measured.
	FallingBehind  *bool           `json:"falling_behind"`
	WorstPartition *TopicPartition `json:"worst_partition"`

	// Rebalances counts the group's rebalances over the last minute, ten
	// minutes and hour: null counts until measured (one poll, --once,
	// knows the generation only).
	Rebalances *JSONRebalances `json:"rebalances"`

	Members    []JSONMember    `json:"members"`
	Partitions []JSONPartition `json:"partitions"`
}

// JSONMember is one member in JSONSnapshot.
type JSONMember struct {
	MemberID string `json:"member_id"`
	// InstanceID is the static member's group.instance.id, null for a
	// dynamic member.
	InstanceID *string `json:"instance_id"`
	ClientID   string  `json:"client_id"`
	Host       string  `json:"host"`
	// Rack is null when the member gave none (always for classic groups).
	Rack       *string          `json:"rack"`
	Partitions []TopicPartition `json:"partitions"`
	Lag        int64            `json:"lag"`
	// MemberEpoch (consumer and share groups) is null for classic members.
	MemberEpoch *int32 `json:"member_epoch"`
	// TargetPartitions is a consumer group member's target assignment,
	// null for other groups; Reconciling says it is not there yet (epoch
	// behind the group's assignment epoch, or partitions ≠ target).
	TargetPartitions *[]TopicPartition `json:"target_partitions"`
	Reconciling      bool              `json:"reconciling"`
	SubscribedTopics []string          `json:"subscribed_topics,omitempty"`
	SubscribedRegex  string            `json:"subscribed_topic_regex,omitempty"`
	// Protocol is "classic" or "consumer" for a member of a consumer
	// group that says (ConsumerGroupDescribe v1): classic members remain
	// while a group is migrated; omitted when not told.
	Protocol string `json:"protocol,omitempty"`
	// A streams member's process id, topology epoch, user endpoint and
	// tasks, current and target; omitted for other groups.
	ProcessID     string     `json:"process_id,omitempty"`
	TopologyEpoch *int32     `json:"topology_epoch,omitempty"`
	UserEndpoint  string     `json:"user_endpoint,omitempty"`
	Tasks         *JSONTasks `json:"tasks,omitempty"`
	TargetTasks   *JSONTasks `json:"target_tasks,omitempty"`
	// OwnedPartitions is what a classic member said it owned as it
	// joined (consumer protocol subscription v1+, KIP-429: a cooperative
	// member keeps them through the join, an eager one joins owning
	// none); omitted when unknown.
	OwnedPartitions *[]TopicPartition `json:"owned_partitions,omitempty"`

	// ConsumeRate is null when unknown.
	ConsumeRate *float64 `json:"consume_rate"`
	// CommitDelayMs is how long ago the member's latest commit was seen
	// (null: none seen yet); CommitEveryMs how often it commits (its
	// partitions' shortest cadence; null: not known yet).
	CommitDelayMs *int64 `json:"commit_delay_ms"`
	CommitEveryMs *int64 `json:"commit_every_ms"`
}

// JSONTasks are a streams member's tasks by kind, [] when none.
type JSONTasks struct {
	Active  []TaskID `json:"active"`
	Standby []TaskID `json:"standby"`
	Warmup  []TaskID `json:"warmup"`
}

func jsonTasks(t Tasks) *JSONTasks {
	return &JSONTasks{Active: nonNil(t.Active), Standby: nonNil(t.Standby), Warmup: nonNil(t.Warmup)}
}

// JSONSubtopology is one subtopology of a streams group's topology.
type JSONSubtopology struct {
	ID                      string   `json:"subtopology"`
	SourceTopics            []string `json:"source_topics"`
	RepartitionSourceTopics []string `json:"repartition_source_topics"`
	RepartitionSinkTopics   []string `json:"repartition_sink_topics"`
	ChangelogTopics         []string `json:"changelog_topics"`
}

// JSONPartition is one partition in JSONSnapshot. Owner fields are null when
// no member owns the partition; committed is null when nothing was committed.
type JSONPartition struct {
	Topic     string  `json:"topic"`
	Partition int32   `json:"partition"`
	MemberID  *string `json:"member_id"`
	ClientID  *string `json:"client_id"`
	Host      *string `json:"host"`
	// Owners lists every member the partition is assigned to ([] when
	// unowned): one at most, except in share groups. member_id, client_id
	// and host are the first's.
	Owners []JSONOwner `json:"owners"`
	// PendingMemberID and PendingClientID (consumer groups) name the
	// member the partition is being handed to while nobody owns it.
	PendingMemberID *string `json:"pending_member_id,omitempty"`
	PendingClientID *string `json:"pending_client_id,omitempty"`
	// Committed is a share group's share-partition start offset.
	Committed    *int64 `json:"committed"`
	LogStart     *int64 `json:"log_start"`
	LogEnd       *int64 `json:"log_end"`
	Lag          int64  `json:"lag"`
	LagFromStart bool   `json:"lag_from_start,omitempty"`
	// LagFromBroker: the lag is the broker's count (share groups), not
	// log_end - committed.
	LagFromBroker bool   `json:"lag_from_broker,omitempty"`
	Error         string `json:"error,omitempty"`
	// LeaderEpoch is the committed offset's leader epoch, null when
	// nothing was committed or the commit carries none.
	LeaderEpoch *int32 `json:"leader_epoch"`

	// Status is null when the snapshot was not annotated; rates are null
	// when unknown. StalledSince is when the stall began (last commit
	// progress or last time without lag), set only for STALLED.
	Status       *string  `json:"status"`
	ConsumeRate  *float64 `json:"consume_rate"`
	ProduceRate  *float64 `json:"produce_rate"`
	StalledSince string   `json:"stalled_since,omitempty"`

	// LagAgeMs is how long the oldest unprocessed record has waited, in
	// milliseconds: 0 with no lag, null when no timestamp could be read.
	// LagAgeGone says that record was deleted (retention) before it was
	// consumed; lag_age_ms is null then.
	LagAgeMs   *int64 `json:"lag_age_ms"`
	LagAgeGone bool   `json:"lag_age_gone,omitempty"`

	// CommitDelayMs is how long ago the committed offset last moved (null
	// until a move is seen: one --once poll never sees one);
	// CommitEveryMs how often it moves under its owner (null: not known).
	CommitDelayMs *int64 `json:"commit_delay_ms"`
	CommitEveryMs *int64 `json:"commit_every_ms"`
	// OldestRecord is the record the lag waits on (JSONOldestRecord),
	// null with no lag or when it could not be read.
	OldestRecord *JSONOldestRecord `json:"oldest_record"`
}

// JSONOwner is one member a partition is assigned to.
type JSONOwner struct {
	MemberID string `json:"member_id"`
	ClientID string `json:"client_id"`
	Host     string `json:"host"`
}

// ToJSON converts a snapshot to its JSON shape.
func (s Snapshot) ToJSON() JSONSnapshot {
	j := JSONSnapshot{
		Group:        s.Group.ID,
		State:        s.Group.State,
		GroupType:    s.Group.Type,
		Cooperative:  s.Group.Cooperative,
		ProtocolType: s.Group.ProtocolType,
		Assignor:     s.Group.Assignor,
		Coordinator:  s.Group.Coordinator,
		TakenAt:      s.TakenAt.UTC().Format(time.RFC3339Nano),
		TotalLag:     s.TotalLag,
		MaxLag:       s.MaxLag,
		Members:      make([]JSONMember, 0, len(s.Members)),
		Partitions:   make([]JSONPartition, 0, len(s.Partitions)),
	}
	kind := s.Group.Kind()
	epochs := kind.CoordinatorAssigned // classic groups have generations, not epochs
	if epochs {
		j.GroupEpoch, j.AssignmentEpoch = ptr(s.Group.Epoch), ptr(s.Group.AssignmentEpoch)
	}
	if s.MaxLagAgeKnown {
		j.MaxLagAgeMs = ptr(s.MaxLagAge.Milliseconds())
	}
	j.Status = statusJSON(s.Status)
	j.ConsumeRate, j.ProduceRate = rateJSON(s.ConsumeRate), rateJSON(s.ProduceRate)
	if s.ETAKnown {
		j.ETASeconds = ptr(round3(s.ETA.Seconds()))
	}
	if s.FallingBehindKnown {
		j.FallingBehind = ptr(s.FallingBehind)
	}
	if s.HasWorst {
		j.WorstPartition = ptr(s.WorstPartition)
	}
	j.Rebalances = s.Rebalances.JSON()
	if g := s.Group.RebalanceGeneration(); g > 0 {
		j.Rebalances.Generation = ptr(g) // known from the poll, annotated or not
	}
	if s.Group.Type == TypeStreams {
		j.TopologyEpoch = ptr(s.Group.TopologyEpoch)
		for _, st := range s.Group.Topology {
			j.Topology = append(j.Topology, JSONSubtopology{ID: st.ID, SourceTopics: nonNil(st.SourceTopics),
				RepartitionSourceTopics: nonNil(st.RepartitionSourceTopics), RepartitionSinkTopics: nonNil(st.RepartitionSinkTopics),
				ChangelogTopics: nonNil(st.ChangelogTopics)})
		}
	}
	for _, m := range s.Members {
		parts := m.Partitions
		if parts == nil {
			parts = []TopicPartition{}
		}
		jm := JSONMember{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.Host, Partitions: parts, Lag: m.Lag,
			Reconciling: m.Reconciling, SubscribedTopics: m.SubscribedTopics, SubscribedRegex: m.SubscribedRegex,
			ConsumeRate: rateJSON(m.ConsumeRate), CommitEveryMs: msJSON(m.CommitEvery)}
		if m.CommitSeen {
			jm.CommitDelayMs = ptr(m.CommitDelay.Milliseconds())
		}
		if m.InstanceID != "" {
			jm.InstanceID = ptr(m.InstanceID)
		}
		if m.Rack != "" {
			jm.Rack = ptr(m.Rack)
		}
		if m.OwnedKnown {
			owned := m.OwnedPartitions
			if owned == nil {
				owned = []TopicPartition{}
			}
			jm.OwnedPartitions = &owned
		}
		if epochs {
			jm.MemberEpoch = ptr(m.MemberEpoch)
		}
		jm.Protocol = m.Protocol
		if s.Group.Type == TypeStreams {
			jm.ProcessID, jm.UserEndpoint, jm.TopologyEpoch = m.ProcessID, m.Endpoint, ptr(m.TopologyEpoch)
			jm.Tasks, jm.TargetTasks = jsonTasks(m.Tasks), jsonTasks(m.TargetTasks)
		}
		if kind.TargetAssignment {
			target := m.TargetPartitions
			if target == nil {
				target = []TopicPartition{}
			}
			jm.TargetPartitions = &target
		}
		j.Members = append(j.Members, jm)
	}
	for i := range s.Partitions {
		j.Partitions = append(j.Partitions, partitionJSON(&s.Partitions[i]))
	}
	return j
}

// partitionJSON is one partition in JSONSnapshot.
func partitionJSON(p *PartitionLag) JSONPartition {
	jp := JSONPartition{Topic: p.Topic, Partition: p.Partition, Lag: p.Lag, LagFromStart: p.LagFromStart,
		LagFromBroker: p.LagFromBroker, Error: p.Err, Owners: make([]JSONOwner, 0, len(p.Owners))}
	if p.Owned() {
		jp.MemberID, jp.ClientID, jp.Host = ptr(p.MemberID), ptr(p.ClientID), ptr(p.Host)
	}
	for _, o := range p.Owners {
		jp.Owners = append(jp.Owners, JSONOwner(o))
	}
	if len(p.Owners) == 0 && p.Owned() {
		// A row built without NewSnapshot: its one owner.
		jp.Owners = append(jp.Owners, JSONOwner{MemberID: p.MemberID, ClientID: p.ClientID, Host: p.Host})
	}
	if p.PendingMemberID != "" {
		jp.PendingMemberID, jp.PendingClientID = ptr(p.PendingMemberID), ptr(p.PendingClientID)
	}
	if p.Committed >= 0 {
		jp.Committed = ptr(p.Committed)
	}
	if p.LeaderEpochKnown {
		jp.LeaderEpoch = ptr(p.LeaderEpoch)
	}
	if p.LogStart >= 0 {
		jp.LogStart = ptr(p.LogStart)
	}
	if p.LogEnd >= 0 {
		jp.LogEnd = ptr(p.LogEnd)
	}
	if p.LagAgeKnown {
		jp.LagAgeMs = ptr(p.LagAge.Milliseconds())
	}
	jp.LagAgeGone = p.LagAgeGone
	if p.CommitMoveSeen {
		jp.CommitDelayMs = ptr(p.CommitDelay.Milliseconds())
	}
	jp.CommitEveryMs = msJSON(p.CommitEvery)
	jp.OldestRecord = oldestJSON(p)
	jp.Status = statusJSON(p.Status)
	jp.ConsumeRate, jp.ProduceRate = rateJSON(p.ConsumeRate), rateJSON(p.ProduceRate)
	if p.Status == StatusStalled && !p.StalledSince.IsZero() {
		jp.StalledSince = p.StalledSince.UTC().Format(time.RFC3339Nano)
	}
	return jp
}

// WriteJSONSnapshot writes MarshalJSONSnapshot's JSON to w a partition
// at a time: the partitions, most of a large group's document (100 MB of
// garbage at 50,000 partitions, held whole), are encoded one by one, the
// rest of the snapshot before them.
func WriteJSONSnapshot(w io.Writer, s Snapshot) error {
	head := s
	head.Partitions = nil
	hj := head.ToJSON()
	hb, err := json.MarshalIndent(hj, "", "  ")
	if err != nil {
		return fmt.Errorf("encode snapshot: %w", err)
	}
	// The partitions are the document's last field: "[]\n}" ends it.
	const empty = "[]\n}"
	if !bytes.HasSuffix(hb, []byte(empty)) {
		return fmt.Errorf("encode snapshot: the partitions are not its last field")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if len(s.Partitions) == 0 {
		bw.Write(SafeJSON(hb))
		bw.WriteByte('\n')
		return bw.Flush()
	}
	bw.Write(SafeJSON(hb[:len(hb)-len(empty)]))
	bw.WriteByte('[')
	// One encoder into one buffer: its encoding and indenting buffers
	// are kept from partition to partition. It ends each with a newline.
	var pbuf bytes.Buffer
	enc := json.NewEncoder(&pbuf)
	enc.SetIndent("    ", "  ")
	for i := range s.Partitions {
		pbuf.Reset()
		if err := enc.Encode(partitionJSON(&s.Partitions[i])); err != nil {
			bw.Flush()
			return fmt.Errorf("encode snapshot: %w", err)
		}
		pb := bytes.TrimSuffix(pbuf.Bytes(), []byte{'\n'})
		bw.WriteString("\n    ")
		bw.Write(SafeJSON(pb))
		if i < len(s.Partitions)-1 {
			bw.WriteByte(',')
		}
	}
	bw.WriteString("\n  ]\n}\n")
	return bw.Flush()
}

// MarshalJSONSnapshot encodes the snapshot as indented JSON with a trailing
// newline: WriteJSONSnapshot's bytes.
func MarshalJSONSnapshot(s Snapshot) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteJSONSnapshot(&b, s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func statusJSON(s Status) *string {
	if s == "" {
		return nil
	}
	return ptr(string(s))
}

// msJSON is a duration in milliseconds, null when zero (unknown).
func msJSON(d time.Duration) *int64 {
	if d <= 0 {
		return nil
	}
	return ptr(d.Milliseconds())
}

func rateJSON(r Rate) *float64 {
	if !r.Known || r.Stale {
		return nil
	}
	return ptr(round3(r.PerSec))
}

// round3 keeps three decimals: rates and ETAs are estimates.
func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// nonNil is s, or [] for nil (JSON writes [] rather than null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
