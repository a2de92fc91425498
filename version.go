package main

import (
	"fmt"
	"runtime/debug"

	"github.com/kgwatch/kgwatch/model/record"
)

// Set by the release build with -ldflags -X.
var (
	version = ""
	commit  = ""
	date    = ""
)

// versionString reports the version set at build time, or what the Go
// toolchain recorded when built without -ldflags.
func versionString() string {
	v, c, d := version, commit, date
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time" && d == "":
				d = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return fmt.Sprintf("kgwatch %s (commit %s, built %s)", v, orUnknown(c), orUnknown(d))
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// versioned is h naming the kgwatch that records it.
func versioned(h record.Header) record.Header {
	h.Kgwatch = versionString()
	return h
}
