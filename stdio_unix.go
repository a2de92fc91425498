//go:build unix

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// stdoutClosed reports whether kgwatch was started with its stdout closed
// (`kgwatch --once >&-`). The Go runtime opens /dev/null read-write on a
// standard descriptor it finds closed at start (runtime.checkfds), so
// writes to it would vanish and a failed --once exit 0; a shell's
// `>/dev/null` opens it write-only, so read-write /dev/null on stdout is
// taken for the runtime's stand-in.
func stdoutClosed() bool {
	fl, err := unix.FcntlInt(os.Stdout.Fd(), unix.F_GETFL, 0)
	if err != nil {
		return true
	}
	if fl&unix.O_ACCMODE != unix.O_RDWR {
		return false
	}
	var out, null unix.Stat_t
	if unix.Fstat(int(os.Stdout.Fd()), &out) != nil || unix.Stat(os.DevNull, &null) != nil {
		return false
	}
	return out.Mode&unix.S_IFMT == unix.S_IFCHR && out.Rdev == null.Rdev
}
