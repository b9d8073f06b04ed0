package verify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/verify"
	"github.com/labhub/labmate/labs/gpuincident"
)

// A lab whose check lets a wrong value through is caught by its own
// near-misses: gpu-incident with the drop-in's version rule taken out
// (its step 2 then passes a drop-in that says version 1) fails
// `--mutants`, naming the survivor. File steps only: no cluster needed.
func TestMutantsCatchALoosenedRule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the gpu-incident file steps' proof with their mutants")
	}
	text, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	code := gpuincident.Code
	inner := code.Steps
	code.Steps = func() []checks.Step {
		steps := inner()
		for i, s := range steps {
			if s.ID != "dropin" {
				continue
			}
			eval := s.Eval
			steps[i].Eval = func(in checks.Input) checks.StepEval {
				ev := eval(in)
				ev.Checks = slices.DeleteFunc(ev.Checks, func(r checks.Result) bool { return r.ID == "dropin.version" })
				return ev
			}
		}
		return steps
	}
	// verify.toml's wrong answer for the rule goes with it: the proof's
	// own cases would name it otherwise, not the mutants.
	for i, vs := range text.Verify.Steps {
		if vs.ID == "dropin" {
			text.Verify.Steps[i].Wrong = slices.DeleteFunc(slices.Clone(vs.Wrong), func(w content.Wrong) bool { return w.Check == "version" })
		}
	}
	lab, err := labkit.Compile(text, &code)
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Run(context.Background(), verify.Options{Lab: lab, Cluster: kube.Target{Off: true}, Mutants: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() {
		t.Fatal("the proof held with the version rule gone")
	}
	var survivors []string
	for _, r := range res.Rows {
		if !r.OK && !r.Skipped && r.Step == 2 && strings.HasPrefix(r.Seen, "field ") {
			survivors = append(survivors, r.Seen)
		}
	}
	want := "field etc/containerd/conf.d/99-nvidia.toml set version 1"
	if !slices.Contains(survivors, want) {
		t.Errorf("survivors of step 2 %q, want %q among them", survivors, want)
	}
	for _, r := range res.Rows {
		if !r.OK && !r.Skipped && r.Step != 2 {
			t.Errorf("step %d: %s: %s (only step 2 was loosened)", r.Step, r.Case, r.Seen)
		}
	}
}
