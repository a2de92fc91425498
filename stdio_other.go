//go:build !unix

package main

// stdoutClosed reports whether kgwatch was started with its stdout closed;
// only told on Unix.
func stdoutClosed() bool { return false }
