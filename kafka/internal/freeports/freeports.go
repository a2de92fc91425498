// Package freeports hands tests loopback ports to start brokers on,
// below the kernel's ephemeral range (Linux: 32768 and up).
//
// A port the kernel picks for a listener (":0") and that is closed again
// lies in the range it also gives outgoing connections their local ports
// from: before the test's broker binds it, any connection another test
// opens may take it ("address already in use"). A port below the range is
// never taken so; each package's tests draw from their own block, and a
// process never hands out one port twice, so tests running at once do not
// collide either.
package freeports

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// Block is a range of ports, [Lo, Hi), below the ephemeral range.
type Block struct{ Lo, Hi int }

// The blocks of the packages whose tests start brokers on given ports,
// or want an address nothing listens on (no listener asking the kernel
// for a port is given one of these).
var (
	Kafka = Block{20000, 26000}
	Demo  = Block{26000, 32000}
)

var handed = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// Take returns n ports of b, each free on 127.0.0.1 when taken and
// handed out once a process.
func Take(b Block, n int) ([]int, error) {
	handed.Lock()
	defer handed.Unlock()
	ports := make([]int, 0, n)
	for tries := 0; len(ports) < n; tries++ {
		if tries == 1000 {
			return nil, fmt.Errorf("no free port in %d-%d after %d tries", b.Lo, b.Hi, tries)
		}
		p := b.Lo + rand.IntN(b.Hi-b.Lo)
		if handed.ports[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		l.Close()
		handed.ports[p] = true
		ports = append(ports, p)
	}
	return ports, nil
}
