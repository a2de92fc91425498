package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// GroupSummary is one consumer group in the all-groups overview: what its
// coordinator says of it, its lag over the partitions the group view shows
// (committed, owned or targeted), its oldest lag's age and its status.
type GroupSummary struct {
	ID    string
	State string
	// Type is the group's type (TypeClassic, TypeConsumer, TypeShare,
	// TypeStreams) as ListGroups v5 or the describe that answered says;
	// "" when the broker does not say.
	Type         GroupType
	ProtocolType string
	// Members is the member count DescribeGroups reports.
	Members int
	// Partitions counts the partitions the group owns, is assigned as a
	// target (consumer groups) or committed: the group view's rows;
	// Committed those it committed.
	Partitions int
	Committed  int
	// TotalLag and MaxLag are counted as the group view counts them
	// (NewSnapshot): log end − committed offset, and for a partition
	// never committed, log end − log start (FromStartPartitions counts
	// those, LagFromStart says there are some: the total is marked
	// "60*"). A share group's partition takes the broker's lag.
	TotalLag            int64
	MaxLag              int64
	LagFromStart        bool
	FromStartPartitions int
	// LagUnknown: the group's commits have not been read yet (its
	// coordinator loading, an OffsetFetch refused): TotalLag and MaxLag
	// are 0 as nothing was counted, not as nothing waits. The JSON says
	// null, the table "-".
	LagUnknown bool
	// MaxLagAge is how long the group's oldest unprocessed record has
	// waited (the largest partition LagAge, as Snapshot.MaxLagAge);
	// MaxLagAgeKnown is false when no partition's age is known.
	MaxLagAge      time.Duration
	MaxLagAgeKnown bool
	// Status is the worst status the overview can tell of the group's
	// partitions (OverviewHistory): STOPPED, REWOUND, STALLED, UNOWNED,
	// LAGGING (the group's lag growing), else OK; "" until annotated.
	Status Status
	// Generation is the group's generation as the overview reads it
	// (Group.RebalanceGeneration: a classic group's from its members'
	// subscriptions, a consumer or share group's target assignment
	// epoch); 0 when unknown.
	Generation int32
	// Rebalances counts the group's rebalances in the last 10 minutes,
	// from its generation's moves between polls (OverviewHistory);
	// RebalancesKnown once two polls read a generation.
	Rebalances      int
	RebalancesKnown bool
	// Err is set when part of the group could not be read (its
	// description, its commits, some log-end offsets); the numbers then
	// cover only what was read.
	Err string
}

// StateText says the group's state in kafka-consumer-groups' words.
func (g GroupSummary) StateText() string { return Group{State: g.State, Type: g.Type}.StateText() }

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
	// TotalLag and MaxLag are null while the group's commits have not
	// been read (GroupSummary.LagUnknown): 0 would read as nothing waits.
	TotalLag *int64 `json:"total_lag"`
	// LagFromStart: total_lag counts from_start_partitions partitions
	// never committed from their log start, as the group view's rows
	// (lag_from_start) do.
	LagFromStart        bool   `json:"lag_from_start,omitempty"`
	FromStartPartitions int    `json:"from_start_partitions,omitempty"`
	MaxLag              *int64 `json:"max_lag"`
	// MaxLagAgeMs is the group's oldest known lag age in milliseconds
	// (0 with no lag); null when no partition's age is known.
	MaxLagAgeMs *int64 `json:"max_lag_age_ms"`
	// Status is the group's worst status (OK, LAGGING, UNOWNED, STALLED,
	// REWOUND, STOPPED); null when not annotated. One poll (--once) can
	// tell only OK, UNOWNED and STOPPED.
	Status *string `json:"status"`
	// Generation is null when unknown; Rebalances10m null until two polls
	// read one (always, under --once).
	Generation    *int32 `json:"generation"`
	Rebalances10m *int   `json:"rebalances_10m"`
	Error         string `json:"error,omitempty"`
}

// MarshalJSONOverview encodes groups as one indented JSON array and a
// newline; no groups is [].
func MarshalJSONOverview(gs []GroupSummary) ([]byte, error) {
	out := make([]JSONGroupSummary, 0, len(gs))
	for _, g := range gs {
		j := JSONGroupSummary{Group: g.ID, State: g.State, GroupType: string(g.Type), ProtocolType: g.ProtocolType, Members: g.Members,
			Partitions: g.Partitions, Committed: g.Committed, LagFromStart: g.LagFromStart,
			FromStartPartitions: g.FromStartPartitions, Status: statusJSON(g.Status), Error: g.Err}
		if !g.LagUnknown {
			j.TotalLag, j.MaxLag = ptr(g.TotalLag), ptr(g.MaxLag)
		}
		if g.MaxLagAgeKnown {
			j.MaxLagAgeMs = ptr(g.MaxLagAge.Milliseconds())
		}
		if g.Generation > 0 {
			j.Generation = ptr(g.Generation)
		}
		if g.RebalancesKnown {
			j.Rebalances10m = ptr(g.Rebalances)
		}
		out = append(out, j)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode overview: %w", err)
	}
	return append(SafeJSON(b), '\n'), nil
}

// LagFromStartNote is the footnote of a lag marked "*": counted from the
// log start, nothing committed. The group view's legend, its --once table
// and the overview say it in these words.
const LagFromStartNote = "* no commit: lag from log start"

// FromStartMark is the mark of a lag counted from the log start.
const FromStartMark = "*"

// FormatOverview prints groups as a table: GROUP STATE, STATUS once a
// group has one, MEMBERS TOTAL-LAG, MAX-LAG-AGE once a group's is known,
// and TYPE when some group is not a classic one; columns padded to their
// widest cell. A total counted partly from the log start is marked "60*",
// with LagFromStartNote under the table. An unreadable group's error
// follows its row.
func FormatOverview(gs []GroupSummary) string {
	if len(gs) == 0 {
		return "No consumer groups.\n"
	}
	typed, statused, aged, fromStart := false, false, false, false
	for _, g := range gs {
		typed = typed || g.Type.Kind().Label != ""
		statused = statused || g.Status != ""
		aged = aged || g.MaxLagAgeKnown
		fromStart = fromStart || g.LagFromStart
	}
	head := []string{"GROUP", "STATE"}
	right := []bool{false, false}
	if statused {
		head, right = append(head, "STATUS"), append(right, false)
	}
	head, right = append(head, "MEMBERS", "TOTAL-LAG"), append(right, true, true)
	if aged {
		head, right = append(head, "MAX-LAG-AGE"), append(right, true)
	}
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
		r := []string{NameCell(g.ID, MaxNameCells), g.State}
		if statused {
			r = append(r, g.Status.Label())
		}
		lag := strconv.FormatInt(g.TotalLag, 10)
		if g.LagFromStart {
			lag += FromStartMark
		}
		if g.LagUnknown {
			lag = "-" // commits not read: the error says why
		}
		r = append(r, strconv.Itoa(g.Members), lag)
		if aged {
			age := "-"
			if g.MaxLagAgeKnown {
				age = Age(g.MaxLagAge)
			}
			r = append(r, age)
		}
		if typed {
			r = append(r, dash(string(g.Type)))
		}
		rows = append(rows, append(r, errText))
	}
	var b strings.Builder
	writeColumns(&b, rows, append(right, false))
	lines := strings.SplitAfter(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.TrimSuffix(l, "\n"), " ")
	}
	out := strings.Join(lines, "\n")
	if fromStart {
		out += LagFromStartNote + "\n"
	}
	return out
}
