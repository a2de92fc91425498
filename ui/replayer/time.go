package replayer

import (
	"math"
	"time"

	"github.com/kgwatch/kgwatch/model"
	"github.com/kgwatch/kgwatch/model/record"
)

// playTime is an offset into a recording as the flags take it: "1m30s".
func playTime(d time.Duration) string { return model.Setting(d.Round(100 * time.Millisecond)) }

// recordingTime reads --at or --from: an offset from the recording's
// start (1m30s), an RFC 3339 time, or a clock time (15:04:05, 15:04,
// local time) on the recording's day nearest to it: the first day it is
// inside the recording, else the day it is nearest to its start or end.
// A time before the start is a model.UsageError that gives the span;
// past its last good record is its end (past says so).
func recordingTime(s, flag string, sum record.Summary) (t time.Time, past bool, err error) {
	start := sum.Header.Started
	end := sum.Last
	if end.Before(start) {
		end = start
	}
	if s == "" {
		return end, false, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		t = start.Add(d)
	} else if at, err := time.Parse(time.RFC3339Nano, s); err == nil {
		t = at
	} else if c, ok := clockTime(s); ok {
		t = nearestDay(c, start, end)
	} else {
		return t, false, model.Usagef("%s %q: want an offset from the start (1m30s), a clock time (03:12:40) or an RFC 3339 time", flag, s)
	}
	if t.Before(start) {
		return t, false, model.Usagef("%s %s is before the recording: it runs from %s to %s (%s)", flag, s,
			start.Local().Format("2006-01-02 ")+clockOf(start, t), clockOf(end, time.Time{}), playTime(end.Sub(start)))
	}
	return t, t.After(end), nil
}

// nearestDay is the clock time c on the local day nearest to the span
// from start to end: the first day it falls inside it, else the one it
// is nearest to the span on.
func nearestDay(c, start, end time.Time) time.Time {
	st, en := start.Local(), end.Local()
	day := time.Date(st.Year(), st.Month(), st.Day()-1, 0, 0, 0, 0, time.Local)
	var best time.Time
	var bestDist time.Duration = -1
	for !day.After(en.AddDate(0, 0, 1)) {
		t := time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), time.Local)
		var dist time.Duration
		switch {
		case t.Before(start):
			dist = start.Sub(t)
		case t.After(end):
			dist = t.Sub(end)
		}
		if bestDist < 0 || dist < bestDist {
			best, bestDist = t, dist
		}
		if dist == 0 {
			break
		}
		day = day.AddDate(0, 0, 1)
	}
	return best
}

// clockOf is t's local clock time with the fewest digits of a second
// that tell it from other (zero: to the second): a recording that starts
// at 11:20:14.3 does not start at 11:20:14.
func clockOf(t, other time.Time) string {
	layout := "15:04:05"
	for d := range 10 {
		unit := time.Duration(math.Pow10(9 - d))
		lo := t.Truncate(unit)
		if other.IsZero() || other.Before(lo) || !other.Before(lo.Add(unit)) {
			break
		}
		if d == 0 {
			layout += "."
		}
		layout += "0"
	}
	return t.Local().Format(layout)
}

func clockTime(s string) (time.Time, bool) {
	for _, layout := range []string{"15:04:05.999999999", "15:04:05", "15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
