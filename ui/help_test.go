package ui

import (
	"fmt"
	"strings"
	"testing"
)

// The short help's last keys are the ones a newcomer looks for: at every
// size, in demo mode too (whose keys come first), "? help" and "q quit"
// stay on screen and the other keys give way.
func TestShortHelpKeepsHelpAndQuit(t *testing.T) {
	for _, demo := range []bool{false, true} {
		for _, sz := range append(sizes, [2]int{60, 20}, [2]int{100, 30}) {
			t.Run(fmt.Sprintf("demo=%v_%dx%d", demo, sz[0], sz[1]), func(t *testing.T) {
				clk := &clock{t: t0}
				src := &fakeSource{results: []pollResult{{snap: stableSnapshot()}}}
				var a *App
				if demo {
					a = demoApp(t, src, newFakeDemo(), clk, sz[0], sz[1])
				} else {
					a = testApp(t, src, clk, sz[0], sz[1])
				}
				out := plain(a)
				checkFits(t, out, sz[0], sz[1])
				lines := strings.Split(out, "\n")
				last := lines[len(lines)-1]
				if !strings.HasSuffix(strings.TrimRight(last, " "), "? help • q quit") {
					t.Errorf("help line does not end in \"? help • q quit\": %q", last)
				}
			})
		}
	}
}
