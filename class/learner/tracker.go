package learner

import (
	"reflect"
	"slices"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/class"
	"github.com/labhub/labmate/engine"
	"github.com/labhub/labmate/labrun"
	"github.com/labhub/labmate/state"
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
	// Hand raises (Up, with the learner's note) or lowers the learner's
	// hand on their current step.
	Hand *Hand
	// CaughtUp is a step `labmate catch-up` brought to its reference.
	CaughtUp int
	// Ack is the instructor's newest acknowledgement (WatchAcks).
	Ack *class.Ack
}

// Hand is the learner raising or lowering their hand: in this labmate
// (At zero: now, on the current step) or in another terminal, read
// from the state file (state.HandAct). Only the newest act counts: one
// older than the last the tracker took is stale and changes nothing.
type Hand struct {
	Up   bool
	Note string
	// Step is the step the hand went up on (0: the current step).
	Step int
	// At is when the learner acted (zero: now). A raised hand is named
	// by it, to the second (class.Hand.Raised).
	At time.Time
}

// Act is h as the state file keeps it.
func (h Hand) Act() state.HandAct {
	return state.HandAct{Up: h.Up, Step: h.Step, Note: h.Note, At: h.At}
}

// HandOf is the act the state file keeps as an Update's Hand.
func HandOf(a state.HandAct) *Hand { return &Hand{Up: a.Up, Note: a.Note, Step: a.Step, At: a.At} }

// Hints is how far the learner went up one step's hint ladder.
type Hints struct {
	Step     int
	Seen     int
	Solution bool
}

// Tracker folds Updates into a Record and tells whether something a
// teacher cares about changed. It is pure apart from its clock, and not
// safe for concurrent use (Publisher serialises it).
type Tracker struct {
	rec   class.Record
	hints map[int]Hints
	now   func() time.Time
	// started is set by the first ready report; steps passed in it were
	// passed before this labmate saw them (beforeStart), so when they
	// were reached and passed is not known and is never made up.
	started     bool
	beforeStart map[int]bool
	// last is the newest ready report's steps, for a hand's checks.
	last     map[int]engine.StepResult
	caughtUp map[int]bool
	// hands counts the hands raised per step, ackSecs the seconds each
	// acknowledged one waited.
	hands   map[int]int
	ackSecs map[int][]int
	// mistake names a failing check's mistake (content.Lab.Mistake).
	mistake func(step int, check, message string) string
	// handAt is when the newest hand act taken happened; pendingHand an
	// act taken before the first ready report said where the learner
	// is (an earlier run's hand, seeded).
	handAt      time.Time
	pendingHand *Hand
}

// NameMistakes makes the tracker name each failing step's mistake with
// name (content.Lab.Mistake of the learner's lab).
func (t *Tracker) NameMistakes(name func(step int, check, message string) string) { t.mistake = name }

