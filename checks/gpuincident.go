package checks

// The GPU incident lab: steps 1-4 judge the learner's files
// (files_steps.go), steps 5-8 the live cluster as well (cluster_steps.go).
func init() {
	Labs["gpu-incident"] = []Step{
		stepMainConfig, stepDropIn, stepMergeVerdict, stepCheckScript,
		stepRuntimeClassPending, stepAdvertiseGPU, stepTimeSlicing, stepRolloutStall,
	}
}
