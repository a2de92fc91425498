package demo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// admin is the demo's own client for what no consumer does itself: the
// topic, describing groups (to see a killed member evicted), and leaving on
// a member's behalf when it overruns max.poll.interval. It is a kgo client:
// kgo routes each group request to the group's coordinator, and negotiates
// every version from the broker's ApiVersions. The watcher never uses it.
type admin struct {
	cl *kgo.Client
}

func newAdmin(brokers []string) (*admin, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ClientID("kgwatch-demo"),
		kgo.DisableClientMetrics(),
		kgo.RequestRetries(2),
		kgo.RetryTimeout(5*time.Second),
	)
	if err != nil {
		return nil, fmt.Errorf("demo admin client for %v: %w", brokers, err)
	}
	return &admin{cl: cl}, nil
}

func (a *admin) close() { a.cl.Close() }

// groupMember is one member as the coordinator lists it.
type groupMember struct {
	MemberID, ClientID, InstanceID string
}

// members lists the group's members, with the describe its protocol needs:
// DescribeGroups for a classic group, ConsumerGroupDescribe (KIP-848) for a
// consumer-protocol one. A group the coordinator does not know has none.
func (a *admin) members(ctx context.Context, spec GroupSpec) ([]groupMember, error) {
	if spec.Protocol == ProtocolConsumer {
		req := kmsg.NewPtrConsumerGroupDescribeRequest()
		req.Groups = []string{spec.Name}
		resp, err := req.RequestWith(ctx, a.cl)
		if err != nil {
			return nil, fmt.Errorf("describe consumer group %q: %w", spec.Name, err)
		}
		if len(resp.Groups) != 1 {
			return nil, fmt.Errorf("describe consumer group %q: %d groups in the answer", spec.Name, len(resp.Groups))
		}
		g := resp.Groups[0]
		if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
			if errors.Is(err, kerr.GroupIDNotFound) {
				return nil, nil
			}
			return nil, fmt.Errorf("describe consumer group %q: %w", spec.Name, err)
		}
		out := make([]groupMember, 0, len(g.Members))
		for _, m := range g.Members {
			out = append(out, groupMember{MemberID: m.MemberID, ClientID: m.ClientID, InstanceID: deref(m.InstanceID)})
		}
		return out, nil
	}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{spec.Name}
	resp, err := req.RequestWith(ctx, a.cl)
	if err != nil {
		return nil, fmt.Errorf("describe group %q: %w", spec.Name, err)
	}
	if len(resp.Groups) != 1 {
		return nil, fmt.Errorf("describe group %q: %d groups in the answer", spec.Name, len(resp.Groups))
	}
	g := resp.Groups[0]
	if err := kerr.ErrorForCode(g.ErrorCode); err != nil {
		return nil, fmt.Errorf("describe group %q: %w", spec.Name, err)
	}
	out := make([]groupMember, 0, len(g.Members))
	for _, m := range g.Members {
		out = append(out, groupMember{MemberID: m.MemberID, ClientID: m.ClientID, InstanceID: deref(m.InstanceID)})
	}
	return out, nil
}

