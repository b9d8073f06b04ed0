package engine

import (
	"time"

	"github.com/labhub/labmate/checks"
)

// Green at once, red when quiet.
//
// A file source reads a file the moment it changes, so a save that makes
// a step right is shown at once. The same read may catch an editor half
// way (truncate-then-write, a file written in chunks): shown as is, that
// is a red flash. The settle gate therefore compares each new evaluation
// with the last published one check by check, and holds a step whose
// checks got worse while a file that step (or an earlier step) reads is
// still changing. When the files have been quiet for the
// settle window, the step is shown as it then is, red included.

// defaultSettle is how long a file must be quiet before a result it made
// worse is shown: the file source's debounce. defaultMaxHold caps the
// hold under a file that never stops changing.
const (
	defaultSettle  = 40 * time.Millisecond
	defaultMaxHold = 250 * time.Millisecond
)

// rank orders statuses for "better or worse": passed beats waiting and
// unknown (nothing the learner must fix yet), which beat failed and error.
func rank(s checks.Status) int {
	switch s {
	case checks.Passed:
		return 3
	case checks.Waiting, checks.Unknown:
		return 2
	default:
		return 1
	}
}

// worse reports whether any check of now is worse than the same check
// (by ID) in before. A check without a counterpart is compared with the
// step's former status, so a new failing check ("could not parse") on a
// passed step counts as worse. Per check, not per step: one check fixed
// and another broken is not progress.
func worse(before, now StepResult) bool {
	if rank(now.Status) < rank(before.Status) {
		return true
	}
	old := make(map[string]checks.Status, len(before.Checks))
	for _, c := range before.Checks {
		old[c.ID] = c.Status
	}
	for _, c := range now.Checks {
		prev, ok := old[c.ID]
		if !ok {
			prev = before.Status
		}
		if rank(c.Status) < rank(prev) {
			return true
		}
	}
	return false
}

// burst is one file's run of changes.
type burst struct{ first, last time.Time }

// settleGate decides what of an evaluation to publish. It is pure (time
// comes in as arguments) so it is tested without clocks or sleeps.
type settleGate struct {
	settle, maxHold time.Duration
	// stepFiles are the files each step reads, by step number.
	stepFiles map[int][]string
	dirty     map[string]burst
	published *Report
}

func newSettleGate(settle, maxHold time.Duration, stepFiles map[int][]string) *settleGate {
	if settle == 0 {
		settle = defaultSettle
	}
	if maxHold == 0 {
		maxHold = defaultMaxHold
	}
	return &settleGate{settle: settle, maxHold: maxHold, stepFiles: stepFiles, dirty: map[string]burst{}}
}

// fileChanged notes that a new state of path was observed at now.
func (g *settleGate) fileChanged(path string, now time.Time) {
	if g.settle < 0 {
		return
	}
	b, ok := g.dirty[path]
	if !ok || !now.Before(g.deadline(b)) {
		// A new burst: the last one went quiet, even if no evaluation
		// since noticed.
		b.first = now
	}
	b.last = now
	g.dirty[path] = b
}

func (g *settleGate) deadline(b burst) time.Time {
	d := b.last.Add(g.settle)
	if cap := b.first.Add(g.maxHold); cap.Before(d) {
		d = cap
	}
	return d
}

// expire forgets files that have been quiet long enough.
func (g *settleGate) expire(now time.Time) {
	for p, b := range g.dirty {
		if !now.Before(g.deadline(b)) {
			delete(g.dirty, p)
		}
	}
}

// view returns what to show for rep at now: rep itself, except that a
// step whose checks got worse keeps its published result while a file of
// it or of an earlier step is unsettled. wake is when to look again (zero
// when nothing is held).
func (g *settleGate) view(rep Report, now time.Time) (out Report, wake time.Time) {
	g.expire(now)
	// Before the first report that is ready nothing is held: `check`
	// takes that report as the answer, so it must be exact.
	if g.published == nil || !g.published.Ready || len(g.dirty) == 0 {
		return rep, time.Time{}
	}
	unsettled := false
	var steps []StepResult
	for i, st := range rep.Steps {
		for _, f := range g.stepFiles[st.Number] {
			if _, ok := g.dirty[f]; ok {
				unsettled = true
			}
		}
		prev := g.published.Step(st.Number)
		if !unsettled || prev == nil || !worse(*prev, st) {
			continue
		}
		if steps == nil {
			steps = append([]StepResult(nil), rep.Steps...)
		}
		steps[i] = *prev
	}
	if steps == nil {
		return rep, time.Time{}
	}
	rep.Steps = steps
	for _, b := range g.dirty {
		if d := g.deadline(b); wake.IsZero() || d.Before(wake) {
			wake = d
		}
	}
	return rep, wake
}

// shown records what was published.
func (g *settleGate) shown(rep Report) { g.published = &rep }
