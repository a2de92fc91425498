package model

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// hostileClientID is the client.id of issue 11: it would set the window
// title, clear the screen, write the clipboard and leave the alternate
// screen if printed raw.
const hostileClientID = "evil\x1b]0;PWNED\x07\x1b[2J\x1b[31m\nNEWLINE\r\x1b[1;1HOVERWRITE\x1b]52;c;cHduZWQ=\x07\x1b[?1049l"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"consumer-a", "consumer-a"},
		{"", ""},
		{"명령어 ünïcödé 表", "명령어 ünïcödé 表"},
		{"a\x1b[31mb", "a␛[31mb"},
		{"line\nbreak\r\t", "line␊break␍␉"},
		{"del\x7f", "del␡"},
		{"c1 \u009b2J", `c1 \u009b2J`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"tag\U000E0041", `tag\U000e0041`},
		{"emoji\u2764\ufe0f", `emoji` + "\u2764" + `\ufe0f`},
		{"bad\xffutf8", `bad\xffutf8`},
		{"sep\u2028", `sep\u2028`},
		{hostileClientID, "evil␛]0;PWNED␇␛[2J␛[31m␊NEWLINE␍␛[1;1HOVERWRITE␛]52;c;cHduZWQ=␇␛[?1049l"},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if IsPrintable(tc.in) != (tc.in == tc.want) {
			t.Errorf("IsPrintable(%q) = %v", tc.in, IsPrintable(tc.in))
		}
	}
	// The control pictures are one cell each, so a sanitized name is as
	// wide as the layout measures it.
	if w := ansi.StringWidth(Printable("\x1b\n\r\t\x7f")); w != 5 {
		t.Errorf("width of control pictures = %d, want 5", w)
	}
}

// assertTerminalSafe fails when s holds a byte or rune that drives a
// terminal: C0 (but for newline when lines are allowed), DEL, C1, format
// characters, invalid UTF-8.
func assertTerminalSafe(t *testing.T, what, s string, newlines bool) {
	t.Helper()
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			t.Fatalf("%s: invalid UTF-8 at byte %d: %q", what, i, s)
		case r == '\n' && newlines:
		case r < 0x20 || r == 0x7f:
			t.Fatalf("%s: control %U at byte %d: %q", what, r, i, s)
		case unsafeRune(r):
			t.Fatalf("%s: unsafe rune %U at byte %d: %q", what, r, i, s)
		}
		i += n
	}
}

func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"consumer-a", hostileClientID, "\u202e\u0085\xff\x00", "表\u0301", "c\r ALL-GOOD   9 ✓ OK  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := Printable(s)
		assertTerminalSafe(t, "Printable", p, false)
		if Printable(p) != p {
			t.Fatalf("Printable is not idempotent: %q → %q → %q", s, p, Printable(p))
		}
		if IsPrintable(s) != (p == s) {
			t.Fatalf("IsPrintable(%q) = %v but Printable changes it to %q", s, IsPrintable(s), p)
		}
		// JSON keeps the true string and stays safe to print.
		b, err := json.Marshal(map[string]string{"client_id": s})
		if err != nil {
			t.Fatal(err)
		}
		safe := SafeJSON(b)
		assertTerminalSafe(t, "SafeJSON", string(safe), false)
		var back, want map[string]string
		if err := json.Unmarshal(safe, &back); err != nil {
			t.Fatalf("SafeJSON output is not JSON: %v: %s", err, safe)
		}
		_ = json.Unmarshal(b, &want)
		if back["client_id"] != want["client_id"] {
			t.Fatalf("SafeJSON changed the value: %q, want %q", back["client_id"], want["client_id"])
		}
	})
}

// A character keeps a few combining marks (scripts stack them); past
// maxMarks in a row they are written as escapes, so one letter with 900
// marks cannot smear over the rows around it.
func TestPrintableCapsCombiningMarks(t *testing.T) {
	vi := "Việt Nam ế ộ" // one or two marks a letter (decomposed: e + U+0302 + U+0301)
	if got := Printable("e\u0302\u0301"); got != "e\u0302\u0301" {
		t.Errorf("two marks: %q", got)
	}
	if got := Printable(vi); got != vi {
		t.Errorf("Vietnamese changed: %q", got)
	}
	zalgo := "Z" + strings.Repeat("\u0336", 900) + "ok"
	got := Printable(zalgo)
	if want := "Z" + strings.Repeat("\u0336", maxMarks) + strings.Repeat(`\u0336`, 900-maxMarks) + "ok"; got != want {
		t.Errorf("900 marks: %q…", got[:min(len(got), 40)])
	}
	if IsPrintable(zalgo) || !IsPrintable("Z"+strings.Repeat("\u0336", maxMarks)) {
		t.Error("IsPrintable disagrees with Printable on marks")
	}
	// Marks counted across the first unsafe character too.
	if got := Printable("\x1b" + "a" + strings.Repeat("\u0301", 6)); got != "␛a"+strings.Repeat("\u0301", maxMarks)+`\u0301\u0301` {
		t.Errorf("after an escape: %q", got)
	}
}

// SafeJSON escapes the marks Printable escapes; the decoded string is
// unchanged.
func TestSafeJSONCapsCombiningMarks(t *testing.T) {
	name := "Z" + strings.Repeat("\u0336", 50)
	b, _ := json.Marshal(name)
	safe := SafeJSON(b)
	var back string
	if err := json.Unmarshal(safe, &back); err != nil || back != name {
		t.Fatalf("decoded %q, %v", back, err)
	}
	if strings.Count(string(safe), "\u0336") != maxMarks || !strings.Contains(string(safe), `\u0336`) {
		t.Errorf("SafeJSON kept %d raw marks", strings.Count(string(safe), "\u0336"))
	}
}