// leave takes a member out of its group on its behalf, as the Java
// client's heartbeat thread does when max.poll.interval passes: LeaveGroup
// (classic), or a heartbeat with member epoch -1 (consumer protocol). The
// member's own client goes on heartbeating, learns it is gone, and rejoins
// as a new member once it polls again.
func (a *admin) leave(ctx context.Context, spec GroupSpec, memberID, instanceID string) error {
	var inst *string
	if instanceID != "" {
		inst = &instanceID
	}
	if spec.Protocol == ProtocolConsumer {
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Group = spec.Name
		req.MemberID = memberID
		req.MemberEpoch = -1
		req.InstanceID = inst
		resp, err := req.RequestWith(ctx, a.cl)
		if err == nil {
			err = kerr.ErrorForCode(resp.ErrorCode)
		}
		if err != nil {
			return fmt.Errorf("leave consumer group %q for member %s: %w", spec.Name, memberID, err)
		}
		return nil
	}
	req := kmsg.NewPtrLeaveGroupRequest()
	req.Group = spec.Name
	req.MemberID = memberID // v0-2
	m := kmsg.NewLeaveGroupRequestMember()
	m.MemberID = memberID
	m.InstanceID = inst
	m.Reason = kmsg.StringPtr("max.poll.interval passed (kgwatch demo)")
	req.Members = append(req.Members, m)
	resp, err := req.RequestWith(ctx, a.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
		for _, rm := range resp.Members {
			if err == nil {
				err = kerr.ErrorForCode(rm.ErrorCode)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("leave group %q for member %s: %w", spec.Name, memberID, err)
	}
	return nil
}

// checkConsumerProtocol fails unless the cluster speaks KIP-848's
// ConsumerGroupHeartbeat v1 (Kafka 4.0+), which kgo needs before it uses
// the consumer protocol: without it kgo would quietly fall back to classic.
func (a *admin) checkConsumerProtocol(ctx context.Context) error {
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, a.cl)
	if err == nil {
		err = kerr.ErrorForCode(resp.ErrorCode)
	}
	if err != nil {
		return fmt.Errorf("api versions: %w", err)
	}
	for _, k := range resp.ApiKeys {
		if k.ApiKey == int16(kmsg.ConsumerGroupHeartbeat) && k.MaxVersion >= 1 {
			return nil
		}
	}
	return errors.New("the cluster does not speak the consumer group protocol (KIP-848 ConsumerGroupHeartbeat v1, Kafka 4.0+): use --group-protocol classic")
}

// setConsumerSessionTimeout sets a consumer-protocol group's session
// timeout and heartbeat interval, group configs since Kafka 4.0 (KIP-848
// moved both to the broker). A broker may refuse values outside its
// group.consumer.min/max settings; the caller then reads what applies.
func (a *admin) setConsumerSessionTimeout(ctx context.Context, group string, session, heartbeat time.Duration) error {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	r := kmsg.NewIncrementalAlterConfigsRequestResource()
	r.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	r.ResourceName = group
	for _, kv := range [][2]string{
		{"consumer.session.timeout.ms", strconv.FormatInt(session.Milliseconds(), 10)},
		{"consumer.heartbeat.interval.ms", strconv.FormatInt(max(heartbeat.Milliseconds(), 1), 10)},
	} {
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value = kv[0], kmsg.StringPtr(kv[1])
		c.Op = kmsg.IncrementalAlterConfigOpSet
		r.Configs = append(r.Configs, c)
	}
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, a.cl)
	if err != nil {
		return fmt.Errorf("set session timeout of group %q: %w", group, err)
	}
	for _, rr := range resp.Resources {
		if err := kerr.ErrorForCode(rr.ErrorCode); err != nil {
			return fmt.Errorf("set session timeout of group %q: %w: %s", group, err, deref(rr.ErrorMessage))
		}
	}
	return nil
}

// consumerTimeouts reads the session timeout and heartbeat interval that
// apply to a consumer-protocol group: its own configs
// (consumer.session.timeout.ms, consumer.heartbeat.interval.ms), else the
// broker's (group.consumer.session.timeout.ms,
// group.consumer.heartbeat.interval.ms).
func (a *admin) consumerTimeouts(ctx context.Context, group string) (session, heartbeat time.Duration, err error) {
	const sessionName, heartbeatName = "consumer.session.timeout.ms", "consumer.heartbeat.interval.ms"
	own, err := a.configMillis(ctx, kmsg.ConfigResourceTypeGroupConfig, group, sessionName, heartbeatName)
	if err != nil {
		return 0, 0, err
	}
	session, heartbeat = own[sessionName], own[heartbeatName]
	if session == 0 || heartbeat == 0 {
		broker, err := a.configMillis(ctx, kmsg.ConfigResourceTypeBroker, "", "group."+sessionName, "group."+heartbeatName)
		if err != nil {
			return 0, 0, err
		}
		session, heartbeat = cmp.Or(session, broker["group."+sessionName]), cmp.Or(heartbeat, broker["group."+heartbeatName])
	}
	if session == 0 || heartbeat == 0 {
		return 0, 0, fmt.Errorf("group %q: no %s and %s in the brokers' answers", group, sessionName, heartbeatName)
	}
	return session, heartbeat, nil
}

