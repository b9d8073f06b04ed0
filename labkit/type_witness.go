package labkit

import (
	"k8s.io/apimachinery/pkg/fields"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/labmate/checks"
	"github.com/labhub/labmate/observe"
	"github.com/labhub/labmate/observe/cluster"
)

// witnessType: something was true of a live object in the past, and is
// remembered.
type witnessType struct{}

type witnessFields struct {
	objectSpec
	Held    string `toml:"held"`
	Event   string `toml:"event"`
	Remain  bool   `toml:"remain"`
	AnyTime bool   `toml:"any_time"`
}

var witnessKind = Kind{"witness", "Something was true in the past: the object met the `held` condition, or an event with reason `event` was recorded for it, at some point while labmate watched (remembered in the state file, tied to the object's UID). A later step's change does not turn it red, not even deleting the object or making another of its name; with `remain`, deleting or recreating the object does.", []Field{
	{"kind", true, "The object's kind (as for `object`)."},
	{"namespace", false, "Its namespace."},
	{"name", true, "Its name."},
	{"held", false, "A CEL condition over `object` (and `cluster`) that must have held once. One of `held` and `event` is required."},
	{"event", false, "An event reason (`FailedScheduling`) that must have been recorded for the object; the lab's `[cluster] event_reasons` must include it."},
	{"remain", false, "`true`: the object must still exist, with the UID it had when it was witnessed."},
	{"any_time", false, "`true`: an observation counts whenever it was made. Without it, it counts only if at that moment every earlier step of the lab had passed (an event: only if it happened since they all passed): a state reached before its prerequisites is no evidence for this step."},
}, []Text{
	{"pass", []string{"object", "when", "value"}},
	{"fail", []string{"object", "held", "reason"}},
	{"expect", []string{"object", "held", "reason"}},
}}

func (witnessType) Kind() Kind     { return witnessKind }
func (witnessType) Vars() []string { return []string{"object", "cluster"} }

func (witnessType) Compile(c *compiler) check {
	d := &witnessCheck{base: c.base()}
	c.decode(&d.witnessFields)
	d.requireWatched(c)
	if d.Held == "" && d.Event == "" || d.Held != "" && d.Event != "" {
		c.problem("labkit.field_one_of", "a", "held", "b", "event")
	}
	if d.Held != "" {
		d.held = c.expr(d.Held, "bool")
	}
	if d.Event != "" && !watchesEvent(c.scope, d.Event) {
		c.problem("labkit.unwatched_event", "reason", d.Event)
	}
	return d
}

// watchesEvent says whether the lab watches the events of a reason: all
// events, or those a field selector picks by that reason.
func watchesEvent(scope cluster.Scope, reason string) bool {
	w, ok := scope.Find("Event")
	if !ok {
		return false
	}
	if len(w.Fields) == 0 {
		return true
	}
	return slices.Contains(w.Fields, fields.OneTermEqualSelector("reason", reason).String())
}

type witnessCheck struct {
	base
	witnessFields
	held *expr
}

func (d *witnessCheck) Files() []string { return nil }
func (d *witnessCheck) Remembers() bool { return true }
func (d *witnessCheck) Live() bool      { return true }

// key is where the check's fact is remembered.
func (d *witnessCheck) key() string { return d.step + "/" + d.spec.ID }

// Remember records what the check saw now.
func (d *witnessCheck) Remember(snap *observe.Snapshot, w *checks.Witness, m moment, cv *view) bool {
	if !m.counts(d.AnyTime, snap.Time) {
		return false
	}
	o := snap.Object(d.Kind, d.Namespace, d.Name)
	if o == nil {
		return false
	}
	acc, err := meta.Accessor(o)
	if err != nil {
		return false
	}
	if f, known := w.Get(d.key()); known && f.UID == string(acc.GetUID()) {
		return false // the first sighting is the evidence
	}
	value := ""
	switch {
	case d.held != nil:
		ok, _ := d.held.evalBool(vars{object: cv.toCEL(d.Kind, o), cluster: cv})
		if !ok {
			return false
		}
	default:
		value = d.eventFor(snap, acc.GetUID(), m)
		if value == "" {
			return false
		}
	}
	return w.Set(d.key(), checks.WitnessFact{Value: value, UID: string(acc.GetUID()), Seen: snap.Time})
}

func (d *witnessCheck) Eval(in checks.Input, cv *view) (checks.Result, *checks.Fact) {
	ref := d.ref()
	label := in.Msg("labkit.fact.witness", "object", ref)
	o := in.Snap.Object(d.Kind, d.Namespace, d.Name)
	f, seen := in.Witness.Get(d.key())
	uid := ""
	if o != nil {
		if acc, err := meta.Accessor(o); err == nil {
			uid = string(acc.GetUID())
		}
	}
	if d.Remain && seen && uid != "" && f.UID != uid {
		seen = false // another object of that name: the evidence was not about it
	}
	// The shared texts name what was to be seen: the condition or the event.
	kv := []any{"object", ref, "held", d.Held, "reason", d.Event}
	expectKey, notYetKey := "labkit.witness.expect_held", "labkit.witness.not_yet_held"
	if d.Event != "" {
		expectKey, notYetKey = "labkit.witness.expect_event", "labkit.witness.not_yet_event"
	}
	expect := text(in, d.spec.Expect, expectKey, kv...)
	switch {
	case d.Remain && o == nil:
		key := "labkit.witness.absent"
		if f, had := in.Witness.Get(d.key()); had && f.UID != "" {
			key = "labkit.witness.gone"
		}
		r := checks.Fail(d.id, in.Msg(key, "object", ref), expect, in.Msg("cluster.absent"), ref)
		return r, &checks.Fact{Label: label, Value: in.Msg("cluster.absent")}
	case seen:
		when := f.Seen.Local().Format("15:04:05")
		r := checks.Pass(d.id, text(in, d.spec.Pass, "labkit.witness.ok", "object", ref, "when", when, "value", f.Value))
		r.Observed = in.Msg("labkit.witness.seen", "when", when)
		return r, &checks.Fact{Label: label, Value: r.Observed}
	}
	if o != nil && d.held != nil {
		// Remember cannot report; an error there would leave the
		// witness unseen for ever without a word.
		if _, err := d.held.evalBool(vars{object: cv.toCEL(d.Kind, o), cluster: cv}); err != nil {
			r := checks.Result{ID: d.id, Status: checks.Error, Message: in.Msg("labkit.rule_error", "expr", d.Held, "err", err), Where: ref}
			return r, &checks.Fact{Label: label, Value: in.Msg("labkit.witness.unseen")}
		}
	}
	r := checks.Fail(d.id, text(in, d.spec.Fail, notYetKey, kv...), expect, in.Msg("labkit.witness.unseen"), ref)
	return r, &checks.Fact{Label: label, Value: in.Msg("labkit.witness.unseen")}
}

// eventFor returns the message of the oldest event with the check's
// reason recorded for the object with uid (its reason when it has no
// message), or "".
func (d *witnessCheck) eventFor(snap *observe.Snapshot, uid types.UID, m moment) string {
	for _, e := range checks.Events(snap, d.Event, d.Kind, d.Namespace, d.Name, uid) {
		if !m.counts(d.AnyTime, e.At) {
			continue // it happened before the earlier steps all passed
		}
		if e.Message == "" {
			return d.Event
		}
		return e.Message
	}
	return ""
}
