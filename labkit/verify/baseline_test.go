package verify

import (
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/engine"
)

// A resumed run is used only when it shows every step and check as the
// kept one did.
func TestSameShownComparesEveryStepAndCheck(t *testing.T) {
	rep := func(second checks.Status) engine.Report {
		return engine.Report{Steps: []engine.StepResult{
			{Number: 1, Status: checks.Passed, Checks: []checks.Result{{ID: "a.x", Status: checks.Passed}}},
			{Number: 2, Status: checks.Failed, Checks: []checks.Result{{ID: "b.x", Status: checks.Passed}, {ID: "b.y", Status: second}}},
		}}
	}
	if !sameShown(shownOf(rep(checks.Failed)), shownOf(rep(checks.Failed))) {
		t.Error("the same report is not shown the same")
	}
	if sameShown(shownOf(rep(checks.Failed)), shownOf(rep(checks.Waiting))) {
		t.Error("a check failed in one and waiting in the other is shown the same")
	}
}

// What a resumed run remembers is its own copy: a fact it learns does
// not reach the kept baseline.
func TestCloneWitnessIsACopy(t *testing.T) {
	kept := checks.Witness{Facts: map[string]checks.WitnessFact{"1/seen": {Value: "x"}}}
	c := cloneWitness(kept)
	c.Set("2/seen", checks.WitnessFact{Value: "y"})
	if _, ok := kept.Get("2/seen"); ok {
		t.Error("a fact set on the copy reached the kept memory")
	}
}
