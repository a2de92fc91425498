package model

import (
	"fmt"
	"time"
)

// UsageError is a setting given wrong on the command line (a flag, its
// value, an argument): kgwatch exits 2 and points to its help.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef is a UsageError formatted as fmt.Sprintf formats.
func Usagef(format string, a ...any) error {
	return UsageError{fmt.Sprintf(format, a...)}
}

// CheckRange is a UsageError naming flag --name and the range it takes
// when d is outside [least, most]; nil inside it.
func CheckRange(name string, d, least, most time.Duration) error {
	if d < least || d > most {
		return Usagef("--%s must be from %s to %s, got %s", name, Setting(least), Setting(most), d)
	}
	return nil
}

// CheckMaxRebalances checks --max-rebalances (the watch's and the demo's).
func CheckMaxRebalances(n int) error {
	if n < 0 || n > MaxMaxRebalances {
		return Usagef("--max-rebalances must be 0 (no limit) or from 1 to %d, got %d", MaxMaxRebalances, n)
	}
	return nil
}
