// Package labkittest holds what the tests of several packages need of the
// installed labs: a lab's steps as labmate runs them.
package labkittest

import (
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/state"
)

// Steps are an installed lab's steps, compiled as labmate runs them.
func Steps(tb testing.TB, id string) []checks.Step {
	tb.Helper()
	return open(tb, id).Steps
}

// Installed are every installed lab, each compiled without an authoring
// problem: a lab that does not load fails the test, instead of dropping
// out of it as it drops out of labkit.Installed.
func Installed(tb testing.TB) []*labkit.Lab {
	tb.Helper()
	var out []*labkit.Lab
	for _, id := range content.IDs() {
		out = append(out, open(tb, id))
	}
	if len(out) < 2 {
		tb.Fatalf("%d labs installed; the GPU incident lab and the driver-reboot lab must be", len(out))
	}
	return out
}

func open(tb testing.TB, id string) *labkit.Lab {
	tb.Helper()
	l, err := labkit.Open(id)
	if err != nil {
		tb.Fatalf("lab %s: %v", id, err)
	}
	if len(l.Problems) > 0 {
		tb.Fatalf("lab %s does not compile: %v", id, l.Problems)
	}
	return l
}

// GPUSteps are the GPU incident lab's steps.
func GPUSteps(tb testing.TB) []checks.Step { return Steps(tb, "gpu-incident") }

// Store is a learner's progress for kit's lab at root, kept in a
// temporary directory (the state keyed by the lab's ID, version and
// step IDs, as the command line keys it).
func Store(tb testing.TB, kit *labkit.Lab, root string) *state.Store {
	tb.Helper()
	steps := map[int]string{}
	for _, s := range kit.Text.Steps {
		steps[s.Number] = s.ID
	}
	store, err := state.OpenLab(tb.TempDir(), state.Lab{ID: kit.Text.ID, Version: kit.Text.Version, Steps: steps}, root)
	if err != nil {
		tb.Fatal(err)
	}
	return store
}
