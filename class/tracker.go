package class

import (
	"reflect"
	"slices"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/labrun"
)

// Update is one learner-side fact, from the TUI or from `check --watch`;
// any field may be unset. Both feed the same Publisher with it.
type Update struct {
	// Report is a new evaluation, with the steps whose status changed
	// since the one before. Reports before every source delivered its
	// first state (Ready false) are ignored: their statuses are not the
	// learner's yet.
	Report *labrun.Update
	// Page is the page the learner opened in the TUI.
	Page *int
	// Hints is a step's place on the hint ladder.
	Hints *Hints
}

// Hints is how far the learner went up one step's hint ladder.
type Hints struct {
	Step     int
	Seen     int
	Solution bool
}

// Identity is who publishes: the slot init gave the learner, the name
// they chose, the lab and labmate's version.
type Identity struct {
	Learner string
	Name    string
	Lab     string
	// LabVersion is the version of the lab run (the class's lab, or an
	// installed one); empty when the lab has none.
	LabVersion string
	Labmate    string
}

// Tracker folds Updates into a Record and tells whether something a
// teacher cares about changed. It is pure apart from its clock, and not
// safe for concurrent use (Publisher serialises it).
type Tracker struct {
	rec   Record
	hints map[int]Hints
	now   func() time.Time
}

// NewTracker starts an empty record for id. now is the clock (time.Now
// when nil).
func NewTracker(id Identity, now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	name := displayName(id.Name)
	if name == "" {
		name = id.Learner
	}
	return &Tracker{
		rec:   Record{Schema: Schema, Learner: id.Learner, Name: name, Lab: id.Lab, LabVersion: id.LabVersion, Labmate: id.Labmate, Steps: []StepRecord{}},
		hints: map[int]Hints{},
		now:   now,
	}
}

// Apply folds u in and reports whether the record changed in a way a
// teacher cares about (a status, a failing check, the current step or
// page, a hint level, a regression).
func (t *Tracker) Apply(u Update) bool {
	before := t.Record()
	now := t.now().UTC().Truncate(time.Second)
	if u.Hints != nil && u.Hints.Step > 0 {
		h := *u.Hints
		old := t.hints[h.Step]
		// The ladder only climbs within a run; a stale, lower level
		// arriving late must not undo a higher one.
		h.Seen = max(h.Seen, old.Seen)
		h.Solution = h.Solution || old.Solution
		t.hints[h.Step] = h
	}
	if u.Page != nil {
		p := *u.Page
		t.rec.Page = &p
	}
	if u.Report != nil && u.Report.Ready {
		t.applyReport(u.Report, now)
	}
	for i := range t.rec.Steps {
		s := &t.rec.Steps[i]
		h := t.hints[s.Number]
		s.Hints, s.Solution = h.Seen, h.Solution
	}
	t.rec.Updated = before.Updated
	if reflect.DeepEqual(before, t.Record()) {
		return false
	}
	t.rec.Updated = now
	return true
}

func (t *Tracker) applyReport(u *labrun.Update, now time.Time) {
	since := map[int]time.Time{}
	for _, s := range t.rec.Steps {
		since[s.Number] = s.Since
	}
	for _, c := range u.Changes {
		delete(since, c.Step) // a new status: since now
		if c.Regressed() && u.SinceReady {
			t.rec.Regression = &Regression{Step: c.Step, From: c.From, To: c.To, At: now}
		}
	}
	steps := make([]StepRecord, 0, len(u.Steps))
	current := 0
	for _, sr := range u.Steps {
		s := StepRecord{Number: sr.Number, Status: sr.Status, Since: now}
		if at, ok := since[sr.Number]; ok {
			s.Since = at
		}
		for _, c := range sr.Checks {
			if c.Status != checks.Passed {
				s.Failing = append(s.Failing, FailingCheck{ID: c.ID, Status: c.Status})
			}
		}
		if current == 0 && sr.Status != checks.Passed {
			current = sr.Number
		}
		steps = append(steps, s)
	}
	if current != t.rec.Current || t.rec.CurrentSince.IsZero() {
		t.rec.Current, t.rec.CurrentSince = current, now
	}
	t.rec.Steps = steps
}

// Record returns a deep copy of the record.
func (t *Tracker) Record() Record {
	r := t.rec
	r.Steps = make([]StepRecord, len(t.rec.Steps))
	for i, s := range t.rec.Steps {
		s.Failing = slices.Clone(s.Failing)
		r.Steps[i] = s
	}
	if t.rec.Page != nil {
		p := *t.rec.Page
		r.Page = &p
	}
	if t.rec.Regression != nil {
		g := *t.rec.Regression
		r.Regression = &g
	}
	return r
}