// NewTracker starts an empty record for id. now is the clock (time.Now
// when nil).
func NewTracker(id class.Identity, now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	return &Tracker{
		rec:         class.NewRecord(id),
		hints:       map[int]Hints{},
		now:         now,
		beforeStart: map[int]bool{},
		last:        map[int]engine.StepResult{},
		caughtUp:    map[int]bool{},
		hands:       map[int]int{},
		ackSecs:     map[int][]int{},
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
	if u.CaughtUp > 0 {
		t.caughtUp[u.CaughtUp] = true
	}
	if u.Report != nil && u.Report.Ready {
		t.applyReport(u.Report, now)
	}
	t.foldHand(u.Hand)
	if h := t.rec.Hand; u.Ack != nil && u.Ack.Acknowledges(h) && h.Acked.IsZero() {
		h.Acked = now
		if secs := t.ackSecs[h.Step]; len(secs) < class.MaxHands {
			t.ackSecs[h.Step] = append(secs, int(max(0, now.Sub(h.Raised))/time.Second))
		}
	}
	for i := range t.rec.Steps {
		s := &t.rec.Steps[i]
		h := t.hints[s.Number]
		s.Hints, s.Solution = h.Seen, h.Solution
		s.CaughtUp = t.caughtUp[s.Number] && s.Status == checks.Passed
		s.Hands, s.AckSeconds = t.hands[s.Number], slices.Clone(t.ackSecs[s.Number])
	}
	t.rec.Updated = before.Updated
	if reflect.DeepEqual(before, t.Record()) {
		return false
	}
	t.rec.Updated = now
	return true
}

func (t *Tracker) applyReport(u *labrun.Update, now time.Time) {
	prev := map[int]class.StepRecord{}
	for _, s := range t.rec.Steps {
		prev[s.Number] = s
	}
	changed := map[int]bool{}
	for _, c := range u.Changes {
		changed[c.Step] = true // a new status: since now
		if c.Regressed() && u.SinceReady {
			t.rec.Regression = &class.Regression{Step: c.Step, From: c.From, To: c.To, At: now}
		}
	}
	current := u.Current()
	first := !t.started
	t.started = true
	steps := make([]class.StepRecord, 0, len(u.Steps))
	for _, sr := range u.Steps {
		p, seen := prev[sr.Number]
		s := class.StepRecord{Number: sr.Number, Status: sr.Status, Since: now, Arrived: p.Arrived, FirstPassed: p.FirstPassed, Attempts: p.Attempts}
		if seen && !changed[sr.Number] {
			s.Since = p.Since
		}
		for _, c := range sr.Checks {
			if c.Status != checks.Passed {
				s.Failing = append(s.Failing, class.FailingCheck{ID: c.ID, Status: c.Status})
				if s.Mistake == "" && t.mistake != nil {
					s.Mistake = class.Clip(t.mistake(sr.Number, c.ID, c.Message), class.MaxLabelRunes)
				}
			}
		}
		t.last[sr.Number] = sr
		t.fold(&s, p, first, sr.Number == current, slices.Contains(u.FirstPassed, sr.Number), now)
		steps = append(steps, s)
	}
	if current != t.rec.Current || t.rec.CurrentSince.IsZero() {
		t.rec.Current, t.rec.CurrentSince = current, now
	}
	t.rec.Steps = steps
}

// fold updates a step's arrival, first pass and attempts from its
// previous state p: current says it is now the learner's step (the
// report's Current), firstPass that it first passed with this update
// (labrun's rule). What steps first passed and which is current is the
// run's to say; the tracker decides only what it times: nothing of a
// step already passed at the first report it saw (when it was reached
// and passed is not known there, and is never made up).
func (t *Tracker) fold(s *class.StepRecord, p class.StepRecord, first, current, firstPass bool, now time.Time) {
	passed := s.Status == checks.Passed
	if first && passed {
		t.beforeStart[s.Number] = true
	}
	if t.beforeStart[s.Number] {
		return
	}
	if (current || passed) && s.Arrived.IsZero() {
		s.Arrived = now
	}
	if firstPass && s.FirstPassed.IsZero() {
		s.FirstPassed = now
	}
	// An attempt is a change of what fails while the learner is on the
	// step (it was current before this report).
	if t.rec.Current == s.Number && !first && !sameFailing(p.Failing, s.Failing) {
		s.Attempts = min(s.Attempts+1, class.MaxAttempts)
	}
}

// foldHand raises or lowers the hand, lowers it when its step passed,
// and keeps an up hand's checks those of the newest report.
func (t *Tracker) foldHand(u *Hand) {
	if u != nil {
		at := u.At
		if at.IsZero() {
			// This labmate's own act, now: it always counts, and comes
			// after every act taken before (a clock read twice in one
			// instant, or a file act stamped ahead).
			at = t.now()
			if !at.After(t.handAt) {
				at = t.handAt.Add(time.Nanosecond)
			}
		}
		if at.After(t.handAt) {
			t.handAt = at
			act := *u
			act.At = at
			t.pendingHand = &act
		}
	}
	if act := t.pendingHand; act != nil && t.started {
		t.pendingHand = nil
		t.act(act)
	}
	hand := t.rec.Hand
	if hand == nil {
		return
	}
	if s := t.rec.Step(hand.Step); s != nil && s.Status == checks.Passed {
		t.rec.Hand = nil // the step passed: help is no longer needed there
		return
	}
	h := t.hints[hand.Step]
	hand.Hints, hand.Solution = max(hand.Hints, h.Seen), hand.Solution || h.Solution
	hand.Checks = hand.Checks[:0]
	for _, c := range t.last[hand.Step].Checks {
		if c.Status != checks.Passed && len(hand.Checks) < class.MaxHandChecks {
			hand.Checks = append(hand.Checks, class.HandCheck{ID: class.Clip(c.ID, 128), Message: class.Clip(c.Message, class.MaxMessageRunes)})
		}
	}
}

// act raises or lowers the hand (u.At set): up on the act's step when
// the record has it (an act from the state file), else on the current
// step, named by u.At to the second; never when every step passed.
func (t *Tracker) act(u *Hand) {
	if !u.Up {
		t.rec.Hand = nil
		return
	}
	step := t.rec.Current
	if u.Step > 0 && t.rec.Step(u.Step) != nil {
		step = u.Step
	}
	if step == 0 {
		return
	}
	h := t.hints[step]
	t.rec.Hand = class.Raise(step, u.At, u.Note, h.Seen, h.Solution)
	t.hands[step] = min(t.hands[step]+1, class.MaxHands)
}

// sameFailing compares two steps' failing checks by ID, order aside.
func sameFailing(a, b []class.FailingCheck) bool {
	if len(a) != len(b) {
		return false
	}
	ids := func(fs []class.FailingCheck) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.ID
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(ids(a), ids(b))
}

// Record returns a deep copy of the record.
func (t *Tracker) Record() class.Record {
	r := t.rec
	r.Steps = make([]class.StepRecord, len(t.rec.Steps))
	for i, s := range t.rec.Steps {
		s.Failing = slices.Clone(s.Failing)
		s.AckSeconds = slices.Clone(s.AckSeconds)
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
	if t.rec.Hand != nil {
		h := *t.rec.Hand
		h.Checks = slices.Clone(h.Checks)
		r.Hand = &h
	}
	return r
}
