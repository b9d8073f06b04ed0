package learner

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
)

// secretExcerpt stands for what a check message may quote from the
// learner's files; it must never reach a record.
const secretExcerpt = "default_runtime_name = \"my-secret-value\""

// report builds a ready report with the given step statuses; a step that
// is not passed has one failing check whose message quotes a file.
// feed hands a tracker reports in order, as a run's tap does: each with
// the changes since the one before.
type feed struct {
	prev   *engine.Report
	passed labrun.Passed
}

// next is the update after f's last with rep, its first passes by the
// run's rule.
func (f *feed) next(rep engine.Report) *labrun.Update {
	if f.passed == nil {
		f.passed = labrun.Passed{}
	}
	u := labrun.Next(f.prev, rep)
	u.FirstPassed = f.passed.First(&u.Report)
	f.prev = &u.Report
	return &u
}

func (f *feed) report(sts ...checks.Status) *labrun.Update {
	return f.next(*stepsReport(sts...))
}

func stepsReport(sts ...checks.Status) *engine.Report {
	rep := &engine.Report{Lab: "gpu-incident", Root: "/home/learner/secret-root", Ready: true}
	for i, st := range sts {
		sr := engine.StepResult{Number: i + 1, ID: "s", Status: st}
		sr.Checks = []checks.Result{{ID: "ok-check", Status: checks.Passed, Message: "fine"}}
		if st != checks.Passed {
			sr.Checks = append(sr.Checks, checks.Result{ID: "bad-check", Status: st,
				Message: "그 줄: `" + secretExcerpt + "`", Observed: secretExcerpt, Where: "/home/learner/secret-root/x.toml"})
		}
		rep.Steps = append(rep.Steps, sr)
	}
	return rep
}

type stepClock struct{ t time.Time }

func (c *stepClock) now() time.Time { return c.t }

func TestTrackerFoldsWhatATeacherCaresAbout(t *testing.T) {
	f := &feed{}
	c := &stepClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	tr := NewTracker(class.Identity{Learner: "learner-01", Name: "지민", Lab: "gpu-incident", Labmate: "v1"}, c.now)

	notReady := f.report(checks.Passed, checks.Passed)
	notReady.Ready = false
	if tr.Apply(Update{Report: notReady}) {
		t.Fatal("a report before the sources are ready changed the record")
	}
	if !tr.Apply(Update{Report: f.report(checks.Passed, checks.Failed, checks.Waiting)}) {
		t.Fatal("first ready report did not change the record")
	}
	r := tr.Record()
	if r.Current != 2 || !r.CurrentSince.Equal(c.t) || len(r.Steps) != 3 || r.Updated != c.t {
		t.Fatalf("record after first report: %+v", r)
	}
	if got := r.Step(2).Failing; len(got) != 1 || got[0].ID != "bad-check" {
		t.Fatalf("failing checks of step 2: %+v", got)
	}

	c.t = c.t.Add(time.Minute)
	if tr.Apply(Update{Report: f.report(checks.Passed, checks.Failed, checks.Waiting)}) {
		t.Fatal("the same statuses again changed the record (would send per evaluation)")
	}
	if tr.Record().Updated != c.t.Add(-time.Minute) {
		t.Fatal("Updated moved without a change")
	}

	// Step 2 passes: the frontier moves, the step's Since moves.
	c.t = c.t.Add(time.Minute)
	if !tr.Apply(Update{Report: f.report(checks.Passed, checks.Passed, checks.Failed)}) {
		t.Fatal("a step passing did not change the record")
	}
	r = tr.Record()
	if r.Current != 3 || !r.CurrentSince.Equal(c.t) || !r.Step(2).Since.Equal(c.t) || !r.Step(1).Since.Equal(c.t.Add(-2*time.Minute)) {
		t.Fatalf("after step 2 passed: %+v", r)
	}
	if r.Regression != nil {
		t.Fatalf("regression without one: %+v", r.Regression)
	}

	// Step 1 goes back to failed: a regression.
	c.t = c.t.Add(time.Minute)
	tr.Apply(Update{Report: f.report(checks.Failed, checks.Passed, checks.Failed)})
	r = tr.Record()
	if g := r.Regression; g == nil || g.Step != 1 || g.From != checks.Passed || g.To != checks.Failed || !g.At.Equal(c.t) {
		t.Fatalf("regression: %+v", r.Regression)
	}
	if r.Current != 1 {
		t.Fatalf("current after regression: %d", r.Current)
	}

	// Hints climb only; the page is kept.
	if !tr.Apply(Update{Hints: &Hints{Step: 1, Seen: 2}}) {
		t.Fatal("a hint level did not change the record")
	}
	if tr.Apply(Update{Hints: &Hints{Step: 1, Seen: 1}}) {
		t.Fatal("a stale lower hint level changed the record")
	}
	page := 3
	if !tr.Apply(Update{Page: &page}) || *tr.Record().Page != 3 {
		t.Fatal("page not recorded")
	}
	if h := tr.Record().Step(1).Hints; h != 2 {
		t.Fatalf("hints of step 1 = %d, want 2", h)
	}
}

