package verify_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/kube"
	"github.com/labhub/labmate/labkit"
	"github.com/labhub/labmate/labkit/verify"
	"github.com/labhub/labmate/labs/gpuincident"
)

// A lane that fails to make its sandbox is left out with a line: the
// proof decides every near-miss as a proof without lanes does, and a lane
// that made something is released. File steps only: no cluster needed
// (the lanes at work, on two sandboxes: e2e's
// TestMutantsCatchALoosenedLabRule).
func TestLanesThatGiveNoSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the gpu-incident file steps' proof with their mutants, twice")
	}
	text, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	code := gpuincident.Code
	lab, err := labkit.Compile(text, &code)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := func(res verify.Result) []string {
		var out []string
		for _, m := range res.Mutants {
			out = append(out, fmt.Sprintf("%d %s: %s %s", m.Step, m.Desc, m.Outcome, m.By))
		}
		return out
	}
	alone, err := verify.Run(context.Background(), verify.Options{Lab: lab, Cluster: kube.Target{Off: true}, Mutants: true})
	if err != nil {
		t.Fatal(err)
	}
	released := false
	var progress bytes.Buffer
	res, err := verify.Run(context.Background(), verify.Options{Lab: lab, Cluster: kube.Target{Off: true}, Mutants: true, Progress: &progress,
		Lanes: []verify.Lane{
			func(context.Context) (kube.Target, func(), error) { return kube.Target{}, nil, errors.New("no room") },
			func(context.Context) (kube.Target, func(), error) {
				return kube.Target{Off: true}, func() { released = true }, nil
			},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || !alone.OK() {
		t.Fatalf("the proof did not hold: with lanes %v, alone %v", res.OK(), alone.OK())
	}
	if got, want := strings.Join(verdicts(res), "\n"), strings.Join(verdicts(alone), "\n"); got != want || got == "" {
		t.Errorf("near-misses with lanes that gave no sandbox:\n%s\nwant, as alone:\n%s", got, want)
	}
	// The file steps' near-misses are all judged from their files: the
	// lane that gave a target never had to connect to it.
	if want := content.Msg("verify.progress.lane_failed", "lane", 2, "err", "no room"); !strings.Contains(progress.String(), want) {
		t.Errorf("no line %q in the progress:\n%s", want, progress.String())
	}
	if !released {
		t.Error("the lane that gave a target was not released")
	}
}
