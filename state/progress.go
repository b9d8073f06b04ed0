package state

import (
	"maps"
	"sort"
	"strings"
	"time"
)

// EventKind is something the learner did that progress remembers.
type EventKind string

const (
	// Visited: the learner opened a page (Step 0 is the introduction).
	Visited EventKind = "visited"
	// HintOpened: the learner opened hint number Hint (1-based) of Step.
	HintOpened EventKind = "hint"
	// SolutionOpened: the learner confirmed and opened Step's worked solution.
	SolutionOpened EventKind = "solution"
	// StepPassed: Step's checks all passed (only the first time is kept).
	StepPassed EventKind = "passed"
	// CaughtUp: `labmate catch-up` brought Step to its reference.
	CaughtUp EventKind = "caught-up"
)

// Event is one progress change, as the TUI (or `check --watch`) reports it.
type Event struct {
	Kind EventKind
	Step int
	Hint int // for HintOpened
	At   time.Time
}

// Apply folds one event into the progress and reports whether anything
// changed. Events are idempotent: opening hint 2 twice counts once, a step
// keeps the time it first passed, and reopening an earlier hint never
// lowers the count.
func (p *Progress) Apply(ev Event) bool {
	at := ev.At
	if at.IsZero() {
		at = time.Now()
	}
	at = at.UTC()
	changed := false
	if p.StartedAt.IsZero() {
		p.StartedAt = at
		changed = true
	}
	switch ev.Kind {
	case Visited:
		if ev.Step >= 0 && p.CurrentStep != ev.Step {
			p.CurrentStep = ev.Step
			changed = true
		}
	case HintOpened:
		if ev.Step > 0 && ev.Hint > p.HintsSeen[ev.Step] {
			if p.HintsSeen == nil {
				p.HintsSeen = map[int]int{}
			}
			p.HintsSeen[ev.Step] = ev.Hint
			changed = true
		}
	case SolutionOpened:
		if ev.Step > 0 && !p.SolutionSeen[ev.Step] {
			if p.SolutionSeen == nil {
				p.SolutionSeen = map[int]bool{}
			}
			p.SolutionSeen[ev.Step] = true
			changed = true
		}
	case StepPassed:
		// A caught-up step passes by labmate's hand, not the learner's.
		if _, ok := p.PassedAt[ev.Step]; ev.Step > 0 && !ok && !p.IsCaughtUp(ev.Step) {
			if p.PassedAt == nil {
				p.PassedAt = map[int]time.Time{}
			}
			p.PassedAt[ev.Step] = at
			changed = true
		}
	case CaughtUp:
		// A step the learner passed once stays theirs.
		if _, ok := p.PassedAt[ev.Step]; ev.Step > 0 && !ok && !p.IsCaughtUp(ev.Step) {
			if p.CaughtUpAt == nil {
				p.CaughtUpAt = map[int]time.Time{}
			}
			p.CaughtUpAt[ev.Step] = at
			changed = true
		}
	}
	return changed
}

// RecordHand keeps act unless the progress holds a hand act as new or
// newer; it reports whether act was kept.
func (p *Progress) RecordHand(act HandAct) bool {
	if act.At.IsZero() || p.Hand != nil && !act.At.After(p.Hand.At) {
		return false
	}
	act.At = act.At.UTC()
	p.Hand = &act
	return true
}

// IsCaughtUp reports whether catch-up brought step n to its reference.
func (p Progress) IsCaughtUp(n int) bool {
	_, ok := p.CaughtUpAt[n]
	return ok
}

