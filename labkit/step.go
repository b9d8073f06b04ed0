package labkit

import (
	"slices"
	"time"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// evalStep evaluates a declarative step: its file checks always, its live
// checks only while the cluster may be trusted (the gate says why not).
func evalStep(in checks.Input, stepID string, entries []entry, custom customKinds) checks.StepEval {
	var ev checks.StepEval
	liveOK := true
	if slices.ContainsFunc(entries, func(e entry) bool { return e.check.Live() }) {
		var gate checks.StepEval
		liveOK = checks.LiveChecksMayRun(in, &gate, stepID)
		ev.Observed = append(ev.Observed, gate.Observed...)
		ev.Checks = append(ev.Checks, gate.Checks...)
	}
	cv := newView(in.Snap, custom)
	status := map[string]checks.Status{}
	for _, e := range entries {
		if e.check.Live() && !liveOK {
			continue
		}
		var r checks.Result
		var fact *checks.Fact
		if e.bad != nil {
			r = checks.Result{ID: e.id, Status: checks.Error, Message: e.bad.shown}
		} else if m, gone := missingKind(in, e.kinds); gone {
			r = checks.Result{ID: e.id, Status: checks.Unknown, Message: in.Msg("labkit.kind_missing", "resource", m.Resource, "kind", m.Kind)}
		} else if dep := unmetNeed(e.spec, status); dep != "" {
			r = checks.Wait(e.id, in.Msg("labkit.needs", "check", dep))
		} else {
			r, fact = e.check.Eval(in, cv)
			if r.Status != checks.Passed && e.spec.Hint != "" {
				r.Message += in.Msg(e.spec.Hint)
			}
		}
		status[e.spec.ID] = r.Status
		ev.Checks = append(ev.Checks, r)
		if fact != nil {
			ev.Observed = append(ev.Observed, *fact)
		}
	}
	return ev
}

// missingKind is the first of kinds the cluster does not serve.
func missingKind(in checks.Input, kinds []string) (observe.Missing, bool) {
	for _, m := range in.Snap.Cluster.Missing {
		if slices.Contains(kinds, m.Kind) {
			return m, true
		}
	}
	return observe.Missing{}, false
}

func unmetNeed(spec content.Check, status map[string]checks.Status) string {
	for _, n := range spec.Needs {
		if status[n] != checks.Passed {
			return n
		}
	}
	return ""
}

// rememberStep records what the checks of a step that remember saw now.
func rememberStep(snap *observe.Snapshot, w *checks.Witness, stepID string, first, inOrder bool, entries []entry, custom customKinds) bool {
	// The first step has nothing before it: always in order, nothing to keep.
	m, changed := moment{inOrder: true}, false
	if !first {
		m, changed = orderOf(snap, w, stepID, inOrder)
	}
	cv := newView(snap, custom)
	for _, e := range entries {
		if r, ok := e.check.(rememberer); ok && e.bad == nil && r.Remember(snap, w, m, cv) {
			changed = true
		}
	}
	return changed
}

// moment is where the learner's progress stood when a check remembers:
// inOrder, every earlier step of the lab had passed, continuously since
// the time since (kept in the witness, so a restart or a replay knows it).
type moment struct {
	inOrder bool
	since   time.Time
}

// counts says whether an observation at time at, of a check that may or
// may not be made out of order, is evidence for its step.
func (m moment) counts(anyTime bool, at time.Time) bool {
	return anyTime || m.inOrder && !at.Before(m.since)
}

// orderKey is where a step keeps the time its earlier steps last all
// turned passed.
func orderKey(stepID string) string { return stepID + "/.in-order-since" }

// orderOf reads and keeps the step's moment: the time every earlier step
// turned passed is set when they do and forgotten when one no longer is.
func orderOf(snap *observe.Snapshot, w *checks.Witness, stepID string, inOrder bool) (moment, bool) {
	key := orderKey(stepID)
	f, known := w.Get(key)
	switch {
	case inOrder && !known:
		f = checks.WitnessFact{Seen: snap.Time}
		return moment{inOrder: true, since: f.Seen}, w.Set(key, f)
	case !inOrder && known:
		return moment{}, w.Forget(key)
	}
	return moment{inOrder: inOrder, since: f.Seen}, false
}

// text is the lab's message for key, or the shared default.
func text(in checks.Input, key, def string, kv ...any) string {
	if key != "" {
		return in.Msg(key, kv...)
	}
	return in.Msg(def, kv...)
}
