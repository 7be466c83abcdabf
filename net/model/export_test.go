package model

import "github.com/dablot-zero/dablot/net"

// EvaluatorShape exposes an evaluator's threads, batch size and workspace
// to the external tests.
func EvaluatorShape(e *NetEvaluator) (threads, maxBatch int, ws *net.Workspace) {
	return e.threads, e.maxBatch, e.ws
}
