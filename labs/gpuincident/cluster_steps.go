package gpuincident

import "github.com/labhub/labmate/checks"

// Steps 5-8 of the GPU incident lab: the learner's manifests and reports,
// compared with live cluster objects (cluster_*.go).
var (
	stepRuntimeClassPending = checks.Step{
		Number: 5, ID: "runtimeclass-pending",
		Files:    []string{runtimeClassPath, gpuPodPath, unscheduledPath},
		Eval:     evalRuntimeClassPending,
		Remember: rememberUnschedulable,
	}
	stepAdvertiseGPU = checks.Step{
		Number: 6, ID: "advertise-gpu",
		Files: []string{nodeGPUPath},
		Eval:  evalAdvertiseGPU,
	}
	stepTimeSlicing = checks.Step{
		Number: 7, ID: "time-slicing",
		Files: []string{timeSlicingPath, slotsPath},
		Eval:  evalTimeSlicing,
	}
	stepRolloutStall = checks.Step{
		Number: 8, ID: "rollout-stall",
		Files:    []string{toolkitDSPath, rolloutPath},
		Eval:     evalRolloutStall,
		Remember: rememberToolkitReady,
	}
)