func TestRecordCarriesNoFileContentOrPaths(t *testing.T) {
	f := &feed{}
	tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, nil)
	tr.Apply(Update{Report: f.report(checks.Failed, checks.Failed)})
	raw, err := class.Marshal(tr.Record())
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"my-secret-value", "secret-root", "/home/", "그 줄"} {
		if strings.Contains(string(raw), bad) {
			t.Errorf("record carries %q:\n%s", bad, raw)
		}
	}
	var back class.Record
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if _, err := class.Unmarshal(raw); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	if r := tr.Record(); r.Name != "learner-01" {
		t.Fatalf("name defaults to the learner slot, got %q", r.Name)
	}
}

// failingReport is a ready report of two steps: step 1 failing the named
// checks (passed when none), step 2 waiting behind it.
func (f *feed) failing(ids ...string) *labrun.Update {
	rep := engine.Report{Lab: "gpu-incident", Ready: true}
	s1 := engine.StepResult{Number: 1, ID: "a", Status: checks.Passed}
	for _, id := range ids {
		s1.Status = checks.Failed
		s1.Checks = append(s1.Checks, checks.Result{ID: id, Status: checks.Failed, Message: secretExcerpt})
	}
	s2 := engine.StepResult{Number: 2, ID: "b", Status: checks.Waiting,
		Checks: []checks.Result{{ID: "later", Status: checks.Waiting}}}
	rep.Steps = []engine.StepResult{s1, s2}
	return f.next(rep)
}

// Schema 2: each step's arrival, first pass and attempts (changes of its
// failing set while the learner is on it).
func TestTrackerTimesAndAttempts(t *testing.T) {
	f := &feed{}
	c := &stepClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	start := c.t
	tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, c.now)
	tr.Apply(Update{Report: f.failing("crd", "runtime")})
	s1 := tr.Record().Step(1)
	if !s1.Arrived.Equal(start) || !s1.FirstPassed.IsZero() || s1.Attempts != 0 {
		t.Fatalf("step 1 on arrival: %+v", s1)
	}
	if s2 := tr.Record().Step(2); !s2.Arrived.IsZero() {
		t.Fatalf("step 2 arrived before the learner reached it: %+v", s2)
	}
	for _, ids := range [][]string{
		{"runtime", "crd"}, // the same set in another order: no attempt
		{"runtime"},        // crd fixed: attempt 1
		{"runtime"},        // nothing the checks tell apart: none
		{"runtime", "crd"}, // crd broken again: attempt 2
		{},                 // everything fixed, the step passes: attempt 3
	} {
		c.t = c.t.Add(time.Minute)
		tr.Apply(Update{Report: f.failing(ids...)})
	}
	r := tr.Record()
	s1 = r.Step(1)
	if s1.Attempts != 3 || !s1.Arrived.Equal(start) || !s1.FirstPassed.Equal(c.t) {
		t.Fatalf("step 1 after passing: %+v", s1)
	}
	if d, ok := s1.TimeToPass(); !ok || d != 5*time.Minute {
		t.Fatalf("time to pass %v %v, want 5m", d, ok)
	}
	if s2 := r.Step(2); !s2.Arrived.Equal(c.t) || s2.Attempts != 0 {
		t.Fatalf("step 2 on arrival: %+v", s2)
	}
	// Going back keeps the first pass; passing again does not move it,
	// and changes while on step 2 (not step 1) count for neither.
	passedAt := c.t
	c.t = c.t.Add(time.Minute)
	tr.Apply(Update{Report: f.failing("crd")})
	c.t = c.t.Add(time.Minute)
	tr.Apply(Update{Report: f.failing()})
	s1 = tr.Record().Step(1)
	if !s1.FirstPassed.Equal(passedAt) || s1.Attempts != 4 {
		t.Fatalf("step 1 after a regression and a fix: %+v", s1)
	}
	raw, err := class.Marshal(tr.Record())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"schema": 3`, `"arrived"`, `"firstPassed"`, `"attempts": 4`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("record lacks %s:\n%s", want, raw)
		}
	}
}

// A step already passed at the first evaluation was reached and passed
// before this labmate saw it: no time is made up for it.
func TestTrackerDoesNotMakeUpTimesOfStepsPassedBeforeItStarted(t *testing.T) {
	f := &feed{}
	c := &stepClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	tr := NewTracker(class.Identity{Learner: "learner-01", Lab: "gpu-incident"}, c.now)
	tr.Apply(Update{Report: f.failing()})
	c.t = c.t.Add(time.Minute)
	tr.Apply(Update{Report: f.failing("crd")})
	c.t = c.t.Add(time.Minute)
	tr.Apply(Update{Report: f.failing()})
	s1 := tr.Record().Step(1)
	if !s1.Arrived.IsZero() || !s1.FirstPassed.IsZero() {
		t.Fatalf("times made up for a step passed before start: %+v", s1)
	}
	if _, ok := s1.TimeToPass(); ok {
		t.Fatal("a time to pass for a step passed before start")
	}
}
