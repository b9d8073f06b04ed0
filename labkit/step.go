package labkit

import (
	"slices"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/content"
	"github.com/labhub/labmate/observe"
)

// evalStep evaluates a declarative step: its file checks always, its live
// checks only while the cluster may be trusted (the gate says why not).
func evalStep(in checks.Input, stepID string, entries []entry) checks.StepEval {
	var ev checks.StepEval
	liveOK := true
	if slices.ContainsFunc(entries, func(e entry) bool { return e.check.Live() }) {
		var gate checks.StepEval
		liveOK = checks.LiveChecksMayRun(in, &gate, stepID)
		ev.Observed = append(ev.Observed, gate.Observed...)
		ev.Checks = append(ev.Checks, gate.Checks...)
	}
	cv := newView(in.Snap)
	status := map[string]checks.Status{}
	for _, e := range entries {
		if e.check.Live() && !liveOK {
			continue
		}
		var r checks.Result
		var fact *checks.Fact
		if e.bad != nil {
			r = checks.Result{ID: e.id, Status: checks.Error, Message: msgf("labkit.authoring", "err", e.bad.Error())}
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
func rememberStep(snap *observe.Snapshot, w *checks.Witness, entries []entry) bool {
	changed := false
	cv := newView(snap)
	for _, e := range entries {
		if r, ok := e.check.(rememberer); ok && e.bad == nil && r.Remember(snap, w, cv) {
			changed = true
		}
	}
	return changed
}

// text is the lab's message for key, or the shared default.
func text(in checks.Input, key, def string, kv ...any) string {
	if key != "" {
		return in.Msg(key, kv...)
	}
	return in.Msg(def, kv...)
}
