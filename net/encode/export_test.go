package encode

// The tactical planes, for tests.
const (
	PlaneThreatened  = planeThreatened
	PlaneTakeable    = planeTakeable
	PlaneCaptureEnds = planeCaptureEnds
	PlaneThreatEnds  = planeThreatEnds
)
