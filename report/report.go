// Package report turns one evaluation of a lab and the learner's progress
// into the skeleton of an incident report: per step, when it passed, how
// many hints were used, which values labmate actually read and what the
// checks decided from them. The lab's second seed calls this the rollout
// stall report: "which field was read and what was decided" is what an
// incident report is built on. Markdown for people, JSON for tools.
package report

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
)

// Report is the learner's run, ready to print.
type Report struct {
	Lab       string             `json:"lab"`
	Title     string             `json:"title"`
	Root      string             `json:"root"`
	Written   time.Time          `json:"written"`
	StartedAt time.Time          `json:"started_at,omitzero"`
	Passed    int                `json:"passed"`
	Total     int                `json:"total"`
	Cluster   observe.ClusterObs `json:"cluster"`
	Steps     []Step             `json:"steps"`
	Problems  []string           `json:"problems,omitempty"`
}

// Step is one step's part of the report.
type Step struct {
	Number   int             `json:"number"`
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Status   checks.Status   `json:"status"`
	PassedAt time.Time       `json:"passed_at,omitzero"`
	Hints    int             `json:"hints_seen"`
	HintsMax int             `json:"hints_total"`
	Solution bool            `json:"solution_seen"`
	Observed []checks.Fact   `json:"observed"`
	Checks   []checks.Result `json:"checks"`
}

// Build joins an evaluation with the learner's progress. written is the
// report's own time (the caller's clock, so goldens are stable).
func Build(lab *content.Lab, rep engine.Report, p state.Progress, written time.Time) Report {
	r := Report{
		Lab: rep.Lab, Title: rep.Title, Root: rep.Root, Written: written,
		StartedAt: p.StartedAt, Cluster: rep.Cluster, Problems: rep.Problems,
	}
	hints := map[int]int{}
	if lab != nil {
		for _, s := range lab.Steps {
			hints[s.Number] = len(s.Hints)
		}
	}
	for _, sr := range rep.Steps {
		st := Step{
			Number: sr.Number, ID: sr.ID, Title: sr.Title, Status: sr.Status,
			PassedAt: p.PassedAt[sr.Number], Hints: p.HintsSeen[sr.Number], HintsMax: hints[sr.Number],
			Solution: p.SolutionSeen[sr.Number], Observed: sr.Observed, Checks: sr.Checks,
		}
		if st.Observed == nil {
			st.Observed = []checks.Fact{}
		}
		r.Steps = append(r.Steps, st)
	}
	r.Passed, r.Total = rep.Passed(), len(r.Steps)
	return r
}

// WriteJSON writes the report as one indented JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// FromTrace builds the report of a recorded session (a trace.Recorder
// file or the built-in reference run): the trace is replayed through a
// fresh engine, each step's first pass dated as a live run dates it
// (labrun.Passes: the first ready evaluation in which it passed),
// and the report is written as of the trace's last record. A trace holds
// observations only, so no hints or solutions are counted.
func FromTrace(ctx context.Context, lab *content.Lab, steps []checks.Step, tr *trace.Trace) (Report, error) {
	rep, passes, err := labrun.ExactPasses(ctx, lab, steps, tr)
	if err != nil {
		return Report{}, err
	}
	var p state.Progress
	started := tr.Header.Started
	p.Apply(state.Event{Kind: state.Visited, Step: 0, At: started})
	for _, ps := range passes {
		p.Apply(state.Event{Kind: state.StepPassed, Step: ps.Step, At: started.Add(ps.At)})
	}
	return Build(lab, rep, p, started.Add(tr.Duration())), nil
}
