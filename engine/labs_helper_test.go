package engine_test

import (
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/labkit"
)

// gpuSteps are the GPU incident lab's steps, as labmate runs them.
func gpuSteps(tb testing.TB) []checks.Step {
	tb.Helper()
	l, err := labkit.Open("gpu-incident")
	if err != nil {
		tb.Fatal(err)
	}
	return l.Steps
}
