package cli

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestProfile: KGWATCH_PPROF on a loopback address serves the profile
// index and a heap profile; off without it; refused off loopback or
// malformed.
func TestProfile(t *testing.T) {
	bound, stop, err := Profile("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1"} {
		res, err := http.Get("http://" + bound + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("GET %s: %s, %d bytes", path, res.Status, len(body))
		}
	}
	if b, stop, err := Profile(""); err != nil || b != "" {
		t.Errorf("no address: %q %v, want the hook off", b, err)
	} else {
		stop()
	}
	for _, addr := range []string{"0.0.0.0:6060", "10.1.2.3:6060", ":6060", "6060", "example.com:6060"} {
		if _, _, err := Profile(addr); err == nil || !strings.Contains(err.Error(), ProfileEnv) {
			t.Errorf("%q: %v, want refused", addr, err)
		}
	}
}
