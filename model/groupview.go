package model

import (
	"cmp"
	"slices"
	"strings"
)

// GroupSortKey orders the overview of groups.
type GroupSortKey int

// Group sort keys, in the order the `o` key cycles through them.
const (
	// GroupsByLag: most total lag first (the default).
	GroupsByLag GroupSortKey = iota
	// GroupsByMaxLag: the group with the most lagging partition first.
	GroupsByMaxLag
	// GroupsByState: the groups in trouble first: unreadable, gone or of
	// unknown state, then empty with lag, rebalancing, then the rest.
	GroupsByState
	// GroupsByName: by group id.
	GroupsByName
	numGroupSortKeys
)

// String names the key for the overview's title.
func (k GroupSortKey) String() string {
	switch k {
	case GroupsByLag:
		return "total lag"
	case GroupsByMaxLag:
		return "max lag"
	case GroupsByState:
		return "state"
	case GroupsByName:
		return "name"
	}
	return "?"
}

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
// occur in the group id or its state, ignoring case) and, with onlyLag,
// have lag, sorted by key; ties go to the larger total lag, then the id.
// gs is not modified.
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
			if !containsFold(g.ID, w) && !containsFold(g.State, w) && !containsFold(g.StateText(), w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, *g)
		}
	}
	slices.SortStableFunc(out, func(a, b GroupSummary) int {
		var c int
		switch key {
		case GroupsByMaxLag:
			c = cmp.Compare(b.MaxLag, a.MaxLag)
		case GroupsByState:
			c = cmp.Compare(stateRank(&b), stateRank(&a))
		case GroupsByName:
			c = strings.Compare(a.ID, b.ID)
		}
		if c != 0 {
			return c
		}
		if c := cmp.Compare(b.TotalLag, a.TotalLag); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}
