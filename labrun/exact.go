package labrun

import (
	"context"
	"errors"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/trace"
)

// Exact replays t without waiting through a fresh engine for the lab
// (its memory of the past kept in memory only), evaluating after every
// record, and returns the last report and every change of a step's
// status in order. Evaluating after every record sees each state the
// live engine evaluated, so facts of the past are remembered as they
// were live. The trace's skipped lines are added to the report's
// Problems.
func Exact(ctx context.Context, lab *content.Lab, steps []checks.Step, t *trace.Trace) (engine.Report, []Change, error) {
	return exact(ctx, lab, steps, t, nil)
}

// ExactPasses is Exact that gives, instead of the changes, each step's
// first pass in order, by the rule a live run records (Passes), so a
// report of a trace dates a pass as the live report would have.
func ExactPasses(ctx context.Context, lab *content.Lab, steps []checks.Step, t *trace.Trace) (engine.Report, []Pass, error) {
	var passes []Pass
	passed := Passed{}
	rep, _, err := exact(ctx, lab, steps, t, func(pos int, at time.Duration, rep *engine.Report) {
		for _, n := range passed.First(rep) {
			passes = append(passes, Pass{Step: n, Pos: pos, At: at})
		}
	})
	return rep, passes, err
}

// exact is Exact, handing each evaluation (with the number of records
// applied and the recorded time of the last of them) to each when it is
// set.
func exact(ctx context.Context, lab *content.Lab, steps []checks.Step, t *trace.Trace, each func(int, time.Duration, *engine.Report)) (engine.Report, []Change, error) {
	if lab == nil {
		return engine.Report{}, nil, errors.New("labrun: Exact without a lab")
	}
	if t.Header.Lab != lab.ID {
		return engine.Report{}, nil, errors.New(content.Msg("trace.other_lab", "name", t.Name, "trace", t.Header.Lab, "lab", lab.ID))
	}
	e := engine.New(engine.Config{Lab: lab, Steps: steps, Root: t.Header.Root})
	var (
		rep engine.Report
		all []Change
	)
	err := fold(ctx, e, len(t.Records), func(i int) observe.Observation { return t.Records[i].Obs }, func(applied int, next engine.Report) {
		at := time.Duration(0)
		if applied > 0 {
			rec := t.Records[applied-1]
			for _, c := range changes(&rep, &next) {
				c.Pos, c.Line, c.At = applied, rec.Line, rec.At
				all = append(all, c)
			}
			at = rec.At
		}
		rep = next
		if each != nil {
			each(applied, at, &rep)
		}
	})
	if err != nil {
		return rep, all, err
	}
	for _, w := range t.Warnings {
		rep.Problems = append(rep.Problems, w.Error())
	}
	return rep, all, nil
}

// Forks evaluates obs through a fresh engine for lab as Exact evaluates
// a trace (after every observation) and returns a copy of the engine as
// it stood after the first marks[k] observations, for each key k: lab
// verify --mutants judges a step's near-misses on the state its solution
// passed in.
func Forks(lab *content.Lab, steps []checks.Step, root string, obs []observe.Observation, marks map[int]int) map[int]*engine.Engine {
	e := engine.New(engine.Config{Lab: lab, Steps: steps, Root: root})
	out := map[int]*engine.Engine{}
	_ = fold(context.Background(), e, len(obs), func(i int) observe.Observation { return obs[i] }, func(applied int, _ engine.Report) {
		for k, m := range marks {
			if m == applied {
				out[k] = e.Fork()
			}
		}
	})
	return out
}

// fold is the one exact evaluation: e evaluated once, then again after
// each of n observations is applied, each evaluation handed to each with
// how many observations it saw. It stops early only when ctx ends.
func fold(ctx context.Context, e *engine.Engine, n int, obs func(int) observe.Observation, each func(applied int, rep engine.Report)) error {
	each(0, e.Evaluate())
	for i := range n {
		if err := ctx.Err(); err != nil {
			return err
		}
		e.Apply(obs(i))
		each(i+1, e.Evaluate())
	}
	return nil
}

// Passes are the steps a report shows passed, once it is ready: before
// every source delivered its initial state a step may pass on part of
// the picture. This is the one rule for when a step first passed, for a
// live run's progress (Run) and a trace's report (ExactPasses).
func Passes(rep *engine.Report) []int {
	if !rep.Ready {
		return nil
	}
	var out []int
	for _, st := range rep.Steps {
		if st.Status == checks.Passed {
			out = append(out, st.Number)
		}
	}
	return out
}

// Passed remembers which steps have passed, for the one rule of when a
// step first passed (Passes): a live run seeds it with the steps passed
// in earlier runs, an exact evaluation starts it empty, and a reader
// handed reports by something else (a test, a demo) keeps one to fill
// in Update.FirstPassed as a run does.
type Passed map[int]bool

// First returns the steps rep shows passed (Passes) that had not passed
// before, and remembers them.
func (p Passed) First(rep *engine.Report) []int {
	var out []int
	for _, n := range Passes(rep) {
		if !p[n] {
			p[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Pass is a step's first pass in a trace evaluated exactly: the step,
// the number of records applied when it passed and the recorded time of
// the last of them.
type Pass struct {
	Step int
	Pos  int
	At   time.Duration
}

// Marks returns the record counts at which some step's status changed,
// for trace.ReplayOptions.Marks: a fast-forward then stops at each.
func Marks(cs []Change) []int {
	var out []int
	for _, c := range cs {
		if len(out) == 0 || out[len(out)-1] != c.Pos {
			out = append(out, c.Pos)
		}
	}
	return out
}
