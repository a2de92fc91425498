package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestPrint shows views while developing: KGW_PRINT=1 go test -run TestPrint -v ./ui/
func TestPrint(t *testing.T) {
	if os.Getenv("KGW_PRINT") == "" {
		t.Skip("set KGW_PRINT=1 to print views")
	}
	for _, sz := range [][2]int{{120, 40}, {80, 24}, {40, 10}} {
		clk := &clock{t: t0}
		src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
		a := testApp(t, src, clk, sz[0], sz[1])
		clk.Set(t0.Add(1500 * time.Millisecond))
		a.Update(staleTick(a))
		v := a.View().Content
		if os.Getenv("KGW_PRINT") == "plain" {
			v = plain(a)
		}
		fmt.Printf("---- %dx%d\n%s\n----\n", sz[0], sz[1], v)
	}
}

func TestPrintTiny(t *testing.T) {
	if os.Getenv("KGW_PRINT") == "" {
		t.Skip("set KGW_PRINT=1 to print views")
	}
	for _, sz := range [][2]int{{10, 3}, {1, 1}, {200, 5}, {20, 8}, {30, 12}, {60, 15}} {
		for _, st := range states[:1] {
			a, _ := buildState(t, st.polls, sz[0], sz[1])
			fmt.Printf("---- %s %dx%d\n%s|\n", st.name, sz[0], sz[1], strings.ReplaceAll(plain(a), "\n", "|\n"))
		}
	}
}