// configMillis describes the configs names of one resource and returns
// those set to a number of milliseconds (a config without a value is left
// out).
func (a *admin) configMillis(ctx context.Context, typ kmsg.ConfigResourceType, name string, names ...string) (map[string]time.Duration, error) {
	req := kmsg.NewPtrDescribeConfigsRequest()
	r := kmsg.NewDescribeConfigsRequestResource()
	r.ResourceType, r.ResourceName, r.ConfigNames = typ, name, names
	req.Resources = append(req.Resources, r)
	resp, err := req.RequestWith(ctx, a.cl)
	if err != nil {
		return nil, fmt.Errorf("describe configs of %s %q: %w", typ, name, err)
	}
	out := make(map[string]time.Duration, len(names))
	for _, rr := range resp.Resources {
		if err := kerr.ErrorForCode(rr.ErrorCode); err != nil {
			return nil, fmt.Errorf("describe configs of %s %q: %w", typ, name, err)
		}
		for _, c := range rr.Configs {
			if !slices.Contains(names, c.Name) || c.Value == nil || *c.Value == "" {
				continue
			}
			ms, err := strconv.ParseInt(*c.Value, 10, 64)
			if err != nil || ms <= 0 {
				return nil, fmt.Errorf("%s %q %s %q: not a positive number", typ, name, c.Name, *c.Value)
			}
			out[c.Name] = time.Duration(ms) * time.Millisecond
		}
	}
	return out, nil
}

// ensureTopic creates the topic unless it exists, waits until every
// partition has a leader, and returns its partition count.
func (a *admin) ensureTopic(ctx context.Context, topic string, partitions int) (int, error) {
	meta, err := a.metadata(ctx, topic)
	if err != nil {
		return 0, err
	}
	if len(meta.Topics) != 1 || kerr.ErrorForCode(meta.Topics[0].ErrorCode) != nil {
		req := kmsg.NewPtrCreateTopicsRequest()
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic = topic
		t.NumPartitions = int32(partitions)
		t.ReplicationFactor = int16(min(3, max(len(meta.Brokers), 1)))
		req.Topics = append(req.Topics, t)
		req.TimeoutMillis = 10000
		resp, err := req.RequestWith(ctx, a.cl)
		if err != nil {
			return 0, fmt.Errorf("create topic %q: %w", topic, err)
		}
		for _, rt := range resp.Topics {
			if err := kerr.ErrorForCode(rt.ErrorCode); err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
				return 0, fmt.Errorf("create topic %q: %w", topic, err)
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		meta, err = a.metadata(ctx, topic)
		if err == nil && len(meta.Topics) == 1 {
			t := meta.Topics[0]
			err = kerr.ErrorForCode(t.ErrorCode)
			if err == nil && len(t.Partitions) == 0 {
				err = errors.New("no partitions")
			}
			for _, p := range t.Partitions {
				if err == nil && (p.Leader < 0 || kerr.ErrorForCode(p.ErrorCode) != nil) {
					err = errors.New("partitions have no leader")
				}
			}
			if err == nil {
				return len(t.Partitions), nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("wait for topic %q: %w", topic, err)
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("wait for topic %q: %w", topic, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (a *admin) metadata(ctx context.Context, topic string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	t := kmsg.NewMetadataRequestTopic()
	t.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, a.cl)
	if err != nil {
		return nil, fmt.Errorf("metadata of %q: %w", topic, err)
	}
	return resp, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
