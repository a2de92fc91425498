package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// ProfileEnv names the environment variable that turns on the profiling
// hook: KGWATCH_PPROF=127.0.0.1:6060 serves Go's profiles (net/http/pprof)
// at http://127.0.0.1:6060/debug/pprof/ while kgwatch runs, e.g.
//
//	go tool pprof -seconds 30 http://127.0.0.1:6060/debug/pprof/profile
//
// Only a loopback address is taken: profiles show what kgwatch holds
// (group and topic names, addresses), so they are not served to the
// network.
const ProfileEnv = "KGWATCH_PPROF"

// Profile serves the profiles at addr ("": the hook is off) until the
// stop it returns is called. An address that is not loopback, or one that
// cannot be listened on, is an error.
func Profile(addr string) (bound string, stop func(), err error) {
	if addr == "" {
		return "", func() {}, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, fmt.Errorf("%s=%q: want host:port on loopback (e.g. 127.0.0.1:6060): %w", ProfileEnv, addr, err)
	}
	if !loopback(host) {
		return "", nil, fmt.Errorf("%s=%q: profiles are served on loopback only (127.0.0.1, ::1 or localhost)", ProfileEnv, addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", ProfileEnv, err)
	}
	// A mux of its own: importing net/http/pprof registers on
	// http.DefaultServeMux, which nothing here serves.
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener closed under it: nothing to tell the watch
		}
	}()
	return ln.Addr().String(), func() { srv.Close() }, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
