package model

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// GroupSummary is one consumer group in the all-groups overview: what its
// coordinator says of it and its lag over the partitions it committed.
type GroupSummary struct {
	ID    string
	State string
	// Type is the group's type (TypeClassic, TypeConsumer, TypeShare,
	// TypeStreams) as ListGroups v5 or the describe that answered says;
	// "" when the broker does not say.
	Type         string
	ProtocolType string
	// Members is the member count DescribeGroups reports.
	Members int
	// Partitions counts the partitions the group owns or committed;
	// Committed those it committed. Lag is counted over the committed
	// ones only, as kafka-consumer-groups does (an uncommitted partition
	// has no lag there, "-").
	Partitions int
	Committed  int
	TotalLag   int64
	MaxLag     int64
	// Err is set when part of the group could not be read (its
	// description, its commits, some log-end offsets); the numbers then
	// cover only what was read.
	Err string
}

// StateText says the group's state in kafka-consumer-groups' words.
func (g GroupSummary) StateText() string { return Group{State: g.State, Type: g.Type}.StateText() }

// GroupLag adds up a group's lag from its committed offsets and the log-end
// offsets of those partitions. A partition whose log end is unknown (absent
// from logEnd or negative) adds nothing; it is counted in missing.
func GroupLag(committed map[TopicPartition]int64, logEnd map[TopicPartition]int64) (total, maxLag int64, missing int) {
	for tp, c := range committed {
		end, ok := logEnd[tp]
		if !ok || end < 0 {
			missing++
			continue
		}
		if c < 0 {
			continue // no commit: no lag here, as kafka-consumer-groups says
		}
		lag := max(end-c, 0)
		total = AddLag(total, lag)
		maxLag = max(maxLag, lag)
	}
	return total, maxLag, missing
}

// SortGroups orders groups by total lag, most first, then by id.
func SortGroups(gs []GroupSummary) {
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].TotalLag != gs[j].TotalLag {
			return gs[i].TotalLag > gs[j].TotalLag
		}
		return gs[i].ID < gs[j].ID
	})
}

// JSONGroupSummary is the JSON shape of one overview row (`--once -o json`
// without --group).
type JSONGroupSummary struct {
	Group string `json:"group"`
	State string `json:"state"`
	// GroupType is "classic", "consumer", "share", "streams", or "" when
	// the broker does not say (ListGroups before v5).
	GroupType    string `json:"group_type"`
	ProtocolType string `json:"protocol_type"`
	Members      int    `json:"members"`
	Partitions   int    `json:"partitions"`
	Committed    int    `json:"committed_partitions"`
	TotalLag     int64  `json:"total_lag"`
	MaxLag       int64  `json:"max_lag"`
	Error        string `json:"error,omitempty"`
}

// MarshalJSONOverview encodes groups as one indented JSON array and a
// newline; no groups is [].
func MarshalJSONOverview(gs []GroupSummary) ([]byte, error) {
	out := make([]JSONGroupSummary, 0, len(gs))
	for _, g := range gs {
		out = append(out, JSONGroupSummary{Group: g.ID, State: g.State, GroupType: g.Type, ProtocolType: g.ProtocolType, Members: g.Members,
			Partitions: g.Partitions, Committed: g.Committed, TotalLag: g.TotalLag, MaxLag: g.MaxLag, Error: g.Err})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode overview: %w", err)
	}
	return append(SafeJSON(b), '\n'), nil
}

// FormatOverview prints groups as a table: GROUP STATE MEMBERS TOTAL-LAG,
// and TYPE when some group is not a classic one, columns padded to their
// widest cell. An unreadable group's error follows its row.
func FormatOverview(gs []GroupSummary) string {
	if len(gs) == 0 {
		return "No consumer groups.\n"
	}
	typed := false
	for _, g := range gs {
		typed = typed || (g.Type != "" && g.Type != TypeClassic)
	}
	head := []string{"GROUP", "STATE", "MEMBERS", "TOTAL-LAG"}
	right := []bool{false, false, true, true}
	if typed {
		head, right = append(head, "TYPE"), append(right, false)
	}
	rows := make([][]string, 0, len(gs)+1)
	rows = append(rows, append(head, ""))
	for _, g := range gs {
		errText := ""
		if g.Err != "" {
			errText = " (" + g.Err + ")"
		}
		r := []string{g.ID, g.State, strconv.Itoa(g.Members), strconv.FormatInt(g.TotalLag, 10)}
		if typed {
			r = append(r, dash(g.Type))
		}
		rows = append(rows, append(r, errText))
	}
	var b strings.Builder
	writeColumns(&b, rows, append(right, false))
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.TrimSuffix(l, "\n"), " ")
	}
	return strings.Join(lines, "\n")
}

// GroupLagWith is GroupLag where, for a share group, brokerLag gives the
// broker's lag of some partitions (committed holds their start offsets):
// a non-negative entry is taken as the partition's lag, with no log end
// needed.
func GroupLagWith(committed, brokerLag, logEnd map[TopicPartition]int64) (total, maxLag int64, missing int) {
	if len(brokerLag) == 0 {
		return GroupLag(committed, logEnd)
	}
	for tp, c := range committed {
		lag, ok := brokerLag[tp]
		if !ok || lag < 0 {
			end, ok := logEnd[tp]
			if !ok || end < 0 {
				missing++
				continue
			}
			if c < 0 {
				continue
			}
			lag = max(end-c, 0)
		}
		total = AddLag(total, lag)
		maxLag = max(maxLag, lag)
	}
	return total, maxLag, missing
}