// Done are the steps behind the learner, in order: those they passed
// and those catch-up brought to the reference. A run starts from them
// (labrun.Options.Passed), so neither kind counts as a first pass again.
func (p Progress) Done() []int {
	var out []int
	for n := range p.PassedAt {
		out = append(out, n)
	}
	for n := range p.CaughtUpAt {
		if _, ok := p.PassedAt[n]; !ok {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out
}

// Merge folds another copy of the progress into p (for a caller that holds
// a whole Progress rather than events): the earliest pass time and start
// wins, hint counts and opened solutions only grow, and o's current page
// wins, and so does the newer hand act. It reports whether p changed.
func (p *Progress) Merge(o Progress) bool {
	changed := false
	if !o.StartedAt.IsZero() && (p.StartedAt.IsZero() || o.StartedAt.Before(p.StartedAt)) {
		p.StartedAt = o.StartedAt
		changed = true
	}
	if p.CurrentStep != o.CurrentStep {
		p.CurrentStep = o.CurrentStep
		changed = true
	}
	for step, at := range o.PassedAt {
		if old, ok := p.PassedAt[step]; !ok || at.Before(old) {
			if p.PassedAt == nil {
				p.PassedAt = map[int]time.Time{}
			}
			p.PassedAt[step] = at
			changed = true
		}
	}
	for step, at := range o.CaughtUpAt {
		changed = p.Apply(Event{Kind: CaughtUp, Step: step, At: at}) || changed
	}
	if o.Hand != nil {
		changed = p.RecordHand(*o.Hand) || changed
	}
	for step, n := range o.HintsSeen {
		changed = p.Apply(Event{Kind: HintOpened, Step: step, Hint: n, At: p.StartedAt}) || changed
	}
	for step, seen := range o.SolutionSeen {
		if seen {
			changed = p.Apply(Event{Kind: SolutionOpened, Step: step, At: p.StartedAt}) || changed
		}
	}
	return changed
}

// ResetStep forgets one step: when it passed, its hints and solution, and
// the witnessed facts whose keys belong to it (checks.Step.Remember keys
// start with the step's ID and a slash). It reports what it removed.
func (f *File) ResetStep(step int, stepID string) (removed Cleared) {
	if _, ok := f.Progress.PassedAt[step]; ok {
		removed.Passed = 1
		delete(f.Progress.PassedAt, step)
	}
	if f.Progress.IsCaughtUp(step) {
		removed.CaughtUp = 1
		delete(f.Progress.CaughtUpAt, step)
	}
	if n := f.Progress.HintsSeen[step]; n > 0 {
		removed.Hints = n
		delete(f.Progress.HintsSeen, step)
	}
	if f.Progress.SolutionSeen[step] {
		removed.Solutions = 1
		delete(f.Progress.SolutionSeen, step)
	}
	prefix := stepID + "/"
	for k := range f.Witness.Facts {
		if stepID != "" && strings.HasPrefix(k, prefix) {
			delete(f.Witness.Facts, k)
			removed.Facts = append(removed.Facts, k)
		}
	}
	sort.Strings(removed.Facts)
	return removed
}

// Preview says what ResetStep (step > 0) or a reset of everything
// (step 0) would remove, without changing f.
func (f File) Preview(step int, stepID string) Cleared {
	if step > 0 {
		c := f
		c.Progress.PassedAt = maps.Clone(f.Progress.PassedAt)
		c.Progress.CaughtUpAt = maps.Clone(f.Progress.CaughtUpAt)
		c.Progress.HintsSeen = maps.Clone(f.Progress.HintsSeen)
		c.Progress.SolutionSeen = maps.Clone(f.Progress.SolutionSeen)
		c.Witness.Facts = maps.Clone(f.Witness.Facts)
		return c.ResetStep(step, stepID)
	}
	var all Cleared
	all.Passed = len(f.Progress.PassedAt)
	all.CaughtUp = len(f.Progress.CaughtUpAt)
	for _, n := range f.Progress.HintsSeen {
		all.Hints += n
	}
	for _, seen := range f.Progress.SolutionSeen {
		if seen {
			all.Solutions++
		}
	}
	for k := range f.Witness.Facts {
		all.Facts = append(all.Facts, k)
	}
	sort.Strings(all.Facts)
	return all
}

// Cleared says what a reset removes, for the confirmation message.
type Cleared struct {
	Passed    int // steps whose first-pass time goes
	CaughtUp  int // steps whose catch-up mark goes
	Hints     int // opened hints
	Solutions int // opened solutions
	Facts     []string
}

// Empty reports whether there is nothing to remove.
func (c Cleared) Empty() bool {
	return c.Passed == 0 && c.CaughtUp == 0 && c.Hints == 0 && c.Solutions == 0 && len(c.Facts) == 0
}

// StepTimes is how long each step took the learner: from the pass before
// it (or from started, for the first to pass) to its own first pass, the
// passes in the order they happened. A step not passed has none, and so
// does the first when started is not known.
func StepTimes(started time.Time, passedAt map[int]time.Time) map[int]time.Duration {
	type pass struct {
		n  int
		at time.Time
	}
	var ps []pass
	for n, at := range passedAt {
		if !at.IsZero() {
			ps = append(ps, pass{n, at})
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		if !ps[i].at.Equal(ps[j].at) {
			return ps[i].at.Before(ps[j].at)
		}
		return ps[i].n < ps[j].n
	})
	out := map[int]time.Duration{}
	prev := started
	for _, p := range ps {
		if !prev.IsZero() && !p.at.Before(prev) {
			out[p.n] = p.at.Sub(prev)
		}
		prev = p.at
	}
	return out
}
