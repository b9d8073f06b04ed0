// Package labtest holds what the tests of several packages need of the
// installed labs: a lab's steps as labmate runs them.
package labtest

import (
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/labkit"
)

// Steps are an installed lab's steps, compiled as labmate runs them.
func Steps(tb testing.TB, id string) []checks.Step {
	tb.Helper()
	l, err := labkit.Open(id)
	if err != nil {
		tb.Fatal(err)
	}
	return l.Steps
}

// GPUSteps are the GPU incident lab's steps.
func GPUSteps(tb testing.TB) []checks.Step { return Steps(tb, "gpu-incident") }
