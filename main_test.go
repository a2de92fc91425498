package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/kgwatch/kgwatch/kafka/demo"
)

func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-group", "g", "--bogus"}, "unknown flag: --bogus"},
		{"bad duration", []string{"-group", "g", "--interval", "soon"}, `invalid argument "soon"`},
		{"bad timeout", []string{"-group", "g", "--timeout", "-1s"}, "--timeout must be positive"},
		{"unknown output", []string{"-group", "g", "--once", "-o", "yaml"}, `unknown output format "yaml"`},
		{"no group", []string{"--once"}, "--group is required"},
		{"once and events", []string{"-g", "g", "--once", "--events"}, "do not go together"},
		{"stray argument", []string{"-g", "g", "extra"}, `unexpected argument "extra"`},
		{"demo bad partitions", []string{"demo", "--partitions", "0"}, "--partitions must be at least 1"},
		{"demo unknown flag", []string{"demo", "--nope"}, "unknown flag: --nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runArgs(tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not say %q", stderr, tt.want)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
				t.Errorf("error is %d lines, want one: %q", n+1, stderr)
			}
		})
	}
}

func TestSingleDashLongFlags(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	group := fs.StringP("group", "g", "", "")
	brokers := fs.StringP("brokers", "b", "", "")
	out := fs.StringP("output", "o", "", "")
	once := fs.Bool("once", false, "")
	if err := fs.Parse(longFlags(fs, []string{"-group", "order-workers", "-brokers=h:9092", "-o", "json", "-once"})); err != nil {
		t.Fatal(err)
	}
	if *group != "order-workers" || *brokers != "h:9092" || *out != "json" || !*once {
		t.Errorf("group=%q brokers=%q output=%q once=%v", *group, *brokers, *out, *once)
	}
	if got := longFlags(fs, []string{"--", "-group"}); got[1] != "-group" {
		t.Errorf("rewrote past --: %v", got)
	}
}

func TestVersionFallsBackToBuildInfo(t *testing.T) {
	code, out, _ := runArgs("--version")
	if code != 0 || !strings.HasPrefix(out, "kgwatch ") {
		t.Errorf("exit %d, %q", code, out)
	}
}

func TestVersionFromLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "kgwatch")
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X main.version=v9.9.9 -X main.commit=abc123 -X main.date=2026-11-29", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "kgwatch v9.9.9 (commit abc123, built 2026-11-29)" {
		t.Errorf("--version = %q", got)
	}
}

func TestOnceNoBroker(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now

	start := time.Now()
	code, _, stderr := runArgs("-group", "g", "-brokers", addr, "--once", "--timeout", "2s")
	if code != exitRuntime {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(stderr, addr) {
		t.Errorf("error does not name %s: %q", addr, stderr)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("took %s with --timeout 2s", d)
	}
}

// startDemo runs the embedded demo cluster with its consumers and waits
// until the group has both of them.
func startDemo(t *testing.T) *demo.Demo {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := demo.Start(ctx, demo.Config{Consumers: 2, Rate: 20, ProcessTime: time.Millisecond}, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(); cancel() })
	return d
}

func TestOnceAgainstDemoCluster(t *testing.T) {
	d := startDemo(t)
	brokers := strings.Join(d.Brokers(), ",")

	var snap struct {
		Group   string `json:"group"`
		State   string `json:"state"`
		TakenAt string `json:"taken_at"`
		Members []struct {
			ClientID string `json:"client_id"`
		} `json:"members"`
		Partitions []struct {
			Topic     string  `json:"topic"`
			ClientID  *string `json:"client_id"`
			Committed *int64  `json:"committed"`
			LogEnd    int64   `json:"log_end"`
		} `json:"partitions"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, out, stderr := runArgs("-group", "order-workers", "-brokers", brokers, "--once", "-o", "json")
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &snap); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			if snap.State == "Stable" && len(snap.Members) == 2 && len(snap.Partitions) == 3 {
				break
			}
		} else if !strings.Contains(stderr, "does not exist") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if time.Now().After(deadline) {
			t.Fatalf("group never had 2 members on 3 partitions; last: %+v", snap)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := time.Parse(time.RFC3339, snap.TakenAt); err != nil {
		t.Errorf("taken_at %q: %v", snap.TakenAt, err)
	}
	for _, p := range snap.Partitions {
		if p.Topic != "order-rebalancing" || p.ClientID == nil || !strings.HasPrefix(*p.ClientID, "consumer-") {
			t.Errorf("partition %+v", p)
		}
	}

	code, out, stderr := runArgs("-group", "order-workers", "-brokers", brokers, "--once")
	if code != 0 || !strings.Contains(out, "CURRENT-OFFSET") || !strings.Contains(out, "order-rebalancing") {
		t.Errorf("table: exit %d\n%s%s", code, out, stderr)
	}

	code, _, stderr = runArgs("-group", "no-such-group", "-brokers", brokers, "--once")
	if code != exitRuntime || strings.TrimSpace(stderr) != "Error: Consumer group 'no-such-group' does not exist." {
		t.Errorf("missing group: exit %d, %q", code, stderr)
	}
}

func TestMain(m *testing.M) {
	os.Unsetenv("KAFKA_BROKERS")
	os.Exit(m.Run())
}
