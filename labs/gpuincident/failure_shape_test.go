package gpuincident_test

import (
	"regexp"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labs/gpuincident"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/trace"
)

// Every failing check, in every state the reference run passes through
// (from an empty lab root to all eight steps green, with the learner's
// files and the cluster half-way at each record), says what it expected
// and what it observed, in a message with no unfilled placeholder.
func TestEveryFailureSaysExpectedAndObserved(t *testing.T) {
	lab, err := content.Load(gpuincident.ID)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.ReferenceOf(lab)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Lab != lab.ID {
		t.Fatalf("the reference run was recorded on lab %q, not %q", tr.Header.Lab, lab.ID)
	}
	e := engine.New(engine.Config{Lab: lab, Steps: gpuincident.Code.Steps(), Root: tr.Header.Root})
	placeholder := regexp.MustCompile(`\{[a-z_]+\}`)
	seen := map[string]bool{}
	check := func(rep engine.Report) {
		for _, st := range rep.Steps {
			for _, c := range st.Checks {
				if c.Status != checks.Passed && c.Message == "" {
					t.Errorf("step %d %s is %s without a message", st.Number, c.ID, c.Status)
				}
				if c.Status != checks.Failed || seen[c.ID+c.Message] {
					continue
				}
				seen[c.ID+c.Message] = true
				if c.Message == "" || c.Expected == "" || c.Observed == "" {
					t.Errorf("step %d %s failed without expected/observed: %+v", st.Number, c.ID, c)
				}
				if placeholder.MatchString(c.Message) {
					t.Errorf("step %d %s: unfilled placeholder in %q", st.Number, c.ID, c.Message)
				}
			}
		}
	}
	// Before anything was observed, and with the cluster reported
	// reachable but empty, everything fails for its own reason.
	e.Apply(observe.Observation{Cluster: &observe.ClusterObs{State: observe.ClusterSynced}})
	check(e.Evaluate())
	for _, r := range tr.Records {
		e.Apply(r.Obs)
		check(e.Evaluate())
	}
	t.Logf("%d distinct failures checked", len(seen))
	if len(seen) < 20 {
		t.Fatalf("only %d distinct failures seen: the walk did not exercise the checks", len(seen))
	}
}
