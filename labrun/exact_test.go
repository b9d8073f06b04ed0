package labrun

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/trace"
)

// echoLab is the GPU incident lab plus a ninth step that passes while the
// main config is present.
func echoLab(t testing.TB) (*content.Lab, []checks.Step) {
	t.Helper()
	lab, err := content.Load("gpu-incident")
	if err != nil {
		t.Fatal(err)
	}
	l := *lab
	l.Steps = append(append([]content.Step(nil), lab.Steps...), content.Step{Number: 9, ID: "echo", Title: "echo"})
	steps := append(append([]checks.Step(nil), labkittest.GPUSteps(t)...), checks.Step{
		Number: 9, ID: "echo",
		Files: []string{"etc/containerd/config.toml"},
		Eval: func(in checks.Input) checks.StepEval {
			st := checks.Failed
			if in.Snap.File("etc/containerd/config.toml").State == observe.FilePresent {
				st = checks.Passed
			}
			return checks.StepEval{Checks: []checks.Result{{ID: "echo", Status: st, Message: "echo"}}}
		},
	})
	return &l, steps
}

func TestExactRejectsAnotherLab(t *testing.T) {
	lab, steps := echoLab(t)
	tr := memTrace()
	tr.Header.Lab = "another-lab"
	_, _, err := Exact(context.Background(), lab, steps, tr)
	if err == nil || !strings.Contains(err.Error(), "another-lab") {
		t.Fatalf("err = %v", err)
	}
}

func TestExactCarriesWarnings(t *testing.T) {
	lab, steps := echoLab(t)
	tr, err := trace.Open("../trace/testdata/bad/truncated-last.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rep, changes, err := Exact(context.Background(), lab, steps, tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "4번째 줄") {
		t.Fatalf("problems %v", rep.Problems)
	}
	// The one file record makes the echo step pass.
	if len(changes) == 0 || changes[0].Step != 9 || changes[0].To != checks.Passed || Marks(changes)[0] != 1 {
		t.Fatalf("changes %+v, marks %v", changes, Marks(changes))
	}
	_, passes, err := ExactPasses(context.Background(), lab, steps, tr)
	if err != nil || len(passes) != 1 || passes[0] != (Pass{Step: 9, Pos: 1, At: tr.Records[0].At}) {
		t.Fatalf("first passes %+v, %v", passes, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Exact(ctx, lab, steps, tr); err == nil {
		t.Fatal("a cancelled Exact returned no error")
	}
}

// Every installed lab ships a reference run, and it, replayed headless,
// ends with every step passed, the steps turned green in the lab's order
// and none turned back.
func TestReferenceRunsPassInOrder(t *testing.T) {
	for _, kit := range labkittest.Installed(t) {
		t.Run(kit.ID(), func(t *testing.T) {
			lab := kit.Text
			tr, err := trace.ReferenceOf(lab)
			if err != nil {
				t.Fatalf("%v (record it with scripts/record-reference.sh %s)", err, lab.ID)
			}
			if len(tr.Warnings) != 0 {
				t.Errorf("reference trace has warnings: %v", tr.Warnings)
			}
			start := time.Now()
			rep, changes, err := Exact(context.Background(), lab, kit.Steps, tr)
			if err != nil {
				t.Fatal(err)
			}
			_, passes, err := ExactPasses(context.Background(), lab, kit.Steps, tr)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d records over %v replayed in %v", len(tr.Records), tr.Duration(), time.Since(start))
			var want []int
			for _, s := range lab.Steps {
				want = append(want, s.Number)
			}
			for _, st := range rep.Steps {
				if st.Status != checks.Passed {
					t.Errorf("step %d %s: %s %+v", st.Number, st.ID, st.Status, st.Checks)
				}
			}
			if len(rep.Steps) != len(want) {
				t.Errorf("%d steps", len(rep.Steps))
			}
			var got []int
			for _, ps := range passes {
				got = append(got, ps.Step)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("steps first passed in the order %v", got)
			}
			for _, c := range changes {
				if c.From == checks.Passed {
					t.Errorf("step %d turned %s after passing (line %d)", c.Step, c.To, c.Line)
				}
			}
		})
	}
}

// BenchmarkExactReference: replaying the reference run instantly,
// evaluating after every record.
//
//	go test -run '^$' -bench ExactReference -benchmem ./labrun
func BenchmarkExactReference(b *testing.B) {
	lab, err := content.Load("gpu-incident")
	if err != nil {
		b.Fatal(err)
	}
	tr, err := trace.ReferenceOf(lab)
	if err != nil {
		b.Fatal(err)
	}
	steps := labkittest.GPUSteps(b)
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Exact(context.Background(), lab, steps, tr); err != nil {
			b.Fatal(err)
		}
	}
}

// memTrace is a one-record trace of the GPU lab, in memory.
func memTrace() *trace.Trace {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &trace.Trace{Name: "mem", Header: trace.Header{Format: trace.Format, Version: trace.Version, Lab: "gpu-incident", Started: t0},
		Records: []trace.Record{{Line: 2, Obs: observe.Observation{Time: t0, File: &observe.FileObs{Path: "f0", State: observe.FileMissing}}}}}
}

// A step counts as passed only in a ready report: the one rule for when
// a step first passed.
func TestPassesOnlyOnceReady(t *testing.T) {
	rep := engine.Report{Steps: []engine.StepResult{{Number: 1, Status: checks.Passed}, {Number: 2, Status: checks.Failed}}}
	if got := Passes(&rep); got != nil {
		t.Errorf("a report not yet ready passes %v", got)
	}
	rep.Ready = true
	if got := Passes(&rep); !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("Passes = %v, want [1]", got)
	}
}

// ExactPasses dates each step's first pass where the trace first showed
// it passed, the step's first change to passed.
func TestExactPassesDatesTheFirstPass(t *testing.T) {
	kit := labkittest.Installed(t)[0]
	tr, err := trace.ReferenceOf(kit.Text)
	if err != nil {
		t.Fatal(err)
	}
	_, changes, err := Exact(context.Background(), kit.Text, kit.Steps, tr)
	if err != nil {
		t.Fatal(err)
	}
	_, passes, err := ExactPasses(context.Background(), kit.Text, kit.Steps, tr)
	if err != nil {
		t.Fatal(err)
	}
	var want []Pass
	seen := map[int]bool{}
	for _, c := range changes {
		if !seen[c.Step] && c.To == checks.Passed {
			seen[c.Step] = true
			want = append(want, Pass{Step: c.Step, Pos: c.Pos, At: c.At})
		}
	}
	if len(want) == 0 || !reflect.DeepEqual(passes, want) {
		t.Errorf("ExactPasses = %v, want the first changes to passed %v", passes, want)
	}
}
