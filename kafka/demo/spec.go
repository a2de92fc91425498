package demo

import (
	"errors"
	"fmt"
	"strings"
)

// GroupSpec describes one consumer group of the demo: compare mode runs
// several side by side on the same topic and producer.
type GroupSpec struct {
	// Name is the group id. Empty: in compare mode, the demo's Group with
	// a suffix naming the spec (order-workers-range, order-workers-coop,
	// order-workers-848, …); otherwise the demo's Group.
	Name string
	// Protocol is ProtocolClassic (the default) or ProtocolConsumer.
	Protocol string
	// Assignor is, for the classic protocol, range (the default),
	// roundrobin, sticky or cooperative-sticky; for the consumer protocol,
	// the server assignor: uniform (the default) or range.
	Assignor string
	// Static gives each consumer a group.instance.id equal to its client
	// id (consumer-a, …): a restart within the session timeout keeps its
	// partitions without a rebalance.
	Static bool
}

// Cooperative reports whether the group rebalances incrementally: a
// cooperative classic assignor, or the consumer protocol.
func (s GroupSpec) Cooperative() bool {
	return s.Protocol == ProtocolConsumer || s.Assignor == AssignorCooperativeSticky
}

// String names the spec as --compare takes it: range, cooperative-sticky,
// consumer (uniform), consumer-range, with a static: prefix if static.
func (s GroupSpec) String() string {
	name := s.Assignor
	if s.Protocol == ProtocolConsumer {
		name = ProtocolConsumer
		if s.Assignor != "" && s.Assignor != AssignorUniform {
			name += "-" + s.Assignor
		}
	}
	if s.Static {
		name = "static:" + name
	}
	return name
}

// suffix is the group-name suffix compare mode gives the spec.
func (s GroupSpec) suffix() string {
	var x string
	switch {
	case s.Protocol == ProtocolConsumer && s.Assignor == AssignorUniform:
		x = "848"
	case s.Protocol == ProtocolConsumer:
		x = "848-" + s.Assignor
	case s.Assignor == AssignorCooperativeSticky:
		x = "coop"
	default:
		x = s.Assignor
	}
	if s.Static {
		x += "-static"
	}
	return x
}

// DefaultCompare is what compare mode runs when not told: classic eager
// range against classic cooperative-sticky.
func DefaultCompare() []GroupSpec {
	return []GroupSpec{
		{Protocol: ProtocolClassic, Assignor: AssignorRange},
		{Protocol: ProtocolClassic, Assignor: AssignorCooperativeSticky},
	}
}

// ParseCompare reads a comma-separated list of group specs, as --compare
// takes it: range, roundrobin, sticky, cooperative-sticky (classic), consumer
// or consumer-uniform, consumer-range (KIP-848), each optionally prefixed
// static: — up to MaxGroups.
func ParseCompare(s string) ([]GroupSpec, error) {
	var out []GroupSpec
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		var spec GroupSpec
		if rest, ok := strings.CutPrefix(tok, "static:"); ok {
			spec.Static, tok = true, rest
		}
		switch tok {
		case AssignorRange, AssignorRoundRobin, AssignorSticky, AssignorCooperativeSticky:
			spec.Protocol, spec.Assignor = ProtocolClassic, tok
		case ProtocolConsumer, ProtocolConsumer + "-" + AssignorUniform:
			spec.Protocol, spec.Assignor = ProtocolConsumer, AssignorUniform
		case ProtocolConsumer + "-" + AssignorRange:
			spec.Protocol, spec.Assignor = ProtocolConsumer, AssignorRange
		default:
			return nil, fmt.Errorf("unknown group %q: want range, roundrobin, sticky, cooperative-sticky, consumer or consumer-range (static: in front for static members)", tok)
		}
		for _, o := range out {
			if o == spec {
				return nil, fmt.Errorf("%s given twice", spec)
			}
		}
		out = append(out, spec)
	}
	if len(out) < 2 || len(out) > MaxGroups {
		return nil, fmt.Errorf("%d groups in %q: compare 2 or %d", len(out), s, MaxGroups)
	}
	return out, nil
}

// checkAssignor says whether assignor goes with protocol, and why not. An
// empty assignor is the protocol's default.
func checkAssignor(protocol, assignor string) error {
	switch protocol {
	case "", ProtocolClassic:
		switch assignor {
		case "", AssignorRange, AssignorRoundRobin, AssignorSticky, AssignorCooperativeSticky:
			return nil
		case AssignorUniform:
			return errors.New("uniform is a server assignor: it needs the consumer group protocol; classic assignors are range, roundrobin, sticky and cooperative-sticky")
		}
		return fmt.Errorf("unknown assignor %q: classic assignors are range, roundrobin, sticky and cooperative-sticky", assignor)
	case ProtocolConsumer:
		switch assignor {
		case "", AssignorUniform, AssignorRange:
			return nil
		case AssignorRoundRobin, AssignorSticky, AssignorCooperativeSticky:
			return fmt.Errorf("%s is not a server assignor: with the consumer group protocol use uniform or range", assignor)
		}
		return fmt.Errorf("unknown server assignor %q: use uniform or range", assignor)
	}
	return fmt.Errorf("unknown group protocol %q: use classic or consumer", protocol)
}
