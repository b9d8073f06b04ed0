package trace

import (
	"context"
	"errors"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
)

// StatusChange is a step's status changing while a trace is replayed.
type StatusChange struct {
	Pos  int           // records applied when it changed (1 = after the first)
	Line int           // trace line of the record that changed it
	At   time.Duration // its recorded time
	Step int
	From checks.Status
	To   checks.Status
}

// FinalReport replays t without waiting through a fresh engine for lab
// (with an empty witness kept in memory only), evaluating after every
// record, and returns the last report and every change of a step's status
// in order. Evaluating after every record sees each state the live engine
// evaluated, so facts of the past are remembered as they were live. The
// trace's skipped lines are added to the report's Problems.
func FinalReport(ctx context.Context, lab *content.Lab, steps []checks.Step, t *Trace) (engine.Report, []StatusChange, error) {
	if lab == nil {
		return engine.Report{}, nil, errors.New("trace: FinalReport without a lab")
	}
	if t.Header.Lab != lab.ID {
		return engine.Report{}, nil, errors.New(content.Msg("trace.other_lab", "name", t.Name, "trace", t.Header.Lab, "lab", lab.ID))
	}
	e := engine.New(engine.Config{Lab: lab, Steps: steps, Root: t.Header.Root})
	rep := e.Evaluate()
	var changes []StatusChange
	for i, rec := range t.Records {
		if err := ctx.Err(); err != nil {
			return rep, changes, err
		}
		e.Apply(rec.Obs)
		next := e.Evaluate()
		for _, st := range next.Steps {
			before := rep.Step(st.Number)
			if before != nil && before.Status != st.Status {
				changes = append(changes, StatusChange{Pos: i + 1, Line: rec.Line, At: rec.At, Step: st.Number, From: before.Status, To: st.Status})
			}
		}
		rep = next
	}
	for _, w := range t.Warnings {
		rep.Problems = append(rep.Problems, w.Error())
	}
	return rep, changes, nil
}

// FirstPassed returns step numbers in the order they first turned passed.
func FirstPassed(changes []StatusChange) []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range changes {
		if c.To == checks.Passed && !seen[c.Step] {
			seen[c.Step] = true
			out = append(out, c.Step)
		}
	}
	return out
}

// Marks returns the record counts at which some step's status changed,
// for ReplayOptions.Marks: a fast-forward then stops at each change.
func Marks(changes []StatusChange) []int {
	var out []int
	for _, c := range changes {
		if len(out) == 0 || out[len(out)-1] != c.Pos {
			out = append(out, c.Pos)
		}
	}
	return out
}
