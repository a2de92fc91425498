package model

import "testing"

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1 kB", 999_999: "999 kB", 1_000_000: "1.0 MB", 12_345_678: "12.3 MB", 123_456_789: "123 MB", 4_500_000_000: "4.5 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
