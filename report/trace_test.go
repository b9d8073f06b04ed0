package report

import (
	"context"
	"testing"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/state"
	"github.com/labhub/labmate/trace"
)

// The report of the built-in reference run (a trace recorded from a real
// sandbox walk through all eight steps): every step passes, and the pass
// times are the trace's own.
func TestMarkdownGoldenReferenceTrace(t *testing.T) {
	l := lab(t)
	if !trace.HasReference(l.ID) {
		t.Skipf("no reference trace for %s yet (%s)", l.ID, trace.ReferencePath(l.ID))
	}
	tr, err := trace.Reference(l.ID)
	if err != nil {
		t.Fatal(err)
	}
	rep, changes, err := trace.FinalReport(context.Background(), l, checks.Labs[l.ID], tr)
	if err != nil {
		t.Fatal(err)
	}
	p := state.Progress{}
	started := tr.Header.Started
	p.Apply(state.Event{Kind: state.Visited, Step: 0, At: started})
	for _, c := range changes {
		if c.To == checks.Passed {
			p.Apply(state.Event{Kind: state.StepPassed, Step: c.Step, At: started.Add(c.At)})
		}
	}
	r := Build(l, rep, p, started.Add(tr.Duration()))
	if r.Passed != r.Total {
		t.Errorf("reference run: %d of %d steps passed", r.Passed, r.Total)
	}
	golden(t, "reference-trace.md", r.Markdown(kst))
}
