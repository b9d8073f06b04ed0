package checks

// Placeholder until the cluster checks land; every step reports unknown.
var (
	stepRuntimeClassPending = Step{Number: 5, ID: "runtimeclass-pending"}
	stepAdvertiseGPU        = Step{Number: 6, ID: "advertise-gpu"}
	stepTimeSlicing         = Step{Number: 7, ID: "time-slicing"}
	stepRolloutStall        = Step{Number: 8, ID: "rollout-stall"}
)
