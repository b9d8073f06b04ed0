// Package gpuincident is the Go half of the GPU incident lab
// (content/labs/gpu-incident): its steps need checks no declarative
// primitive covers (TOML merge semantics, a script run for real, live
// objects compared with the learner's manifests and reports). Steps 1-4
// judge the learner's files (files_*.go), steps 5-8 the live cluster as
// well (cluster_*.go).
package gpuincident

import (
	"sync"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
)

// ID is the lab's ID, its directory under content/labs.
const ID = "gpu-incident"

// Code is the lab's Go checks, listed in package labs.
var Code = checks.Code{Lab: ID, Steps: steps}

func steps() []checks.Step {
	return []checks.Step{
		stepMainConfig, stepDropIn, stepMergeVerdict, stepCheckScript,
		stepRuntimeClassPending, stepAdvertiseGPU, stepTimeSlicing, stepRolloutStall,
	}
}

// text is the lab's own Korean text.
var text = sync.OnceValue(func() *content.Lab {
	l, _ := content.Load(ID) // nil on error: Msg then shows shared text or the key
	return l
})

// msg is the lab's message for key; every key the checks use is a
// literal, so a test can find them all in the source.
func msg(key string, kv ...any) string { return text().Msg(key, kv...) }
