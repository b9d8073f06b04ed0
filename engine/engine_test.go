package engine

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// A two-step lab whose checks read one file each; step 2 waits while
// step 1's file is not right.
func testLab() (*content.Lab, []checks.Step) {
	lab := &content.Lab{ID: "t", Title: "T", Steps: []content.Step{
		{Number: 1, ID: "one", Title: "하나"},
		{Number: 2, ID: "two", Title: "둘"},
	}}
	fileIs := func(path, want string) func(checks.Input) checks.StepEval {
		return func(in checks.Input) checks.StepEval {
			f := in.Snap.File(path)
			st := checks.Failed
			if f.State == observe.FilePresent && string(f.Content) == want {
				st = checks.Passed
			}
			return checks.StepEval{Checks: []checks.Result{{ID: path, Status: st}}}
		}
	}
	steps := []checks.Step{
		{Number: 1, ID: "one", Files: []string{"a"}, Eval: fileIs("a", "ok")},
		{Number: 2, ID: "two", Files: []string{"b", "a"}, Eval: func(in checks.Input) checks.StepEval {
			if f := in.Snap.File("a"); f.State != observe.FilePresent || string(f.Content) != "ok" {
				return checks.StepEval{Checks: []checks.Result{{ID: "b", Status: checks.Waiting}}}
			}
			return fileIs("b", "ok")(in)
		}},
	}
	return lab, steps
}

func fileObs(path, body string) observe.Observation {
	return observe.Observation{Time: time.Now(), File: &observe.FileObs{Path: path, State: observe.FilePresent, Content: []byte(body)}}
}

func TestEvaluateJudgesStepsInOrder(t *testing.T) {
	lab, steps := testLab()
	e := New(Config{Lab: lab, Steps: steps, Root: "/r"})
	rep := e.Evaluate()
	if got := rep.Step(2).Status; got != checks.Waiting {
		t.Fatalf("step 2 before step 1 = %s, want waiting", got)
	}
	e.Apply(fileObs("a", "ok"))
	e.Apply(fileObs("b", "ok"))
	rep = e.Evaluate()
	if !rep.AllPassed() {
		t.Fatalf("want all passed, got %+v", rep.Steps)
	}
	if got := e.Files(); strings.Join(got, ",") != "a,b" {
		t.Fatalf("Files() = %v", got)
	}
}

func TestPanickingCheckIsAnErrorResult(t *testing.T) {
	lab, steps := testLab()
	steps[0].Eval = func(checks.Input) checks.StepEval { panic("boom") }
	e := New(Config{Lab: lab, Steps: steps})
	rep := e.Evaluate()
	st := rep.Step(1)
	if st.Status != checks.Error || !strings.Contains(st.Checks[0].Message, "boom") {
		t.Fatalf("step 1 = %+v", st)
	}
	if rep.Step(2).Status != checks.Waiting {
		t.Fatalf("step 2 should wait on the broken step 1, got %s", rep.Step(2).Status)
	}
}

func TestRememberPersistsOnlyOnChange(t *testing.T) {
	lab, steps := testLab()
	steps[0].Remember = func(s *observe.Snapshot, w *checks.Witness, _ bool) bool {
		if f := s.File("a"); f.State == observe.FilePresent {
			return w.Set("one/seen", checks.WitnessFact{Value: string(f.Content)})
		}
		return false
	}
	var saved []checks.Witness
	e := New(Config{Lab: lab, Steps: steps, SaveWitness: func(w checks.Witness) error {
		saved = append(saved, w)
		return nil
	}})
	e.Apply(fileObs("a", "x"))
	e.Evaluate()
	e.Evaluate()
	e.Apply(fileObs("a", "y"))
	e.Evaluate()
	if len(saved) != 2 || saved[1].Facts["one/seen"].Value != "y" {
		t.Fatalf("saved = %+v, want two saves ending with y", saved)
	}
}

type chanSource struct {
	name string
	obs  chan observe.Observation
	err  error
}

func (c *chanSource) Name() string { return c.name }
func (c *chanSource) Run(ctx context.Context, out chan<- observe.Observation) error {
	if c.err != nil {
		return c.err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case o := <-c.obs:
			out <- o
		}
	}
}

// next waits for the next report: 30 s, for a loaded machine; it comes
// at once when the code is right.
func next(t *testing.T, out <-chan Report) Report {
	t.Helper()
	select {
	case r := <-out:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no report in 30 s")
		return Report{}
	}
}

