package model

import (
	"cmp"
	"slices"
	"strings"
)

// GroupSortKey orders the overview of groups.
type GroupSortKey int

// Group sort keys, in the order the `o` key cycles through them. The
// zero value sorts by total lag; the overview's default is
// DefaultGroupSort.
const (
	// GroupsByLag: most total lag first.
	GroupsByLag GroupSortKey = iota
	// GroupsByMaxLag: the group with the most lagging partition first.
	GroupsByMaxLag
	// GroupsByState: the groups in trouble first: unreadable, gone or of
	// unknown state, then empty with lag, rebalancing, then the rest.
	GroupsByState
	// GroupsByName: by group id.
	GroupsByName
	// GroupsByStatus: the group in trouble first: worst status, then the
	// oldest lag (MaxLagAge), then the most total lag.
	GroupsByStatus
	// GroupsByLagAge: the group whose oldest unprocessed record has
	// waited longest first; groups with lag of no known age after those
	// with one, groups without lag last.
	GroupsByLagAge
	// GroupsByRebalances: the group that rebalanced most in the last 10
	// minutes first; groups whose count is unknown last.
	GroupsByRebalances
	numGroupSortKeys
)

// DefaultGroupSort is the overview's first order: the group in trouble
// first (Overview's and --once's order too). From it, `o` cycles status,
// lag age, rebalances, total lag, max lag, state, name.
const DefaultGroupSort = GroupsByStatus

// groupSortNames name the keys for the overview's title.
var groupSortNames = [numGroupSortKeys]string{
	GroupsByStatus: "status", GroupsByLag: "total lag", GroupsByMaxLag: "max lag", GroupsByLagAge: "lag age",
	GroupsByState: "state", GroupsByName: "name", GroupsByRebalances: "rebalances",
}

// String names the key for the overview's title.
func (k GroupSortKey) String() string { return keyName(groupSortNames[:], k) }

// Next returns the key after k, wrapping around.
func (k GroupSortKey) Next() GroupSortKey { return (k + 1) % numGroupSortKeys }

// stateRank is how much a group's state asks for a look, highest first.
func stateRank(g *GroupSummary) int {
	switch {
	case g.Err != "":
		return 5
	case g.State == StateDead || g.State == "" || g.State == StateUnknown:
		return 4
	case g.State == StateEmpty && g.TotalLag > 0:
		return 3
	case Group{State: g.State}.Rebalancing():
		return 2
	case g.State == StateEmpty:
		return 0
	}
	return 1
}

// ViewGroups returns the groups that match query (words that must all
// occur in the group id, its state, its status or its type, ignoring case) and,
// with onlyLag, have lag, sorted by key (SortGroupsBy). gs is not
// modified.
func ViewGroups(gs []GroupSummary, key GroupSortKey, query string, onlyLag bool) []GroupSummary {
	words := strings.Fields(strings.ToLower(query))
	out := make([]GroupSummary, 0, len(gs))
	for i := range gs {
		g := &gs[i]
		if onlyLag && g.TotalLag <= 0 {
			continue
		}
		ok := true
		for _, w := range words {
			if !containsFold(g.ID, w) && !containsFold(g.State, w) && !containsFold(g.StateText(), w) && !containsFold(string(g.Status), w) && !containsFold(string(g.Type), w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, *g)
		}
	}
	SortGroupsBy(out, key)
	return out
}

// SortGroupsBy sorts groups by key; ties go to the larger total lag, then
// the id (a total order for distinct ids: no stable sort needed, which
// moves the large rows far more).
func SortGroupsBy(gs []GroupSummary, key GroupSortKey) {
	// Indexes are sorted, then each summary moved once, along its cycle:
	// a comparison of summaries by value copies two of ~200 bytes.
	idx := make([]int32, len(gs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return compareGroups(&gs[a], &gs[b], key) })
	permuteGroups(gs, idx)
}

// permuteGroups puts gs[idx[i]] at i for every i, moving each summary
// once, along its cycle; it overwrites idx.
func permuteGroups(gs []GroupSummary, idx []int32) {
	for i := range idx {
		if idx[i] < 0 {
			continue
		}
		tmp, j := gs[i], i
		for {
			k := int(idx[j])
			idx[j] = -1
			if k == i {
				gs[j] = tmp
				break
			}
			gs[j], j = gs[k], k
		}
	}
}

// GroupWorse reports whether a is to be looked at before b: worst status,
// then oldest lag, then most lag (the order of GroupsByStatus), so the
// overview's worst-group mark and its default sort agree.
func GroupWorse(a, b *GroupSummary) bool { return compareGroups(a, b, GroupsByStatus) < 0 }

// compareGroups is SortGroupsBy's order: negative when a comes first.
func compareGroups(a, b *GroupSummary, key GroupSortKey) int {
	var c int
	switch key {
	case GroupsByStatus:
		if c = cmp.Compare(b.Status.Severity(), a.Status.Severity()); c == 0 {
			c = compareGroupAge(a, b)
		}
	case GroupsByMaxLag:
		c = cmp.Compare(b.MaxLag, a.MaxLag)
	case GroupsByLagAge:
		c = compareGroupAge(a, b)
	case GroupsByState:
		c = cmp.Compare(stateRank(b), stateRank(a))
	case GroupsByName:
		c = strings.Compare(a.ID, b.ID)
	case GroupsByRebalances:
		if c = cmp.Compare(b2i(b.RebalancesKnown), b2i(a.RebalancesKnown)); c == 0 {
			c = cmp.Compare(b.Rebalances, a.Rebalances)
		}
	}
	if c != 0 {
		return c
	}
	if c := cmp.Compare(b.TotalLag, a.TotalLag); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// compareGroupAge is negative when a's oldest unprocessed record has
// waited longer: groups with lag and a known age first, oldest first, then
// groups with lag of no known age, then groups without lag.
func compareGroupAge(a, b *GroupSummary) int {
	ra, rb := groupAgeRank(a), groupAgeRank(b)
	if ra != rb || ra != 0 {
		return cmp.Compare(ra, rb)
	}
	return cmp.Compare(b.MaxLagAge, a.MaxLagAge)
}

func groupAgeRank(g *GroupSummary) int {
	switch {
	case g.TotalLag <= 0:
		return 2
	case g.MaxLagAgeKnown:
		return 0
	}
	return 1
}

// b2i is 1 for true: known counts sort before unknown ones.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
