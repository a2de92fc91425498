package model

import (
	"encoding/json"
	"time"
)

// EventTimeLayout is how event times are written: RFC 3339 in UTC with
// microseconds, always six digits so the fraction is never dropped and
// the strings sort as the times do.
const EventTimeLayout = "2006-01-02T15:04:05.000000Z07:00"

// jsonEvent is the `--events` line. Fields that do not apply are omitted;
// inferred is always present.
type jsonEvent struct {
	Time       string            `json:"time"`
	Type       EventType         `json:"type"`
	Group      string            `json:"group"`
	MemberID   *string           `json:"member_id,omitempty"`
	ClientID   *string           `json:"client_id,omitempty"`
	Host       *string           `json:"host,omitempty"`
	InstanceID string            `json:"instance_id,omitempty"`
	Protocol   string            `json:"protocol,omitempty"`
	FromProto  *string           `json:"from_protocol,omitempty"`
	FromType   *GroupType        `json:"from_type,omitempty"`
	ToType     *GroupType        `json:"to_type,omitempty"`
	Task       *TaskID           `json:"task,omitempty"`
	TaskKind   string            `json:"task_kind,omitempty"`
	TaskWas    *string           `json:"task_was,omitempty"`
	Partitions *[]TopicPartition `json:"partitions,omitempty"`
	From       *string           `json:"from,omitempty"`
	To         *string           `json:"to,omitempty"`
	Moves      *[]Move           `json:"moves,omitempty"`
	DurationMS *int64            `json:"duration_ms,omitempty"`
	MinDurMS   *int64            `json:"min_duration_ms,omitempty"`
	State      string            `json:"state,omitempty"`
	Inferred   bool              `json:"inferred"`
	Phase      string            `json:"phase,omitempty"`
	Deploy     *jsonDeploy       `json:"deploy,omitempty"`
	Detail     string            `json:"detail,omitempty"`
	// The group's rebalance counts, inline, on the types that carry them.
	*JSONRebalances
}

// jsonDeploy is a deploy_started's or deploy_completed's deploy object.
type jsonDeploy struct {
	Kind    string   `json:"kind"`
	Members []string `json:"members"`
	// MembersReplaced counts the members replaced (members lists ids,
	// which several members may share).
	MembersReplaced int   `json:"members_replaced"`
	Replacements    int   `json:"replacements"`
	Rebalances      int   `json:"rebalances"`
	Untimed         int   `json:"untimed_rebalances"`
	StoppedMS       int64 `json:"stopped_ms"`
}

func deployJSON(d Deploy) *jsonDeploy {
	members := d.Members
	if members == nil {
		members = []string{}
	}
	return &jsonDeploy{Kind: d.Kind, Members: members, MembersReplaced: d.Slots, Replacements: d.Replacements, Rebalances: d.Rebalances,
		Untimed: d.Untimed, StoppedMS: d.Stopped.Round(time.Millisecond).Milliseconds()}
}

// MarshalEventJSON returns e as one JSON object, without a newline.
//
// Member fields (member_id, client_id, host) appear together whenever the
// event names a member; instance_id too when it is a static member. phase
// ("revoke", "assign") marks the rebalance_started and rebalance_completed
// of a cooperative rebalance's two phases. partitions appears when the
// event lists some, and always on rebalance_completed (the partitions revoked and given back to
// the same owner; often none), partition_moved and partitions_changed; from
// and to on partition_moved (an empty string is "unowned"), moves on
// rebalance_completed, duration_ms (whole milliseconds) only when the
// duration is known; min_duration_ms when it is known only within bounds
// (connection_restored: duration_ms the most, min_duration_ms the least).
// rebalance_completed and the rebalance_storm events carry the group's
// rebalance counts up to them (JSONRebalances: rebalances_1m …).
// protocol is the named member's protocol ("classic", "consumer") when
// told; member_protocol_changed adds from_protocol. group_type_changed
// carries from_type and to_type; task_moved task ({"subtopology",
// "partition"}), task_kind ("active", "standby", "warmup") and task_was
// (what the new owner held the task as: "warmup", "standby", or "").
// deploy, on deploy_started and deploy_completed, is an object: kind
// ("restart", "rolling_deploy", "restart_loop"), members (the client or
// instance ids replaced), members_replaced (how many members: several
// may share an id), replacements, rebalances, untimed_rebalances and
// stopped_ms (the partition-time the timed rebalances stopped, as the
// rebalance rate counts it).
func MarshalEventJSON(e Event) ([]byte, error) {
	j := jsonEvent{
		Time:       e.Time.UTC().Format(EventTimeLayout),
		Type:       e.Type,
		Group:      e.Group,
		State:      e.State,
		Inferred:   e.Inferred,
		Phase:      e.Phase,
		InstanceID: e.InstanceID,
		Protocol:   e.Protocol,
		Detail:     e.Detail,
	}
	spec, _ := e.Type.Spec()
	if spec.Fields&FieldProtocol != 0 {
		j.FromProto = &e.FromProtocol
	}
	if spec.Fields&FieldGroupType != 0 {
		j.FromType, j.ToType = &e.FromType, &e.ToType
	}
	if spec.Fields&FieldTask != 0 {
		j.Task, j.TaskKind, j.TaskWas = &e.Task, e.TaskKind, &e.TaskWas
	}
	if e.Deploy.Kind != "" || spec.Fields&FieldDeploy != 0 {
		j.Deploy = deployJSON(e.Deploy)
	}
	if e.MemberID != "" || e.ClientID != "" {
		j.MemberID, j.ClientID, j.Host = &e.MemberID, &e.ClientID, &e.Host
	}
	if spec.Fields&FieldFromTo != 0 || e.From != "" || e.To != "" {
		j.From, j.To = &e.From, &e.To
	}
	if spec.Fields&FieldRebalances != 0 {
		j.JSONRebalances = e.Rebalances.JSON()
	}
	if e.HasDuration {
		ms := e.Duration.Round(time.Millisecond).Milliseconds()
		j.DurationMS = &ms
	}
	if e.HasMinDuration {
		ms := e.MinDuration.Round(time.Millisecond).Milliseconds()
		j.MinDurMS = &ms
	}
	// A list the type always carries is written even when empty;
	// omitempty drops only the nil pointers.
	parts, moves := e.Partitions, e.Moves
	if parts == nil && spec.Fields&FieldPartitions != 0 {
		parts = []TopicPartition{}
	}
	if moves == nil && spec.Fields&FieldMoves != 0 {
		moves = []Move{}
	}
	if parts != nil {
		j.Partitions = &parts
	}
	if moves != nil {
		j.Moves = &moves
	}
	b, err := json.Marshal(j)
	return SafeJSON(b), err
}
