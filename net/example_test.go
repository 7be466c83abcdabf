package net_test

import (
	"fmt"

	"github.com/dablot-zero/dablot/net"
)

// Every move of the policy head has one index: the point it starts from,
// the direction, and whether it is a step or a capture jump. The last
// index, StopIndex, ends a capture chain.
func ExamplePolicyIndex() {
	const points = 72
	i := net.PolicyIndex(30, net.DirNE, true)
	p, d, jump, ok := net.DecodePolicyIndex(points, i)
	fmt.Println(i, p, d == net.DirNE, jump, ok)
	_, _, _, ok = net.DecodePolicyIndex(points, net.StopIndex(points))
	fmt.Println(net.PolicySize(points), net.StopIndex(points), ok)
	// Output:
	// 483 30 true true true
	// 1153 1152 false
}
