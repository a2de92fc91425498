package model

import (
	"strconv"
	"strings"
	"time"
)

// The formatters every view shares, so a number, a duration or a list of
// partitions reads the same in the table, the header, the timeline, the
// JSON's sentences and `--once`.

// Count writes n and its noun, plural when n is not 1: "1 member",
// "3 partitions".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Thousands writes n with thousands separators: 1234567 → "1,234,567".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	if len(s) <= 3 {
		if neg {
			return "-" + s
		}
		return s
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	pre := len(s) % 3
	b.WriteString(s[:pre])
	for i := pre; i < len(s); i += 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Offset writes an offset, "-" when unknown or never committed.
func Offset(o int64) string {
	if o < 0 {
		return "-"
	}
	return strconv.FormatInt(o, 10)
}

// Age writes how long something has lasted or waited, compactly, as the
// table and the header show lag ages and times since: "0s", "0.4s",
// "12s", "3m05s", "2h10m", "2d04h".
func Age(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m" + pad2(int(d%time.Minute/time.Second)) + "s"
	case d < 24*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h" + pad2(int(d%time.Hour/time.Minute)) + "m"
	default:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d" + pad2(int(d%(24*time.Hour)/time.Hour)) + "h"
	}
}

// Since is how long ago something happened, as Age writes it but to the
// tenth below 10s even at 0: "updated 0.0s ago" (a moment), where Age's
// "0s" is no lag age at all. The headers and the timeline say "ago" so.
func Since(d time.Duration) string { return Age(max(d, time.Nanosecond)) }

// Elapsed writes how long a thing took, as precisely as a person reads it:
// "0.41s", "12.4s", "3m12s".
func Elapsed(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return strconv.FormatFloat(max(d, 0).Seconds(), 'f', 2, 64) + "s"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	default:
		return d.Round(time.Second).String()
	}
}

// Countdown writes the time left, in seconds with one decimal, so it moves
// visibly every tenth: "7.3s", "12.0s".
func Countdown(d time.Duration) string {
	return strconv.FormatFloat(max(d, 0).Seconds(), 'f', 1, 64) + "s"
}

// Setting writes a configured duration without trailing zero units: "10s",
// "1m30s", "250ms", "10m", "1h".
func Setting(d time.Duration) string {
	s := d.String()
	for _, z := range []string{"m0s", "h0m"} {
		if len(s) > len(z) && strings.HasSuffix(s, z) {
			s = s[:len(s)-2]
		}
	}
	return s
}

// Bytes writes a size as people read it: "812 B", "34 kB", "1.2 MB".
func Bytes(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1_000_000:
		return strconv.FormatInt(n/1000, 10) + " kB"
	case n < 100_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	case n < 1_000_000_000:
		return strconv.FormatInt(n/1_000_000, 10) + " MB"
	}
	return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + " GB"
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// PartName names a partition: "p3", or "orders/p3" when the partitions
// around it are of several topics.
func PartName(tp TopicPartition, multiTopic bool) string {
	return string(appendPartName(nil, tp, multiTopic))
}

func appendPartName(b []byte, tp TopicPartition, multi bool) []byte {
	if multi {
		b = append(b, tp.Topic...)
		b = append(b, '/')
	}
	b = append(b, 'p')
	return strconv.AppendInt(b, int64(tp.Partition), 10)
}

// PartitionList writes sorted partitions compactly, runs as ranges: "p0–p2,
// p5", "orders/p0–p1, payments/p3"; after six runs "… (40 in all)"; "none"
// for no partition.
func PartitionList(tps []TopicPartition, multiTopic bool) string {
	if len(tps) == 0 {
		return "none"
	}
	const maxRuns = 6
	var b strings.Builder
	runs := 0
	for i := 0; i < len(tps); {
		j := i + 1
		for j < len(tps) && tps[j].Topic == tps[i].Topic && tps[j].Partition == tps[j-1].Partition+1 {
			j++
		}
		if runs == maxRuns {
			b.WriteString(", … (" + strconv.Itoa(len(tps)) + " in all)")
			break
		}
		if runs > 0 {
			b.WriteString(", ")
		}
		b.WriteString(PartName(tps[i], multiTopic))
		if j-i > 1 {
			b.WriteString("–p" + strconv.Itoa(int(tps[j-1].Partition)))
		}
		runs++
		i = j
	}
	return b.String()
}

// MultiTopic reports whether tps span more than one topic.
func MultiTopic(tps []TopicPartition) bool {
	for _, tp := range tps {
		if tp.Topic != tps[0].Topic {
			return true
		}
	}
	return false
}
