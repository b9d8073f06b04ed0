package checks

// Steps 5-8 of the GPU incident lab: the learner's manifests and reports,
// compared with live cluster objects (cluster_*.go).
var (
	stepRuntimeClassPending = Step{
		Number: 5, ID: "runtimeclass-pending",
		Files:    []string{runtimeClassPath, gpuPodPath, unscheduledPath},
		Eval:     evalRuntimeClassPending,
		Remember: rememberUnschedulable,
	}
	stepAdvertiseGPU = Step{
		Number: 6, ID: "advertise-gpu",
		Files: []string{nodeGPUPath},
		Eval:  evalAdvertiseGPU,
	}
	stepTimeSlicing = Step{
		Number: 7, ID: "time-slicing",
		Files: []string{timeSlicingPath, slotsPath},
		Eval:  evalTimeSlicing,
	}
	stepRolloutStall = Step{
		Number: 8, ID: "rollout-stall",
		Files:    []string{toolkitDSPath, rolloutPath},
		Eval:     evalRolloutStall,
		Remember: rememberToolkitReady,
	}
)