func TestRunPublishesOnlyChangesAndReadiness(t *testing.T) {
	lab, steps := testLab()
	e := New(Config{Lab: lab, Steps: steps})
	src := &chanSource{name: "s", obs: make(chan observe.Observation)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, stop := e.Start(ctx, []observe.Source{src})
	defer stop()

	if r := next(t, out); r.Ready {
		t.Fatal("ready before the source synced")
	}
	src.obs <- observe.Observation{Time: time.Now(), Synced: &observe.SyncedObs{Source: "s"}}
	if r := next(t, out); !r.Ready {
		t.Fatal("not ready after sync")
	}
	// An observation that changes no result publishes nothing.
	src.obs <- fileObs("unrelated", "x")
	select {
	case r := <-out:
		t.Fatalf("unexpected report %d", r.Seq)
	case <-time.After(200 * time.Millisecond):
	}
	src.obs <- fileObs("a", "ok")
	if r := next(t, out); r.Step(1).Status != checks.Passed {
		t.Fatalf("step 1 = %s", r.Step(1).Status)
	}
}

func TestFailedSourceIsAProblemAndDoesNotBlockReadiness(t *testing.T) {
	lab, steps := testLab()
	e := New(Config{Lab: lab, Steps: steps})
	src := &chanSource{name: "broken", err: errors.New("no inotify")}
	// The bound of the wait for readiness, not a deadline under test.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, stop := e.Start(ctx, []observe.Source{src})
	defer stop()
	var rep Report
	for !rep.Ready {
		select {
		case rep = <-out:
		case <-ctx.Done():
			t.Fatal("never ready in 30 s: the failed source kept it waiting")
		}
	}
	if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "no inotify") {
		t.Fatalf("problems = %v", rep.Problems)
	}
}

func TestSlowReaderGetsNewestReport(t *testing.T) {
	lab, steps := testLab()
	var folded atomic.Int32
	e := New(Config{Lab: lab, Steps: steps, Tap: func(observe.Observation) { folded.Add(1) }})
	src := &chanSource{name: "s", obs: make(chan observe.Observation)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, stop := e.Start(ctx, []observe.Source{src})
	defer stop()
	for _, body := range []string{"ok", "no", "ok", "no", "ok"} {
		src.obs <- fileObs("a", body)
	}
	// The reader is slow: it comes back only once the engine folded all
	// five. Every report made after that says passed, and the hand-over
	// holds at most one made before (latest wins): so the reader sees at
	// most one stale report, first, then passed. A backlog would hand it
	// the stale ones in turn.
	if err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		return folded.Load() == 5, nil
	}); err != nil {
		t.Fatalf("the engine folded %d of 5 observations in 30 s", folded.Load())
	}
	var read []checks.Status
	for len(read) == 0 || read[len(read)-1] != checks.Passed {
		select {
		case r := <-out:
			read = append(read, r.Step(1).Status)
		case <-time.After(30 * time.Second):
			t.Fatalf("no passed report 30 s after the last observation was folded; read %v", read)
		}
	}
	if len(read) > 2 {
		t.Fatalf("a slow reader read %v: stale reports queued behind each other, not the newest", read)
	}
}

// A panic while remembering or while a tap records must not stop the
// loop: the learner sees a problem and later observations still count.
func TestRunSurvivesPanics(t *testing.T) {
	lab, steps := testLab()
	steps[0].Remember = func(s *observe.Snapshot, w *checks.Witness, _ bool) bool {
		if s.File("a").State == observe.FilePresent && string(s.File("a").Content) == "boom" {
			panic("remember exploded")
		}
		return false
	}
	e := New(Config{Lab: lab, Steps: steps, Tap: func(o observe.Observation) {
		if o.File != nil && o.File.Path == "tap-boom" {
			panic("tap exploded")
		}
	}})
	src := &chanSource{name: "s", obs: make(chan observe.Observation)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, stop := e.Start(ctx, []observe.Source{src})
	defer stop()
	next(t, out)
	src.obs <- fileObs("a", "boom")
	r := next(t, out)
	if len(r.Problems) == 0 || !strings.Contains(strings.Join(r.Problems, " "), "remember exploded") {
		t.Fatalf("problems = %v", r.Problems)
	}
	src.obs <- fileObs("tap-boom", "x")
	src.obs <- fileObs("a", "ok")
	deadline := time.After(30 * time.Second)
	for {
		select {
		case r = <-out:
			if r.Step(1).Status == checks.Passed {
				if !strings.Contains(strings.Join(r.Problems, " "), "tap exploded") {
					t.Fatalf("tap panic not reported: %v", r.Problems)
				}
				return
			}
		case <-deadline:
			t.Fatal("engine stopped after a panic")
		}
	}
}

func TestStepAndReportCounts(t *testing.T) {
	sr := StepResult{Number: 1, Status: checks.Failed, Checks: []checks.Result{
		{ID: "a", Status: checks.Passed}, {ID: "b", Status: checks.Waiting}, {ID: "c", Status: checks.Failed}}}
	if f := sr.FirstFailing(); f == nil || f.ID != "b" {
		t.Errorf("FirstFailing = %+v, want b (the first not passed)", f)
	}
	if n := sr.PassedChecks(); n != 1 {
		t.Errorf("PassedChecks = %d, want 1", n)
	}
	ok := StepResult{Number: 2, Status: checks.Passed, Checks: []checks.Result{{ID: "d", Status: checks.Passed}}}
	if f := ok.FirstFailing(); f != nil {
		t.Errorf("FirstFailing of a passed step = %+v", f)
	}
	rep := Report{Steps: []StepResult{sr, ok}}
	if rep.Passed() != 1 || rep.AllPassed() {
		t.Errorf("Passed = %d, AllPassed = %v; want 1, false", rep.Passed(), rep.AllPassed())
	}
	if (&Report{}).AllPassed() {
		t.Error("a report of no steps all passed")
	}
}
