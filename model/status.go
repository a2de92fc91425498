package model

import "strings"

// Status is the verdict on one partition, or on a group (its worst
// partition). The string values are part of the JSON contract.
type Status string

// Partition statuses; judge (verdict.go) gives them.
const (
	// StatusOK: nothing to act on.
	StatusOK Status = "OK"
	// StatusLagging: the oldest unprocessed record has waited past the
	// partition's allowance (see lagging in verdict.go).
	StatusLagging Status = "LAGGING"
	// StatusUnowned: lag > 0, no member owns the partition while the group
	// has members and is not rebalancing.
	StatusUnowned Status = "UNOWNED"
	// StatusStalled: lag > 0 and the committed offset has not moved for
	// HistoryOptions.StallAfter (or 1.5 times the partition's commit
	// cadence, when longer).
	StatusStalled Status = "STALLED"
	// StatusRewound: the committed offset went backwards (a reset to an
	// earlier offset, or a commit from a stale member); it sticks for one
	// rates window so a single poll does not hide it.
	StatusRewound Status = "REWOUND"
	// StatusStopped: the group is Empty while the partition has lag.
	StatusStopped Status = "STOPPED"
)

// Statuses returns every status from best to worst.
func Statuses() []Status {
	return []Status{StatusOK, StatusLagging, StatusUnowned, StatusStalled, StatusRewound, StatusStopped}
}

// Severity orders statuses, higher is worse; an unknown or empty status is
// 0, below OK.
//
// The order answers "what should the on-call engineer look at first":
//
//   - STOPPED: nobody consumes at all (the group is Empty), so every other
//     verdict is moot and nothing recovers without a human starting a
//     consumer.
//   - REWOUND: someone moved the committed offset backwards. Messages are
//     being (or will be) processed twice; that is a correctness problem, not
//     a latency one, and it is short-lived evidence that must not be
//     masked.
//   - STALLED: a member holds the partition but makes no progress (poison
//     message, hung handler). It will not recover by itself and nobody else
//     can take the partition while the owner keeps heartbeating.
//   - UNOWNED: lag with no owner. Usually a rebalance leftover or a topic the
//     group no longer subscribes to; nothing is processing it, but a
//     rebalance may fix it, and it is often intended.
//   - LAGGING: the consumer is working but losing ground; a capacity problem
//     that degrades gradually.
//   - OK.
func (s Status) Severity() int {
	switch s {
	case StatusOK:
		return 1
	case StatusLagging:
		return 2
	case StatusUnowned:
		return 3
	case StatusStalled:
		return 4
	case StatusRewound:
		return 5
	case StatusStopped:
		return 6
	}
	return 0
}

// ParseStatus reads a status by its word, in any case ("lagging",
// "STALLED"); false for a word that names none.
func ParseStatus(word string) (Status, bool) {
	for _, s := range Statuses() {
		if strings.EqualFold(word, string(s)) {
			return s, true
		}
	}
	return "", false
}

// AtLeast reports whether s is threshold or worse; never for an empty
// threshold (no threshold set).
func (s Status) AtLeast(threshold Status) bool {
	return threshold != "" && s.Severity() >= threshold.Severity()
}

// Worse reports whether s is more severe than o.
func (s Status) Worse(o Status) bool { return s.Severity() > o.Severity() }

// Glyph returns a one-cell symbol for the status, so meaning never rides on
// colour alone. All are outside Unicode's East Asian Ambiguous class and have
// no emoji presentation, so they stay one cell wide in CJK locales too
// (▲ and ■ would be two cells there; ⏸ and ⏹ turn into emoji in some
// terminals).
func (s Status) Glyph() string {
	switch s {
	case StatusOK:
		return "✓" // U+2713
	case StatusLagging:
		return "▴" // U+25B4
	case StatusUnowned:
		return "?"
	case StatusStalled:
		return "▮" // U+25AE
	case StatusRewound:
		return "↺" // U+21BA
	case StatusStopped:
		return "⊘" // U+2298
	}
	return "-"
}

// Label returns the glyph and the word, "▴ LAGGING"; "-" when unknown.
func (s Status) Label() string {
	if s.Severity() == 0 {
		return "-"
	}
	return s.Glyph() + " " + string(s)
}
