package labrun

import (
	"context"
	"errors"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
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
	if lab == nil {
		return engine.Report{}, nil, errors.New("labrun: Exact without a lab")
	}
	if t.Header.Lab != lab.ID {
		return engine.Report{}, nil, errors.New(content.Msg("trace.other_lab", "name", t.Name, "trace", t.Header.Lab, "lab", lab.ID))
	}
	e := engine.New(engine.Config{Lab: lab, Steps: steps, Root: t.Header.Root})
	rep := e.Evaluate()
	var all []Change
	for i, rec := range t.Records {
		if err := ctx.Err(); err != nil {
			return rep, all, err
		}
		e.Apply(rec.Obs)
		next := e.Evaluate()
		for _, c := range changes(&rep, &next) {
			c.Pos, c.Line, c.At = i+1, rec.Line, rec.At
			all = append(all, c)
		}
		rep = next
	}
	for _, w := range t.Warnings {
		rep.Problems = append(rep.Problems, w.Error())
	}
	return rep, all, nil
}

// FirstPassed returns step numbers in the order they first turned passed.
func FirstPassed(cs []Change) []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range cs {
		if c.To == checks.Passed && !seen[c.Step] {
			seen[c.Step] = true
			out = append(out, c.Step)
		}
	}
	return out
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
