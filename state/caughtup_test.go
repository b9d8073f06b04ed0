package state

import (
	"slices"
	"testing"
	"time"
)

// A step catch-up brought to its reference is caught up, never passed:
// a live run that sees it pass afterwards records nothing, and a step
// the learner had passed stays theirs.
func TestCaughtUpIsNotPassed(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	var p Progress
	p.Apply(Event{Kind: StepPassed, Step: 1, At: t0})
	steps := []struct {
		ev   Event
		want bool
	}{
		{Event{Kind: CaughtUp, Step: 1, At: t0.Add(time.Minute)}, false}, // passed by the learner: stays passed
		{Event{Kind: CaughtUp, Step: 2, At: t0.Add(time.Minute)}, true},
		{Event{Kind: CaughtUp, Step: 2, At: t0.Add(time.Hour)}, false},         // the first catch-up is kept
		{Event{Kind: StepPassed, Step: 2, At: t0.Add(2 * time.Minute)}, false}, // the run sees the reference pass
		{Event{Kind: CaughtUp, Step: 0, At: t0}, false},                        // the introduction
	}
	for i, s := range steps {
		if got := p.Apply(s.ev); got != s.want {
			t.Errorf("event %d %+v: changed = %v, want %v", i, s.ev, got, s.want)
		}
	}
	if _, ok := p.PassedAt[2]; ok {
		t.Errorf("caught-up step 2 recorded as passed: %v", p.PassedAt)
	}
	if !p.IsCaughtUp(2) || p.IsCaughtUp(1) || !p.CaughtUpAt[2].Equal(t0.Add(time.Minute)) {
		t.Errorf("caught up = %v", p.CaughtUpAt)
	}
	if got := p.Done(); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Done = %v, want [1 2]", got)
	}
}

func TestCaughtUpSurvivesMergeResetAndRenumbering(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	var p Progress
	if !p.Merge(Progress{CaughtUpAt: map[int]time.Time{3: t0}}) || !p.IsCaughtUp(3) {
		t.Fatalf("merge lost the catch-up: %+v", p)
	}

	s, _ := Open(t.TempDir(), "lab", "/x")
	if err := s.Record(Event{Kind: CaughtUp, Step: 2, At: t0}); err != nil {
		t.Fatal(err)
	}
	f, _ := s.Load()
	if pv := f.Preview(2, "two"); pv.CaughtUp != 1 || pv.Empty() {
		t.Errorf("preview of step 2 = %+v, want its catch-up", pv)
	}
	if all := f.Preview(0, ""); all.CaughtUp != 1 {
		t.Errorf("preview of all = %+v, want one catch-up", all)
	}
	c, err := s.ResetStep(2, "two")
	if err != nil || c.CaughtUp != 1 {
		t.Fatalf("reset step 2 = %+v, %v", c, err)
	}
	if f, _ := s.Load(); f.Progress.IsCaughtUp(2) {
		t.Error("reset kept the catch-up")
	}

	dir, root := t.TempDir(), "/r"
	vs, _ := OpenLab(dir, Lab{ID: "demo", Version: "0", Steps: map[int]string{1: "a", 2: "b"}}, root)
	if err := vs.Record(Event{Kind: CaughtUp, Step: 2, At: t0}); err != nil {
		t.Fatal(err)
	}
	vs, _ = OpenLab(dir, Lab{ID: "demo", Version: "0", Steps: map[int]string{1: "new", 2: "a", 3: "b"}}, root)
	f, err = vs.Load()
	if err != nil {
		t.Fatal(err)
	}
	if !f.Progress.IsCaughtUp(3) || len(f.Progress.CaughtUpAt) != 1 {
		t.Errorf("caught up = %v, want b's at its new number 3", f.Progress.CaughtUpAt)
	}
}
