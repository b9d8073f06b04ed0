package report

import (
	"context"
	"testing"

	"github.com/labhub/labmate/labkit/labkittest"
	"github.com/labhub/labmate/trace"
)

// The report of the built-in reference run (a trace recorded from a real
// sandbox walk through all eight steps): every step passes, and the pass
// times are the trace's own.
func TestMarkdownGoldenReferenceTrace(t *testing.T) {
	l := lab(t)
	tr, err := trace.ReferenceOf(l)
	if err != nil {
		t.Fatal(err)
	}
	r, err := FromTrace(context.Background(), l, labkittest.GPUSteps(t), tr)
	if err != nil {
		t.Fatal(err)
	}
	if !r.StartedAt.Equal(tr.Header.Started) || !r.Written.Equal(tr.Header.Started.Add(tr.Duration())) {
		t.Errorf("times not the trace's own: started %v written %v", r.StartedAt, r.Written)
	}
	for _, s := range r.Steps {
		if s.PassedAt.Before(r.StartedAt) || s.PassedAt.After(r.Written) {
			t.Errorf("step %d passed at %v, outside the trace", s.Number, s.PassedAt)
		}
	}
	if r.Passed != r.Total {
		t.Errorf("reference run: %d of %d steps passed", r.Passed, r.Total)
	}
	golden(t, "reference-trace.md", r.Markdown(kst))
}
